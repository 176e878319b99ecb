#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Item 4 of issue 11, counted instead of timed: does a read or write in `transit bench` (the
# user's view: a fresh document read and freed, a fresh Writer and string per write) execute
# the library instructions transit-bench's loop does for the same op on the same tree? Times
# of the two tools differ by the machine's mood and by the process each runs in (the same
# write loop on the same tree took 1.09x longer in one binary than in another, round twenty);
# instructions do not. Where the counts agree, a gap in time is not work the library does in
# one tool and not the other.
#
#   bench/instr_agreement.py build/transit build/bench/transit-bench [--corpora twitter,...]
#
# What is counted, with valgrind's callgrind (its CPUID has no AVX-512: both tools take the
# same AVX2 kernels under it), for each corpus of transit-bench and each (op, encoding), one op
# at a time, by a dump of the counts before every clock_gettime (each tool reads its clock
# right before and right after what it times) with counting on only inside our side's code:
# - transit-bench: its rows Read/TransitX/CORPUS and Write/TransitX/CORPUS run with
#   --benchmark_min_time=0, so that each loop runs once; counted inside the row's function
#   (transit_read or transit_write), and the loop's one iteration is the dump between the
#   clock reads at the loop's start and end: one fresh read (and the freeing of its Value at
#   the end of the iteration), or one write with the row's Writer and buffer reused.
# - `transit bench` on the corpus's JSON-Verbose text, as bench/bench_agreement.py times it
#   (the same tree: see there), --runs 3: counted inside transit::read_all (the fresh read of
#   the user's view; the freeing of the values comes after it returns) and
#   transit::cli::write_values (a fresh Writer and string, the write, the flush); each timed
#   run is the dump between the two clock reads around it, and a row's count is the median
#   of its runs (they differ by a few hundred instructions at most).
import argparse
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile

ENCODINGS = {"json": "TransitJson", "json-verbose": "TransitVerbose", "msgpack": "TransitMsgpack"}
ORDER = ["json", "json-verbose", "msgpack"]  # src/cli/bench.cpp's kEncodings


def callgrind(cmd, out, toggles):
    """Runs `cmd` under callgrind, counting only inside the functions `toggles` match, with a
    dump before every clock_gettime; returns each dump's instructions, in order."""
    args = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
            "--dump-before=clock_gettime*"] + ["--toggle-collect=" + t for t in toggles]
    subprocess.run(args + cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    files = glob.glob(out + ".*")
    files.sort(key=lambda f: int(f.rsplit(".", 1)[1]))
    totals = []
    for f in files + [out]:
        with open(f) as fh:
            m = re.search(r"^totals: (\d+)", fh.read(), re.M)
        totals.append(int(m.group(1)) if m else 0)
        os.remove(f)
    return totals


def ops(totals):
    """The dumps that hold work: a clock read outside counted code dumps 0, and one inside a
    counted function (transit-bench's loop start and end) a few dozen instructions."""
    return [t for t in totals if t >= 10000]


def loop_counts(transit_bench, corpus, tmp):
    """{(op, encoding): instructions of one op} in transit-bench's loop."""
    rows = ["%s/%s/%s" % (op, impl, corpus) for impl in ENCODINGS.values() for op in ("Read", "Write")]
    listed = subprocess.run([transit_bench, "--benchmark_list_tests",
                             "--benchmark_filter=^(%s)$" % "|".join(rows)],
                            check=True, capture_output=True, text=True).stdout.split()
    if sorted(listed) != sorted(rows):
        sys.exit("transit-bench lists %s for %s" % (listed, corpus))
    work = ops(callgrind([transit_bench, "--benchmark_min_time=0",
                          "--benchmark_filter=^(%s)$" % "|".join(rows)],
                         os.path.join(tmp, "loop.out"),
                         # transit_read is a template in json_bench.cpp (transit_read<false>,
                         # its Source rows' <true>) and a plain function in msgpack_bench.cpp.
                         ["*transit_read*(benchmark::State*", "*transit_write(benchmark*"]))
    # Each row: its setup (the check read, or the Writer made and the check write), then the
    # loop's one op.
    if len(work) != 2 * len(rows):
        sys.exit("transit-bench, %s: %d counted parts for %d rows" % (corpus, len(work), len(rows)))
    by_impl = {v: k for k, v in ENCODINGS.items()}
    counts = {}
    for i, row in enumerate(listed):
        op, impl, _ = row.split("/")
        counts[(op.lower(), by_impl[impl])] = work[2 * i + 1]
    return counts


def tool_counts(transit, path, runs, tmp):
    """{(op, encoding): median instructions of one op} in `transit bench`."""
    work = ops(callgrind([transit, "bench", path, "--from", "json-verbose", "--runs", str(runs),
                          "--quiet"], os.path.join(tmp, "tool.out"),
                         ["transit::read_all*", "transit::cli::write_values*"]))
    # First the untimed work before the first clock read (the file's read, each encoding's
    # round-trip check) in one dump; then, in src/cli/bench.cpp's order, for each encoding its
    # `runs` timed writes and then its `runs` timed reads. Writes after the last clock read (the
    # sizes table) come last, in the dump at exit.
    timed = work[1:1 + 2 * runs * len(ORDER)]
    if len(timed) != 2 * runs * len(ORDER):
        sys.exit("`transit bench` %s: %d timed ops counted, expected %d"
                 % (path, len(timed), 2 * runs * len(ORDER)))
    counts = {}
    for i, enc in enumerate(ORDER):
        block = timed[2 * runs * i:2 * runs * (i + 1)]
        counts[("write", enc)] = statistics.median(block[:runs])
        counts[("read", enc)] = statistics.median(block[runs:])
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("transit")
    ap.add_argument("transit_bench")
    ap.add_argument("--runs", type=int, default=3, help="`transit bench` runs (odd: a median)")
    ap.add_argument("--corpora", help="comma-separated corpus names (default: all)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="transit-instr-agreement-") as tmp:
        dumped = subprocess.run([args.transit_bench, "--dump", tmp], check=True,
                                capture_output=True, text=True).stdout.split()
        corpora = [os.path.basename(p)[:-len(".verbose.json")] for p in dumped
                   if p.endswith(".verbose.json")]
        if args.corpora:
            wanted = args.corpora.split(",")
            unknown = [c for c in wanted if c not in corpora]
            if unknown:
                ap.error("--corpora: unknown %s (known: %s)" % (", ".join(unknown), ", ".join(corpora)))
            corpora = [c for c in corpora if c in wanted]
        print("| corpus | op | encoding | `transit bench` instructions | `transit-bench` instructions | ratio |")
        print("|---|---|---|---:|---:|---:|")
        ratios = []
        for corpus in corpora:
            tool = tool_counts(args.transit, os.path.join(tmp, corpus + ".verbose.json"), args.runs, tmp)
            loop = loop_counts(args.transit_bench, corpus, tmp)
            for key in sorted(loop):
                ratio = tool[key] / loop[key]
                ratios.append(ratio)
                print("| %s | %s | %s | %.3f M | %.3f M | %.3fx |"
                      % (corpus, key[0], key[1], tool[key] / 1e6, loop[key] / 1e6, ratio), flush=True)
        print()
        print("%d pairs, ratios %.3fx-%.3fx" % (len(ratios), min(ratios), max(ratios)))


if __name__ == "__main__":
    main()
