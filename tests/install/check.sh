#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the build into a scratch prefix, then configures, builds and runs a consumer that
# finds it with find_package(transit): proof that the install and export work.
set -euo pipefail
build_dir=$1 source_dir=$2 scratch=$3
rm -rf "$scratch"
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S "$source_dir" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/build" >/dev/null
out=$("$scratch/build/consumer")
[[ $out == '["^ ","~:installed",true]' ]] || { echo "consumer printed: $out" >&2; exit 1; }
echo "find_package(transit) consumer: ok"
