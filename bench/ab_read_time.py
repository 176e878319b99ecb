#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Is one build's read faster than another's? On this project's shared VMs the whole machine's
# speed drifts by up to 1.9x over minutes, so two builds timed one after the other compare the
# drift as much as the code. This runs `transit-read-file FILE N [MODE...]` of the two builds in
# turn, --runs pairs per text (the order swapped every pair), and prints for each text the median
# CPU time (user + system, from rusage) per read of each build and the median and range of the
# per-pair ratios, new / old: a change shows in most pairs, a drift in a few.
#
#   bench/ab_read_time.py OLD/bench/transit-read-file NEW/bench/transit-read-file [--runs 7]
#                         [--dir /tmp/corpora] [--case TEXT:READS[:MODE...]]...
#
# --case replaces the texts below with the ones given, e.g. `--case bytes.json:2000:transit:msgpack`
# for bytes.json's MessagePack read, 2,000 reads a process.
# The texts are those of `transit-bench --dump DIR`. The MessagePack rows read the JSON text's
# values written as MessagePack once per process (transit-read-file's `transit msgpack`), which
# both builds pay alike; the per-read times include each process's start, so they are a little
# above the reads' own.
import argparse
import resource
import statistics
import subprocess

CASES = [("citm_catalog.json", 300, []), ("citm_catalog.verbose.json", 300, []),
         ("keywords.json", 60, []), ("keywords.verbose.json", 60, []),
         ("extensions.json", 100, []), ("extensions.verbose.json", 100, []),
         ("twitter.json", 500, ["transit", "msgpack"]), ("extensions.json", 100, ["transit", "msgpack"]),
         ("geojson.json", 100, ["transit", "msgpack"])]


def cpu_seconds(binary, path, reads, mode):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([binary, path, str(reads)] + mode, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--dir", default="/tmp/corpora")
    parser.add_argument("--case", action="append", default=[],
                        help="TEXT:READS[:MODE...], instead of the built-in texts")
    args = parser.parse_args()
    cases = [(c.split(":")[0], int(c.split(":")[1]), c.split(":")[2:]) for c in args.case] or CASES
    print("| text | old ms/read | new ms/read | new / old, median of the pairs | range |")
    print("|---|---:|---:|---:|---|")
    for name, reads, mode in cases:
        path = "%s/%s" % (args.dir, name)
        old, new, ratios = [], [], []
        for i in range(args.runs):
            order = [(args.old, old), (args.new, new)]
            if i % 2:
                order.reverse()
            for binary, times in order:
                times.append(cpu_seconds(binary, path, reads, mode) * 1000 / reads)
            ratios.append(new[-1] / old[-1])
        label = " ".join([name] + mode)
        print("| %s | %.2f | %.2f | %.2fx | %.2f-%.2f |" % (
            label, statistics.median(old), statistics.median(new), statistics.median(ratios),
            min(ratios), max(ratios)), flush=True)


if __name__ == "__main__":
    main()
