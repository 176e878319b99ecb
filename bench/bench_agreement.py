#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Do `transit bench` (the user's view: a fresh read of the whole file with the values freed, and a
# write into a fresh string) and `transit-bench` (reads and writes timed in a loop, one writer and
# buffer reused) agree? Issue 11 asks for agreement within 20% on every corpus, because the library
# no longer pays costs the loop hides (arena blocks faulted in again, output growth), not because
# either benchmark hides them.
#
#   bench/bench_agreement.py build/transit build/bench/transit-bench [--runs 15] [--reps 5]
#                            [--rounds 3]
#
# transit-bench's corpora are dumped with `--dump` and each one's JSON-Verbose text is given to
# `transit bench`, which reads it and times every encoding of the same values; the two runs of a
# corpus go one right after the other, so load on the machine hits both alike. JSON-Verbose, not
# the Transit JSON text: both tools must write the same tree. transit-bench writes its corpus as
# it was built or read from plain JSON, every key in its own node; a tree read from Transit JSON
# has each repeated key as a cache reference to one node, which the writer finds by identity in
# a few instructions where a key in its own node is hashed and compared (twitter MessagePack,
# 3 writes: 7.0 M against 8.8 M instructions; docs/performance.md, "The user's view and the
# loop, round fourteen"). Read from JSON-Verbose, which has no cache, the tree has separate keys
# as transit-bench's does. The texts `transit bench` reads are its own writes, the same bytes
# either way.
# On a shared VM the speed of the whole machine drifts by up to 1.9x over minutes (the fastest
# of the same reads, in the same binary, five minutes apart; docs/performance.md, "Fresh reads
# in the user's view"), so one pair of runs can put a drift between the two tools. Each corpus is
# therefore measured in --rounds pairs, the order swapped every round (tool then loop, loop
# then tool, ...); a row's ratio is the median of its rounds' ratios, each taken between two
# runs made one right after the other, and the range of those ratios is printed beside it. A
# cost one tool pays and the other does not shows in every round; a drift, in one.
# transit-example.json is measured by `transit bench` alone (it is not a transit-bench corpus).
# Both tools' times are the thread's CPU time (`transit bench` reads CLOCK_THREAD_CPUTIME_ID;
# transit-bench's cpu_time is Google Benchmark's per-thread CPU timer, the same clock), so time
# the thread spent waiting for a core on a loaded machine is in neither.
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ENCODINGS = {"json": "TransitJson", "json-verbose": "TransitVerbose", "msgpack": "TransitMsgpack"}


def transit_bench_medians(transit_bench, corpus, reps):
    """{(op, encoding): median ns} for one corpus from transit-bench's own loop."""
    pattern = "^(Read|Write)/(%s)/%s$" % ("|".join(ENCODINGS.values()), corpus)
    out = subprocess.run(
        [transit_bench, "--benchmark_filter=" + pattern, "--benchmark_repetitions=%d" % reps,
         "--benchmark_report_aggregates_only=true", "--benchmark_format=json"],
        check=True, capture_output=True, text=True).stdout
    medians = {}
    by_name = {v: k for k, v in ENCODINGS.items()}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        op, impl, _ = b["run_name"].split("/")
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        medians[(op.lower(), by_name[impl])] = b["cpu_time"] * scale
    return medians


def transit_tool_medians(transit, path, runs):
    """{(op, encoding): median ns} from `transit bench FILE --json`."""
    out = subprocess.run([transit, "bench", path, "--json", "--runs", str(runs), "--quiet"],
                         check=True, capture_output=True, text=True).stdout
    return {(r["op"], r["encoding"]): r["median_ns"] for r in json.loads(out)["results"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("transit")
    ap.add_argument("transit_bench")
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3,
                    help="pairs of runs per corpus, the order swapped every round")
    ap.add_argument("--corpus-dir", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                         "shared", "corpus"))
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="transit-agreement-") as tmp:
        dumped = subprocess.run([args.transit_bench, "--dump", tmp], check=True,
                                capture_output=True, text=True).stdout.split()
        # --dump writes NAME.json, NAME.verbose.json and NAME.msgpack per corpus.
        corpora = [os.path.basename(p)[:-len(".verbose.json")] for p in dumped
                   if p.endswith(".verbose.json")]
        for corpus in corpora:
            path = os.path.join(tmp, corpus + ".verbose.json")
            tools, loops = [], []
            for r in range(args.rounds):
                if r % 2 == 0:
                    tools.append(transit_tool_medians(args.transit, path, args.runs))
                    loops.append(transit_bench_medians(args.transit_bench, corpus, args.reps))
                else:
                    loops.append(transit_bench_medians(args.transit_bench, corpus, args.reps))
                    tools.append(transit_tool_medians(args.transit, path, args.runs))
            for key in sorted(loops[0]):
                rows.append((corpus, key[0], key[1], [t[key] for t in tools], [l[key] for l in loops]))
            print("measured %s" % corpus, file=sys.stderr)
    example = os.path.join(args.corpus_dir, "transit-example.json")
    if os.path.exists(example):
        tool = transit_tool_medians(args.transit, example, args.runs)
        for key in sorted(tool):
            rows.append(("transit-example", key[0], key[1], [tool[key]], None))
    print("| corpus | op | encoding | `transit bench` ms | `transit-bench` ms | ratio | rounds' ratios | within 20% |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for corpus, op, enc, tool_ns, loop_ns in rows:
        if loop_ns is None:
            print("| %s | %s | %s | %.2f | | | | (no transit-bench corpus) |"
                  % (corpus, op, enc, statistics.median(tool_ns) / 1e6))
            continue
        ratios = [t / l for t, l in zip(tool_ns, loop_ns)]
        ratio = statistics.median(ratios)
        print("| %s | %s | %s | %.2f | %.2f | %.2fx | %.2fx-%.2fx | %s |"
              % (corpus, op, enc, statistics.median(tool_ns) / 1e6, statistics.median(loop_ns) / 1e6,
                 ratio, min(ratios), max(ratios), "yes" if 1 / 1.2 <= ratio <= 1.2 else "**no**"))


if __name__ == "__main__":
    main()
