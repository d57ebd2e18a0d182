#!/usr/bin/env python3
"""The peers batch's table (device_peers.sh): per reduction and n, tdmaps'
time (the pairlaw group's app cases, lambda map) beside ArborX 2.1's BVH and
BruteForce and chunked torch.cdist (matmul and exact modes), all from the
same device call, fp32, uniform points in the unit cube, d = 3 and 4; the
peers' d = 8 rows after (tdmaps' past d = 4 is the any-dimension work).

    python3 perf_tests/scripts/peers_table.py pairlaw.json --arborx arborx.csv --torch torch_*.csv

A ratio is the peer's time over tdmaps' (above 1: tdmaps is faster)."""

import argparse
import csv
import os
import re
import sys

from pair_law_table import load  # the benchmark JSON, a cut-off run included


def load_tdmaps(path):
    out = {}
    for name, b in load(path).items():
        m = re.match(r"pairlaw/(nearest|count|histogram|kde)(_d4)?/fp32/(app|user)/lambda/r32/n(\d+)$", name)
        if m:
            q = {"nearest": "nn"}.get(m.group(1), m.group(1))
            out[(q, 4 if m.group(2) else 3, int(m.group(4)))] = b["ms_median"]
    return out


def load_peers(paths):
    out = {}
    for path in paths:
        if not path or not os.path.exists(path):
            continue
        with open(path) as f:
            for r in csv.reader(f):
                if len(r) < 10 or r[0] == "peer":
                    continue
                try:
                    out[(r[0] + " " + r[1], r[2], int(r[3]), int(r[4]))] = float(r[6])
                except ValueError:
                    continue
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json")
    ap.add_argument("--arborx", default="")
    ap.add_argument("--torch", nargs="*", default=[])
    a = ap.parse_args()
    td = load_tdmaps(a.json) if os.path.exists(a.json) else {}
    peers = load_peers([a.arborx] + a.torch)
    methods = ["arborx bvh", "arborx bruteforce", "torch cdist_mm", "torch cdist_exact"]
    labels = {"nn": "nearest neighbour", "count": "radius count (~32 neighbours)", "kde": "Gaussian kernel sum"}
    print("same device call, fp32, uniform in [0, 1)^d: median ms (peer / tdmaps)")
    print("| reduction | d | n | tdmaps | " + " | ".join(methods) + " |")
    print("| --- | --- | --- | --- | " + " | ".join("---" for _ in methods) + " |")
    keys = sorted({(q, d, n) for (q, d, n) in td} | {(q, d, n) for (_, q, d, n) in peers},
                  key=lambda k: (["nn", "count", "kde", "histogram"].index(k[0]) if k[0] in
                                 ("nn", "count", "kde", "histogram") else 9, k[1], k[2]))
    for q, d, n in keys:
        t = td.get((q, d, n))
        cells = []
        for m in methods:
            p = peers.get((m, q, d, n))
            if p is None:
                cells.append("-")
            elif t is None:
                cells.append("%.3f" % p)
            else:
                cells.append("%.3f (%.2f)" % (p, p / t))
        if t is None and all(c == "-" for c in cells):
            continue
        print("| %s | %d | %d | %s | %s |" % (labels.get(q, q), d, n, "-" if t is None else "%.3f" % t,
                                           " | ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
