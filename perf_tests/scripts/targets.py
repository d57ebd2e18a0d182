#!/usr/bin/env python3
"""The perf issue's targets, read off sweep results.

  python3 perf_tests/scripts/targets.py RESULTS.csv [RESULTS.csv ...] [--n 30720] [--big-n 65536]
                                        [--n3 1024] [--atm-n 4096]

Reads the results.csv files written by sweep.py and prints one line per
target: the best measured figure, the case it comes from, and whether the
target is met. Every ratio (I = t_BB / t_map, t_tdmaps / t_cuda,
exact / epsilon) is taken from rows of the same CSV, i.e. the same run;
absolute times are the median of the case's iterations. Only cases whose
output check found no error count. A target without data says so ("no data")
and counts as not met. The 2-D lines are the perf issue's (issue 5); the
lines marked "3-D" are the tetrahedral issue's (dummy3, launch3, atm groups;
I = t_BB3 / t_map).

Python 3 standard library only. Exit status 0 (it is a report), 2 on bad
arguments or unreadable files.
"""

import argparse
import csv
import os
import sys

LAMBDA3 = {"lambda3_cbrt", "lambda3_cbrt_eps", "lambda3_cardano", "lambda3_cardano_eps", "lambda3_fp64",
           "lambda3_fp64_eps"}
BLOCK_SPACE = {"lambda_rsqrt", "lambda_rsqrt_eps", "lambda_sqrt", "lambda_sqrt_eps", "lambda_newton",
               "lambda_newton_eps", "lambda_fp64", "lambda_fp64_eps", "rb", "rec", "h", "hadouken"}


def die(msg):
    print("targets.py: error: " + msg, file=sys.stderr)
    sys.exit(2)


def num(v):
    try:
        return float(v) if v not in ("", None) else None
    except ValueError:
        return None


def load(path):
    if os.path.isdir(path):
        path = os.path.join(path, "results.csv")
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die("cannot read %s: %s" % (path, e))
    out = []
    for r in rows:
        if r.get("skipped") or not num(r.get("ms_median")):
            continue
        if num(r.get("errors")) not in (None, 0.0):
            continue
        r = dict(r)
        for k in ("ms_median", "I", "vs_cuda", "gb_per_s", "pct_write_ceiling", "gtriplets_per_s"):
            r[k] = num(r.get(k))
        r["rho"] = int(r["rho"])
        r["n"] = int(r["n"])
        r["source"] = path
        out.append(r)
    return out


def case(r):
    return "%s/%s/%s/r%d/n%d" % (r["test"], r["variant"], r["map"], r["rho"], r["n"])


class Report:
    def __init__(self):
        self.lines = []
        self.met = 0
        self.total = 0

    def add(self, target, value, text, where, ok):
        self.total += 1
        self.met += 1 if ok else 0
        status = "met" if ok else ("no data" if value is None else "missed")
        self.lines.append((target, text if value is not None else "-", where or "-", status))

    def print(self):
        w = [max(len(x[i]) for x in self.lines + [("target", "measured", "case", "status")]) for i in range(4)]
        fmt = "| %%-%ds | %%-%ds | %%-%ds | %%-%ds |" % tuple(w)
        print(fmt % ("target", "measured", "case", "status"))
        print("|" + "|".join("-" * (x + 2) for x in w) + "|")
        for line in self.lines:
            print(fmt % line)
        print("\n%d of %d targets met" % (self.met, self.total))


def fastest(rows, pred):
    c = [r for r in rows if pred(r)]
    return min(c, key=lambda r: r["ms_median"]) if c else None


