"""tdmaps-edm --reduce (hist, nn, knn, count) against a NumPy oracle, streamed
(chunked) outputs against the unchunked ones bit for bit, and, when the build
has MPI (TDMAPS_TEST_MPIRUN set by CMake), mpirun -n 1, 2, 3 giving
byte-identical files and equal reductions.

    python3 test_reduce_cli.py <tdmaps-edm>
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "tests"))
import clitest  # noqa: E402

EXE = sys.argv[1]
MPIRUN = os.environ.get("TDMAPS_TEST_MPIRUN", "")
TMP = tempfile.mkdtemp(prefix="tdmaps_reduce_")
check = clitest.check


def run(args, extra=None):
    return clitest.run(EXE, args, extra)


def points(n, d, seed, dtype, dup=0):
    """Random points; `dup` of them copies of others (ties for nn, zero distances)."""
    g = np.random.default_rng(seed)
    x = g.random((n, d)).astype(dtype)
    for k in range(dup):
        x[g.integers(n)] = x[g.integers(n)]
    return x


def sq_dists(x):
    """Squared distances as the kernels form them: sum over k in order, in x's dtype."""
    n, d = x.shape
    s = np.zeros((n, n), dtype=x.dtype)
    for k in range(d):
        t = x[:, None, k] - x[None, :, k]
        s = s + t * t
    return s


def oracle_hist(x, bins, rmax):
    """The documented bins, NumPy's: np.histogram(d[d < R], bins, (0, R)), R =
    rmax in the points' dtype (float32 points: NumPy's edges of a float32 range)."""
    r = np.sqrt(sq_dists(x))
    r = r[np.triu_indices(len(x), 1)]
    R = x.dtype.type(rmax)
    return np.histogram(r[r < R], bins, (0, R))[0].astype(np.int64)


def oracle_nn(x):
    s = sq_dists(x)
    n = len(x)
    np.fill_diagonal(s, np.inf)
    s = np.where(np.isnan(s), np.inf, s)
    idx = np.argmin(s, axis=1)  # first minimum: the smaller index on ties
    dist = np.sqrt(s[np.arange(n), idx]).astype(np.float64)
    idx = np.where(np.isinf(dist), -1, idx)
    return np.stack([idx.astype(np.float64), dist], axis=1)


def oracle_knn(x, k):
    """Each row's k nearest: the squared distances sorted stably (equal ones by
    the smaller index), NaN nobody's; (n, k, 2) of index, distance."""
    s = sq_dists(x)
    n = len(x)
    np.fill_diagonal(s, np.inf)
    s = np.where(np.isnan(s), np.inf, s)
    idx = np.argsort(s, axis=1, kind="stable")[:, :k]
    dist = np.sqrt(np.take_along_axis(s, idx, axis=1)).astype(np.float64)
    idx = np.where(np.isinf(dist), -1, idx)
    return np.stack([idx.astype(np.float64), dist], axis=2)


def oracle_count(x, radius):
    r = np.sqrt(sq_dists(x))
    iu = np.triu_indices(len(x), 1)
    return int(np.count_nonzero(r[iu] < x.dtype.type(radius)))


def save(x, name):
    p = os.path.join(TMP, name)
    np.save(p, x)
    return p


def reductions_match_the_oracle():
    cases = [(2, 1, np.float64), (3, 3, np.float32), (100, 3, np.float64), (257, 2, np.float32), (513, 5, np.float64),
             (300, 3, np.float32)]
    for n, d, dt in cases:
        x = points(n, d, n + d, dt, dup=3 if n > 10 else 0)
        if n == 300:
            x[7, 1] = np.nan  # NaN pairs: in no bin, not counted, nobody's nearest
        inp = save(x, f"p{n}_{d}.npy")
        want_hist, want_nn, want_count = oracle_hist(x, 17, 1.1), oracle_nn(x), oracle_count(x, 0.4)
        for m in ["lambda", "bb", "rec", "rb", "hadouken"]:
            what = f"n={n} d={d} {np.dtype(dt).name} map={m}"
            out = os.path.join(TMP, "h.npy")
            rc, so, se = run(["--input", inp, "--reduce", "hist", "--bins", 17, "--rmax", 1.1, "--map", m,
                              "--block", 8, "--output", out, "--json"])
            check(rc == 0, f"hist runs {what}", se)
            if rc == 0:
                got = np.load(out)
                want = want_hist
                check(got.dtype == np.int64 and got.shape == (17,), f"hist dtype/shape {what}", (got.dtype, got.shape))
                check(np.array_equal(got, want), f"hist counts {what}", (got, want))
                check(json.loads(so)["counted"] == int(want.sum()), f"hist json counted {what}")
            out = os.path.join(TMP, "nn.npy")
            rc, so, se = run(["--input", inp, "--reduce", "nn", "--map", m, "--output", out, "--quiet"])
            check(rc == 0, f"nn runs {what}", se)
            if rc == 0:
                got = np.load(out)
                want = want_nn
                check(got.dtype == np.float64 and got.shape == (n, 2), f"nn dtype/shape {what}")
                check(np.array_equal(got[:, 0], want[:, 0]), f"nn index {what}",
                      np.nonzero(got[:, 0] != want[:, 0])[0][:5])
                check(np.array_equal(got[:, 1], want[:, 1]), f"nn distance {what}")
            for mc in [m, "utm"]:
                rc, so, se = run(["--input", inp, "--reduce", "count", "--radius", 0.4, "--map", mc, "--json"])
                check(rc == 0, f"count runs {what} {mc}", se)
                if rc == 0:
                    check(json.loads(so)["count"] == want_count, f"count {what} {mc}",
                          (json.loads(so)["count"], want_count))


