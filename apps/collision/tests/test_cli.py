#!/usr/bin/env python3
"""CLI test of tdmaps-collide against a numpy brute force.

Usage: test_cli.py PATH/TO/tdmaps-collide

Checks, on data generated here (fixed seeds, centres and radii on the 2^-24
grid, where fp64 is exact), that the count, the pair list, the three bit flags and
the int flags equal a numpy brute force for several maps, kernels and block
sides, 1-D and 3-D, .npy (float32 and float64) and .csv input; that --random
with --save-input agrees with the brute force on the saved spheres; and that
bad input and options exit non-zero with a message and leave no output file
(and no temporary file) behind.
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
GRID = float(2 ** 24)


def run(args, env_extra=None):
    return clitest.run(EXE, args, env_extra)


def spheres(n, dims, rmin, rmax, seed):
    """(n, dims + 1) float64 on the 2^-24 grid: centres in [0, 1), radii in [rmin, rmax]."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 2 ** 24, size=(n, dims)) / GRID
    r = rng.integers(int(np.ceil(rmin * GRID)), int(np.floor(rmax * GRID)) + 1, size=(n, 1)) / GRID
    return np.hstack([c, r])


def brute_force(s):
    """Boolean mask over the strict lower triangle, row-major (np.tril_indices(n, -1) order)."""
    s = np.asarray(s, dtype=np.float64)
    n, cols = s.shape
    c, r = s[:, : cols - 1], s[:, cols - 1]
    i, j = np.tril_indices(n, -1)
    d = np.sqrt(((c[i] - c[j]) ** 2).sum(axis=1))
    return d < r[i] + r[j], i, j


def count_of(stdout):
    for line in stdout.splitlines():
        if line.startswith("count: "):
            return int(line.split()[1])
    return None


def result_file(tmp, path, result, extra):
    """--result `result` of the spheres at path into a file: (rc, stderr, the array or None)."""
    rc, _, err, a = clitest.run_npy(EXE, ["--input", path, "--result", result] + extra,
                                    os.path.join(tmp, result + ".npy"))
    return rc, err, a


