#!/usr/bin/env python3
"""The tables of a device_tiled_reduce.sh batch (Markdown, to stdout):
tiled_reduce.jsonl (the count and the histogram at d >= 5: the element walk
before, the dimension-tiled walk now, I against the bounding box),
tiled_matrix.jsonl (the distance matrix's tile kernel: its struct-of-arrays
form before, the dimension-tiled walk, what the tile kernel takes now),
rows.jsonl (a user's row laws: reduce_rows with its own distance kernel
against reduce_rows_pair_sums), chunk.jsonl (a streamed chunk: the element
kernel against edm_chunk) and
knn_ab.jsonl (two knn_probe builds, old and new, round by round).

    python3 perf_tests/scripts/tiled_table.py perf_tests/results/h200/any_d
"""
import json
import os
import sys
from collections import defaultdict


def lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def fmt(v):
    if v is None or v < 0:
        return "-"
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def main(folder):
    rows = lines(os.path.join(folder, "tiled_reduce.jsonl"))
    if rows:
        print("| precision | n | d | count, element walk | count, tiled | speedup | I (bb / lambda) "
              "| histogram, element walk | histogram, tiled | speedup | nearest (same sums) | pairs/s (count) | differ |")
        print("| --- " * 13 + "|")
        for r in rows:
            print(f"| {r['precision']} | {r['n']} | {r['d']} | {fmt(r['count_element_ms'])} | {fmt(r['count_tiled_ms'])} "
                  f"| {r['count_speedup']:.2f} | {r['count_I_bb']:.3f} | {fmt(r['hist_element_ms'])} "
                  f"| {fmt(r['hist_tiled_ms'])} | {r['hist_speedup']:.2f} | {fmt(r['nearest_ms'])} "
                  f"| {r['count_tiled_pairs_per_s']:.2e} | {r['counts_differ'] + r['bins_differ']} |")
        print()
    rows = lines(os.path.join(folder, "tiled_matrix.jsonl"))
    if rows:
        print("| precision | layout | n | d | element | tile before (SoA) | tiled walk | tile now | now / before "
              "| I (bb / lambda) | GB/s (tiled) | differ |")
        print("| --- " * 12 + "|")
        for r in rows:
            gain = r["tile_soa_ms"] / r["tile_ms"] if r["tile_soa_ms"] > 0 else -1
            print(f"| {r['precision']} | {r['layout']} | {r['n']} | {r['d']} | {fmt(r['element_ms'])} "
                  f"| {fmt(r['tile_soa_ms'])} | {fmt(r['tiled_ms'])} | {fmt(r['tile_ms'])} | {fmt(gain)} "
                  f"| {r['I_bb']:.3f} | {r['tiled_out_GBps']:.0f} | {r['outputs_differ']} |")
        print()
    rows = lines(os.path.join(folder, "rows.jsonl"))
    if rows:
        print("| precision | n | d | nearest key, element walk | nearest key, tiled | speedup | I (bb / lambda) "
              "| neighbour count, element walk | neighbour count, tiled | speedup | I (bb / lambda) "
              "| nearest_neighbour (app) | pairs/s (nearest key, tiled) | differ |")
        print("| --- " * 14 + "|")
        for r in rows:
            print(f"| {r['precision']} | {r['n']} | {r['d']} | {fmt(r['nearest_rows_element_ms'])} "
                  f"| {fmt(r['nearest_rows_tiled_ms'])} | {r['nearest_speedup']:.2f} | {r['nearest_I_bb']:.3f} "
                  f"| {fmt(r['within_rows_element_ms'])} | {fmt(r['within_rows_tiled_ms'])} | {r['within_speedup']:.2f} "
                  f"| {r['within_I_bb']:.3f} | {fmt(r['nearest_neighbour_app_ms'])} "
                  f"| {r['nearest_rows_tiled_pairs_per_s']:.2e} | {r['rows_differ']} |")
        print()
    rows = lines(os.path.join(folder, "chunk.jsonl"))
    if rows:
        print("| precision | layout | n | d | chunk (elements) | tiled walk taken | element kernel | edm_chunk | speedup "
              "| I (bb / lambda) | GB/s (edm_chunk) | differ |")
        print("| --- " * 12 + "|")
        for r in rows:
            print(f"| {r['precision']} | {r['layout']} | {r['n']} | {r['d']} | {r['chunk']} | {r['tiled_taken']} "
                  f"| {fmt(r['element_ms'])} | {fmt(r['chunk_ms'])} | {r['speedup']:.2f} | {r['I_bb']:.3f} "
                  f"| {r['chunk_out_GBps']:.0f} | {r['outputs_differ']} |")
        print()
    ab = defaultdict(list)
    build = None
    for r in lines(os.path.join(folder, "knn_ab.jsonl")):
        if "build" in r:
            build = r["build"]
            continue
        ab[(r["d"], r["k"], build)].append((r["nearest_ms"], r["knn_ms"]))
    if ab:
        print("| d | k | nearest, old | nearest, new | k nearest, old | k nearest, new | new / old (k nearest) |")
        print("| --- " * 7 + "|")
        for d, k in sorted({(d, k) for d, k, _ in ab}):
            o, n = ab[(d, k, "old")], ab[(d, k, "new")]
            if not o or not n:
                continue
            on, nn = min(v[0] for v in o), min(v[0] for v in n)
            ok, nk = min(v[1] for v in o), min(v[1] for v in n)
            print(f"| {d} | {k} | {fmt(on)} | {fmt(nn)} | {fmt(ok)} | {fmt(nk)} | {nk / ok:.3f} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
