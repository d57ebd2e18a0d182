#!/usr/bin/env python3
"""The energy drift of a Plummer sphere from tdmaps-nbody's JSON lines, as a
PNG drawn by gnuplot (stdlib + gnuplot only) and a small table.

  python3 perf_tests/scripts/nbody_drift_plot.py DIR [--out FILE.png]

Reads the JSON lines of DIR/drift*.jsonl (perf_tests/scripts/device_nbody_cli.sh
writes drift_<precision>_<dt>.jsonl; one file of them all reads the same):
one line per report ("mode": "nbody_step", then "nbody"), grouped by their
"precision" and their dt (t / step). Plots
|E(t) - E0| / |E0| against t on a log scale, one line per precision and dt,
and prints the largest drift of each run and the ratio of the largest
drifts of dt and dt / 2 (about 4 for a second-order method while the
rounding of the precision stays below the truncation error).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    runs = {}
    for path in sorted(glob.glob(os.path.join(a.dir, "drift*.jsonl"))):
        with open(path) as f:
            for line in f:
                if not line.startswith("{"):
                    continue
                j = json.loads(line)
                if j.get("mode") == "nbody_step" and j.get("energy_drift") is not None and j["step"] > 0:
                    dt = float(f"{j['time'] / j['step']:.12g}")  # step lines carry t and the step
                    runs.setdefault((j["precision"], dt), []).append((j["time"], abs(j["energy_drift"]), j["n"]))
    if not runs:
        sys.exit(f"nbody_drift_plot: no drift_*.jsonl with reports in {a.dir}")
    print("precision  dt          n      steps  max |dE/E0|")
    for (prec, dt), rows in sorted(runs.items()):
        print(f"{prec:9}  {dt:<10g}  {rows[0][2]:<6}  {round(rows[-1][0] / dt):<5}  {max(r[1] for r in rows):.3e}")
    for prec in ("fp32", "fp64"):
        dts = sorted(dt for p, dt in runs if p == prec)
        for fine, coarse in zip(dts, dts[1:]):
            ratio = max(r[1] for r in runs[(prec, coarse)]) / max(max(r[1] for r in runs[(prec, fine)]), 1e-300)
            print(f"{prec}: max drift at dt {coarse:g} / at dt {fine:g} = {ratio:.2f}")
    out = a.out or os.path.join(a.dir, "energy_drift.png")
    with tempfile.TemporaryDirectory() as tmp:
        plots = []
        for k, ((prec, dt), rows) in enumerate(sorted(runs.items())):
            data = os.path.join(tmp, f"d{k}.dat")
            with open(data, "w") as f:
                for t, d, _ in rows:
                    f.write(f"{t} {max(d, 1e-17)}\n")
            plots.append(f"'{data}' using 1:2 with lines lw 2 title '{prec}, dt = {dt:g}'")
        n = next(iter(runs.values()))[0][2]
        script = "\n".join([
            "set terminal pngcairo size 900,560" if "pngcairo" in terminals() else "set terminal png size 900,560",
            f"set output '{out}'",
            f"set title 'tdmaps-nbody: Plummer sphere, n = {n}, softening 0.01, leapfrog KDK'",
            "set xlabel 't (Henon units)'", "set ylabel '|E(t) - E0| / |E0|'", "set logscale y",
            "set format y '10^{%L}'", "set key bottom right", "set grid",
            "plot " + ", ".join(plots)])
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print(f"plot: {out}")


def terminals():
    p = subprocess.run(["gnuplot", "-e", "set terminal"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.stdout


if __name__ == "__main__":
    main()
