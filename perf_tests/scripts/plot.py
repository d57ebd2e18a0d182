#!/usr/bin/env python3
"""PNG plots of a sweep.py results.csv, drawn by gnuplot (stdlib + gnuplot only).

  python3 perf_tests/scripts/plot.py RESULTS.csv [--out DIR] [--rho R]

Writes into DIR (default: the CSV's folder):
  improvement_<test>.png   I = t_BB / t_map against n (in units of 2^10, as
                           Fig. 5 of the journal paper), one panel per
                           variant, one line per map, BB the line I = 1;
                           the 3-D tests (dummy3, sink3, atm) against BB3
  bandwidth.png            achieved GB/s against n of the store-bound cases
                           (dummy, EDM d = 4) beside the measured write ceiling
  launch_overhead.png      t / t of the plain-CUDA launch of the same team
                           shape, per launch path (launch group; CUDA sweeps only)
  launch3_overhead.png     t_tdmaps / t_cuda of the 3-D element path (launch3)
Block side: --rho, else the largest one measured for each test.
"""

import argparse
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile

# Fixed colours per map so every figure reads the same.
MAP_STYLE = {
    "bb": "#000000", "lambda_rsqrt": "#d62728", "lambda_rsqrt_eps": "#ff9896", "lambda_sqrt": "#1f77b4",
    "lambda_sqrt_eps": "#aec7e8", "lambda_newton": "#2ca02c", "lambda_newton_eps": "#98df8a",
    "lambda_fp64": "#9467bd", "lambda_fp64_eps": "#c5b0d5", "rb": "#ff7f0e", "rec": "#8c564b", "h": "#e377c2", "hadouken": "#e377c2",
    "utm": "#7f7f7f",
    "bb3": "#000000", "lambda3_cbrt": "#d62728", "lambda3_cbrt_eps": "#ff9896", "lambda3_cardano": "#1f77b4",
    "lambda3_cardano_eps": "#aec7e8", "lambda3_fp64": "#9467bd", "lambda3_fp64_eps": "#c5b0d5",
}
BB_MAPS = ("bb", "bb3")
LAUNCH_STYLE = {"tdmaps": "#d62728", "team_flat": "#1f77b4", "tdmaps_t1024": "#ff7f0e", "range": "#2ca02c",
                "cuda_t256": "#7f7f7f", "tdmaps_t128": "#9467bd", "tdmaps_t64": "#8c564b", "prop_t256": "#17becf",
                "prop_t64": "#bcbd22", "tdmaps_tile": "#17becf", "cuda_tile": "#7f7f7f"}


def die(msg):
    print("plot.py: error: " + msg, file=sys.stderr)
    sys.exit(2)


def num(x):
    try:
        v = float(x)
        return v if math.isfinite(v) else None
    except (TypeError, ValueError):
        return None