def knn_matches_the_oracle():
    grid = np.random.default_rng(5).integers(0, 3, (200, 5)).astype(np.float64)  # equal distances everywhere
    cases = [(points(2, 1, 1, np.float64), 1), (points(100, 3, 2, np.float32, dup=3), 5),
             (points(257, 7, 3, np.float64, dup=3), 16), (points(150, 130, 4, np.float32), 64), (grid, 9),
             (grid.astype(np.float32), 30)]
    nan = points(90, 6, 6, np.float64)
    nan[11, 2] = np.nan  # nobody's neighbour, and none of its own
    cases.append((nan, 12))
    for c, (x, k) in enumerate(cases):
        inp = save(x, f"knn{c}.npy")
        want = oracle_knn(x, k)
        for m, block in [("lambda", 32), ("bb", 16), ("rec", 32), ("hadouken", 16)]:
            what = f"n={len(x)} d={x.shape[1]} {x.dtype.name} k={k} map={m} block={block}"
            out = os.path.join(TMP, "knn.npy")
            rc, so, se = run(["--input", inp, "--reduce", "knn", "--k", k, "--map", m, "--block", block,
                              "--output", out, "--json"])
            check(rc == 0, f"knn runs {what}", se)
            if rc == 0:
                got = np.load(out)
                check(got.dtype == np.float64 and got.shape == (len(x), k, 2), f"knn dtype/shape {what}", got.shape)
                check(np.array_equal(got[..., 0], want[..., 0]), f"knn index {what}",
                      np.argwhere(got[..., 0] != want[..., 0])[:5])
                check(np.array_equal(got[..., 1], want[..., 1]), f"knn distance {what}")
                check(json.loads(so)["k"] == k, f"knn json k {what}")


def histogram_edges_are_numpys():
    """Distances placed exactly on every edge NumPy builds for the points' dtype
    (and one ulp to either side): the bins of np.histogram, fp32 and fp64; the bins limit."""
    for rmax, bins in [(0.7, 3), (0.7, 10), (1.0, 7), (0.1, 49), (2.5, 1000), (123.4, 333), (1e-30, 5)]:
        for dt in [np.float64, np.float32]:
            e = np.histogram_bin_edges(np.zeros(1, dt), bins, (0, dt(rmax)))
            if bins > 150:
                e = e[np.concatenate([[1, bins - 1, bins], np.random.default_rng(bins).integers(0, bins + 1, 150)])]
            x = np.concatenate([[0], e, np.nextafter(e, dt(0)), np.nextafter(e, dt(np.inf))]).astype(dt)[:, None]
            inp = save(x, "edges.npy")
            out = os.path.join(TMP, "he.npy")
            for m in ["lambda", "rec"]:
                what = f"R={rmax} B={bins} {np.dtype(dt).name} map={m}"
                rc, _, se = run(["--input", inp, "--reduce", "hist", "--bins", bins, "--rmax", repr(rmax), "--map", m,
                                 "--output", out, "--quiet"])
                check(rc == 0, f"hist on edges runs {what}", se)
                if rc == 0:
                    got, want = np.load(out), oracle_hist(x, bins, rmax)
                    check(np.array_equal(got, want), f"hist on edges == np.histogram {what}",
                          np.nonzero(got != want)[0][:5])
    # The documented limit, 2^24 bins (past a team's scratch: global memory), works; 2^24 + 1 is refused.
    x = points(200, 2, 3, np.float32)
    inp = save(x, "big.npy")
    out = os.path.join(TMP, "hb.npy")
    rc, _, se = run(["--input", inp, "--reduce", "hist", "--bins", 1 << 24, "--rmax", 1.2, "--output", out, "--quiet"])
    check(rc == 0, "hist --bins 2^24 runs", se)
    if rc == 0:
        check(np.array_equal(np.load(out), oracle_hist(x, 1 << 24, 1.2)), "hist --bins 2^24 == np.histogram")
    rc, _, se = run(["--input", inp, "--reduce", "hist", "--bins", (1 << 24) + 1, "--rmax", 1.2, "--output", out])
    check(rc == 2 and "--bins" in se, "hist --bins 2^24 + 1 refused", (rc, se))


