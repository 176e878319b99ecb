#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# `transit convert` at scale: throughput and peak memory converting streams of small values of
# 10 MB, 100 MB and 1 GB, for every pair of encodings. Prints the Markdown table of
# docs/performance-log.md. Memory should stay flat as the stream grows: convert holds one value
# at a time.
#
#   bench/convert_throughput.py build/transit [--sizes 10,100,1000] [--dir /tmp/transit-scale]
#
# The streams are made by the tool itself: one JSON stream of maps of keywords, strings,
# integers, doubles and instants (the shape of a service's event log) is generated in Python
# up to each size, then converted to JSON-Verbose and MessagePack once. Each conversion is timed
# from its input file to /dev/null (no disk write in the measurement), best of `--runs` runs,
# with peak RSS from /usr/bin/time.
import argparse
import os
import subprocess
import sys
import time

ENCODINGS = ["json", "json-verbose", "msgpack"]


def make_json_stream(path, megabytes):
    """Small top-level values, one after another, until the file reaches the size."""
    target = megabytes * 1_000_000
    kinds = ['"~:created"', '"~:updated"', '"~:deleted"']
    written = 0
    with open(path, "w") as f:
        i = 0
        chunk = []
        while written < target:
            line = (
                '["^ ","~:id",%d,"~:kind",%s,"~:user","user-%07d","~:score",%d.%03d,'
                '"~:at","~m%d","~:tags",["~#set",["~:a%d","~:b%d"]]]\n'
                % (i, kinds[i % 3], i % 9_999_991, i % 1000, i % 997, 1_700_000_000_000 + i, i % 7, i % 5)
            )
            chunk.append(line)
            written += len(line)
            i += 1
            if len(chunk) == 10_000:
                f.write("".join(chunk))
                chunk = []
        f.write("".join(chunk))
    return i


def run(cmd, stdin_path, stdout_path):
    """Seconds and peak RSS (KiB) of one run of `cmd`."""
    with open(stdin_path, "rb") as fin, open(stdout_path, "wb") as fout:
        start = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdin=fin, stdout=fout,
                              stderr=subprocess.PIPE, check=False)
        elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), proc.stderr.decode(errors="replace")))
    rss_kib = int(proc.stderr.decode().strip().splitlines()[-1])
    return elapsed, rss_kib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("transit")
    ap.add_argument("--sizes", default="10,100,1000", help="stream sizes in MB (of the JSON form)")
    ap.add_argument("--dir", default="/tmp/transit-scale")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    rows = []
    for mb in (int(s) for s in args.sizes.split(",")):
        files = {}
        files["json"] = os.path.join(args.dir, "stream-%d.json" % mb)
        values = make_json_stream(files["json"], mb)
        for enc in ("json-verbose", "msgpack"):
            files[enc] = os.path.join(args.dir, "stream-%d.%s" % (mb, enc))
            run([args.transit, "convert", "--from", "json", "--to", enc], files["json"], files[enc])
        for src in ENCODINGS:
            in_bytes = os.path.getsize(files[src])
            for dst in ENCODINGS:
                best, rss = None, 0
                for _ in range(args.runs):
                    seconds, kib = run([args.transit, "convert", "--from", src, "--to", dst],
                                       files[src], os.devnull)
                    best = seconds if best is None else min(best, seconds)
                    rss = max(rss, kib)
                rows.append((mb, values, src, dst, in_bytes, best, rss))
                print("%5d MB  %-12s -> %-12s %8.1f MB/s  peak RSS %6.1f MiB"
                      % (mb, src, dst, in_bytes / best / 1e6, rss / 1024), file=sys.stderr)
        for path in files.values():
            os.remove(path)
    print("| stream (JSON size) | values | from | to | input bytes | MB/s of input | peak RSS |")
    print("|---|---|---|---|---|---|---|")
    for mb, values, src, dst, in_bytes, best, rss in rows:
        print("| %d MB | %s | %s | %s | %s | %.0f | %.1f MiB |"
              % (mb, "{:,}".format(values), src, dst, "{:,}".format(in_bytes), in_bytes / best / 1e6,
                 rss / 1024))


if __name__ == "__main__":
    main()
