#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Do `transit bench` (the user's view: a fresh read of the whole file with the values freed, and a
# write into a fresh string) and `transit-bench` (reads and writes timed in a loop, one writer and
# buffer reused) agree? Issue 11 asks for agreement within 20% on every corpus, because the library
# no longer pays costs the loop hides (arena blocks faulted in again, output growth), not because
# either benchmark hides them.
#
#   bench/bench_agreement.py build/transit build/bench/transit-bench [--runs 7] [--reps 3]
#                            [--min-time 0.05] [--tool-min-time 0.3] [--rounds 8]
#                            [--corpora twitter,citm_catalog]
#
# Why the ratio printed measures what item 4 asks:
# - The same work on both sides. transit-bench's corpora are dumped with `--dump` and each one's
#   JSON-Verbose text is given to `transit bench`, which reads it and times every encoding of the
#   same values. JSON-Verbose, not the Transit JSON text: both tools must write the same tree.
#   A tree read from Transit JSON has each repeated key as a cache reference to one node, which
#   the writer finds by identity in a few instructions where a key in its own node is hashed and
#   compared (twitter MessagePack, 3 writes: 7.0 M against 8.8 M instructions;
#   docs/performance-log.md, "The user's view and the loop, round fourteen"). Read from
#   JSON-Verbose, which has no cache, the tree has every key in its own node. The same tree in
#   memory too: the writes compared are transit-bench's Write/*ReadBack rows, which write the
#   corpus read back from its JSON-Verbose text, in an arena in document order, as `transit
#   bench` writes what it read. Its Write/* rows write a generated corpus as Value's constructors
#   built it, each container a heap node where malloc put it, children before their parents: the
#   same instructions, but keywords' MessagePack write takes about twice the time of the read-back
#   tree's, waiting on those nodes' loads (docs/performance-log.md, "A built tree and a read tree,
#   written, round thirty-nine"), a cost of how the tree was built, not of a fresh write. The
#   texts `transit bench` reads are its own writes, the same bytes either way.
# - The same clock. Both tools' times are the thread's CPU time (`transit bench` reads
#   CLOCK_THREAD_CPUTIME_ID; transit-bench's cpu_time is Google Benchmark's per-thread CPU timer),
#   so time the thread spent waiting for a core on a loaded machine is in neither, and page
#   faults, munmap and the kernel's zeroing of pages, which a fresh read or write may pay, are in
#   both.
# - Nothing left out of the user's view. `transit bench` is run as it is: every run a fresh
#   document and a fresh output string, values freed; what that costs beyond the loop is the
#   cost item 4 asks about, and it stays in the ratio.
# - Each tool's median over more than a moment. transit-bench repeats each benchmark for at least
#   --min-time seconds; `transit bench` runs each phase at least --runs times and, since round
#   twenty-seven, for at least --tool-min-time seconds of ours and the floor's runs together
#   (`transit bench --min-time`). With --runs 7 alone a small corpus's phase (twitter: 7 reads
#   of about 0.5 ms) fits inside one of a VM's episodes of slow CPU (25-100+ ms at 1.2-2x;
#   docs/performance-log.md, "The two benchmarks on this VM, round twenty-six"). Every run is still
#   a fresh read or write, values freed: nothing the library pays is left out.
# - The machine's speed taken out. On a shared VM the speed of the whole machine drifts by up to
#   1.9x over minutes (the fastest of the same reads, in the same binary, five minutes apart;
#   docs/performance-log.md, "Fresh reads in the user's view"), and round sixteen's three rounds of
#   citm_catalog, the last corpus measured, each spanned 0.5x-2.2x. So each corpus is measured in
#   --rounds short pairs (a `transit bench` run of --runs runs and a transit-bench run of --reps
#   repetitions of at least --min-time seconds, each a second or so), the two runs of a pair one
#   right after the other and their order swapped every round (tool then loop, loop then tool,
#   ...); the rounds go round the corpora (round 1 of every corpus, then round 2 ...), so that no
#   corpus is measured only at the end, when the machine may be slower. A row's ratio is the
#   median of its rounds' ratios, each taken between two runs made seconds apart. A cost one tool
#   pays and the other does not shows in every round; a drift, in some. Nothing is dropped: the
#   range of the rounds' ratios is printed beside the median, and beside it how far each tool's
#   own times moved across the rounds (slowest round / fastest), which says whether a wide range
#   was the machine (both tools moved) or the pairing.
# The floors' ratio is the same ratio for the floor each tool times beside ours in the same runs
# (`transit bench`: a fresh Document or buffer each run, alternated with ours; transit-bench:
# Floor/RapidJsonDom ... in its loop, a fresh Document or zone each read, one buffer reused for
# every write): where it moves with ours, the two processes ran at different speeds or both sides
# pay the same fresh-run cost (for writes, the floor's own fresh buffer is in it); where ours
# differs and the floor's does not, the difference is ours. It is shown, never used to correct
# the ratio.
# What the pairing cannot take out: `transit bench` alternates each of our runs with one of the
# floor's (ours, floor, ours, floor ...), while transit-bench runs ours back to back, so our value
# tree and output may have left the cache for the user's view and not for the loop (in one
# process, `transit-fresh-output --paired`: about 3% on geojson's MessagePack write, under load);
# and one whole process can run faster than the next (the same loop 550-920 us from one process
# to the next under load), which only the median of many rounds evens out (docs/performance-log.md,
# "The two benchmarks, round seventeen").
# --corpora re-measures some corpora only; transit-example.json (not a transit-bench corpus) is
# measured by `transit bench` alone, when all corpora are measured or when it is named.
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ENCODINGS = {"json": "TransitJson", "json-verbose": "TransitVerbose", "msgpack": "TransitMsgpack"}
# transit-bench's writes of the tree `transit bench` writes (see above).
WRITES = {encoding: name + "ReadBack" for encoding, name in ENCODINGS.items()}
# transit-bench's floor for each (op, encoding): what `transit bench` times beside ours
# (src/cli/floors.cpp) on the same bytes.
FLOORS = {("read", "json"): "RapidJsonDom", ("write", "json"): "RapidJsonWrite",
          ("read", "json-verbose"): "RapidJsonDomVerbose",
          ("write", "json-verbose"): "RapidJsonWriteVerbose",
          ("read", "msgpack"): "MsgpackUnpack", ("write", "msgpack"): "MsgpackPack"}
