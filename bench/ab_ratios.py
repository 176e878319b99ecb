#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Do builds differ in what `transit bench` reports, ours over the floor? Where a change moves
# code it never touches (a function starting at another offset in its cache line), the
# question is each build's ratio to its own floor, the user's view, and on this project's
# shared VMs only builds run in turn can answer it: the machine's speed drifts by more than
# most changes. This runs `BUILD bench FILE --runs N --json` for every build in turn, --rounds
# times per file, and prints each round's ratios, then their medians, one column per build
# and operation.
#
#   bench/ab_ratios.py OLD/transit NEW/transit [MORE/transit...] [--rounds 3] [--runs 15]
#                      [--ops msgpack:read,json:read] FILE...
#
# --ops lists ENCODING:OP pairs (json, json-verbose, msgpack; read, write), msgpack:read by
# default. A FILE ending in .msgpack is read --from msgpack, one ending in .verbose.json --from
# json-verbose, any other --from json; `transit bench` times every encoding whatever FILE is in.
import argparse
import json
import os
import statistics
import subprocess


def source_encoding(path):
    if path.endswith(".msgpack"):
        return "msgpack"
    if path.endswith(".verbose.json"):
        return "json-verbose"
    return "json"


def ratios(build, path, runs, ops):
    out = subprocess.run([build, "bench", path, "--from", source_encoding(path), "--runs", str(runs),
                          "--json", "--quiet"], check=True, capture_output=True, text=True).stdout
    report = json.loads(out)

    def median_ns(rows, encoding, op):
        return next(r["median_ns"] for r in rows if r["encoding"] == encoding and r["op"] == op)

    return [median_ns(report["results"], e, o) / median_ns(report["floors"], e, o) for e, o in ops]


def main():
    parser = argparse.ArgumentParser(description="Each build's transit bench ratios, builds run in turn.")
    parser.add_argument("paths", nargs="+", help="builds' transit tools, then the files")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--ops", default="msgpack:read")
    args = parser.parse_intermixed_args()
    builds = [p for p in args.paths if os.access(p, os.X_OK) and not os.path.isdir(p)
              and not p.endswith((".json", ".msgpack"))]
    files = [p for p in args.paths if p not in builds]
    if len(builds) < 2 or not files:
        parser.error("give two builds or more, then one file or more")
    ops = [tuple(op.split(":")) for op in args.ops.split(",")]
    columns = [f"{b} {e}:{o}" for b in builds for e, o in ops]
    print("| round | file | " + " | ".join(columns) + " |")
    print("|---|---|" + "---:|" * len(columns))
    seen = {}
    for round_ in range(1, args.rounds + 1):
        for path in files:
            row = []
            for build in builds:
                row += ratios(build, path, args.runs, ops)
            seen.setdefault(path, []).append(row)
            print(f"| {round_} | {os.path.basename(path)} | " + " | ".join(f"{r:.2f}x" for r in row) + " |",
                  flush=True)
    print("\nMedians of the rounds:\n")
    print("| file | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for path in files:
        medians = [statistics.median(col) for col in zip(*seen[path])]
        print(f"| {os.path.basename(path)} | " + " | ".join(f"{m:.2f}x" for m in medians) + " |")


if __name__ == "__main__":
    main()