def streamed_equals_unchunked():
    sides = [(1, 2, "fp64"), (2, 3, "fp32"), (17, 2, "fp64"), (97, 3, "fp64"), (301, 4, "fp32"), (777, 3, "fp64")]
    for n, d, prec in sides:
        for layout in ["packed", "condensed"]:
            if layout == "condensed" and n < 2:
                continue
            ref = os.path.join(TMP, "ref.npy")
            rc, _, se = run(["--random", n, "--dims", d, "--seed", 5, "--precision", prec, "--layout", layout,
                             "--kernel", "element", "--output", ref, "--quiet"])
            check(rc == 0, f"unchunked {n} {layout}", se)
            pbytes = n * d * (4 if prec == "fp32" else 8)
            for m in ["lambda", "bb"]:
                for chunk_bytes in [8, 200, 4104, 1 << 20]:  # edges inside block rows, one element, whole
                    if (os.path.getsize(ref) - 128) // chunk_bytes > 2000:
                        continue  # a launch per chunk: the tiny chunks on the small sides only
                    out = os.path.join(TMP, "s.npy")
                    budget = pbytes + 2 * chunk_bytes
                    rc, so, se = run(["--random", n, "--dims", d, "--seed", 5, "--precision", prec, "--layout", layout,
                                      "--map", m, "--max-device-memory", budget, "--output", out, "--json"])
                    what = f"n={n} {layout} {prec} {m} chunk={chunk_bytes}"
                    check(rc == 0, f"streamed runs {what}", se)
                    if rc == 0:
                        j = json.loads(so)
                        out_bytes = os.path.getsize(ref) - 128
                        if budget < pbytes + out_bytes:
                            check(j.get("mode") == "stream" and (j["chunks"] > 1 or 2 * chunk_bytes >= out_bytes),
                                  f"streamed in chunks {what}", j)
                        else:
                            check(j.get("mode") == "matrix", f"fits: not streamed {what}", j)
                        with open(ref, "rb") as a, open(out, "rb") as b:
                            check(a.read() == b.read(), f"streamed == unchunked bit for bit {what}")


def errors_are_clear():
    bad = [
        (["--random", 10, "--reduce", "hist"], 2, "--rmax"),
        (["--random", 10, "--reduce", "count"], 2, "--radius"),
        (["--random", 10, "--reduce", "hist", "--rmax", -1], 2, "--rmax"),
        (["--random", 10, "--reduce", "hist", "--rmax", 1, "--bins", 0], 2, "--bins"),
        (["--random", 10, "--reduce", "nn", "--layout", "packed"], 2, "--layout"),
        (["--random", 10, "--reduce", "count", "--radius", 1, "--output", os.path.join(TMP, "c.npy")], 2, "--output"),
        (["--random", 10, "--bins", 5], 2, "--bins"),
        (["--random", 10, "--reduce", "median"], 2, "--reduce"),
        (["--random", 1, "--reduce", "nn"], 1, "at least 2 points"),
        (["--random", 10, "--reduce", "knn"], 2, "--reduce knn needs --k"),
        (["--random", 10, "--reduce", "knn", "--k", 0], 2, "--k"),
        (["--random", 10, "--reduce", "knn", "--k", 10], 1, "needs at least 11 points"),
        (["--random", 10, "--reduce", "nn", "--k", 3], 2, "--k applies to --reduce knn"),
        (["--random", 10, "--reduce", "knn", "--k", 3, "--block", 8], 2, "side 16 or 32"),
        (["--random", 10, "--reduce", "knn", "--k", 3, "--map", "utm"], 2, "block-space maps"),
        (["--random", 10, "--max-device-memory", "lots"], 2, "not a size"),
        (["--random", 100, "--max-device-memory", 100], 1, "does not hold even the points"),
        (["--random", 100, "--max-device-memory", 3000, "--kernel", "tile"], 2, "does not stream"),
        (["--random", 100, "--max-device-memory", 3000, "--map", "rec"], 2, "--map lambda and bb"),
        (["--random", 100, "--max-device-memory", 3000, "--repeat", 3], 2, "--repeat"),
        (["--random", 100, "--max-device-memory", 3000, "--layout", "full"], 1, "stream in chunks past it"),
    ]
    for args, code, text in bad:
        rc, _, se = run(args)
        check(rc == code and text in se, f"error {args}", (rc, se))
    # An interrupted stream leaves nothing under the final name (here: a write error).
    out = os.path.join(TMP, "nodir", "x.npy")
    rc, _, se = run(["--random", 100, "--max-device-memory", 3000, "--output", out])
    check(rc != 0 and not os.path.exists(out), "stream into a missing directory fails cleanly", (rc, se))