EXAMPLE = "transit-example"


def transit_bench_medians(transit_bench, corpus, reps, min_time):
    """({(op, encoding): median ns}, {(op, encoding): the floor's median ns}) for one corpus from
    transit-bench's own loop."""
    pattern = "^(Read/(%s)|Write/(%s)|Floor/(%s))/%s$" % ("|".join(ENCODINGS.values()),
                                                          "|".join(WRITES.values()),
                                                          "|".join(FLOORS.values()), corpus)
    out = subprocess.run(
        [transit_bench, "--benchmark_filter=" + pattern, "--benchmark_repetitions=%d" % reps,
         "--benchmark_min_time=%g" % min_time, "--benchmark_report_aggregates_only=true",
         "--benchmark_format=json"],
        check=True, capture_output=True, text=True).stdout
    medians, floors = {}, {}
    by_name = {v: k for k, v in ENCODINGS.items()} | {v: k for k, v in WRITES.items()}
    floor_key = {v: k for k, v in FLOORS.items()}
    for b in json.loads(out)["benchmarks"]:
        # One repetition has no aggregates: its run is its median.
        if b.get("aggregate_name") != "median" and not (reps == 1 and b.get("run_type") == "iteration"):
            continue
        op, impl, _ = b["run_name"].split("/")
        ns = b["cpu_time"] * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b["time_unit"]]
        if op == "Floor":
            floors[floor_key[impl]] = ns
        else:
            medians[(op.lower(), by_name[impl])] = ns
    if len(medians) != len(FLOORS) or len(floors) != len(FLOORS):
        sys.exit("transit-bench timed %d of the 6 reads and writes of %s and %d of their floors"
                 % (len(medians), corpus, len(floors)))
    return medians, floors


def transit_tool_medians(transit, path, runs, tool_min_time=0.0):
    """({(op, encoding): median ns}, {(op, encoding): the floor's median ns}) from
    `transit bench FILE --json`."""
    out = json.loads(subprocess.run([transit, "bench", path, "--json", "--runs", str(runs),
                                     "--min-time", "%g" % tool_min_time, "--quiet"],
                                    check=True, capture_output=True, text=True).stdout)
    return ({(r["op"], r["encoding"]): r["median_ns"] for r in out["results"]},
            {(r["op"], r["encoding"]): r["median_ns"] for r in out["floors"]})


