#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Ours beside transit-js, the reference JavaScript peer, on the same Transit texts (issue 11
# places our JSON read and write beside transit-java's and transit-js's; transit-js is the peer
# this machine can run: npm is reachable, Maven Central is not).
#
#   bench/peer_speed.py build/transit build/interop [--dir /tmp/corpora] [--runs 15]
#
# For each corpus NAME of DIR (`transit-bench --dump DIR` writes NAME.json and
# NAME.verbose.json) and for ../shared/corpus/transit-example.json: `transit bench` on the JSON
# text gives our medians (read and write, JSON and JSON-Verbose); bench/transit_js_speed.js gives
# transit-js's on the JSON text and on the JSON-Verbose text, after 2 s of JIT warm-up. The two
# run one right after the other, so load on the machine hits both alike. `transit bench` times its
# thread's CPU time; transit_js_speed.js the smaller of its process's CPU time (V8's helper
# threads included) and wall clock, so neither clock's bias favours us. Prints two Markdown
# tables: ours beside transit-js (milliseconds, and how many times faster ours is), and ours
# beside the floors `transit bench` times on the same bytes (RapidJSON, msgpack-cxx).
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def ours(transit, path, runs):
    """({(encoding, op): median ns}, {(encoding, op): floor median ns}) from `transit bench`."""
    report = json.loads(subprocess.run([transit, "bench", path, "--runs", str(runs), "--json", "--quiet"],
                                       check=True, capture_output=True, text=True).stdout)
    return ({(r["encoding"], r["op"]): r["median_ns"] for r in report["results"]},
            {(r["encoding"], r["op"]): r["median_ns"] for r in report["floors"]})


def transit_js(interop_dir, path, runs):
    env = dict(os.environ, TRANSIT_JS_DIR=interop_dir)
    out = subprocess.run(["node", os.path.join(HERE, "transit_js_speed.js"), path, str(runs)],
                         check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("transit")
    p.add_argument("interop_dir", help="where tests/interop installed transit-js (build/interop)")
    p.add_argument("--dir", default="/tmp/corpora")
    p.add_argument("--runs", type=int, default=15)
    a = p.parse_args()

    names = sorted({f[:-len(".verbose.json")] for f in os.listdir(a.dir) if f.endswith(".verbose.json")})
    files = [(n, os.path.join(a.dir, n + ".json"), os.path.join(a.dir, n + ".verbose.json")) for n in names]
    example = os.path.join(HERE, "..", "..", "shared", "corpus", "transit-example.json")
    if os.path.exists(example):
        files.append(("transit-example", example, None))

    floors = []
    print("| corpus | JSON read: ours / transit-js ms (x faster) | JSON-Verbose read | JSON write | JSON-Verbose write |")
    print("|---|---:|---:|---:|---:|")
    for name, json_path, verbose_path in files:
        o, f = ours(a.transit, json_path, a.runs)
        floors.append((name, o, f))
        js = transit_js(a.interop_dir, json_path, a.runs)
        js_verbose_read = transit_js(a.interop_dir, verbose_path, a.runs)["read_ns"] if verbose_path else None

        def cell(ours_ns, js_ns):
            if js_ns is None:
                return "%.2f / - " % (ours_ns / 1e6)
            return "%.2f / %.2f (%.1fx)" % (ours_ns / 1e6, js_ns / 1e6, js_ns / ours_ns)

        print("| %s | %s | %s | %s | %s |" % (
            name,
            cell(o[("json", "read")], js["read_ns"]),
            cell(o[("json-verbose", "read")], js_verbose_read),
            cell(o[("json", "write")], js["write_json_ns"]),
            cell(o[("json-verbose", "write")], js["write_verbose_ns"])))
        sys.stdout.flush()

    print()
    print("| corpus | encoding | read: ours / floor ms (ratio) | write: ours / floor ms (ratio) |")
    print("|---|---|---:|---:|")
    for name, o, f in floors:
        for enc, floor in (("json", "RapidJSON"), ("json-verbose", "RapidJSON"), ("msgpack", "msgpack-cxx")):
            print("| %s | %s (%s) | %.2f / %.2f (%.2fx) | %.2f / %.2f (%.2fx) |" % (
                name, enc, floor,
                o[(enc, "read")] / 1e6, f[(enc, "read")] / 1e6, o[(enc, "read")] / f[(enc, "read")],
                o[(enc, "write")] / 1e6, f[(enc, "write")] / 1e6, o[(enc, "write")] / f[(enc, "write")]))


if __name__ == "__main__":
    main()
