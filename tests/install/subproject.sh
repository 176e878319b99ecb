#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds tests/install/subproject, a consumer that builds transit-cpp from source inside its
# own build (MODE: add_subdirectory or FetchContent from a local path), and runs it. No build
# type (no optimisation, no debug info), so that compiling the library takes as little time as
# it can, and transit must leave it unset.
set -euo pipefail
mode=$1 transit_source=$2 scratch=$3 launcher=${4:-}
rm -rf "$scratch"
cmake -S "$transit_source/tests/install/subproject" -B "$scratch" \
  -DTRANSIT_CONSUMER_MODE="$mode" -DTRANSIT_SOURCE="$transit_source" \
  ${launcher:+-DCMAKE_CXX_COMPILER_LAUNCHER=$launcher} >/dev/null
cmake --build "$scratch" -j2 >/dev/null
out=$("$scratch/consumer")
[[ $out == '["^ ","~:installed",true]' ]] || { echo "$mode consumer printed: $out" >&2; exit 1; }
echo "$mode consumer: ok"
