#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# transit-cpp: build and run. `./run.sh demo` shows the library at work; `./run.sh test` is
# what CI runs. Each command is a list of stages; a stage is a shell function, so adding one
# (sanitizers, fuzzing) is a function plus a line in the command's list.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

# TRANSIT_BUILD_DIR lets a second checkout or a local experiment build elsewhere.
readonly BUILD_DIR=${TRANSIT_BUILD_DIR:-build}
readonly PACKAGES=(cmake g++ make rapidjson-dev libmsgpack-cxx-dev libgtest-dev libbenchmark-dev)

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'run.sh: error: %s\n' "$*" >&2; exit 1; }

# Runs a command as root: directly when we are root, through sudo when it exists.
as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root to run '$*' (not root, and no sudo); install: ${PACKAGES[*]}"
  fi
}

# ---- stages ------------------------------------------------------------------------------------

stage_packages() {
  local missing=() pkg
  for pkg in "${PACKAGES[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    return 0
  fi
  say "installing missing packages: ${missing[*]}"
  as_root apt-get update || die "apt-get update failed"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "${missing[@]}" || die "could not install: ${missing[*]}"
}

# Configures and builds BUILD_DIR; extra arguments go to the cmake configure step.
stage_build() {
  say "configuring $BUILD_DIR $*"
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release "$@" || die "cmake configure failed"
  say "building $BUILD_DIR"
  cmake --build "$BUILD_DIR" -j"$(nproc)" || die "build failed"
}

stage_demo() {
  say "running the demo"
  "$BUILD_DIR/transit" demo || die "demo failed"
}

stage_ctest() {
  say "running the tests"
  # A test stage that finds no tests has proved nothing, so it fails.
  ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j2 || die "tests failed"
}

# Proves the benchmarks build, verify their results and run; the timings are not judged.
stage_bench_smoke() {
  local bench="$BUILD_DIR/bench/transit-bench"
  [[ -x $bench ]] || die "$bench was not built"
  say "benchmark smoke run"
  "$bench" --benchmark_min_time=0.01 || die "benchmarks failed"
}

# ---- commands ----------------------------------------------------------------------------------

cmd_demo() {
  stage_packages
  # Explicitly off: a build dir left configured by `test` must not make the demo fail on a
  # warning.
  stage_build -DTRANSIT_WERROR=OFF
  stage_demo
}

cmd_test() {
  stage_packages
  stage_build -DTRANSIT_WERROR=ON
  stage_ctest
  stage_bench_smoke
}

usage() {
  cat >&2 <<'EOF'
usage: ./run.sh <command>
  demo   install what is missing, build, and run `transit demo`
  test   install what is missing, build with -Werror, run the tests and a benchmark smoke run
EOF
}

main() {
  if [[ $# -ne 1 ]]; then
    usage
    exit 2
  fi
  case "$1" in
    demo) cmd_demo ;;
    test) cmd_test ;;
    -h | --help | help) usage ;;
    *)
      usage
      die "unknown command '$1'"
      ;;
  esac
  say "$1: ok"
}

main "$@"
