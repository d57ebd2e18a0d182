#!/usr/bin/env python3
"""Markdown tables of an any-dimension batch (perf_tests/results/h200/any_d/):
tdmaps' nearest neighbour and k nearest neighbours (knn_probe's JSON lines,
tdmaps.jsonl)
beside torch's chunked cdist (torch_peers.py's CSV) and ArborX 2.1
(arborx_bench's CSV), all from one call on one GPU.

    python3 perf_tests/scripts/knn_table.py perf_tests/results/h200/any_d
"""
import csv
import json
import os
import sys


def jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def peers(path):
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        rows = [r for r in csv.DictReader(line for line in f if not line.startswith("#"))]
    out = {}
    for r in rows:
        k = 1 if r["query"] == "nn" else int(dict(kv.split("=") for kv in r["check"].split(";"))["k"])
        out[(r["peer"], r["method"], int(r["d"]), int(r["n"]), k)] = float(r["median_ms"])
    return out


def ms(v):
    return "-" if v is None else (f"{v:.3g}" if v < 100 else f"{v:.0f}")


def ratio(a, b):
    return "-" if a is None or b is None else f"{a / b:.2f}"


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    r = argv[1]
    every = jsonl(os.path.join(r, "tdmaps.jsonl"))
    lines = [j for j in every if j["precision"] == "fp32"]
    p = peers(os.path.join(r, "torch.csv"))
    p.update(peers(os.path.join(r, "arborx.csv")))
    near = {(j["d"], j["n"]): j["nearest_ms"] for j in lines}
    knn = {(j["d"], j["n"], j["k"]): j["knn_ms"] for j in lines}
    ns = sorted({n for _, n in near})
    ds = sorted({d for d, _ in near})
    print("Nearest neighbour (k = 1), fp32, ms (tdmaps: best of the rounds; peers: median):\n")
    print("| n | d | tdmaps | torch cdist mm | torch / tdmaps | torch cdist exact | ArborX BruteForce | ArborX / tdmaps "
          "| ArborX BVH |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for n in ns:
        for d in ds:
            t = near.get((d, n))
            if t is None:
                continue
            mm = p.get(("torch", "cdist_mm", d, n, 1))
            ex = p.get(("torch", "cdist_exact", d, n, 1))
            bf = p.get(("arborx", "bruteforce", d, n, 1))
            bvh = p.get(("arborx", "bvh", d, n, 1))
            print(f"| {n} | {d} | {ms(t)} | {ms(mm)} | {ratio(mm, t)} | {ms(ex)} | {ms(bf)} | {ratio(bf, t)} | {ms(bvh)} |")
    print("\nk nearest neighbours, fp32, ms:\n")
    print("| n | d | tdmaps k = 1 | tdmaps k = 16 | k = 16 / k = 1 | tdmaps k = 64 | torch cdist mm + topk, k = 16 "
          "| torch / tdmaps (k = 16) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for n in ns:
        for d in ds:
            t1 = knn.get((d, n, 1), near.get((d, n)))
            t16 = knn.get((d, n, 16))
            if t16 is None:
                continue
            t64 = knn.get((d, n, 64))
            mm = p.get(("torch", "cdist_mm", d, n, 16))
            print(f"| {n} | {d} | {ms(t1)} | {ms(t16)} | {ratio(t16, t1)} | {ms(t64)} | {ms(mm)} | {ratio(mm, t16)} |")
    f64 = [j for j in every if j["precision"] == "fp64"]
    if f64:
        print("\nfp64, ms:\n")
        print("| n | d | nearest | k | k nearest | k nearest / nearest |")
        print("| --- | --- | --- | --- | --- | --- |")
        for j in f64:
            print(f"| {j['n']} | {j['d']} | {ms(j['nearest_ms'])} | {j['k']} | {ms(j['knn_ms'])} | "
                  f"{ratio(j['knn_ms'], j['nearest_ms'])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
