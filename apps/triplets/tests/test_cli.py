#!/usr/bin/env python3
"""CLI test of tdmaps-triplets against a NumPy oracle.

Usage: test_cli.py PATH/TO/tdmaps-triplets

Checks, on particles generated here (fixed seeds), that the Axilrod-Teller-Muto
energy (text and --json), the per-particle energies (--output) and the cutoffs
agree with a NumPy oracle (nested loops over k < j < i, vectorised per i; the
angles from the law of cosines) for both maps, all block sides, fp64 and fp32,
.npy (float64 and float32) and .csv input; that --random with --save-input
agrees with the oracle on the saved particles; that the dummy3 output holds its
value for every triplet in packed order; that n = 1 and 2 give energy 0; and
that bad input and options exit non-zero with a message and leave no output
file (and no temporary file) behind.
"""
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "tests"))
import clitest  # noqa: E402
from clitest import check  # noqa: E402

EXE = None
INF = float("inf")


def run(args, env_extra=None):
    return clitest.run(EXE, args, env_extra)


def particles(n, seed):
    """(n, 3) float64 uniform in [0, n^(1/3))^3, the CLI's --random density."""
    return np.random.default_rng(seed).random((n, 3)) * np.cbrt(n)


def oracle(x, c9=1.0, cutoff=INF, triple=INF):
    """(total, sum of |terms|, shares, |shares|): every k < j < i, fp64, the law of cosines."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    total, abs_total = 0.0, 0.0
    share, abs_share = np.zeros(n), np.zeros(n)
    for i in range(2, n):
        j, k = np.tril_indices(i, -1)  # k < j < i
        rij = np.linalg.norm(x[i] - x[j], axis=1)
        rjk = np.linalg.norm(x[j] - x[k], axis=1)
        rki = np.linalg.norm(x[k] - x[i], axis=1)
        inside = (rij < cutoff) & (rjk < cutoff) & (rki < cutoff) & (rij * rjk * rki < triple ** 3)
        ci = (rij ** 2 + rki ** 2 - rjk ** 2) / (2 * rij * rki)
        cj = (rij ** 2 + rjk ** 2 - rki ** 2) / (2 * rij * rjk)
        ck = (rjk ** 2 + rki ** 2 - rij ** 2) / (2 * rjk * rki)
        e = np.where(inside, c9 * (1 + 3 * ci * cj * ck) / (rij * rjk * rki) ** 3, 0.0)
        total += e.sum()
        abs_total += np.abs(e).sum()
        share[i] += e.sum() / 3
        abs_share[i] += np.abs(e).sum() / 3
        np.add.at(share, j, e / 3)
        np.add.at(share, k, e / 3)
        np.add.at(abs_share, j, np.abs(e) / 3)
        np.add.at(abs_share, k, np.abs(e) / 3)
    return total, abs_total, share, abs_share


def fp32_range(T):
    """fp32 against the fp64 oracle over side lengths 1e-8 .. 1e8: an equilateral triangle (every term
    the same sign: relative to the total) and random clusters (relative to the sum of |terms|), each
    at the origin; no NaN, no 0, no warning anywhere in the range (README: the fp32 range)."""
    h = np.sqrt(3) / 2
    rng = np.random.default_rng(826)
    for k in range(-16, 17):
        side = 10.0 ** (k / 2)
        shapes = [("equilateral", np.array([[0, 0, 0], [side, 0, 0], [side / 2, side * h, 0]]))]
        shapes += [(f"cluster {c}", rng.random((9, 3)) * side) for c in range(2)]
        for name, x in shapes:
            np.save(T("walk.npy"), x)
            total, abs_total, _, _ = oracle(x)
            scale = abs(total) if name == "equilateral" else abs_total
            for precision, tol in (("fp32", 2e-5), ("fp64", 1e-12)):
                rc, out, err = run(["--input", T("walk.npy"), "--precision", precision])
                got = energy_of(out)
                check(rc == 0 and err == "" and close(got, total, scale, tol),
                      f"side {side:g} {name} {precision}: energy {got} != {total} (tol {tol} of {scale}) {err.strip()}")


def energy_of(stdout):
    for line in stdout.splitlines():
        if line.startswith("energy: "):
            return float(line.split()[1])
    return None


def close(got, want, scale, tol):
    return got is not None and abs(got - want) <= tol * scale


def check_energy(tmp, path, x, label, extra, c9=1.0, cutoff=INF, triple=INF, fp32=False):
    total, abs_total, share, abs_share = oracle(x, c9, cutoff, triple)
    # fp64: relative to the total; fp32: to the sum of |terms| (the terms of a
    # close pair and a far particle cancel, so the total is a small part of it).
    tol, scale = (1e-5, abs_total) if fp32 else (1e-12, abs(total))
    opts = ["--input", path] + extra + (["--precision", "fp32"] if fp32 else [])
    if c9 != 1.0:
        opts += ["--c9", repr(c9)]
    if cutoff != INF:
        opts += ["--cutoff", repr(cutoff)]
    if triple != INF:
        opts += ["--cutoff-triple", repr(triple)]
    rc, out, err = run(opts)
    check(rc == 0 and close(energy_of(out), total, scale, tol),
          f"{label}: energy {energy_of(out)} != {total} (rc {rc}, {err.strip()})")
    rc, out, err = run(opts + ["--json"])
    try:
        j = json.loads(out)
        n = len(x)
        check(rc == 0 and close(j["energy"], total, scale, tol) and j["n"] == n and
              j["triplets"] == n * (n - 1) * (n - 2) // 6 and j["kernel"] == "atm" and
              j["precision"] == ("fp32" if fp32 else "fp64"), f"{label}: --json {out.strip()}")
    except ValueError:
        check(False, f"{label}: --json printed no JSON: {out!r} {err!r}")
    o = os.path.join(tmp, "shares.npy")
    rc, out, err, s = clitest.run_npy(EXE, opts, o)
    ok = s is not None
    if ok:
        got = energy_of(out)
        ok = (s.dtype == np.float64 and s.shape == (len(x),) and
              np.all(np.abs(s - share) <= tol * abs_share) and abs(s.sum() - got) <= 1e-12 * abs_total)
        os.remove(o)
    check(ok, f"{label}: per-particle energies differ from the oracle (rc {rc}, {err.strip()})")


def main():
    global EXE
    EXE = clitest.tool_argument(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        T = lambda name: os.path.join(tmp, name)  # noqa: E731
        combos = [["--map", "lambda3", "--block", "8"],
                  ["--map", "bb3", "--block", "2"],
                  ["--map", "lambda3", "--cbrt", "cardano", "--block", "4"],
                  ["--map", "lambda3", "--cbrt", "fp64", "--block", "2"],
                  ["--map", "bb3", "--block", "8", "--team-threads", "128", "--blocks-per-team", "3"]]
        x = particles(61, 21)
        np.save(T("x8.npy"), x)
        for extra in combos:
            check_energy(tmp, T("x8.npy"), x, "f8 " + " ".join(extra), extra)
        check_energy(tmp, T("x8.npy"), x, "f8 fp32", combos[0], fp32=True)
        check_energy(tmp, T("x8.npy"), x, "f8 c9", combos[1], c9=0.375)
        # float32 file: the oracle takes its values exactly.
        x4 = particles(45, 22).astype(np.float32)
        np.save(T("x4.npy"), x4)
        check_energy(tmp, T("x4.npy"), x4, "f4", combos[2])
        check_energy(tmp, T("x4.npy"), x4, "f4 fp32", combos[0], fp32=True)
        np.savetxt(T("x.csv"), x[:30], delimiter=",", fmt="%.17g", header="x, y, z")
        check_energy(tmp, T("x.csv"), x[:30], "csv", combos[0])
        # Cutoffs (values of the distances chosen away from any triplet's, in fp64).
        check_energy(tmp, T("x8.npy"), x, "cutoff", combos[0], cutoff=1.75)
        check_energy(tmp, T("x8.npy"), x, "cutoff-triple", combos[1], triple=1.3)
        check_energy(tmp, T("x8.npy"), x, "both cutoffs", combos[2], c9=2.0, cutoff=2.25, triple=1.6)

        # --random agrees with the oracle on the particles it saves; the same
        # seed gives the same energy under another map and block side.
        rc, out, err = run(["--random", 50, "--seed", 5, "--save-input", T("saved.npy")])
        ok = rc == 0
        if ok:
            s = np.load(T("saved.npy"))
            total = oracle(s)[0]
            ok = (s.shape == (50, 3) and s.dtype == np.float64 and s.min() >= 0 and s.max() < np.cbrt(50) and
                  close(energy_of(out), total, abs(total), 1e-12))
        check(ok, f"--random: differs from the oracle on --save-input (rc {rc}, {err})")
        a = energy_of(run(["--random", 300, "--seed", 9])[1])
        b = energy_of(run(["--random", 300, "--seed", 9, "--map", "bb3", "--block", "4"])[1])
        check(a is not None and b is not None and abs(a - b) <= 1e-12 * abs(a), f"--random: same seed, {a} != {b}")

        # dummy3: its value (i 1024 + j) 1024 + k for every triplet, packed order (i, then j, then k).
        rc, out, err = run(["--random", 40, "--kernel", "dummy3", "--output", T("d.npy"), "--block", "4"])
        ok = rc == 0
        if ok:
            d = np.load(T("d.npy"))
            want = np.array([(i * 1024 + j) * 1024 + k for i in range(40) for j in range(i) for k in range(j)],
                            dtype=np.uint32)
            ok = d.dtype == np.uint32 and np.array_equal(d, want)
        check(ok, f"dummy3 output differs (rc {rc}, {err.strip()})")
        rc, out, err = run(["--random", 100, "--kernel", "sink3", "--map", "bb3", "--json"])
        check(rc == 0 and json.loads(out)["energy"] is None and json.loads(out)["triplets"] == 161700,
              f"sink3: rc {rc} {out} {err}")

        # n = 1 and 2 are allowed: no triplets, energy 0, zero shares.
        for n in (1, 2):
            np.save(T("few.npy"), particles(n, 30 + n))
            rc, out, err = run(["--input", T("few.npy"), "--output", T("few_out.npy")])
            check(rc == 0 and energy_of(out) == 0.0 and np.array_equal(np.load(T("few_out.npy")), np.zeros(n)) and
                  "no triplets" in err, f"n = {n}: rc {rc} {out} {err}")
            os.remove(T("few_out.npy"))
            rc, out, err = run(["--input", T("few.npy"), "--kernel", "dummy3", "--output", T("few_out.npy")])
            check(rc == 0 and np.load(T("few_out.npy")).shape == (0,), f"n = {n} dummy3: rc {rc} {err}")
            os.remove(T("few_out.npy"))
        # Coincident particles: NaN (JSON null) and a warning.
        same = particles(10, 40)
        same[6] = same[2]
        np.save(T("same.npy"), same)
        rc, out, err = run(["--input", T("same.npy"), "--json"])
        w = json.loads(out)["warnings"] if rc == 0 else []
        check(rc == 0 and json.loads(out)["energy"] is None and err == "" and len(w) == 1 and
              "particles 2 and 6 (0-based) share a position" in w[0], f"coincident: rc {rc} {out} {err}")
        rc, out, err = run(["--input", T("same.npy"), "--json", "--quiet"])
        check(rc == 0 and json.loads(out)["warnings"] == [] and err == "", f"coincident --quiet: {out} {err}")
        rc, out, err = run(["--input", T("same.npy")])
        check(rc == 0 and "nan" in out.lower() and "share a position" in err, f"coincident (text): {out} {err}")

        fp32_range(T)

        # Error cases.
        bad = particles(20, 50)
        nan = bad.copy()
        nan[5, 1] = np.nan
        np.save(T("nan.npy"), nan)
        inf = bad.copy()
        inf[3, 2] = -np.inf
        np.save(T("inf.npy"), inf.astype(np.float32))
        huge = bad.copy()
        huge[7, 0] = 1e39
        np.save(T("huge.npy"), huge)
        np.save(T("int.npy"), (bad * 100).astype(np.int64))
        np.save(T("two.npy"), bad[:, :2])
        np.save(T("flat.npy"), bad[:, 0])
        np.save(T("empty.npy"), np.zeros((0, 3)))
        with open(T("nan.csv"), "w") as f:
            f.write("0.1,0.2,0.3\n0.4,nan,0.6\n")
        os.mkfifo(T("fifo.npy"))
        cases = [
            (["--random", "0"], ["--random 0", "from 1"], "n = 0 (--random)"),
            (["--input", T("empty.npy"), "--output", "@OUT"], ["0 rows"], "n = 0 (file)"),
            (["--input", T("nan.npy"), "--output", "@OUT"], ["row 5", "y", "nan"], "NaN coordinate"),
            (["--input", T("nan.csv"), "--output", "@OUT"], ["row 1", "y"], "NaN coordinate (csv)"),
            (["--input", T("inf.npy"), "--output", "@OUT"], ["row 3", "z", "inf"], "infinite coordinate"),
            (["--input", T("huge.npy"), "--precision", "fp32", "--output", "@OUT"], ["row 7", "fp32"], "fp32 overflow"),
            (["--input", T("int.npy"), "--output", "@OUT"], ["dtype", "<i8"], "wrong dtype"),
            (["--input", T("two.npy"), "--output", "@OUT"], ["2 columns", "expected 3"], "2 columns"),
            (["--input", T("flat.npy"), "--output", "@OUT"], ["flat.npy"], "1-D array"),
            (["--input", T("missing.npy")], ["missing.npy"], "missing input"),
            (["--input", tmp], ["is a directory"], "directory as input"),
            (["--random", "100", "--frobnicate"], ["frobnicate"], "unknown option"),
            (["--random", "100", "--block", "16"], ["--block", "16"], "--block 16"),
            (["--random", "100", "--map", "lambda"], ["--map"], "2-D map"),
            (["--random", "100", "--kernel", "pairs"], ["--kernel"], "unknown kernel"),
            (["--random", "100", "--precision", "fp16"], ["--precision"], "unknown precision"),
            (["--random", "100", "--c9", "-1"], ["--c9 -1", ">= 0"], "negative c9"),
            (["--random", "100", "--c9", "nan"], ["--c9 nan"], "NaN c9"),
            (["--random", "100", "--c9", "1.5x"], ["--c9 1.5x"], "c9 not a number"),
            (["--random", "100", "--cutoff", "0"], ["--cutoff 0", "> 0"], "zero cutoff"),
            (["--random", "100", "--cutoff-triple", "-2"], ["--cutoff-triple -2"], "negative cutoff-triple"),
            (["--random", "100", "--kernel", "dummy3", "--c9", "2"], ["--c9", "atm only"], "--c9 with dummy3"),
            (["--random", "100", "--kernel", "sink3", "--output", "@OUT"], ["--output", "sink3"], "--output with sink3"),
            (["--random", "100", "--output", T("x.txt")], [".npy"], "not .npy"),
            (["--random", "100", "--output", T("nodir/x.npy")], ["does not exist"], "missing dir"),
            (["--random", "100", "--output", T("fifo.npy")], ["not a regular file"], "fifo as output"),
            (["--input", T("x8.npy"), "--output", T("x8.npy")], ["would overwrite"], "--output onto --input"),
            (["--random", "100", "--input", T("x8.npy")], ["excludes"], "--random and --input"),
            (["--random", "100", "--seed", "-1"], ["--seed -1"], "negative seed"),
            (["--random", "1e3"], ["--random 1e3"], "n not an integer"),
            (["--random", "3000000"], ["--random 3000000", "2097152"], "n beyond the largest tetrahedron"),
            (["--random", "2000000", "--kernel", "dummy3", "--output", "@OUT"], ["dummy3 output", "need", "available"],
             "output larger than memory"),
            (["--random", "100", "--repeat", "0"], ["--repeat"], "--repeat 0"),
            (["--random", "100", "--block", "8", "--team-threads", "32"], ["team_threads", "32", "rho^2 = 64"],
             "team smaller than a layer"),
            (["--random", "100", "--kokkos-frobnicate"], ["--kokkos-frobnicate"], "unknown Kokkos option"),
            ([], ["--random"], "no input"),
        ]
        runtime = {"n = 0 (file)", "NaN coordinate", "NaN coordinate (csv)", "infinite coordinate", "fp32 overflow",
                   "wrong dtype", "2 columns", "1-D array", "missing input", "directory as input", "missing dir",
                   "fifo as output", "output larger than memory"}
        clitest.expect_errors(EXE, tmp, cases, runtime)
        clitest.failing_run_keeps_output(EXE, tmp, ["--input", T("nan.npy")])
        clitest.help_and_version(EXE, ["--cutoff-triple", "n = 1 and 2 are allowed"])

    return clitest.summary()


if __name__ == "__main__":
    sys.exit(main())
