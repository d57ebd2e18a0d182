#!/usr/bin/env python3
"""Interop test of tdmaps-edm with scipy.spatial.distance.

    test_scipy_interop.py PATH/TO/tdmaps-edm

Checks, element by element, the condensed output against pdist (rtol 1e-5 in
fp32, 1e-12 in fp64) and packed/full against squareform, over every map and
kernel, for .npy (f4, f8) and .csv inputs; NaN propagation as in pdist; the
n = 1 outputs; and that bad inputs and options exit non-zero with a message
and leave no output file (nor a temporary one) behind, and never touch an
existing output. Prints "N passed, M failed"; exits 1 on any failure.
"""
import os
import sys
import tempfile

import numpy as np
from scipy.spatial.distance import pdist, squareform

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "tests"))
import clitest  # noqa: E402
from clitest import check  # noqa: E402

BIN = None
TMP = None


def run(args, env_extra=None):
    return clitest.run_process(BIN, args, env_extra)


def close(got, ref, rtol):
    """Element-wise |got - ref| <= rtol |ref| (NaN only where ref is NaN)."""
    got = np.asarray(got, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if got.shape != ref.shape:
        return False, f"shape {got.shape} != {ref.shape}"
    nan_ok = np.array_equal(np.isnan(got), np.isnan(ref))
    m = ~np.isnan(ref)
    err = np.abs(got[m] - ref[m])
    ok = nan_ok and bool(np.all(err <= rtol * np.abs(ref[m])))
    worst = float(np.max(err / np.maximum(np.abs(ref[m]), 1e-300))) if err.size else 0.0
    return ok, f"nan pattern {'ok' if nan_ok else 'differs'}, worst relative error {worst:.3e}"


def path(name):
    return os.path.join(TMP, name)


def leftovers(out):
    """Output file or temp files of it left in TMP."""
    base = os.path.basename(out)
    return [f for f in os.listdir(TMP) if f == base or f.startswith(base + ".tmp.")]


def test_values():
    rng = np.random.default_rng(20261122)
    n, d = 203, 3
    x64 = rng.uniform(-2.0, 3.0, (n, d))
    x32 = x64.astype(np.float32)
    np.save(path("p64.npy"), x64)
    np.save(path("p32.npy"), x32)
    ref64 = pdist(x64)
    ref32 = pdist(x32.astype(np.float64))

    # Every map x kernel, condensed fp64, against pdist.
    for m in ["bb", "lambda", "rb", "rec", "utm", "h"]:
        for k in ["element", "tile", "gemm", "auto"]:
            if m == "utm" and k == "tile":
                continue
            out = path(f"c_{m}_{k}.npy")
            r = run(["--input", path("p64.npy"), "--map", m, "--kernel", k, "--block", "16", "--output", out])
            check(r.returncode == 0, f"condensed fp64 {m}/{k} runs", r.stderr)
            if r.returncode != 0:
                continue
            got = np.load(out)
            check(got.dtype == np.float64, f"condensed fp64 {m}/{k} dtype", str(got.dtype))
            rtol = 1e-12 if k != "gemm" else 1e-6  # gemm: cancellation bound (apps/edm/README.md)
            ok, why = close(got, ref64, rtol)
            check(ok, f"condensed fp64 {m}/{k} == pdist", why)

    # fp32 (dtype follows the file), every layout, against pdist/squareform.
    sq32 = squareform(ref32)
    sq64 = squareform(ref64)
    tril = np.tril_indices(n)  # row-major lower triangle incl. diagonal = packed order
    for prec, src, ref, sq, rtol, dt in [("fp32", "p32.npy", ref32, sq32, 1e-5, np.float32),
                                         ("fp64", "p64.npy", ref64, sq64, 1e-12, np.float64)]:
        # The last: team shape and blocks per team other than the defaults (--team-threads 64 x
        # --blocks-per-team 3: teams walking two rows per lane, a barrier between blocks).
        for block, hints in [("8", []), ("32", []), ("32", ["--team-threads", "64", "--blocks-per-team", "3"])]:
            block_args = ["--block", block] + hints
            block = block + ("".join(hints[1::2]) and "_" + "_".join(hints[1::2]))
            out = path(f"cond_{prec}.npy")
            r = run(["--input", path(src), "--layout", "condensed", *block_args, "--output", out])
            check(r.returncode == 0, f"condensed {prec} b{block} runs", r.stderr)
            if r.returncode == 0:
                got = np.load(out)
                check(got.dtype == dt, f"condensed {prec} dtype", str(got.dtype))
                ok, why = close(got, ref, rtol)
                check(ok, f"condensed {prec} b{block} == pdist", why)

            out = path(f"packed_{prec}.npy")
            r = run(["--input", path(src), "--layout", "packed", *block_args, "--output", out])
            check(r.returncode == 0, f"packed {prec} runs", r.stderr)
            if r.returncode == 0:
                got = np.load(out)
                check(got.shape == (n * (n + 1) // 2,), f"packed {prec} shape", str(got.shape))
                ok, why = close(got, sq[tril], rtol)
                check(ok, f"packed {prec} b{block} == squareform lower", why)

            out = path(f"full_sym_{prec}.npy")
            r = run(["--input", path(src), "--layout", "full", "--symmetric", *block_args, "--output", out])
            check(r.returncode == 0, f"full symmetric {prec} runs", r.stderr)
            if r.returncode == 0:
                got = np.load(out)
                ok, why = close(got, sq, rtol)
                check(ok, f"full symmetric {prec} b{block} == squareform", why)

            out = path(f"full_{prec}.npy")
            r = run(["--input", path(src), "--layout", "full", *block_args, "--output", out])
            check(r.returncode == 0, f"full {prec} runs", r.stderr)
            if r.returncode == 0:
                got = np.load(out)
                ok, why = close(np.tril(got), np.tril(sq), rtol)
                check(ok, f"full {prec} b{block} lower == squareform", why)
                check(np.all(np.triu(got, 1) == 0), f"full {prec} upper is zero", "upper triangle written")

    # --precision fp32 on an f8 file: rounded inputs, fp32 output.
    out = path("forced32.npy")
    r = run(["--input", path("p64.npy"), "--precision", "fp32", "--output", out])
    check(r.returncode == 0, "--precision fp32 runs", r.stderr)
    if r.returncode == 0:
        got = np.load(out)
        check(got.dtype == np.float32, "--precision fp32 dtype", str(got.dtype))
        ok, why = close(got, pdist(x64.astype(np.float32).astype(np.float64)), 1e-5)
        check(ok, "--precision fp32 == pdist of the rounded points", why)

    # .npy format versions 2.0 and 3.0 (4-byte header length).
    for version in [(2, 0), (3, 0)]:
        src = path(f"v{version[0]}.npy")
        with open(src, "wb") as f:
            np.lib.format.write_array(f, x64, version=version)
        out = path(f"v{version[0]}_out.npy")
        r = run(["--input", src, "--output", out])
        check(r.returncode == 0, f".npy version {version} runs", r.stderr)
        if r.returncode == 0:
            ok, why = close(np.load(out), ref64, 1e-12)
            check(ok, f".npy version {version} == pdist", why)

    # CSV input.
    np.savetxt(path("p.csv"), x64, delimiter=",", fmt="%.17g")
    out = path("csv.npy")
    r = run(["--input", path("p.csv"), "--output", out])
    check(r.returncode == 0, "csv runs", r.stderr)
    if r.returncode == 0:
        ok, why = close(np.load(out), ref64, 1e-12)
        check(ok, "csv == pdist", why)

    # Larger d (run-time d path) and d = 1, 2, 4 (specialised).
    for dd in [1, 2, 4, 9]:
        xd = rng.standard_normal((77, dd))
        np.save(path(f"pd{dd}.npy"), xd)
        for k in ["element", "tile"]:
            out = path(f"d{dd}_{k}.npy")
            r = run(["--input", path(f"pd{dd}.npy"), "--kernel", k, "--output", out])
            check(r.returncode == 0, f"d={dd} {k} runs", r.stderr)
            if r.returncode == 0:
                ok, why = close(np.load(out), pdist(xd), 1e-12)
                check(ok, f"d={dd} {k} == pdist", why)


def test_nan_and_small():
    rng = np.random.default_rng(7)
    x = rng.random((40, 3))
    x[6, 2] = np.nan
    x[11, 0] = np.inf
    np.save(path("nan.npy"), x)
    with np.errstate(invalid="ignore"):
        ref = pdist(x)
    for k in ["element", "tile"]:
        out = path(f"nan_{k}.npy")
        r = run(["--input", path("nan.npy"), "--kernel", k, "--output", out])
        check(r.returncode == 0, f"NaN input {k} runs", r.stderr)
        if r.returncode == 0:
            got = np.load(out)
            check(np.array_equal(np.isnan(got), np.isnan(ref)) and np.array_equal(np.isinf(got), np.isinf(ref)),
                  f"NaN input {k}: same NaN/Inf pattern as pdist",
                  f"{np.isnan(got).sum()} NaN vs {np.isnan(ref).sum()}")
            fin = np.isfinite(ref)
            ok, why = close(got[fin], ref[fin], 1e-12)
            check(ok, f"NaN input {k}: finite values", why)

    # n = 1: empty condensed, one zero packed, 1 x 1 full.
    np.save(path("one.npy"), np.array([[1.5, -2.0]]))
    for layout, shape in [("condensed", (0,)), ("packed", (1,)), ("full", (1, 1))]:
        out = path(f"one_{layout}.npy")
        r = run(["--input", path("one.npy"), "--layout", layout, "--output", out])
        check(r.returncode == 0, f"n=1 {layout} runs", r.stderr)
        if r.returncode == 0:
            got = np.load(out)
            check(got.shape == shape and np.all(got == 0), f"n=1 {layout} shape", f"{got.shape} {got}")

    # --random is deterministic per seed and inside [0, 1)^D.
    a, b, c = path("r1.npy"), path("r2.npy"), path("r3.npy")
    r1 = run(["--random", "50", "--dims", "2", "--seed", "9", "--output", a])
    r2 = run(["--random", "50", "--dims", "2", "--seed", "9", "--output", b])
    r3 = run(["--random", "50", "--dims", "2", "--seed", "10", "--output", c])
    ok = r1.returncode == 0 and r2.returncode == 0 and r3.returncode == 0
    check(ok, "--random runs", r1.stderr + r2.stderr + r3.stderr)
    if ok:
        ga, gb, gc = np.load(a), np.load(b), np.load(c)
        check(np.array_equal(ga, gb), "--random same seed, same output", "")
        check(not np.array_equal(ga, gc), "--random other seed, other output", "")
        check(ga.shape == (1225,) and ga.min() >= 0 and ga.max() < np.sqrt(2), "--random distances in [0, sqrt(2))", "")

    # --json prints one parseable line.
    r = run(["--random", "100", "--dims", "3", "--json", "--repeat", "2"])
    import json
    try:
        j = json.loads(r.stdout.strip())
        ok = r.returncode == 0 and j["n"] == 100 and j["d"] == 3 and j["layout"] == "condensed" and j["ms_mean"] >= 0
    except Exception as e:  # noqa: BLE001
        ok, j = False, e
    check(ok, "--json", f"{r.stdout!r} {j}")


def expect_error(name, args, out, must_mention=None):
    r = run(args + (["--output", out] if out else []))
    msg = r.stderr
    check(r.returncode != 0, f"error: {name}: non-zero exit", f"rc {r.returncode}, stdout {r.stdout!r}")
    check(msg.startswith("tdmaps-edm: error: "), f"error: {name}: message", repr(msg))
    if must_mention:
        check(must_mention.lower() in msg.lower(), f"error: {name}: mentions {must_mention!r}", repr(msg))
    if out:
        check(not leftovers(out), f"error: {name}: no output left", str(leftovers(out)))
    check(r.returncode in (1, 2), f"error: {name}: exit 1 (runtime) or 2 (usage), no crash", f"rc {r.returncode}")


def test_errors():
    np.save(path("empty.npy"), np.zeros((0, 3)))
    expect_error("n = 0", ["--input", path("empty.npy")], path("e1.npy"), "no points")
    expect_error("--random 0", ["--random", "0"], path("e1b.npy"), "--random 0: the number of points")
    np.save(path("int.npy"), np.arange(12, dtype=np.int32).reshape(4, 3))
    expect_error("int32 dtype", ["--input", path("int.npy")], path("e2.npy"), "dtype")
    np.save(path("cube.npy"), np.zeros((2, 3, 4)))
    expect_error("3-D array", ["--input", path("cube.npy")], path("e3.npy"), "2-D")
    np.save(path("flat.npy"), np.zeros(5))
    expect_error("1-D array", ["--input", path("flat.npy")], path("e3b.npy"), "2-D")
    np.save(path("good.npy"), np.random.default_rng(1).random((100, 3)))
    with open(path("good.npy"), "rb") as f:
        data = f.read()
    with open(path("trunc.npy"), "wb") as f:
        f.write(data[:-17])
    expect_error("truncated data", ["--input", path("trunc.npy")], path("e4.npy"), "truncated")
    with open(path("trunchead.npy"), "wb") as f:
        f.write(data[:30])
    expect_error("truncated header", ["--input", path("trunchead.npy")], path("e4b.npy"), "truncated")
    with open(path("magic.npy"), "w") as f:
        f.write("1,2,3\n4,5,6\n")
    expect_error("bad magic", ["--input", path("magic.npy")], path("e5.npy"), "magic")
    np.save(path("fortran.npy"), np.asfortranarray(np.random.default_rng(2).random((5, 3))))
    expect_error("fortran order", ["--input", path("fortran.npy")], path("e6.npy"), "fortran")
    np.save(path("big_endian.npy"), np.zeros((4, 3), dtype=">f8"))
    expect_error("big-endian", ["--input", path("big_endian.npy")], path("e6b.npy"), "dtype")
    x = np.random.default_rng(3).random((30, 2))
    x[17, 1] = np.nan
    np.save(path("nan_rej.npy"), x)
    expect_error("NaN with --reject-nonfinite", ["--input", path("nan_rej.npy"), "--reject-nonfinite"], path("e7.npy"),
                 "row 17")
    expect_error("unknown flag", ["--random", "10", "--bogus"], path("e8.npy"), "bogus")
    expect_error("--block 7", ["--random", "10", "--block", "7"], path("e9.npy"), "block")
    expect_error("team smaller than a block row", ["--random", "10", "--block", "32", "--team-threads", "16"],
                 path("e9b.npy"), "team_threads")
    expect_error("--blocks-per-team 5000", ["--random", "10", "--blocks-per-team", "5000"], path("e9c.npy"),
                 "--blocks-per-team")
    expect_error("unknown map", ["--random", "10", "--map", "zz"], path("e10.npy"), "map")
    expect_error("tile kernel on utm", ["--random", "10", "--map", "utm", "--kernel", "tile"], path("e11.npy"), "utm")
    expect_error("no input", [], path("e12.npy"), "--input")
    expect_error("missing file", ["--input", path("does_not_exist.npy")], path("e13.npy"), "does_not_exist")
    with open(path("ragged.csv"), "w") as f:
        f.write("1,2,3\n4,5,6\n7,8\n")
    expect_error("ragged csv", ["--input", path("ragged.csv")], path("e14.npy"), ":3")
    with open(path("text.csv"), "w") as f:
        f.write("1,2\n3,abc\n")
    expect_error("non-numeric csv", ["--input", path("text.csv")], path("e15.npy"), "abc")
    expect_error("--symmetric without full", ["--random", "10", "--symmetric"], path("e16.npy"), "full")
    expect_error("output not .npy", ["--random", "10"], path("e17.txt"), ".npy")
    expect_error("output dir missing", ["--random", "10", "--output", path("nodir/x.npy")], None, "nodir")
    expect_error("--random and --input", ["--random", "10", "--input", path("good.npy")], path("e18.npy"), "excludes")
    expect_error("negative --random", ["--random", "-5"], path("e19.npy"), "random")
    expect_error("too large", ["--random", "3000000000", "--dims", "1"], path("e20.npy"), "--random 3000000000")
    expect_error("does not fit memory", ["--random", "2000000", "--layout", "full"], path("e21.npy"), "GB")

    # A failing run leaves an existing output untouched.
    keep = path("keep.npy")
    np.save(keep, np.arange(3.0))
    before = open(keep, "rb").read()
    r = run(["--input", path("int.npy"), "--output", keep])
    check(r.returncode != 0, "existing output kept on failure: non-zero exit", r.stderr)
    check(open(keep, "rb").read() == before, "existing output kept on failure: unchanged", "")
    check([f for f in os.listdir(TMP) if f.startswith("keep.npy.tmp")] == [], "existing output kept on failure: no temp",
          "")


def main():
    global BIN, TMP
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    BIN = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="tdmaps-edm-interop-") as tmp:
        TMP = tmp
        test_values()
        test_nan_and_small()
        test_errors()
    sys.exit(clitest.summary())


if __name__ == "__main__":
    main()