def time_target(rep, rows, label, limit, pred):
    r = fastest(rows, pred)
    rep.add(label, r and r["ms_median"], r and "%.3f ms" % r["ms_median"], r and case(r),
            r is not None and r["ms_median"] <= limit)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="results.csv of sweep.py (or its folder)")
    ap.add_argument("--n", type=int, default=30720, help="problem side of the targets (default %(default)s)")
    ap.add_argument("--big-n", type=int, default=65536, help="the larger EDM side (default %(default)s)")
    ap.add_argument("--n3", type=int, default=1024, help="side of the dummy3 time target (default %(default)s)")
    ap.add_argument("--atm-n", type=int, default=4096, help="particles of the ATM targets (default %(default)s)")
    a = ap.parse_args()
    runs = [load(p) for p in a.csv]
    rows = [r for run in runs for r in run]
    n, big = a.n, a.big_n
    rep = Report()

    # Kokkos against plain CUDA, same body, map and team shape (launch group).
    for how, ref in (("tdmaps", "cuda_t256"), ("tdmaps_tile", "cuda_tile")):
        c = [r for r in rows if r["test"] == "launch" and r["rho"] == 32 and r["n"] == n and r["vs_cuda"] is not None
             and r["variant"].endswith("." + how)]
        worst = max(c, key=lambda r: r["vs_cuda"]) if c else None
        rep.add("Kokkos %s <= 1.10 x plain CUDA (%s), every body and map" % (how, ref), worst and worst["vs_cuda"],
                worst and "worst %.2fx (best %.2fx)" % (worst["vs_cuda"], min(r["vs_cuda"] for r in c)),
                worst and case(worst), worst is not None and worst["vs_cuda"] <= 1.10)

    def edm(layouts, d, side):
        prefixes = tuple("%s_d%d_" % (l, d) for l in layouts)
        return lambda r: r["test"] == "edm" and r["rho"] == 32 and r["n"] == side and r["variant"].startswith(prefixes)

    time_target(rep, rows, "EDM d = 4 packed/condensed, n = %d: <= 0.65 ms" % n, 0.65, edm(("packed", "condensed"), 4, n))
    time_target(rep, rows, "EDM d = 4 packed/condensed, n = %d: <= 2.95 ms" % big, 2.95,
                edm(("packed", "condensed"), 4, big))
    time_target(rep, rows, "EDM d = 2 full, n = %d: <= 1.00 ms" % n, 1.00, edm(("full",), 2, n))

    # Improvement factors of block-space maps over BB (same variant, same run).
    def best_i(pred):
        c = [r for r in rows if pred(r) and r["map"] in BLOCK_SPACE and r["I"] is not None]
        return max(c, key=lambda r: r["I"]) if c else None

    for label, limit, pred in (
            ("I over BB, EDM full layout: >= 1.5", 1.5,
             lambda r: r["test"] == "edm" and r["variant"].startswith("full_") and r["n"] == n and r["rho"] == 32),
            ("I over BB, dummy: >= 1.9 (block side 32)", 1.9,
             lambda r: r["test"] == "dummy" and r["n"] == n and r["rho"] == 32),
            ("I over BB, dummy: >= 1.9 (any block side)", 1.9, lambda r: r["test"] == "dummy" and r["n"] == n)):
        r = best_i(pred)
        rep.add(label, r and r["I"], r and "%.2f (%.3f ms)" % (r["I"], r["ms_median"]), r and case(r),
                r is not None and r["I"] >= limit)

    # Collision 3-D, int flag per pair, and bit flags against it.
    coll = lambda res: (lambda r: r["test"] == "collision" and r["variant"].startswith("3d_%s_" % res)
                        and r["n"] == n and r["rho"] == 32)
    ints = time_target(rep, rows, "collision 3-D int flags, n = %d: <= 0.80 ms" % n, 0.80, coll("intflags"))
    rep.add("... and its I over BB >= 1.1", ints and ints["I"], ints and ints["I"] and "%.2f" % ints["I"],
            ints and case(ints), ints is not None and ints["I"] is not None and ints["I"] >= 1.1)
    # Any bit layout: packed (flags), row-aligned (rowflags) or tiled (tileflags); the
    # fastest counts and the case names which.
    flags = fastest(rows, lambda r: coll("flags")(r) or coll("rowflags")(r) or coll("tileflags")(r))
    ratio = ints["ms_median"] / flags["ms_median"] if (ints and flags) else None
    rep.add("bit flags >= 2x faster than int flags", ratio, ratio and "%.2fx (%.3f ms)" % (ratio, flags["ms_median"]),
            flags and case(flags), ratio is not None and ratio >= 2.0)

    # Exact lambda against the epsilon form (dummy, same run).
    for run in runs:
        pairs = {}
        for r in run:
            if r["test"] == "dummy" and r["n"] == n and r["rho"] == 32 and r["map"] in ("lambda_rsqrt", "lambda_rsqrt_eps"):
                pairs[r["map"]] = r
        if len(pairs) == 2:
            q = pairs["lambda_rsqrt"]["ms_median"] / pairs["lambda_rsqrt_eps"]["ms_median"]
            rep.add("exact lambda-R within 2% of epsilon lambda-R (dummy)", q, "%+.1f%%" % (100 * (q - 1)),
                    case(pairs["lambda_rsqrt"]), q <= 1.02)
            break
    else:
        rep.add("exact lambda-R within 2% of epsilon lambda-R (dummy)", None, None, None, False)

    targets_3d(rep, runs, rows, a)
    rep.print()


