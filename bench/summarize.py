#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Turns transit-bench's JSON output (--benchmark_out_format=json, with repetitions and
# aggregates) into the Markdown tables of docs/performance.md: each Transit benchmark beside its
# floor, the ratio, and the 1.5x target met or missed by how much. Medians of CPU time.
#
#   transit-bench --benchmark_filter='^(Floor|Read|Write)/' --benchmark_repetitions=5 \
#     --benchmark_report_aggregates_only=true --benchmark_out=run.json \
#     --benchmark_out_format=json
#   bench/summarize.py run.json
import json
import sys

TARGET = 1.5
# (Transit benchmark, floor benchmark, label, floor label, judged against the target)
PAIRS = [
    ("Read/TransitJson", "Floor/RapidJsonDom", "read JSON", "RapidJSON DOM", True),
    ("Write/TransitJson", "Floor/RapidJsonWrite", "write JSON", "RapidJSON Writer", True),
    ("Read/TransitMsgpack", "Floor/MsgpackUnpack", "read MessagePack", "msgpack unpack", True),
    ("Write/TransitMsgpack", "Floor/MsgpackPack", "write MessagePack", "msgpack pack", True),
    ("Read/TransitVerbose", "Floor/RapidJsonDomVerbose", "read JSON-Verbose", "RapidJSON DOM", False),
    ("Write/TransitVerbose", "Floor/RapidJsonWriteVerbose", "write JSON-Verbose", "RapidJSON Writer", False),
]
SCALE = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


def medians(path):
    """The context, the median of each benchmark, and its coefficient of variation."""
    with open(path) as f:
        data = json.load(f)
    out, cv = {}, {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median":
            out[b["run_name"]] = b
        elif b.get("aggregate_name") == "cv":
            cv[b["run_name"]] = b["cpu_time"]
    return data.get("context", {}), out, cv


def us(b):
    return b["cpu_time"] * SCALE[b["time_unit"]]


def fmt(x):
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"


def verdict(ratio, judged):
    if not judged:
        return "(no target)"
    if ratio <= TARGET:
        return "met"
    return f"missed: {ratio / TARGET:.2f}x over, needs {100 * (1 - TARGET / ratio):.0f}% less time"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: summarize.py RUN.json")
    context, runs, cv = medians(sys.argv[1])
    corpora = []
    for name in runs:
        corpus = name.rsplit("/", 1)[1]
        if corpus not in corpora:
            corpora.append(corpus)
    repetitions = next(iter(runs.values())).get("repetitions", "?") if runs else "?"
    print(f"Host: {context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz, "
          f"{context.get('date', '')[:10]}; medians of CPU time over {repetitions} repetitions.\n")
    print("| corpus | operation | Transit µs (cv) | MB/s | ns/value | floor | floor µs (cv) | ratio | target ≤ 1.5x |")
    print("|---|---|---:|---:|---:|---|---:|---:|---|")
    for corpus in corpora:
        for transit, floor, label, floor_label, judged in PAIRS:
            t, f = runs.get(f"{transit}/{corpus}"), runs.get(f"{floor}/{corpus}")
            if t is None or f is None:
                continue
            ratio = us(t) / us(f)
            mbs = t.get("bytes_per_second", 0) / 1e6
            ns_per_value = 1e9 / t["items_per_second"] if t.get("items_per_second") else 0
            t_cv, f_cv = cv.get(f"{transit}/{corpus}", 0), cv.get(f"{floor}/{corpus}", 0)
            print(f"| {corpus} | {label} | {fmt(us(t))} ({100 * t_cv:.0f}%) | {mbs:,.0f} | {ns_per_value:.0f} | "
                  f"{floor_label} | {fmt(us(f))} ({100 * f_cv:.0f}%) | {ratio:.2f}x | {verdict(ratio, judged)} |")
    print()
    print("All medians (µs CPU time; SAX is RapidJSON tokenizing with a handler that keeps nothing):\n")
    groups = sorted({name.rsplit("/", 1)[0] for name in runs})
    print("| benchmark | " + " | ".join(corpora) + " |")
    print("|---|" + "---:|" * len(corpora))
    for g in groups:
        cells = [fmt(us(runs[f"{g}/{c}"])) if f"{g}/{c}" in runs else "" for c in corpora]
        print(f"| {g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
