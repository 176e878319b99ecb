#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The README's two Performance tables from several runs of bench/peer_speed.py: the median of
# each cell over the runs (one run's cells move by up to 2x on a shared 2-core VM; three runs
# back to back and their per-cell median are what the README quotes).
#
#   for i in 1 2 3; do bench/peer_speed.py build/transit build/interop > run$i.md; done
#   bench/median_tables.py run1.md run2.md run3.md
import re
import statistics
import sys

ORDER = ["twitter", "citm_catalog", "keywords", "geojson", "extensions", "bytes", "transit-example"]
RATIO = re.compile(r"\(([0-9.]+)x\)")


def parse(path):
    """({corpus: [x faster than transit-js per column]}, {(corpus, encoding): (read, write)})."""
    js, floors = {}, {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in ORDER:
            js[cells[0]] = [float(m.group(1)) if (m := RATIO.search(c)) else None for c in cells[1:]]
        elif len(cells) == 4 and cells[0] in ORDER:
            enc = cells[1].split(" ")[0]
            floors[(cells[0], enc)] = tuple(float(RATIO.search(c).group(1)) for c in cells[2:])
    return js, floors


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main():
    runs = [parse(p) for p in sys.argv[1:]]
    label = lambda c: c + ".json" if c == "transit-example" else c
    print("| corpus | JSON read | JSON write | JSON-Verbose read | JSON-Verbose write | MessagePack read | MessagePack write |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for c in ORDER:
        if (c, "json") not in runs[0][1]:
            continue
        cells = []
        for enc in ("json", "json-verbose", "msgpack"):
            for i in (0, 1):
                cells.append("%.2fx" % median([r[1][(c, enc)][i] for r in runs]))
        print("| %s | %s |" % (label(c), " | ".join(cells)))
    print()
    print("| corpus | JSON read | JSON-Verbose read | JSON write | JSON-Verbose write |")
    print("|---|---:|---:|---:|---:|")
    for c in ORDER:
        if c not in runs[0][0]:
            continue
        cells = []
        for i in range(4):
            m = median([r[0][c][i] for r in runs])
            cells.append("%.1fx" % m if m is not None else "")
        print("| %s | %s |" % (label(c), " | ".join(cells)))


if __name__ == "__main__":
    main()
