#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the build into a scratch prefix, then checks what a user of the install gets: the
# transit tool runs, a CMake consumer finds the library with find_package(transit), and a
# plain compiler command finds it through pkg-config (transit.pc).
set -euo pipefail
build_dir=$1 source_dir=$2 scratch=$3 launcher=${4:-}
expected='["^ ","~:installed",true]'
rm -rf "$scratch"
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
prefix=$scratch/prefix

# The tool, from the installed bin/ (when the build has it).
if [[ -f $build_dir/transit ]]; then
  [[ -x $prefix/bin/transit ]] || { echo "cmake --install did not install bin/transit" >&2; exit 1; }
  out=$(echo '["^ ","~:a",1]' | "$prefix/bin/transit" convert --to json-verbose)
  [[ $out == '{"~:a":1}' ]] || { echo "installed transit convert printed: $out" >&2; exit 1; }
  "$prefix/bin/transit" --version
fi

# CMake: find_package(transit).
cmake -S "$source_dir" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$prefix" \
  ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher} >/dev/null
cmake --build "$scratch/build" >/dev/null
out=$("$scratch/build/consumer")
[[ $out == "$expected" ]] || { echo "find_package consumer printed: $out" >&2; exit 1; }
echo "find_package(transit) consumer: ok"

# pkg-config: the .pc file's prefix is relative to where it was installed.
pc_dir=$(dirname "$(find "$prefix" -name transit.pc | head -n 1)")
[[ -f $pc_dir/transit.pc ]] || { echo "cmake --install did not install transit.pc" >&2; exit 1; }
flags=$(PKG_CONFIG_PATH=$pc_dir pkg-config --cflags --libs transit)
# shellcheck disable=SC2086  # the flags are words
${CXX:-c++} -std=c++20 "$source_dir/main.cpp" -o "$scratch/pkg-consumer" $flags
out=$("$scratch/pkg-consumer")
[[ $out == "$expected" ]] || { echo "pkg-config consumer printed: $out" >&2; exit 1; }
echo "pkg-config transit consumer ($flags): ok"
