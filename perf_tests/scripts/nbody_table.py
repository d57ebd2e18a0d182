#!/usr/bin/env python3
"""The nbody group's results as a table (standard library only).

    python3 perf_tests/scripts/nbody_table.py nbody.json [--csv nbody.csv]

Reads the Google Benchmark JSON of tdmaps_bench_maps' nbody group
(--benchmark_format=json or --benchmark_out) and prints one row per case,
nbody/<law>/<precision>/<variant>/<n>, with the CSV columns:

    variant, law, precision, n, ms, interactions_per_s, vs_gems, vs_square,
    pairs_per_s, max_rel_err, label

ms is the case's median launch (ms_median); interactions_per_s = n^2 / t for
every variant; vs_gems and vs_square are its rate over gems' and square's of
the same law, precision and n (empty where that case is missing). The check
cases (nbody/<law>/<precision>/check/<n>) follow the table with their error
counters. A file cut off mid-run (a time limit) is read up to its last
complete case. Exit status 1 when a case reported an error (a failed check).
"""
import argparse
import csv
import json
import sys

VARIANT_ORDER = ("gems", "square", "lambda", "bb")
COLUMNS = ("variant", "law", "precision", "n", "ms", "interactions_per_s", "vs_gems", "vs_square", "pairs_per_s",
           "max_rel_err", "label")


def read_cases(path):
    """The benchmark entries of a JSON file, tolerating a truncated end."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text).get("benchmarks", [])
    except json.JSONDecodeError:
        pass
    start = text.find('"benchmarks"')
    if start < 0:
        return []
    pos = text.find("[", start) + 1
    decoder = json.JSONDecoder()
    cases = []
    while pos > 0:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= len(text) or text[pos] != "{":
            break
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            break
        cases.append(obj)
    return cases


def split_name(name):
    """(law, precision, variant, n) of nbody/<law>/<precision>/<variant>/<n>[/...], else None."""
    parts = name.split("/")
    if len(parts) < 5 or parts[0] != "nbody":
        return None
    try:
        n = int(parts[4])
    except ValueError:
        return None
    return parts[1], parts[2], parts[3], n


def variant_key(variant):
    base = variant.split("_")[0]
    order = VARIANT_ORDER.index(base) if base in VARIANT_ORDER else len(VARIANT_ORDER)
    return order, variant


def ms_of(case):
    if "ms_median" in case:
        return float(case["ms_median"])
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}.get(case.get("time_unit", "ms"), 1.0)
    return float(case.get("real_time", 0.0)) * scale


def fmt(v, spec):
    return "" if v is None or v == "" else format(v, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("json", help="Google Benchmark JSON of the nbody group")
    ap.add_argument("--csv", help="write the table here as CSV")
    args = ap.parse_args()

    rows, checks, failed = [], [], []
    for case in read_cases(args.json):
        if case.get("run_type", "iteration") != "iteration":
            continue
        parsed = split_name(case.get("name", ""))
        if parsed is None:
            continue
        law, precision, variant, n = parsed
        if case.get("error_occurred"):
            failed.append((case["name"], case.get("error_message", "")))
        if variant == "check":
            checks.append((law, precision, n, case))
            continue
        if case.get("error_occurred"):
            continue
        rows.append({"variant": variant, "law": law, "precision": precision, "n": n, "ms": ms_of(case),
                     "interactions_per_s": float(case.get("interactions_per_s", 0.0)),
                     "pairs_per_s": case.get("pairs_per_s"), "max_rel_err": case.get("max_rel_err"),
                     "label": case.get("label", "")})

    rate = {(r["law"], r["precision"], r["n"], r["variant"]): r["interactions_per_s"] for r in rows}
    for r in rows:
        for ref in ("gems", "square"):
            base = rate.get((r["law"], r["precision"], r["n"], ref))
            r["vs_" + ref] = r["interactions_per_s"] / base if base else None
    rows.sort(key=lambda r: (r["law"], r["precision"], r["n"], variant_key(r["variant"])))

    header = f"{'law':11} {'prec':5} {'n':>8} {'variant':16} {'ms':>11} {'interactions/s':>14} {'vs gems':>8} " \
             f"{'vs square':>9} {'max_rel_err':>11}  label"
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['law']:11} {r['precision']:5} {r['n']:>8} {r['variant']:16} {r['ms']:>11.4f} "
              f"{r['interactions_per_s']:>14.4e} {fmt(r['vs_gems'], '>8.3f'):>8} {fmt(r['vs_square'], '>9.3f'):>9} "
              f"{fmt(r['max_rel_err'], '>11.2e'):>11}  {r['label']}")
    if checks:
        print("\nchecks (every variant against a host fp64 loop over all bodies):")
        for law, precision, n, case in checks:
            errs = " ".join(f"{k}={case[k]:.2e}" for k in sorted(case) if k.startswith("err_"))
            status = "FAILED: " + case.get("error_message", "") if case.get("error_occurred") else "ok"
            print(f"  {law:11} {precision:5} n={n}: {errs} (tolerance {case.get('tolerance', 0):.0e}) {status}")
    for name, message in failed:
        print(f"error: {name}: {message}", file=sys.stderr)

    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(COLUMNS)
            for r in rows:
                w.writerow([r["variant"], r["law"], r["precision"], r["n"], f"{r['ms']:.6g}",
                            f"{r['interactions_per_s']:.6g}", fmt(r["vs_gems"], ".4f"), fmt(r["vs_square"], ".4f"),
                            fmt(r["pairs_per_s"], ".6g"), fmt(r["max_rel_err"], ".3e"), r["label"]])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
