#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The instruction rows that docs/performance-log.md compares a change by: reads (typed,
# Value, with read handlers), writes, and small messages, each per read or write (callgrind,
# only the toggled function collected; a run of 0 subtracted). Counts repeat to the
# instruction between runs of one binary: std::random_device is fixed by an LD_PRELOAD shim
# (bench/fixed_random.cpp, built here if missing) and LD_BIND_NOW=1 keeps the dynamic
# loader's lazy binding out of the first call.
#
#   build/bench/transit-bench --dump /tmp/corpora
#   bench/count_rows.sh [build/bench/transit-read-file] [/tmp/corpora] [reads|writes|messages|all]
#
# To compare a change, build its tree and main's the same way and run this on both.
set -euo pipefail
TOOL=${1:-build/bench/transit-read-file}
DIR=${2:-/tmp/corpora}
WHICH=${3:-all}
HERE=$(cd "$(dirname "$0")" && pwd)
SHIM=${TRANSIT_COUNT_SHIM:-/tmp/fixed_random.so}
[[ -f $SHIM ]] || g++ -O2 -shared -fPIC -std=c++20 "$HERE/fixed_random.cpp" -o "$SHIM"
export LD_BIND_NOW=1

COUNT_PRELOAD=$SHIM
source "$HERE/callgrind_count.sh"  # count TOGGLE ARGS...
row() {  # row N TOGGLE FILE ARGS...: N reads less 0, and per read, with its arguments
  local n=$1 toggle=$2 file=$3; shift 3
  local many zero
  many=$(count "$toggle" "$TOOL" "$file" "$n" "$@")
  zero=$(count "$toggle" "$TOOL" "$file" 0 "$@")
  printf '| %s %s %s | %s | %s |\n' "$(basename "$file")" "$n" "$*" "$((many - zero))" "$(( (many - zero) / n ))"
}

# The performance log quotes the corpora's rows as their N = 3 total, the messages' per read.
echo "| row | N reads (or writes) less 0 | per read |"
echo "|---|---:|---:|"
if [[ $WHICH == reads || $WHICH == all ]]; then
  row 3 '*typed_read*' "$DIR/twitter.json" twitter
  row 3 '*typed_read*' "$DIR/twitter.json" twitter msgpack
  row 3 '*typed_read*' "$DIR/citm_catalog.json" citm
  row 3 '*typed_read*' "$DIR/citm_catalog.json" citm msgpack
  row 3 '*transit_read(*' "$DIR/twitter.json" transit
  row 3 '*transit_read(*' "$DIR/keywords.json" transit
  row 3 '*transit_read(*' "$DIR/keywords.json" transit msgpack
  row 3 '*transit_read(*' "$DIR/extensions.json" transit
  row 3 '*handled_read(*' "$DIR/extensions.json" handlers
  row 3 '*handled_read(*' "$DIR/extensions.json" handlers msgpack
fi
if [[ $WHICH == writes || $WHICH == all ]]; then
  for c in keywords twitter extensions citm_catalog; do
    for mode in write-json write-verbose write-msgpack; do
      row 3 '*transit_write(*' "$DIR/$c.json" "$mode"
    done
  done
fi
if [[ $WHICH == messages || $WHICH == all ]]; then
  for m in numbers event order; do
    for enc in "" msgpack; do
      row 1000 '*transit_read(*' "$HERE/messages/$m.json" transit $enc
      row 1000 '*handled_read(*' "$HERE/messages/$m.json" handlers $enc
      row 1000 '*handled_read(*' "$HERE/messages/$m.json" held $enc
    done
  done
fi
