#!/usr/bin/env python3
"""The pair-law batch's table (device_pair_law.sh): per n, the user's gravity
law against tdmaps::nbody::Forces on the same walk (the issue's "within 5%"),
both against the GPU Gems twin of the same run and the CUDA samples' own
kernel of the same call; the user KDE; nearest neighbour, count and histogram
(the edm calls on the pair-law walks, and the element walk in the same run);
lambda against bb (I = t_bb / t_lambda).

    python3 perf_tests/scripts/pair_law_table.py pairlaw.json [--anchor anchor.csv]

Rates are interactions/s = n^2 / t (the all-pairs kernels' count)."""

import argparse
import csv
import json
import re
import sys


def load(path):
    with open(path) as f:
        text = f.read()
    try:
        data = json.loads(text)
    except json.JSONDecodeError:  # a run cut off: the cases up to the last complete one
        cut = text.rfind("}\n    ,")
        data = json.loads(text[: cut + 1] + "]}") if cut > 0 else {"benchmarks": []}
    rows = {}
    for b in data.get("benchmarks", []):
        if b.get("error_occurred"):
            continue
        rows[b["name"].split("/manual_time")[0].split("/iterations")[0]] = b
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json")
    ap.add_argument("--anchor", help="anchor.csv of nbody_anchor (kernel,prec,N,ms,interactions_per_s,maxrel)")
    a = ap.parse_args()
    rows = load(a.json)
    anchor = {}
    if a.anchor:
        with open(a.anchor) as f:
            for r in csv.reader(f):
                if len(r) >= 5 and r[0] == "samples_square":
                    anchor[(r[1], int(r[2]))] = float(r[3])
    ns = sorted({int(m.group(1)) for k in rows for m in [re.search(r"/n(\d+)$", k)] if m and re.match(r"pairlaw/(gravity_acc|kde)/", k)})
    if not ns:
        print("no pairlaw cases in", a.json)
        return 1

    def ms(name):
        b = rows.get(name)
        return b["ms_median"] if b else None

    def rate(n, t):
        return "-" if t is None else "%.3g" % (n * n / (t * 1e-3))

    def ratio(x, y):
        return "-" if x is None or y is None else "%.3f" % (x / y)

    print("gravity fp32, accelerations alone: ms (interactions/s = n^2 / t)")
    print("| n | Forces (app) | user law | user / Forces | user lambda / bb I | gems twin | samples' kernel | Forces vs samples | user vs samples |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for n in ns:
        f = ms("pairlaw/gravity_acc/fp32/forces/lambda/r32/n%d" % n)
        u = ms("pairlaw/gravity_acc/fp32/user/lambda/r32/n%d" % n)
        ub = ms("pairlaw/gravity_acc/fp32/user/bb/r32/n%d" % n)
        g = ms("nbody/gravity_acc/fp32/gems/%d" % n)
        s = anchor.get(("fp32", n))
        print("| %d | %s (%s) | %s (%s) | %s | %s | %s | %s | %s | %s |" % (
            n, "-" if f is None else "%.3f" % f, rate(n, f), "-" if u is None else "%.3f" % u, rate(n, u),
            ratio(u, f), ratio(ub, u), "-" if g is None else "%.3f" % g, "-" if s is None else "%.3f" % s,
            ratio(s, f), ratio(s, u)))
    print()
    print("gravity, accelerations alone, Forces (nbody group's lambda) against the samples' kernel, both precisions")
    print("| precision | n | lambda ms | samples' ms | lambda vs samples |")
    print("| --- | --- | --- | --- | --- |")
    for prec in ("fp32", "fp64"):
        for n in ns:
            t = ms("nbody/gravity_acc/%s/lambda/%d" % (prec, n))
            s = anchor.get((prec, n))
            if t is not None or s is not None:
                print("| %s | %d | %s | %s | %s |" % (prec, n, "-" if t is None else "%.3f" % t,
                                                      "-" if s is None else "%.3f" % s, ratio(s, t)))
    print()
    print("user Gaussian kernel sum (KDE), fp32, d = 3: ms, pairs/s = n (n - 1) / 2 / t, I = t_bb / t_lambda")
    print("| n | lambda ms | pairs/s | bb ms | I | max_rel_err |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n in ns:
        b = rows.get("pairlaw/kde/fp32/user/lambda/r32/n%d" % n)
        bb = ms("pairlaw/kde/fp32/user/bb/r32/n%d" % n)
        if b:
            print("| %d | %.3f | %.3g | %s | %s | %.2g |" % (n, b["ms_median"], b["pairs_per_s"],
                  "-" if bb is None else "%.3f" % bb, ratio(bb, b["ms_median"]), b.get("max_rel_err", float("nan"))))
    red = [k for k in rows if re.match(r"pairlaw/(nearest|count|histogram)/", k)]
    if red:
        print()
        print("nearest neighbour, count (~32 neighbours) and histogram (100 bins, rmax 1), fp32, d = 3, uniform in the unit")
        print("cube: ms, pairs/s = n (n - 1) / 2 / t; app = the edm call (the pair-law walks on GPUs), element = the")
        print("element walk it took before, same run; I = t_bb / t_lambda; check = the count or the histogram's total")
        print("| reduction | n | app lambda ms | pairs/s | app bb ms | I | element lambda ms | app vs element | check |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        keyed = {}
        for k in red:
            m = re.match(r"pairlaw/(\w+)/fp32/(\w+)/(\w+)/r32/n(\d+)$", k)
            if m:
                keyed[(m.group(1), m.group(2), m.group(3), int(m.group(4)))] = rows[k]
        for what in ("nearest", "count", "histogram"):
            for n in sorted({key[3] for key in keyed if key[0] == what}):
                app = keyed.get((what, "app", "lambda", n))
                appbb = keyed.get((what, "app", "bb", n))
                el = keyed.get((what, "element", "lambda", n))
                t = app["ms_median"] if app else None
                tb = appbb["ms_median"] if appbb else None
                te = el["ms_median"] if el else None
                chk = "-"
                if app and "check" in app:
                    chk = "%d" % app["check"] + ("" if not el or el.get("check") == app["check"] else " (element %d)" % el["check"])
                print("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                    what, n, "-" if t is None else "%.3f" % t, "-" if not app else "%.3g" % app["pairs_per_s"],
                    "-" if tb is None else "%.3f" % tb, ratio(tb, t), "-" if te is None else "%.3f" % te, ratio(te, t), chk))
    errs = [b.get("max_rel_vs_forces") for k, b in rows.items() if "gravity_acc/fp32/user" in k]
    errs = [e for e in errs if e is not None]
    if errs:
        print()
        print("user gravity against Forces (both fp32, the same walk): worst sampled relative difference %.2g" % max(errs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
