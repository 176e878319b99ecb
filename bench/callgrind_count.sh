# SPDX-License-Identifier: Apache-2.0
# Sourced by bench/instr_table.sh and bench/count_rows.sh: one way to count.
# count TOGGLE ARGS...: instructions callgrind collects inside TOGGLE while ARGS runs, with
# COUNT_PRELOAD (if set) preloaded.
count() {
  local toggle=$1; shift
  LD_PRELOAD=${COUNT_PRELOAD:-} valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    --toggle-collect="$toggle" "$@" 2>&1 | awk '/Collected :/ { print $4 }'
}