def mpi_ranks_agree():
    if not MPIRUN:
        return
    mpi = clitest.mpirun_argv(MPIRUN)
    env = clitest.MPIRUN_ENV
    x = points(333, 3, 11, np.float64, dup=2)
    inp = save(x, "mpi.npy")
    x32 = points(301, 9, 12, np.float32, dup=2)
    inp32 = save(x32, "mpi32.npy")
    files = {}
    results = {}
    for ranks in [1, 2, 3]:
        for layout in ["packed", "condensed"]:
            out = os.path.join(TMP, f"mpi_{layout}_{ranks}.npy")
            p = subprocess.run(mpi + ["-n", str(ranks), EXE, "--input", inp, "--layout", layout, "--output", out,
                                      "--json"], capture_output=True, text=True, env=clitest.env_with(env), timeout=600)
            check(p.returncode == 0, f"mpirun -n {ranks} {layout}", p.stderr[-2000:])
            check(p.stdout.count("\n") == 1, f"mpirun -n {ranks}: one report line", p.stdout)
            clitest.check_json_lines(p.stdout, f"mpirun -n {ranks} {layout}")
            if p.returncode == 0:
                with open(out, "rb") as f:
                    files.setdefault(layout, []).append(f.read())
        for red in [["hist", "--bins", 23, "--rmax", 1.3], ["nn"], ["count", "--radius", 0.2], ["knn", "--k", 7],
                    ["knn32", "--k", 5]]:
            out = os.path.join(TMP, f"mpi_{red[0]}_{ranks}.npy")
            # knn32: the fp32 points' k nearest (one pass; fp64 takes two, rows merged between them).
            what = ["knn"] + red[1:] if red[0] == "knn32" else red
            args = ["--input", inp32 if red[0] == "knn32" else inp, "--reduce"] + [str(a) for a in what] + ["--json"]
            if red[0] != "count":
                args += ["--output", out]
            p = subprocess.run(mpi + ["-n", str(ranks), EXE] + args, capture_output=True, text=True,
                               env=clitest.env_with(env), timeout=600)
            check(p.returncode == 0, f"mpirun -n {ranks} --reduce {red[0]}", p.stderr[-2000:])
            clitest.check_json_lines(p.stdout, f"mpirun -n {ranks} --reduce {red[0]}")
            if p.returncode == 0:
                j = json.loads(p.stdout)
                check(j["ranks"] == ranks, f"ranks in the report {ranks}")
                val = j.get("count") if red[0] == "count" else np.load(out).tobytes()
                results.setdefault(red[0], []).append(val)
    ref = os.path.join(TMP, "ref_packed.npy")
    rc, _, se = run(["--input", inp, "--layout", "packed", "--kernel", "element", "--output", ref, "--quiet"])
    with open(ref, "rb") as f:
        single = f.read()
    for layout, blobs in files.items():
        check(len(blobs) == 3 and all(b == blobs[0] for b in blobs), f"mpirun -n 1/2/3 {layout}: identical files")
    check(files.get("packed", [b""])[0] == single, "mpirun packed file == the one-process file")
    for red, vals in results.items():
        check(len(vals) == 3 and all(v == vals[0] for v in vals), f"mpirun -n 1/2/3 --reduce {red}: equal results")
    check(results.get("count", [None])[0] == oracle_count(x, 0.2), "mpirun count == oracle")
    check(np.frombuffer(results["hist"][0], dtype=np.int64).tolist() == oracle_hist(x, 23, 1.3).tolist()
          if "hist" in results else False, "mpirun hist == oracle")
    for red, xs, k in [("knn", x, 7), ("knn32", x32, 5)]:
        got = results.get(red, [None])[0]
        want = oracle_knn(xs, k)
        check(got is not None and np.array_equal(np.frombuffer(got, dtype=np.float64).reshape(want.shape), want),
              f"mpirun {red} == oracle")


try:
    reductions_match_the_oracle()
    knn_matches_the_oracle()
    histogram_edges_are_numpys()
    streamed_equals_unchunked()
    errors_are_clear()
    mpi_ranks_agree()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
sys.exit(clitest.summary())