def targets_3d(rep, runs, rows, a):
    """The tetrahedral issue's lines (dummy3, launch3, atm groups)."""
    # The element path against plain CUDA, same body, map and block shape, in 2-D and 3-D.
    c2 = [r for r in rows if r["test"] == "launch" and r["rho"] == 32 and r["n"] == a.n and r["vs_cuda"] is not None
          and r["variant"].endswith(".tdmaps")]
    l3 = [r for r in rows if r["test"] == "launch3" and r["vs_cuda"] is not None]
    c3 = [r for r in l3 if r["n"] == max(x["n"] for x in l3)]
    for label, c in (("2-D element path tdmaps <= 1.05 x plain CUDA (cuda_t256), every body and map", c2),
                     ("3-D element path tdmaps <= 1.05 x plain CUDA (launch3, largest n)", c3)):
        worst = max(c, key=lambda r: r["vs_cuda"]) if c else None
        rep.add(label, worst and worst["vs_cuda"], worst and "worst %.2fx (best %.2fx)" % (
            worst["vs_cuda"], min(r["vs_cuda"] for r in c)), worst and case(worst),
            worst is not None and worst["vs_cuda"] <= 1.05)

    # dummy3 at block side 8: the best lambda3 form over BB3 at the largest n measured.
    d8 = [r for r in rows if r["test"] == "dummy3" and r["variant"] == "store" and r["rho"] == 8]
    big = max((r["n"] for r in d8), default=None)
    c = [r for r in d8 if r["n"] == big and r["map"] in LAMBDA3 and r["I"] is not None]
    best = max(c, key=lambda r: r["I"]) if c else None
    rep.add("3-D: I over BB3, dummy3 (block side 8, largest n): >= 4", best and best["I"],
            best and "%.2f (%.3f ms)" % (best["I"], best["ms_median"]), best and case(best),
            best is not None and best["I"] >= 4.0)

    # Exact lambda3 (the default cube root) against the papers' fp32 Cardano
    # epsilon form, dummy3 block side 8, same run, at the largest n where both
    # outputs are right (the epsilon form is wrong past its fp32 limit).
    label = "3-D: exact lambda3 within 3% of the papers' fp32 Cardano epsilon form (dummy3)"
    found = None
    for run in runs:
        by = {}
        for r in run:
            if (r["test"] == "dummy3" and r["variant"] == "store" and r["rho"] == 8
                    and r["map"] in ("lambda3_cbrt", "lambda3_cardano_eps")):
                by.setdefault(r["n"], {})[r["map"]] = r
        both = [n for n, d in by.items() if len(d) == 2]
        if both:
            found = by[max(both)]
            break
    if found:
        q = found["lambda3_cbrt"]["ms_median"] / found["lambda3_cardano_eps"]["ms_median"]
        rep.add(label, q, "%+.1f%%" % (100 * (q - 1)), case(found["lambda3_cbrt"]), q <= 1.03)
    else:
        rep.add(label, None, None, None, False)

    time_target(rep, rows, "3-D: dummy3 strict (exact forms), packed, n = %d: <= 0.30 ms" % a.n3, 0.30,
                lambda r: r["test"] == "dummy3" and r["variant"] == "store" and r["n"] == a.n3
                and not r["map"].endswith("_eps"))
    time_target(rep, rows, "3-D: dummy3 strict (exact forms), full n^3 array (the authors' stores), n = %d: <= 0.30 ms" % a.n3, 0.30,
                lambda r: r["test"] == "dummy3" and r["variant"] == "full" and r["n"] == a.n3
                and not r["map"].endswith("_eps"))

    # ATM energy at n = atm_n: I over BB3 (fp64) of the fastest lambda3 case
    # (not the largest I: a block side where BB3 is slow would inflate it),
    # and triplets per second.
    atm = lambda prec: [r for r in rows if r["test"] == "atm" and r["variant"] == prec and r["n"] == a.atm_n]
    c = [r for r in atm("fp64") if r["map"] in LAMBDA3 and r["I"] is not None]
    best = min(c, key=lambda r: r["ms_median"]) if c else None
    rep.add("3-D: ATM fp64, n = %d: I over BB3 >= 1.3 (fastest lambda3 case)" % a.atm_n, best and best["I"],
            best and "%.2f (%.3f ms)" % (best["I"], best["ms_median"]), best and case(best),
            best is not None and best["I"] >= 1.3)
    for prec, limit in (("fp64", 1e11), ("fp32", 4e11)):
        c = [r for r in atm(prec) if r["gtriplets_per_s"]]
        best = max(c, key=lambda r: r["gtriplets_per_s"]) if c else None
        rate = best and best["gtriplets_per_s"] * 1e9
        rep.add("3-D: ATM %s, n = %d: >= %.0e triplets/s" % (prec, a.atm_n, limit), rate,
                rate and "%.3g triplets/s (%.3f ms)" % (rate, best["ms_median"]), best and case(best),
                rate is not None and rate >= limit)


if __name__ == "__main__":
    main()