def load(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die("cannot read %s: %s" % (path, e))
    need = {"test", "variant", "map", "rho", "n", "ms_median", "I", "gb_per_s"}
    if not rows:
        die("%s has no rows" % path)
    missing = need - set(rows[0].keys())
    if missing:
        die("%s is not a sweep.py results.csv (missing columns: %s)" % (path, ", ".join(sorted(missing))))
    for r in rows:
        r["rho"] = int(r["rho"])
        r["n"] = int(r["n"])
        for k in ("ms_median", "I", "gb_per_s", "vs_cuda", "errors"):
            r[k] = num(r.get(k))
    return rows


def terminal():
    p = subprocess.run(["gnuplot", "-e", "set terminal"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return "pngcairo" if "pngcairo" in p.stdout else "png"


def grid(k):
    cols = 1 if k == 1 else 2 if k <= 4 else 3 if k <= 9 else 4
    return int(math.ceil(k / cols)), cols


class Figure:
    """Collects panels, then writes data files and one gnuplot script."""

    def __init__(self, tmp, name, title):
        self.tmp, self.name, self.title, self.panels = tmp, name, title, []

    def panel(self, title, ylabel, series, hline=None, hline_title=None, logx=False, bad=None):
        # series: list of (label, colour, [(x, y), ...]); bad: same, points of
        # cases whose output check failed (drawn as crosses)
        self.panels.append((title, ylabel, series, hline, hline_title, logx, bad or []))

    def script(self, term, out_dir):
        rows, cols = grid(len(self.panels))
        w, h = 680 * cols, 380 * rows + 40
        font = "font ',9'" if term == "pngcairo" else "small"
        lines = ["set terminal %s size %d,%d %s" % (term, w, h, font),
                 "set output '%s'" % os.path.join(out_dir, self.name + ".png").replace("'", "''"),
                 "set multiplot layout %d,%d title '%s'" % (rows, cols, self.title.replace("'", "''")),
                 "set grid", "set key outside right top font ',7' samplen 2", "set xlabel 'n (2^{10})'"]
        for k, (title, ylabel, series, hline, hline_title, logx, bad) in enumerate(self.panels):
            lines.append("set title '%s' noenhanced" % title.replace("'", "''"))
            lines.append("set ylabel '%s'" % ylabel)
            lines.append("set logscale x 2" if logx else "unset logscale x")
            plots = []
            if hline is not None:
                plots.append("%g lw 2 lc rgb '#000000' title '%s' noenhanced" % (hline, (hline_title or "").replace("'", "''")))
            for s, (label, colour, pts) in enumerate(series):
                if not pts:
                    continue
                data = os.path.join(self.tmp, "%s_%d_%d.dat" % (self.name, k, s))
                with open(data, "w") as f:
                    for x, y in sorted(pts):
                        f.write("%.6g %.6g\n" % (x / 1024.0, y))
                plots.append("'%s' using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 lc rgb '%s' title '%s' noenhanced" % (
                    data, colour, label.replace("'", "''")))
            for s, (label, colour, pts) in enumerate(bad):
                if not pts:
                    continue
                data = os.path.join(self.tmp, "%s_%d_bad%d.dat" % (self.name, k, s))
                with open(data, "w") as f:
                    for x, y in sorted(pts):
                        f.write("%.6g %.6g\n" % (x / 1024.0, y))
                plots.append("'%s' using 1:2 with points pt 2 ps 1.5 lw 2 lc rgb '%s' title '%s: wrong output' noenhanced" % (
                    data, colour, label.replace("'", "''")))
            if not plots:
                plots.append("NaN notitle")
            lines.append("plot " + ", ".join(plots))
        lines.append("unset multiplot")
        return "\n".join(lines) + "\n"


def pick_rho(rows, want):
    rhos = sorted({r["rho"] for r in rows})
    if want is not None:
        return want if want in rhos else None
    return rhos[-1] if rhos else None


def improvement_figures(rows, tmp, rho_arg):
    figs = []
    for test in ("dummy", "sink", "edm", "collision", "dummy3", "sink3", "atm"):
        rs = [r for r in rows if r["test"] == test and r["I"] is not None]
        rho = pick_rho(rs, rho_arg)
        if rho is None:
            continue
        rs = [r for r in rs if r["rho"] == rho]
        variants = sorted({r["variant"] for r in rs})
        bb_name = "bb3" if any(r["map"] == "bb3" for r in rs) else "bb"
        fig = Figure(tmp, "improvement_" + test, "%s: I = t_{%s} / t_{map}, block side %d (same run)" % (
            test, bb_name.upper(), rho))
        for v in variants:
            series, bad = [], []
            maps = sorted({r["map"] for r in rs if r["variant"] == v and r["map"] not in BB_MAPS},
                          key=lambda m: list(MAP_STYLE).index(m) if m in MAP_STYLE else 99)
            for m in maps:
                pts = [(r["n"], r["I"]) for r in rs if r["variant"] == v and r["map"] == m]
                wrong = [(r["n"], r["I"]) for r in rs if r["variant"] == v and r["map"] == m and r["errors"]]
                series.append((m, MAP_STYLE.get(m, "#17becf"), pts))
                bad.append((m, MAP_STYLE.get(m, "#17becf"), wrong))
            fig.panel("%s/%s" % (test, v), "I", series, hline=1, hline_title=bb_name, bad=bad)
        figs.append(fig)
    return figs


def bandwidth_figure(rows, tmp, rho_arg):
    ceiling = max([r["gb_per_s"] for r in rows if r["test"] == "ceiling" and r["gb_per_s"]] or [0]) or None
    wanted = [("dummy", "store"), ("dummy3", "store")] + [("edm", "%s_d4_%s" % (l, k)) for l in ("packed", "full") for k in ("element", "tile")]
    fig = Figure(tmp, "bandwidth", "achieved GB/s (bytes written once) vs the measured write ceiling")
    for test, variant in wanted:
        rs = [r for r in rows if r["test"] == test and r["variant"] == variant and r["gb_per_s"]]
        rho = pick_rho(rs, rho_arg)
        if rho is None:
            continue
        rs = [r for r in rs if r["rho"] == rho]
        maps = sorted({r["map"] for r in rs}, key=lambda m: list(MAP_STYLE).index(m) if m in MAP_STYLE else 99)
        series = [(m, MAP_STYLE.get(m, "#17becf"), [(r["n"], r["gb_per_s"]) for r in rs if r["map"] == m]) for m in maps]
        fig.panel("%s/%s r%d" % (test, variant, rho), "GB/s", series, hline=ceiling,
                  hline_title="write ceiling %.0f GB/s" % ceiling if ceiling else None)
    return [fig] if fig.panels else []


def launch_figure(rows, tmp, test="launch"):
    rs = [r for r in rows if r["test"] == test and r["vs_cuda"] is not None]
    if not rs:
        return []
    fig = Figure(tmp, test + "_overhead", "launch path time / plain-CUDA time of the same team shape (same body, map, run)")
    keys = sorted({(r["variant"].rsplit(".", 1)[0], r["map"], r["rho"]) for r in rs})
    hows = ("tdmaps",) if test == "launch3" else (
        "tdmaps", "team_flat", "prop_t256", "prop_t64", "tdmaps_t1024", "tdmaps_t128", "tdmaps_t64", "range", "cuda_t256",
        "tdmaps_tile")
    for body, m, rho in keys:
        series = []
        for how in hows:
            pts = [(r["n"], r["vs_cuda"]) for r in rs
                   if r["variant"] == body + "." + how and r["map"] == m and r["rho"] == rho]
            series.append((how, LAUNCH_STYLE[how], pts))
        fig.panel("%s %s r%d" % (body, m, rho), "t / t_cuda", series, hline=1, hline_title="plain CUDA")
    return [fig]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="results.csv written by sweep.py")
    ap.add_argument("--out", help="folder for the PNGs (default: the CSV's folder)")
    ap.add_argument("--rho", type=int, help="block side to plot (default: the largest measured per test)")
    a = ap.parse_args()
    if shutil.which("gnuplot") is None:
        die("gnuplot not found (Debian: apt-get install gnuplot-nox)")
    rows = load(a.csv)
    out = os.path.abspath(a.out or os.path.dirname(os.path.abspath(a.csv)))
    os.makedirs(out, exist_ok=True)
    term = terminal()
    with tempfile.TemporaryDirectory(prefix="tdmaps_plot_") as tmp:
        figs = (improvement_figures(rows, tmp, a.rho) + bandwidth_figure(rows, tmp, a.rho) + launch_figure(rows, tmp)
                + launch_figure(rows, tmp, "launch3"))
        if not figs:
            die("nothing to plot in %s (no cases with an I)" % a.csv)
        for fig in figs:
            script = os.path.join(tmp, fig.name + ".gp")
            # gnuplot writes the PNG under a temporary name; the rename makes it appear whole.
            final = os.path.join(out, fig.name + ".png")
            text = fig.script(term, tmp)
            with open(script, "w") as f:
                f.write(text)
            p = subprocess.run(["gnuplot", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            made = os.path.join(tmp, fig.name + ".png")
            if p.returncode != 0 or not os.path.exists(made):
                die("gnuplot failed on %s:\n%s" % (fig.name, p.stderr[-2000:]))
            shutil.move(made, final + ".part")
            os.replace(final + ".part", final)
            print("plot.py: wrote %s" % final)
    return 0


if __name__ == "__main__":
    sys.exit(main())
