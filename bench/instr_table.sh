#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Instruction counts per read, ours beside the floors in one binary (callgrind; the numbers of
# docs/performance.md's "Where it stands"). Counts do not move with machine load the way times
# do, so a change's effect shows here first; times are still checked with transit-bench and
# `transit bench`.
#
#   build/bench/transit-bench --dump /tmp/corpora
#   bench/instr_table.sh [build/bench/transit-read-file] [/tmp/corpora] > counts.md
#
# Each count is the mean of 3 reads, only the read collected, and in every row the freeing of
# what the read built (transit_read's Value, rapidjson_dom's Document, msgpack_unpack's zone,
# typed_read's struct; see bench/read_file.cpp). A run of 0 reads is subtracted (MessagePack
# runs first make the MessagePack bytes from the JSON file, outside the toggles). Typed rows
# read twitter and citm_catalog into the structs of bench/typed_corpora.h and are set beside
# RapidJSON's DOM parse of the same JSON text.
set -euo pipefail
TOOL=${1:-build/bench/transit-read-file}
DIR=${2:-/tmp/corpora}
CORPORA=(keywords geojson extensions bytes twitter citm_catalog)

source "$(dirname "$0")/callgrind_count.sh"  # count TOGGLE ARGS...
# per_read TOGGLE FILE MODE...: mean over 3 reads, less a run of 0 reads
per_read() {
  local toggle=$1 file=$2; shift 2
  local three zero
  three=$(count "$toggle" "$TOOL" "$file" 3 "$@")
  zero=$(count "$toggle" "$TOOL" "$file" 0 "$@")
  echo $(( (three - zero) / 3 ))
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'; }
mega() { awk -v a="$1" 'BEGIN { printf "%.2f M", a / 1e6 }'; }

echo "| corpus | JSON | RapidJSON DOM | ratio | Verbose | RapidJSON DOM | ratio | MessagePack | msgpack unpack | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for c in "${CORPORA[@]}"; do
  j=$(per_read '*transit_read(*' "$DIR/$c.json" transit)
  jf=$(per_read '*rapidjson_dom(*' "$DIR/$c.json" rapidjson)
  v=$(per_read '*transit_read(*' "$DIR/$c.verbose.json" transit)
  vf=$(per_read '*rapidjson_dom(*' "$DIR/$c.verbose.json" rapidjson)
  m=$(per_read '*transit_read(*' "$DIR/$c.json" transit msgpack)
  mf=$(per_read '*msgpack_unpack(*' "$DIR/$c.json" msgpack-unpack msgpack)
  echo "| $c | $(mega "$j") | $(mega "$jf") | $(ratio "$j" "$jf") | $(mega "$v") | $(mega "$vf") | $(ratio "$v" "$vf") | $(mega "$m") | $(mega "$mf") | $(ratio "$m" "$mf") |"
done

echo
echo "| typed read | JSON | MessagePack | RapidJSON DOM of the JSON | JSON ratio | MessagePack ratio |"
echo "|---|---:|---:|---:|---:|---:|"
for pair in twitter:twitter citm:citm_catalog; do
  mode=${pair%%:*} c=${pair##*:}
  tj=$(per_read '*typed_read*' "$DIR/$c.json" "$mode")
  tm=$(per_read '*typed_read*' "$DIR/$c.json" "$mode" msgpack)
  f=$(per_read '*rapidjson_dom(*' "$DIR/$c.json" rapidjson)
  echo "| $c | $(mega "$tj") | $(mega "$tm") | $(mega "$f") | $(ratio "$tj" "$f") | $(ratio "$tm" "$f") |"
done
