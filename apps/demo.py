#!/usr/bin/env python3
"""tdmaps main job: the EDM and collision apps on generated data, every map
against the bounding box (BB) measured in the same run, then the three-body
(ATM) energy under the 3-D maps against their bounding box (BB3).

    python3 apps/demo.py --bin build/host/bin [--n 8192] [--block 32] [--n3 400] [--repeat 5]

I = t_BB / t_map (> 1: the map beats BB). Figures are the minimum of --repeat
timed runs after one untimed warm-up (each CLI does the warm-up itself).
"""
import argparse
import json
import os
import subprocess
import sys

MAPS = ["bb", "lambda", "rb", "rec", "utm", "h"]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"tdmaps demo: error: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr.strip()}")
    for line in reversed(p.stdout.strip().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    sys.exit(f"tdmaps demo: error: no JSON line from {' '.join(cmd)}:\n{p.stdout}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="folder with tdmaps-edm and tdmaps-collide")
    ap.add_argument("--n", type=int, default=8192, help="points / spheres (default 8192)")
    ap.add_argument("--block", type=int, default=32, choices=[8, 16, 32])
    ap.add_argument("--n3", type=int, default=400, help="particles of the three-body energy (default 400)")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    if a.n < 2:
        sys.exit("tdmaps demo: error: --n must be at least 2")
    if a.n3 < 3:
        sys.exit("tdmaps demo: error: --n3 must be at least 3")
    if a.repeat < 1:
        sys.exit("tdmaps demo: error: --repeat must be at least 1")
    edm = os.path.join(a.bin, "tdmaps-edm")
    col = os.path.join(a.bin, "tdmaps-collide")
    tri = os.path.join(a.bin, "tdmaps-triplets")
    for exe in (edm, col, tri):
        if not os.access(exe, os.X_OK):
            sys.exit(f"tdmaps demo: error: {exe} not found (build first: bash cmake/run.sh build)")

    common = ["--random", str(a.n), "--seed", "7", "--block", str(a.block), "--repeat", str(a.repeat), "--json"]
    rows = []
    for m in MAPS:
        e = run([edm, *common, "--dims", "4", "--precision", "fp32", "--layout", "packed", "--map", m, "--kernel", "element"])
        c = run([col, *common, "--dims", "3", "--result", "count", "--map", m,
                 "--kernel", "element" if m == "utm" else "tile"])
        rows.append((m, e, c))
    counts = {c["count"] for _, _, c in rows}
    if len(counts) != 1:
        sys.exit(f"tdmaps demo: error: maps disagree on the collision count: {sorted(counts)}")

    bb_e = rows[0][1]["ms_min"]
    bb_c = rows[0][2]["ms_min"]
    print(f"tdmaps main job: n = {a.n}, block {a.block}, backend {rows[0][1]['backend']} "
          f"({rows[0][1]['concurrency']} threads), best of {a.repeat}")
    print(f"EDM: d = 4, fp32, packed lower triangle ({rows[0][1]['bytes'] / 1e6:.1f} MB); "
          f"collision: 3-D spheres, count = {rows[0][2]['count']}")
    print(f"{'map':<8} {'EDM ms':>9} {'GB/s':>7} {'I_EDM':>6} {'collide ms':>11} {'I_coll':>7}")
    for m, e, c in rows:
        ce = c["ms_min"]
        print(f"{m:<8} {e['ms_min']:9.3f} {e['gbps_best']:7.2f} {bb_e / e['ms_min']:6.2f} "
              f"{ce:11.3f} {bb_c / c['ms_min']:7.2f}")

    # Three-body energy over the strict triplets k < j < i, block side 8.
    common3 = ["--random", str(a.n3), "--seed", "7", "--block", "8", "--repeat", str(a.repeat), "--json", "--quiet"]
    rows3 = [(m, run([tri, *common3, "--map", m])) for m in ("bb3", "lambda3")]
    e3 = [r["energy"] for _, r in rows3]
    if e3[0] is None or abs(e3[0] - e3[1]) > 1e-9 * abs(e3[0]):
        sys.exit(f"tdmaps demo: error: bb3 and lambda3 disagree on the ATM energy: {e3}")
    bb3 = rows3[0][1]["ms_min"]
    print(f"\nATM three-body energy: n = {a.n3}, {rows3[0][1]['triplets']} triplets, fp64, block 8, "
          f"energy {e3[1]:.6g}")
    print(f"{'map':<8} {'ms':>9} {'Gtriplets/s':>12} {'I':>6}")
    for m, r in rows3:
        print(f"{m:<8} {r['ms_min']:9.3f} {r['triplets'] / r['ms_min'] / 1e6:12.3f} {bb3 / r['ms_min']:6.2f}")


if __name__ == "__main__":
    main()