def check_results(tmp, path, s, label, extra):
    mask, ii, jj = brute_force(s)
    want = int(mask.sum())
    # count (text) and count (--json)
    rc, out, err = run(["--input", path] + extra)
    check(rc == 0 and count_of(out) == want, f"{label}: count {count_of(out)} != {want} (rc {rc}, {err.strip()})")
    rc, out, err = run(["--input", path, "--json"] + extra)
    try:
        j = json.loads(out)
        check(rc == 0 and j["count"] == want and j["n"] == len(s), f"{label}: --json {out.strip()}")
    except ValueError:
        check(False, f"{label}: --json printed no JSON: {out!r} {err!r}")
    # pairs
    rc, err, p = result_file(tmp, path, "pairs", extra)
    ok = p is not None
    if ok:
        expect = np.stack([ii[mask], jj[mask]], axis=1)
        ok = p.dtype == np.int64 and p.shape == (want, 2) and np.array_equal(p, expect)
    check(ok, f"{label}: pair list differs from the brute force (rc {rc}, {err.strip()})")
    # bit flags
    rc, err, w = result_file(tmp, path, "flags", extra)
    ok = w is not None
    if ok:
        bits = np.unpackbits(w.view(np.uint8), bitorder="little")
        ok = (w.dtype == np.uint32 and w.shape == ((len(mask) + 31) // 32,) and
              np.array_equal(bits[: len(mask)].astype(bool), mask) and not bits[len(mask):].any())
    check(ok, f"{label}: bit flags differ from the brute force (rc {rc}, {err.strip()})")
    # row-aligned bit flags: row i (pairs j < i) is ceil(i / 32) words of its own
    rc, err, w = result_file(tmp, path, "rowflags", extra)
    ok = w is not None
    if ok:
        n = len(s)
        ok = w.dtype == np.uint32 and w.shape == (sum((i + 31) // 32 for i in range(n)),)
        at = 0
        for i in range(1, n):
            if not ok:
                break
            words = (i + 31) // 32
            bits = np.unpackbits(w[at:at + words].view(np.uint8), bitorder="little")
            ok = np.array_equal(bits[:i].astype(bool), mask[ii == i]) and not bits[i:].any()
            at += words
    check(ok, f"{label}: row-aligned bit flags differ from the brute force (rc {rc}, {err.strip()})")
    # tiled bit flags: tile (I, J), J <= I, is tile T(I) + J, 32 words (its rows i % 32), bit j % 32
    rc, err, w = result_file(tmp, path, "tileflags", extra)
    ok = w is not None
    if ok:
        n = len(s)
        tiles = (n + 31) // 32
        nwords = 32 * (tiles * (tiles + 1) // 2) if n > 1 else 0
        ok = w.dtype == np.uint32 and w.shape == (nwords,)
        if ok:
            expect = np.zeros(nwords, dtype=np.uint32)
            i, j = ii[mask], jj[mask]
            word = 32 * ((i // 32) * (i // 32 + 1) // 2 + j // 32) + i % 32
            np.bitwise_or.at(expect, word, (np.uint32(1) << (j % 32).astype(np.uint32)))
            ok = np.array_equal(w, expect)
    check(ok, f"{label}: tiled bit flags differ from the brute force (rc {rc}, {err.strip()})")
    # int flags
    rc, err, f = result_file(tmp, path, "intflags", extra)
    ok = f is not None
    if ok:
        ok = f.dtype == np.int32 and f.shape == (len(mask),) and np.array_equal(f, mask.astype(np.int32))
    check(ok, f"{label}: int flags differ from the brute force (rc {rc}, {err.strip()})")


def main():
    global EXE
    EXE = clitest.tool_argument(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        combos = [["--map", "lambda", "--kernel", "tile", "--block", "32"],
                  ["--map", "bb", "--kernel", "tile", "--block", "8"],
                  ["--map", "rb", "--kernel", "element", "--block", "16"],
                  ["--map", "rec", "--kernel", "tile", "--block", "16"],
                  ["--map", "h", "--kernel", "tile", "--block", "8"],
                  ["--map", "utm", "--kernel", "element"],
                  ["--map", "lambda", "--sqrt", "newton", "--form", "eps", "--kernel", "element", "--block", "8"],
                  ["--map", "lambda", "--kernel", "tile", "--block", "32", "--team-threads", "64",
                   "--blocks-per-team", "3"],
                  ["--map", "bb", "--kernel", "element", "--block", "16", "--team-threads", "256",
                   "--blocks-per-team", "5"]]
        # 3-D dense, float32 .npy; 3-D sparse-ish, float64 .npy; 1-D .csv.
        s3 = spheres(300, 3, 0.05, 0.15, 11)
        p3 = os.path.join(tmp, "s3.npy")
        np.save(p3, s3.astype(np.float32))
        for extra in combos:
            check_results(tmp, p3, s3, "3-D f4 " + " ".join(extra), extra)
        s3b = spheres(257, 3, 0.01, 0.05, 12)
        p3b = os.path.join(tmp, "s3b.npy")
        np.save(p3b, s3b)  # float64
        check_results(tmp, p3b, s3b, "3-D f8", combos[0])
        s1 = spheres(200, 1, 0.001, 0.004, 13)
        p1 = os.path.join(tmp, "s1.csv")
        np.savetxt(p1, s1, delimiter=",", fmt="%.17g", header="x, r")
        for extra in (combos[0], combos[5]):
            check_results(tmp, p1, s1, "1-D csv " + " ".join(extra), extra)
        check_results(tmp, p1, s1, "1-D csv --dims 1", ["--dims", "1"])

        # Every result's size is its documented function of n (README's table), n = 1 included.
        for n in (1, 2, 3, 31, 32, 33, 63, 64, 65, 97):
            s = spheres(n, 3, 0.05, 0.3, 100 + n)
            p = os.path.join(tmp, f"n{n}.npy")
            np.save(p, s.astype(np.float32))
            check_results(tmp, p, s, f"n = {n}", combos[0])
            t = (n + 31) // 32
            pc = n * (n - 1) // 2
            documented = {"flags": (pc + 31) // 32, "tileflags": 32 * t * (t + 1) // 2 if n >= 2 else 0,
                          "rowflags": sum((k + 31) // 32 for k in range(n)), "intflags": pc}
            for result, words in documented.items():
                o = os.path.join(tmp, f"size_{result}.npy")
                rc, _, err = run(["--input", p, "--result", result, "--output", o, "--quiet"])
                check(rc == 0 and np.load(o).shape == (words,),
                      f"n = {n} --result {result}: {np.load(o).shape if rc == 0 else err} != ({words},)")

        # float64 input: computed in float32, with one warning when the rounding changed values
        # (kept in --json's "warnings", dropped by --quiet); a radius that becomes 0 said so.
        touch = os.path.join(tmp, "touch.npy")
        np.save(touch, np.array([[0, 0, 0, 0.1], [0.3, 0, 0, 0.2]]))
        rc, out, err = run(["--input", touch])
        check(rc == 0 and "float32" in err and "0.100000001" in err and "warning" in err, f"rounding warning: {err!r}")
        rc, out, err = run(["--input", touch, "--json"])
        w = json.loads(out)["warnings"] if rc == 0 else []
        check(rc == 0 and err == "" and len(w) == 1 and "float32" in w[0], f"rounding warning in --json: {out} {err}")
        rc, out, err = run(["--input", touch, "--json", "--quiet"])
        check(rc == 0 and err == "" and json.loads(out)["warnings"] == [], f"--quiet drops warnings: {out} {err}")
        tiny = os.path.join(tmp, "tiny.npy")
        np.save(tiny, np.array([[0, 0, 0, 1e-50], [0.3, 0, 0, 0.2]]))
        rc, out, err = run(["--input", tiny])
        check(rc == 0 and "radius = 1e-50 becomes 0" in err, f"radius 1e-50: {err!r}")
        exact = os.path.join(tmp, "exact.npy")
        np.save(exact, spheres(50, 3, 0.01, 0.1, 5))  # float64 on the 2^-24 grid: exact in float32
        rc, out, err = run(["--input", exact])
        check(rc == 0 and err == "", f"exact float64 input warned: {err!r}")

        # --random agrees with the brute force on the spheres it saves.
        for dims, density in ((3, "dense"), (1, "sparse"), (3, "sparse")):
            saved = os.path.join(tmp, "saved.npy")
            pairs = os.path.join(tmp, "rpairs.npy")
            rc, out, err = run(["--random", 1000, "--dims", dims, "--density", density, "--seed", 5,
                                "--save-input", saved, "--result", "pairs", "--output", pairs])
            ok = rc == 0
            if ok:
                s = np.load(saved)
                mask, ii, jj = brute_force(s)
                p = np.load(pairs)
                ok = (s.shape == (1000, dims + 1) and s.dtype == np.float32 and count_of(out) == mask.sum() and
                      np.array_equal(p, np.stack([ii[mask], jj[mask]], axis=1)))
            check(ok, f"--random {dims}-D {density}: differs from the brute force of --save-input (rc {rc}, {err})")
        rc, out, err = run(["--random", 1000, "--rmin", 0.02, "--rmax", 0.02, "--seed", 3, "--save-input",
                            os.path.join(tmp, "fixed.npy")])
        s = np.load(os.path.join(tmp, "fixed.npy")) if rc == 0 else None
        check(rc == 0 and s is not None and np.all(s[:, 3] == np.float32(round(0.02 * GRID) / GRID)) and
              count_of(out) == brute_force(s)[0].sum(), f"--rmin/--rmax: rc {rc} {err}")
        a = run(["--random", 500, "--seed", 9])[1]
        b = run(["--random", 500, "--seed", 9, "--map", "utm", "--kernel", "element", "--block", "8"])[1]
        check(count_of(a) is not None and count_of(a) == count_of(b), "--random: same seed, different counts")

        # n = 1 is allowed: 0 pairs, empty outputs.
        one = os.path.join(tmp, "one.npy")
        np.save(one, np.array([[0.5, 0.5, 0.5, 0.1]], dtype=np.float32))
        o = os.path.join(tmp, "one_pairs.npy")
        rc, out, err = run(["--input", one, "--result", "pairs", "--output", o])
        check(rc == 0 and count_of(out) == 0 and np.load(o).shape == (0, 2), f"n = 1: rc {rc} {out} {err}")
        os.remove(o)

        # Error cases.
        bad = spheres(20, 3, 0.05, 0.1, 14)
        nan = bad.copy()
        nan[3, 3] = np.nan
        np.save(os.path.join(tmp, "nan.npy"), nan.astype(np.float32))
        neg = bad.copy()
        neg[7, 3] = -0.25
        np.save(os.path.join(tmp, "neg.npy"), neg)
        inf = bad.copy()
        inf[2, 1] = np.inf
        np.save(os.path.join(tmp, "inf.npy"), inf)
        np.save(os.path.join(tmp, "int.npy"), (bad * 100).astype(np.int64))
        np.save(os.path.join(tmp, "three.npy"), bad[:, :3])
        np.save(os.path.join(tmp, "empty.npy"), np.zeros((0, 4), dtype=np.float32))
        np.save(os.path.join(tmp, "ok.npy"), bad.astype(np.float32))
        with open(os.path.join(tmp, "nan.csv"), "w") as f:
            f.write("0.1,0.2,0.3,0.01\n0.4,0.5,0.6,nan\n")
        T = lambda name: os.path.join(tmp, name)  # noqa: E731
        cases = [
            (["--random", "0", "--result", "pairs", "--output", "@OUT"], ["--random 0", "from 1"], "n = 0 (--random)"),
            (["--input", T("empty.npy"), "--result", "pairs", "--output", "@OUT"], ["0 rows"], "n = 0 (file)"),
            (["--input", T("nan.npy"), "--result", "pairs", "--output", "@OUT"], ["row 3", "radius", "nan"], "NaN radius"),
            (["--input", T("nan.csv"), "--result", "flags", "--output", "@OUT"], ["row 1", "radius"], "NaN radius (csv)"),
            (["--input", T("neg.npy"), "--result", "flags", "--output", "@OUT"], ["row 7", "negative"], "negative radius"),
            (["--input", T("inf.npy"), "--result", "flags", "--output", "@OUT"], ["row 2", "y"], "infinite y"),
            (["--input", T("int.npy"), "--result", "pairs", "--output", "@OUT"], ["dtype", "<i8"], "wrong dtype"),
            (["--input", T("three.npy"), "--result", "pairs", "--output", "@OUT"], ["3 columns"], "3 columns"),
            (["--input", T("ok.npy"), "--dims", "1", "--result", "pairs", "--output", "@OUT"], ["--dims 1"], "dims mismatch"),
            (["--input", T("missing.npy"), "--result", "pairs", "--output", "@OUT"], ["missing.npy"], "missing input"),
            (["--random", "100", "--frobnicate", "--result", "pairs", "--output", "@OUT"], ["frobnicate"], "unknown flag"),
            (["--random", "100", "--block", "7", "--result", "pairs", "--output", "@OUT"], ["--block", "7"], "--block 7"),
            (["--random", "100", "--map", "nope", "--result", "pairs", "--output", "@OUT"], ["--map"], "unknown map"),
            (["--random", "100", "--map", "utm", "--kernel", "tile", "--result", "pairs", "--output", "@OUT"],
             ["thread-space"], "utm with the tile kernel"),
            (["--random", "100", "--output", "@OUT"], ["--output needs"], "--output with --result count"),
            (["--random", "100", "--result", "pairs", "--output", T("nodir/x.npy")], ["does not exist"], "missing dir"),
            (["--random", "100", "--result", "pairs", "--output", T("x.txt")], [".npy"], "not .npy"),
            (["--random", "100", "--input", T("ok.npy")], ["excludes"], "--random and --input"),
            (["--random", "100", "--rmin", "0.1", "--rmax", "0.05"], ["rmin"], "rmin > rmax"),
            (["--random", "100", "--rmin", "0.1"], ["--rmax"], "--rmin alone"),
            (["--random", "100", "--rmin", "0.1", "--rmax", "2"], ["<= 1"], "rmax > 1"),
            (["--random", "-5"], ["--random -5", "from 1 to"], "negative n"),
            (["--random", "99999999999999999999"], ["99999999999999999999"], "n beyond int64"),
            (["--random", "1e3"], ["--random 1e3"], "n not an integer"),
            (["--random", "100", "--seed", "-1"], ["--seed -1"], "negative seed"),
            (["--random", "100", "--kokkos-frobnicate"], ["--kokkos-frobnicate"], "unknown Kokkos option"),
            (["--random", "100", "--kokkos-threads"], ["--kokkos-threads", "value"], "Kokkos option without a value"),
            (["--input", tmp], ["is a directory"], "directory as input"),
            (["--input", "/dev/null"], ["not a regular file"], "/dev/null as input"),
            (["--random", "100", "--result", "flags", "--output", T("fifo.npy")], ["not a regular file"],
             "fifo as output"),
            (["--random", "100", "--save-input", T("same.npy"), "--result", "flags", "--output", T("same.npy")],
             ["would overwrite"], "--output onto --save-input"),
            (["--input", T("ok.npy"), "--result", "flags", "--output", T("ok.npy")], ["would overwrite"],
             "--output onto --input"),
            (["--random", "500000000", "--result", "flags", "--output", "@OUT"], ["flags output", "need", "available"],
             "flags larger than memory"),
            (["--random", "2000000", "--result", "intflags", "--output", "@OUT"], ["intflags output", "need", "host memory", "available"],
             "output larger than memory"),
            (["--random", "100", "--repeat", "0"], ["--repeat"], "--repeat 0"),
            (["--random", "100", "--block", "32", "--team-threads", "16"], ["team_threads", "16", "rho = 32"],
             "team smaller than a block row"),
            (["--random", "100", "--blocks-per-team", "5000"], ["--blocks-per-team"], "--blocks-per-team 5000"),
            (["--random", "100", "--team-threads", "-1"], ["--team-threads"], "--team-threads -1"),
            ([], ["--random"], "no input"),
        ]
        os.mkfifo(T("fifo.npy"))
        runtime = {"n = 0 (file)", "NaN radius", "NaN radius (csv)", "negative radius", "infinite y", "wrong dtype",
                   "3 columns", "missing input", "missing dir", "output larger than memory", "directory as input",
                   "/dev/null as input", "fifo as output", "flags larger than memory"}
        clitest.expect_errors(EXE, tmp, cases, runtime)
        clitest.failing_run_keeps_output(EXE, tmp, ["--input", T("nan.npy"), "--result", "pairs"])
        clitest.help_and_version(EXE, ["--random", "n = 1 is allowed"])

    return clitest.summary()


if __name__ == "__main__":
    sys.exit(main())