def spread(times):
    """How far one side's times moved across the rounds: slowest / fastest."""
    return max(times) / min(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("transit")
    ap.add_argument("transit_bench")
    ap.add_argument("--runs", type=int, default=7, help="`transit bench` runs per round")
    ap.add_argument("--reps", type=int, default=3, help="transit-bench repetitions per round")
    ap.add_argument("--min-time", type=float, default=0.05,
                    help="transit-bench's minimum seconds per repetition")
    ap.add_argument("--tool-min-time", type=float, default=0.3,
                    help="`transit bench --min-time`: each phase runs at least --runs runs and "
                         "this many seconds (0: --runs runs, the method before round "
                         "twenty-seven)")
    ap.add_argument("--rounds", type=int, default=8,
                    help="pairs of runs per corpus, the order swapped every round")
    ap.add_argument("--corpora", help="comma-separated corpus names to measure (default: all)")
    ap.add_argument("--corpus-dir", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                         "shared", "corpus"))
    args = ap.parse_args()
    if min(args.runs, args.reps, args.rounds) < 1 or args.min_time <= 0 or args.tool_min_time < 0:
        ap.error("--runs, --reps and --rounds must be at least 1, --min-time above 0, "
                 "--tool-min-time at least 0")
    rows = []
    with tempfile.TemporaryDirectory(prefix="transit-agreement-") as tmp:
        dumped = subprocess.run([args.transit_bench, "--dump", tmp], check=True,
                                capture_output=True, text=True).stdout.split()
        # --dump writes NAME.json, NAME.verbose.json and NAME.msgpack per corpus.
        corpora = [os.path.basename(p)[:-len(".verbose.json")] for p in dumped
                   if p.endswith(".verbose.json")]
        with_example = args.corpora is None
        if args.corpora is not None:
            wanted = [c for c in args.corpora.split(",") if c]
            unknown = [c for c in wanted if c not in corpora and c != EXAMPLE]
            if unknown or not wanted:
                ap.error("--corpora: unknown %s (known: %s)"
                         % (", ".join(unknown) or "(none given)", ", ".join(corpora + [EXAMPLE])))
            with_example = EXAMPLE in wanted
            corpora = [c for c in corpora if c in wanted]
        tools = {c: [] for c in corpora}
        loops = {c: [] for c in corpora}
        for r in range(args.rounds):
            for corpus in corpora:
                path = os.path.join(tmp, corpus + ".verbose.json")
                pair = [lambda: tools[corpus].append(
                            transit_tool_medians(args.transit, path, args.runs, args.tool_min_time)),
                        lambda: loops[corpus].append(
                            transit_bench_medians(args.transit_bench, corpus, args.reps,
                                                  args.min_time))]
                for run in (pair if r % 2 == 0 else reversed(pair)):
                    run()
            print("round %d of %d measured" % (r + 1, args.rounds), file=sys.stderr)
        for corpus in corpora:
            for key in sorted(loops[corpus][0][0]):
                rows.append((corpus, key[0], key[1], [t[0][key] for t in tools[corpus]],
                             [l[0][key] for l in loops[corpus]],
                             [t[1][key] / l[1][key] for t, l in zip(tools[corpus], loops[corpus])]))
    example = os.path.join(args.corpus_dir, EXAMPLE + ".json")
    if with_example and os.path.exists(example):
        tool = transit_tool_medians(args.transit, example, args.runs, args.tool_min_time)[0]
        for key in sorted(tool):
            rows.append((EXAMPLE, key[0], key[1], [tool[key]], None, None))
    print("%d rounds a corpus: `transit bench` --runs %d --min-time %g, transit-bench --reps %d of at "
          "least %g s" % (args.rounds, args.runs, args.tool_min_time, args.reps, args.min_time))
    print()
    print("| corpus | op | encoding | `transit bench` ms | `transit-bench` ms | ratio (median) "
          "| rounds' ratios | each tool's rounds, slowest / fastest | floors' ratio | within 20% |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---|")
    agree = pairs = 0
    for corpus, op, enc, tool_ns, loop_ns, floor_ratios in rows:
        if loop_ns is None:
            print("| %s | %s | %s | %.2f | | | | | | (no transit-bench corpus) |"
                  % (corpus, op, enc, statistics.median(tool_ns) / 1e6))
            continue
        ratios = [t / l for t, l in zip(tool_ns, loop_ns)]
        ratio = statistics.median(ratios)
        within = 1 / 1.2 <= ratio <= 1.2
        pairs += 1
        agree += within
        print("| %s | %s | %s | %.2f | %.2f | %.2fx | %.2fx-%.2fx | %.2fx / %.2fx | %.2fx | %s |"
              % (corpus, op, enc, statistics.median(tool_ns) / 1e6,
                 statistics.median(loop_ns) / 1e6, ratio, min(ratios), max(ratios),
                 spread(tool_ns), spread(loop_ns), statistics.median(floor_ratios),
                 "yes" if within else "**no**"))
    print()
    print("%d of %d pairs within 20%%" % (agree, pairs))


if __name__ == "__main__":
    main()
