#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# transit-cpp: build and run. `./run.sh demo` shows the library at work; `./run.sh test` is
# what CI runs. Each command is a list of stages; a stage is a shell function, so adding one
# (sanitizers, fuzzing) is a function plus a line in the command's list.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

# TRANSIT_BUILD_DIR lets a second checkout or a local experiment build elsewhere.
readonly BUILD_DIR=${TRANSIT_BUILD_DIR:-build}
readonly PACKAGES=(cmake g++ make rapidjson-dev libmsgpack-cxx-dev libgtest-dev libbenchmark-dev
                   libsimdjson-dev)
# Only `test` needs these: clang and its sanitizer and libFuzzer runtimes for the sanitizer and
# fuzz stages, pkg-config for the test that builds a consumer of the installed library through
# transit.pc.
readonly TEST_PACKAGES=(clang-14 libclang-rt-14-dev pkgconf)
# Seconds each fuzzer runs in the fuzz stage (CI budget: six of them).
readonly FUZZ_SECONDS=${TRANSIT_FUZZ_SECONDS:-75}
readonly EXEMPLARS=../shared/transit-format/examples/0.8/simple

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

# Installs what is missing of PACKAGES and of the packages given as arguments. node and npm
# (the transit-js interop tests) come from Debian only when the commands are missing: a node
# installed some other way is used as it is.
stage_packages() {
  local missing=() pkg
  for pkg in "${PACKAGES[@]}" "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  command -v node >/dev/null 2>&1 || missing+=(nodejs)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
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

# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer, in its own build
# directory. Any report fails the test it happens in. Built with clang: its UBSan checks what
# GCC's does not (a downcast of a misaligned pointer, af236e0's bug, which only a fuzzer found);
# the Release build and ctest above are GCC's, so both compilers build and pass the suite.
stage_sanitize() {
  local dir=$BUILD_DIR-asan cxx
  cxx=$(command -v clang++-14 || command -v clang++) || die "the sanitizer stage needs clang++"
  say "configuring $dir (ASan + UBSan, $cxx)"
  cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRANSIT_WERROR=ON \
    -DTRANSIT_SANITIZE=address,undefined -DTRANSIT_BUILD_BENCH=OFF || die "cmake configure failed"
  say "building $dir"
  cmake --build "$dir" -j"$(nproc)" || die "sanitizer build failed"
  say "running the tests under ASan + UBSan"
  # alloc_dealloc_mismatch=0: Debian's libsimdjson (not built with ASan) allocates its parser's
  # implementation inside the shared library and its header code frees it at thread exit, which
  # ASan reports as "operator new vs free" in every test process. Every other check stays on.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:alloc_dealloc_mismatch=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$dir" --output-on-failure --no-tests=error -j2 || die "tests failed under ASan + UBSan"
}

# The thread tests (ctest -R Thread) under ThreadSanitizer, in their own build directory.
stage_tsan() {
  local dir=$BUILD_DIR-tsan
  say "configuring $dir (TSan)"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRANSIT_WERROR=ON \
    -DTRANSIT_SANITIZE=thread -DTRANSIT_BUILD_BENCH=OFF || die "cmake configure failed"
  say "building $dir"
  cmake --build "$dir" -j"$(nproc)" --target transit_tests || die "TSan build failed"
  # Listed into a variable first: under pipefail, `ctest | grep -q` fails whenever grep stops
  # reading before ctest has finished writing, which made the check skip the tests at random.
  local listed
  listed=$(ctest --test-dir "$dir" -N -R Thread) || die "ctest could not list the thread tests"
  # The suite has thread tests (Registry.*, WriterThreads.*): finding none means they were
  # lost, and a TSan stage that runs nothing proves nothing.
  [[ $listed == *"Test #"* ]] || die "no tests named *Thread* to run under TSan"
  say "running the thread tests under TSan"
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
    ctest --test-dir "$dir" -R Thread --output-on-failure -j2 || die "thread tests failed under TSan"
}

# Builds the libFuzzer targets with clang (ASan + UBSan) in their own build directory, seeds
# each corpus from the exemplars (typed_roundtrip's input is the choices of a value generator,
# not Transit: any bytes do, and the exemplars' let it start from values of every size), and runs
# each fuzzer for FUZZ_SECONDS. Any crash, leak, sanitizer report, timeout, out-of-memory or
# round-trip mismatch fails the stage; libFuzzer leaves the input in $dir/artifacts. Executions
# per second and corpus sizes are printed.
stage_fuzz() {
  local dir=$BUILD_DIR-fuzz cxx
  cxx=$(command -v clang++-14 || command -v clang++) || die "the fuzz stage needs clang++"
  [[ -d $EXEMPLARS ]] || die "no exemplars at $EXEMPLARS to seed the fuzzers"
  say "configuring $dir (libFuzzer, $cxx)"
  cmake -S . -B "$dir" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTRANSIT_WERROR=ON -DTRANSIT_FUZZ=ON -DTRANSIT_BUILD_TESTS=OFF -DTRANSIT_BUILD_BENCH=OFF \
    -DTRANSIT_BUILD_CLI=OFF || die "cmake configure failed"
  say "building $dir"
  cmake --build "$dir" -j"$(nproc)" || die "fuzz build failed"

  # Seeds: the exemplars as they are (for the typed round trip too, as choices); for the round
  # trip, prefixed with the byte that picks their encoding (0 JSON, 1 JSON-Verbose, 2 MessagePack).
  local seeds=$dir/seeds f base
  rm -rf "$seeds" "$dir/artifacts"
  mkdir -p "$seeds/json" "$seeds/msgpack" "$seeds/roundtrip" "$seeds/typed_roundtrip" \
    "$dir/artifacts"
  for f in "$EXEMPLARS"/*.json "$EXEMPLARS"/*.mp; do
    base=$(basename "$f")
    cp "$f" "$seeds/typed_roundtrip/"
    case $base in
      *.verbose.json) cp "$f" "$seeds/json/"; { printf '\001'; cat "$f"; } > "$seeds/roundtrip/$base" ;;
      *.json) cp "$f" "$seeds/json/"; { printf '\000'; cat "$f"; } > "$seeds/roundtrip/$base" ;;
      *.mp) cp "$f" "$seeds/msgpack/"; { printf '\002'; cat "$f"; } > "$seeds/roundtrip/$base" ;;
    esac
  done
  # And every input a fuzzer once failed on (tests/fuzz/regressions/ENCODING/), so that each
  # run replays them first, whatever the unit tests cover.
  for f in tests/fuzz/regressions/json/* tests/fuzz/regressions/msgpack/*; do
    [[ -f $f ]] || continue
    base=regression-$(basename "$f")
    case $f in
      */json/*) cp "$f" "$seeds/json/$base"; { printf '\000'; cat "$f"; } > "$seeds/roundtrip/$base" ;;
      */msgpack/*) cp "$f" "$seeds/msgpack/$base"; { printf '\002'; cat "$f"; } > "$seeds/roundtrip/$base" ;;
    esac
  done
  # The typed readers' seeds: their encoding's seeds above, the values each target writes of
  # its own types (TRANSIT_TYPED_SEEDS), and every input a typed fuzzer once failed on
  # (tests/fuzz/regressions/typed/, JSON as *.json, MessagePack as *.mp), which the readers'
  # targets replay too.
  local encoding
  for encoding in json msgpack; do
    mkdir -p "$seeds/typed_$encoding"
    cp "$seeds/$encoding"/* "$seeds/typed_$encoding/"
    TRANSIT_TYPED_SEEDS=$seeds/typed_$encoding ASAN_OPTIONS=detect_leaks=1:alloc_dealloc_mismatch=0 \
      "$dir/tests/fuzz/fuzz_typed_$encoding" || die "fuzz_typed_$encoding could not write its seeds"
  done
  for f in tests/fuzz/regressions/typed/*; do
    [[ -f $f ]] || continue
    base=regression-typed-$(basename "$f")
    case $f in
      *.json) cp "$f" "$seeds/typed_json/$base"; cp "$f" "$seeds/json/$base" ;;
      *.mp) cp "$f" "$seeds/typed_msgpack/$base"; cp "$f" "$seeds/msgpack/$base" ;;
    esac
  done

  # alloc_dealloc_mismatch=0 for libsimdjson's parser, as in stage_sanitize.
  # docs/performance-log.md, round twenty-eight's fuzzers: the typed readers take inputs to 16 KB
  # (a longer one cost about 30 times a short one's time, for a few edges their seeds now reach
  # in less: the cache wrapped at 1,936 keys); the typed round trip uses libFuzzer's plain
  # schedule, as the entropic one spent most of its time keeping its list of rare features.
  # Every target runs even when one before it failed: a failure must not hide what the later
  # targets would find (CI's run of stop 51 stopped at fuzz_json and never ran the other five).
  local target corpus log rc flags summary=() failed=()
  for target in json msgpack roundtrip typed_roundtrip typed_json typed_msgpack; do
    corpus=$dir/corpus/$target
    log=$dir/fuzz-$target.log
    case $target in
      typed_json | typed_msgpack) flags=(-max_len=16384) ;;
      typed_roundtrip) flags=(-max_len=65536 -entropic=0) ;;
      *) flags=(-max_len=65536) ;;
    esac
    mkdir -p "$corpus"
    say "fuzzing $target for ${FUZZ_SECONDS}s"
    rc=0
    ASAN_OPTIONS=detect_leaks=1:alloc_dealloc_mismatch=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      "$dir/tests/fuzz/fuzz_$target" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
      -rss_limit_mb=2048 "${flags[@]}" -print_final_stats=1 \
      -dict=tests/fuzz/transit.dict -artifact_prefix="$dir/artifacts/$target-" \
      "$corpus" "$seeds/$target" > "$log" 2>&1 || rc=$?
    if [[ $rc -ne 0 ]] || grep -qE 'ERROR: |runtime error:|SUMMARY: ' "$log"; then
      grep -E 'ERROR|runtime error|SUMMARY|Test unit written|fuzz:' "$log" | head -n 20 >&2
      printf 'run.sh: fuzzer %s failed (exit %s); log: %s\n' "$target" "$rc" "$log" >&2
      failed+=("$target")
      continue
    fi
    summary+=("$(printf '%-15s %8s exec/s  corpus %5s files  %s' "$target" \
      "$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")" \
      "$(find "$corpus" -type f | wc -l)" \
      "$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)")")
  done
  [[ ${#summary[@]} -eq 0 ]] || printf '  %s\n' "${summary[@]}" | tee "$dir/fuzz-summary.txt" >&2
  [[ ${#failed[@]} -eq 0 ]] || die "fuzzers failed: ${failed[*]} (artifacts in $dir/artifacts)"
  say "fuzzing: no crash, leak, sanitizer report, timeout or mismatch"
}

# The library as it builds where simdjson is not installed (or TRANSIT_SIMDJSON=OFF): every
# JSON text is then read by RapidJSON, in memory as from a stream. The test binaries are built
# and run whole (not through ctest: 1,300 processes cost more than the tests), the tool too, for
# the tests that run it. Round thirty-eight's first such build found a test that assumed
# simdjson; only the syntax of the sources that choose by TRANSIT_HAVE_SIMDJSON was checked.
stage_without_simdjson() {
  local dir=$BUILD_DIR-nosimdjson
  say "configuring $dir (no simdjson)"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DTRANSIT_WERROR=ON -DTRANSIT_SIMDJSON=OFF \
    -DTRANSIT_BUILD_BENCH=OFF || die "cmake configure failed"
  say "building $dir"
  cmake --build "$dir" -j"$(nproc)" --target transit_tests transit_typed_batch_tests ||
    die "build without simdjson failed"
  say "running the tests without simdjson"
  "$dir/tests/transit_tests" --gtest_brief=1 || die "tests failed without simdjson"
  "$dir/tests/transit_typed_batch_tests" --gtest_brief=1 || die "typed batch tests failed without simdjson"
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

# Runs a stage and says how long it took.
timed() {
  local start=$SECONDS
  "$@"
  say "$1: $((SECONDS - start)) s"
}

cmd_test() {
  timed stage_packages "${TEST_PACKAGES[@]}"
  timed stage_build -DTRANSIT_WERROR=ON
  timed stage_ctest
  timed stage_bench_smoke
  timed stage_without_simdjson
  timed stage_sanitize
  timed stage_tsan
  timed stage_fuzz
}

usage() {
  cat >&2 <<'EOF'
usage: ./run.sh <command>
  demo   install what is missing, build, and run `transit demo`
  test   install what is missing, build with -Werror, run the tests and a benchmark smoke run,
         then the unit tests of a build without simdjson, the tests under ASan+UBSan, the
         thread tests under TSan, and the fuzzers
         (TRANSIT_FUZZ_SECONDS each, default 75)
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
