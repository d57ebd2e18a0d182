#!/usr/bin/env python3
"""One key set for every JSON line of every tool and mode (apps/common/cli.cpp,
report_keys), equal to report_schema.json's "required" list and to its
"properties": a consumer reads any line with one set of column names.

    cli_reports.py PATH/TO/tdmaps-edm PATH/TO/tdmaps-collide PATH/TO/tdmaps-triplets PATH/TO/tdmaps-nbody

Runs each tool in each of its modes with --json (edm: matrix in every
layout, stream, reduce hist / nn / knn / count; collide: every --result; triplets:
atm and a dummy kernel; nbody: one evaluation and steps, whose per-step
lines are the nbody_step mode) and checks every line: the keys are the
schema's, a mode's own keys hold values (bytes = elements x the precision's
size, a histogram's counted = its pairs, ...) and every other mode's key is
null. test_cli_conventions.py runs it too (ctest cli.conventions).
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402
from clitest import check, run  # noqa: E402

KEYS = list(clitest.SCHEMA["required"])
# Never null, in any line.
ALWAYS = {"tool", "version", "mode", "n", "d", "precision", "map", "block", "backend", "concurrency", "ranks",
          "repeat", "elements", "ms_mean", "ms_min", "ms_total", "warnings"}
# May be null in any mode (not given, not measured, not this run's).
ANY = {"input", "seed", "kernel", "ms_warmup", "ms_write", "elements_per_second", "output"}
# A mode's own keys: set in its lines (null only where listed in MAYBE).
OWN = {
    "matrix": {"layout", "symmetric", "bytes", "gbps", "gbps_best"},
    "stream": {"layout", "chunks", "chunk_bytes", "bytes", "gbps"},
    "reduce": {"reduce", "ms_combine"},
    "collide": {"ms_combine", "result", "count", "fraction"},
    "triplets": {"ms_combine", "triplets"},
    "nbody": {"step", "time", "energy", "kinetic", "potential", "momentum", "energy_drift", "ms_combine",
              "rank_sums", "steps"},
    "nbody_step": {"step", "time", "energy", "kinetic", "potential", "momentum", "energy_drift"},
}
MAYBE = {
    "matrix": set(),
    "stream": {"d2h_gbps", "d2h_cold_gbps"},
    "reduce": {"k", "bins", "rmax", "counted", "radius", "count"},
    "collide": {"save_input"},
    "triplets": {"energy", "c9", "cutoff", "cutoff_triple", "save_input"},
    "nbody": {"generator", "dt", "G", "softening", "cutoff", "forces", "snapshots", "save_input"},
    "nbody_step": {"generator"},
}


def check_line(label, j, mode):
    if j is None:
        return
    check(set(j) == set(KEYS), f"{label}: keys differ from the schema's required list (missing, extra)",
          (sorted(set(KEYS) - set(j)), sorted(set(j) - set(KEYS))))
    check(j.get("mode") == mode, f"{label}: mode {j.get('mode')!r}, expected {mode!r}")
    for k in ALWAYS | OWN.get(mode, set()):
        check(j.get(k) is not None, f"{label}: {k} is null in mode {mode}")
    allowed = ALWAYS | ANY | OWN.get(mode, set()) | MAYBE.get(mode, set())
    for k in set(KEYS) - allowed:
        check(j.get(k) is None, f"{label}: {k} = {j.get(k)!r}, another mode's key, is not null")


def lines_of(label, out):
    import json

    js = []
    for line in out.splitlines():
        if line.strip():
            try:
                js.append(json.loads(line))
            except ValueError as e:
                check(False, f"{label}: not JSON ({e}): {line!r}")
    return js


def same_keys_everywhere(edm, collide, triplets, nbody, tmp):
    """Every tool in every mode: one key set, each mode's keys set, the others null."""
    runs = [
        (edm, ["--random", 120, "--layout", lay], "matrix") for lay in ("condensed", "packed", "full")
    ] + [
        (edm, ["--random", 120, "--layout", "full", "--symmetric", "--output", os.path.join(tmp, "f.npy")], "matrix"),
        (edm, ["--random", 300, "--layout", "packed", "--max-device-memory", "64K"], "stream"),
        (edm, ["--random", 120, "--reduce", "hist", "--rmax", 1, "--bins", 7], "reduce"),
        (edm, ["--random", 120, "--reduce", "nn", "--output", os.path.join(tmp, "nn.npy")], "reduce"),
        (edm, ["--random", 120, "--reduce", "count", "--radius", 0.25], "reduce"),
        (edm, ["--random", 120, "--reduce", "knn", "--k", 5, "--output", os.path.join(tmp, "knn.npy")], "reduce"),
    ]
    runs += [(collide, ["--random", 200, "--result", r], "collide")
             for r in ("count", "flags", "rowflags", "tileflags", "pairs", "intflags")]
    runs += [(collide, ["--random", 50, "--save-input", os.path.join(tmp, "s.npy")], "collide"),
             (triplets, ["--random", 40], "triplets"), (triplets, ["--random", 40, "--kernel", "dummy3"], "triplets"),
             (nbody, ["--random", 40], "nbody"), (nbody, ["--plummer", 40, "--law", "lj"], "nbody"),
             (nbody, ["--random", 40, "--steps", 4, "--every", 2, "--dt", "0.001"], "nbody_step")]
    seen = set()
    for exe, args, mode in runs:
        label = f"{os.path.basename(exe)} {' '.join(map(str, args))}"
        rc, out, err = run(exe, args + ["--json"])
        check(rc == 0, f"{label}: rc {rc} {err.strip()!r}")
        js = lines_of(label, out)
        check(len(js) >= 1, f"{label}: no JSON line")
        if mode == "nbody_step":
            # One line per report, then the run's summary (mode "nbody").
            check(len(js) == 4 and [j.get("mode") for j in js] == ["nbody_step"] * 3 + ["nbody"],
                  f"{label}: modes {[j.get('mode') for j in js]}")
            for j in js[:-1]:
                check_line(label, j, "nbody_step")
            check_line(label, js[-1], "nbody")
            seen.update(j.get("mode") for j in js)
            continue
        check(len(js) == 1, f"{label}: {len(js)} lines")
        for j in js:
            check_line(label, j, mode)
            seen.add(j.get("mode"))
            size = 4 if j.get("precision") == "fp32" else 8
            if mode in ("matrix", "stream"):
                check(j.get("bytes") == j.get("elements") * size, f"{label}: bytes {j.get('bytes')} for "
                      f"{j.get('elements')} {j.get('precision')} entries")
            if mode == "reduce":
                check((j.get("k") == 5) == (j.get("reduce") == "knn"), f"{label}: k {j.get('k')}")
            if mode == "reduce" and j.get("reduce") == "hist":
                n = j["n"]
                check(j.get("bins") == 7 and j.get("rmax") == 1 and 0 <= j.get("counted", -1) <= n * (n - 1) // 2,
                      f"{label}: bins {j.get('bins')} rmax {j.get('rmax')} counted {j.get('counted')}")
            if mode == "collide" and "--result" in args:
                check(j.get("result") == args[args.index("--result") + 1], f"{label}: result {j.get('result')!r}")
            if "--save-input" in args:
                check(j.get("save_input") == args[args.index("--save-input") + 1], f"{label}: save_input")
    check(seen == set(OWN), f"modes seen {sorted(seen)}, expected {sorted(OWN)}")
    # The schema itself: "required" and "properties" name the same keys, once each.
    check(len(KEYS) == len(set(KEYS)) and set(KEYS) == set(clitest.SCHEMA["properties"]),
          "report_schema.json: required and properties differ",
          (sorted(set(KEYS) ^ set(clitest.SCHEMA["properties"]))))


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    tools = [os.path.abspath(a) for a in sys.argv[1:]]
    with tempfile.TemporaryDirectory() as tmp:
        same_keys_everywhere(*tools, tmp)
    return clitest.summary()


if __name__ == "__main__":
    sys.exit(main())
