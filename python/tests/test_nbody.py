"""tdmaps.nbody_accelerations against a NumPy fp64 oracle over all ordered
pairs i != j, written from the laws' formulas (gravity with softening,
Lennard-Jones cut and shifted, Coulomb), fp64 and fp32, several maps and
block sides; momentum conservation; the potential-energy shares; out=,
precision= and conversions; every refusal; and calls from a thread pool."""

import doctest
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from conftest import tdmaps

INF = math.inf
LAWS = ("gravity", "lj", "coulomb")
SIZES = (1, 2, 37, 130, 257)
MAPS = (("lambda", 32), ("bb", 16), ("rb", 8), ("rec", 32), ("hadouken", 8), ("lambda", 8))


def bodies(n, seed):
    """Positions, masses and charges on a 2^-20 grid (exact in float32):
    positions in [0, L)^3, L the power of two >= n^(1/3) (density <= 1),
    masses in [0.5, 2), charges in [-1, 1)."""
    rng = np.random.default_rng(seed)
    side = 2.0 ** math.ceil(math.log2(max(np.cbrt(n), 1.0)))
    grid = lambda shape: np.floor(rng.random(shape) * 2**20) / 2**20  # noqa: E731
    x = grid((n, 3)) * side
    m = 0.5 + 1.5 * grid(n)
    q = 2 * grid(n) - 1
    return x, m, q


def gap_cutoff(x, near=2.5):
    """A cutoff near `near` in the middle of the widest gap between pair
    distances around it: no pair lies within rounding of the cutoff, so fp32
    and fp64 decide every pair as the oracle does."""
    d = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))[np.tril_indices(len(x), -1)]
    d = np.sort(d[(d > near - 0.3) & (d < near + 0.3)])
    if len(d) < 2:
        return near
    k = int(np.argmax(np.diff(d)))
    return float(np.float32((d[k] + d[k + 1]) / 2))


PARAMS = {
    "gravity": dict(G=0.75, softening=0.0),
    "gravity_soft": dict(G=1.25, softening=0.05),
    "lj": dict(sigma=0.8, epsilon=1.5),
    "coulomb": dict(k=2.0, softening=0.0),
    "coulomb_soft": dict(k=0.5, softening=0.125),
}


def oracle(x, m, q, law, G=1.0, softening=0.0, sigma=1.0, epsilon=1.0, cutoff=INF, k=1.0):
    """fp64 over every ordered pair i != j: (acc, |acc| scale per body, shares,
    |shares| scale per body, U, |U| scale). F_ij is the force on i from j, u_ij
    the pair energy; the scales are sums of the terms' magnitudes."""
    x = np.asarray(x, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    n = len(x)
    d = x[:, None, :] - x[None, :, :]  # x_i - x_j
    r2 = (d**2).sum(-1)
    off = ~np.eye(n, dtype=bool)
    r2s = np.where(off, r2, 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if law == "gravity":
            s2 = r2s + softening**2
            mm = G * m[:, None] * m[None, :]
            f = -mm / s2**1.5
            u = -mm / np.sqrt(s2)
        elif law == "lj":
            inside = off & (r2s < cutoff**2)
            sr6 = (sigma**2 / r2s) ** 3
            f = np.where(inside, 24 * epsilon * (2 * sr6**2 - sr6) / r2s, 0.0)
            shift = 0.0
            if math.isfinite(cutoff):
                c6 = (sigma / cutoff) ** 6
                shift = 4 * epsilon * (c6**2 - c6)
            u = np.where(inside, 4 * epsilon * (sr6**2 - sr6) - shift, 0.0)
        else:
            q = np.asarray(q, dtype=np.float64)
            s2 = r2s + softening**2
            qq = k * q[:, None] * q[None, :]
            f = qq / s2**1.5
            u = qq / np.sqrt(s2)
    f = np.where(off, f, 0.0)
    u = np.where(off, u, 0.0)
    F = f[:, :, None] * d  # (n, n, 3)
    acc = F.sum(1) / m[:, None]
    acc_scale = np.abs(F).sum(1) / m[:, None]
    return acc, acc_scale, u.sum(1) / 2, np.abs(u).sum(1) / 2, u.sum() / 2, np.abs(u).sum() / 2


def tol(dtype):
    return 1e-12 if dtype == np.float64 else 3e-5


def check_acc(got, ref, dtype, what=""):
    acc, scale = ref[0], ref[1]
    assert got.dtype == dtype and got.shape == acc.shape
    bad = np.abs(got - acc) > tol(dtype) * scale + 1e-300
    assert not bad.any(), "%s: bodies %s: %s vs %s" % (what, np.argwhere(bad)[:3].tolist(), got[bad][:3], acc[bad][:3])


def case(law, n):
    """The law's parameters for this test (a cutoff for every other LJ size)."""
    x, m, q = bodies(n, 1000 * n + LAWS.index(law))
    name = law if law == "lj" else law + ("_soft" if n % 2 else "")
    p = dict(PARAMS[name])
    if law == "lj" and n % 2:
        p["cutoff"] = gap_cutoff(x)
    return x, m, q if law == "coulomb" else None, p


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("n", SIZES)
def test_against_oracle(n, law, dtype):
    x, m, q, p = case(law, n)
    ref = oracle(x, m, q, law, **p)
    map_, block = MAPS[(n + LAWS.index(law)) % len(MAPS)]
    X = x.astype(dtype)
    qq = None if q is None else q.astype(dtype)
    acc = tdmaps.nbody_accelerations(X, m.astype(dtype), qq, law=law, map=map_, block=block, **p)
    check_acc(acc, ref, dtype, "%s n=%d %s/%d" % (law, n, map_, block))
    # Newton's third law: the total force vanishes.
    mom = (m[:, None] * acc.astype(np.float64)).sum(0)
    assert np.all(np.abs(mom) <= tol(dtype) * (m[:, None] * ref[1]).sum(0) + 1e-300), mom
    acc2, e = tdmaps.nbody_accelerations(X, m, qq, law=law, map=map_, block=block, potential=True, **p)
    check_acc(acc2, ref, dtype, "potential=True")
    assert e.dtype == dtype and e.shape == (n,)
    assert np.all(np.abs(e - ref[2]) <= tol(dtype) * ref[3] + 1e-300)
    assert abs(e.astype(np.float64).sum() - ref[4]) <= tol(dtype) * ref[5] + 1e-300
    if n == 1:
        assert not acc.any() and not e.any()


@pytest.mark.parametrize("law", LAWS)
def test_every_map_and_block(law):
    x, m, q, p = case(law, 77)
    ref = oracle(x, m, q, law, **p)
    for map_ in ("lambda", "bb", "rb", "rec", "hadouken"):
        for block in (8, 16, 32):
            for dtype in (np.float64, np.float32):
                qq = None if q is None else q.astype(dtype)
                got = tdmaps.nbody_accelerations(x.astype(dtype), m, qq, law=law, map=map_, block=block, **p)
                check_acc(got, ref, dtype, "%s %s/%d" % (law, map_, block))


def test_lj_cutoff_shift_and_infinity():
    x, m, _ = bodies(60, 5)
    cut = gap_cutoff(x, 1.5)
    ref = oracle(x, m, None, "lj", cutoff=cut)
    a, e = tdmaps.nbody_accelerations(x, m, law="lj", cutoff=cut, potential=True)
    check_acc(a, ref, np.float64)
    assert abs(e.sum() - ref[4]) <= 1e-12 * ref[5]
    a_inf = tdmaps.nbody_accelerations(x, m, law="lj")
    check_acc(a_inf, oracle(x, m, None, "lj"), np.float64)
    assert not np.allclose(a, a_inf)  # the cutoff leaves pairs out


def test_precision_and_conversions():
    x, m, q = bodies(50, 9)
    close = lambda a, b, t=1e-12: np.allclose(a, b, rtol=t, atol=t * np.abs(b).max())  # noqa: E731
    a64 = tdmaps.nbody_accelerations(x, m)
    a32 = tdmaps.nbody_accelerations(x.astype(np.float32), m.astype(np.float32))
    p32 = tdmaps.nbody_accelerations(x, m, precision="fp32")
    assert p32.dtype == np.float32 and close(p32, a32, 1e-6)
    p64 = tdmaps.nbody_accelerations(x.astype(np.float32), m, precision="fp64")
    assert p64.dtype == np.float64 and close(p64, a64)
    assert close(tdmaps.nbody_accelerations(x.tolist(), m.tolist()), a64)
    xi = np.floor(x).astype(np.int64) + np.arange(50)[:, None] * 8  # distinct integer positions
    assert close(tdmaps.nbody_accelerations(xi, m.astype(np.float32), copy=True),
                 tdmaps.nbody_accelerations(xi.astype(np.float64), m.astype(np.float32).astype(np.float64)))
    c = tdmaps.nbody_accelerations(x, m, q.tolist(), law="coulomb", softening=0.1)
    assert close(c, tdmaps.nbody_accelerations(x, m, q.astype(np.float32), law="coulomb", softening=0.1))
    big = x.copy()
    big[4, 2] = 1e39
    with pytest.raises(ValueError, match=r"row 4 \(0-based\): z = 1e\+39 overflows float32"):
        tdmaps.nbody_accelerations(big, m, precision="fp32")


def test_out():
    x, m, _ = bodies(40, 3)
    want = tdmaps.nbody_accelerations(x, m)
    out = np.full((40, 3), 7.0)
    got = tdmaps.nbody_accelerations(x, m, out=out)
    assert got is out and np.allclose(out, want, rtol=1e-12, atol=0)
    out2 = np.zeros((40, 3))
    got, e = tdmaps.nbody_accelerations(x, m, out=out2, potential=True)
    assert got is out2 and e.shape == (40,)
    for bad, words in [(np.zeros((40, 2)), r"out: shape \(40, 2\), expected \(40, 3\)"),
                       (np.zeros((40, 3), dtype=np.float32), "out: dtype float32, expected float64"),
                       (np.zeros((3, 40)).T, "out: the array is not in C order")]:
        with pytest.raises(ValueError, match=words):
            tdmaps.nbody_accelerations(x, m, out=bad)
    ro = np.zeros((40, 3))
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="out: the array is read-only"):
        tdmaps.nbody_accelerations(x, m, out=ro)


def test_coincident_bodies():
    x, m, q = bodies(12, 2)
    x[7] = x[3]
    for law, extra in (("gravity", {}), ("lj", {"softening": 0.5}), ("coulomb", {})):
        qq = q if law == "coulomb" else None
        with pytest.raises(ValueError, match=r"tdmaps::nbody: bodies 3 and 7 share a position: %s" % law):
            tdmaps.nbody_accelerations(x, m, qq, law=law, **extra)
    # Softening makes gravity and Coulomb finite there.
    for law in ("gravity", "coulomb"):
        qq = q if law == "coulomb" else None
        ref = oracle(x, m, qq, law, softening=0.25)
        check_acc(tdmaps.nbody_accelerations(x, m, qq, law=law, softening=0.25), ref, np.float64)
    # Distinct in float64, one position in float32.
    y, _, _ = bodies(12, 2)
    y[5] = y[2] * (1 + 2.0**-40)
    y[5, 0] = y[2, 0] + 2.0**-40
    assert not np.array_equal(y[5], y[2])
    tdmaps.nbody_accelerations(y, m)
    with pytest.raises(ValueError, match=r"bodies 2 and 5 share a position in float32"):
        tdmaps.nbody_accelerations(y, m, precision="fp32")


def test_errors():
    x, m, q = bodies(10, 1)
    f = tdmaps.nbody_accelerations
    cases = [
        (dict(law="newton"), ValueError, r"law 'newton': unknown \(known: gravity, lj, coulomb\)"),
        (dict(G=0.0), ValueError, "G = 0 must be finite and > 0"),
        (dict(G=float("nan")), ValueError, "G = NaN must be finite"),
        (dict(G=INF), ValueError, "G = inf must be finite"),
        (dict(softening=-1.0), ValueError, "softening = -1 must be finite and >= 0"),
        (dict(softening=INF), ValueError, "softening = inf"),
        (dict(law="lj", sigma=-1.0), ValueError, "sigma = -1 must be finite and > 0"),
        (dict(law="lj", epsilon=INF), ValueError, "epsilon = inf"),
        (dict(law="lj", cutoff=0.0), ValueError, r"cutoff = 0 must be > 0 \(infinity: none\)"),
        (dict(law="lj", cutoff=float("nan")), ValueError, "cutoff = NaN"),
        (dict(map="utm"), ValueError, "map 'utm' is a thread-space map"),
        (dict(map="nope"), ValueError, "map 'nope': unknown"),
        (dict(block=12), ValueError, "block 12: the block side must be 8, 16 or 32"),
        (dict(precision="fp16"), ValueError, r"precision 'fp16': unknown \(known: fp64, fp32\)"),
        (dict(law=3), TypeError, "law: expected a string"),
        (dict(G="1"), TypeError, "G: expected a real number"),
        (dict(cutoff=None), TypeError, "cutoff: expected a real number"),
        (dict(potential="yes"), TypeError, "potential: expected True or False"),
        (dict(block=8.0), TypeError, "block: expected an int"),
        (dict(copy=1), TypeError, "copy: expected True or False"),
        (dict(G=1, unknown=2), TypeError, "unexpected keyword argument 'unknown'"),
    ]
    for kw, exc, words in cases:
        with pytest.raises(exc, match=words):
            f(x, m, **kw)
    with pytest.raises(ValueError, match="k = -1 must be finite and > 0"):
        f(x, m, q, law="coulomb", k=-1.0)
    with pytest.raises(TypeError, match="q: law='coulomb' needs the charges q"):
        f(x, m, law="coulomb")
    with pytest.raises(ValueError, match="q: charges are taken by law='coulomb' only, not law='lj'"):
        f(x, m, q, law="lj")
    with pytest.raises(TypeError, match="takes from 2 to 3 positional arguments"):
        f(x, m, q, "coulomb")
    # Shapes and dtypes.
    with pytest.raises(ValueError, match=r"X: 2 columns; expected 3 \(x, y, z\)"):
        f(x[:, :2].copy(), m)
    with pytest.raises(ValueError, match="X: expected a 2-D array"):
        f(x[0], m[:1])
    with pytest.raises(ValueError, match=r"X: no bodies \(shape \(0, 3\)\); need at least 1"):
        f(np.zeros((0, 3)), np.zeros(0))
    with pytest.raises(TypeError, match="X: unsupported dtype 'int64'"):
        f(x.astype(np.int64), m)
    with pytest.raises(ValueError, match="X: the array is not in C order"):
        f(np.asfortranarray(x), m)
    with pytest.raises(ValueError, match=r"m: 9 masses for 10 bodies \(X has 10 rows\)"):
        f(x, m[:9])
    with pytest.raises(ValueError, match=r"q: 11 charges for 10 bodies"):
        f(x, m, np.append(q, 1.0), law="coulomb")
    with pytest.raises(ValueError, match=r"m: expected a 1-D array \(one mass per body\)"):
        f(x, m[:, None])
    with pytest.raises(TypeError, match="m: unsupported dtype 'int64'.*copy=True"):
        f(x, np.ones(10, dtype=np.int64))
    with pytest.raises(TypeError, match="q: unsupported dtype 'complex128'"):
        f(x, m, q.astype(complex), law="coulomb")
    with pytest.raises(TypeError, match="m: expected an array"):
        f(x, 1.0)
    with pytest.raises(ValueError, match="m: the array is not in C order"):
        f(x, np.ones(20)[::2])
    # Values: the kernels' check_bodies.
    for bad, text in ((np.nan, "NaN"), (np.inf, "inf")):
        y = x.copy()
        y[6, 1] = bad
        with pytest.raises(ValueError, match=r"tdmaps::nbody: body 6: y is %s \(not finite\)" % text):
            f(y, m)
        with pytest.raises(ValueError, match=r"body 6: y is %s" % text):
            f(y.astype(np.float32), m)
    for bad, text in ((0.0, "0"), (-2.0, "-2"), (np.nan, "NaN"), (np.inf, "inf")):
        mm = m.copy()
        mm[2] = bad
        with pytest.raises(ValueError, match=r"tdmaps::nbody: body 2: mass %s must be finite and > 0" % text):
            f(x, mm)
    qq = q.copy()
    qq[1] = np.nan
    with pytest.raises(ValueError, match=r"body 1: charge NaN is not finite"):
        f(x, m, qq, law="coulomb")
    mm = m.copy()
    mm[3] = 1e-50  # > 0 in float64, 0 in float32
    f(x, mm)
    with pytest.raises(ValueError, match=r"body 3: mass 1e-50 underflows float32 \(becomes 0"):
        f(x.astype(np.float32), mm)


def test_threads():
    inputs = []
    for s in range(8):
        x, m, q = bodies(60 + 7 * s, 500 + s)
        law = LAWS[s % 3]
        p = dict(softening=0.1) if law != "lj" else {}
        inputs.append((x.astype(np.float32) if s % 2 else x, m, q if law == "coulomb" else None, law, p))

    def call(i):
        x, m, q, law, p = inputs[i]
        return tdmaps.nbody_accelerations(x, m, q, law=law, potential=True, map=MAPS[i % len(MAPS)][0], **p)

    serial = [call(i) for i in range(len(inputs))]
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            got = list(pool.map(call, list(range(len(inputs))) * 2))
            for i, (a, e) in enumerate(got):
                want_a, want_e = serial[i % len(inputs)]
                t = tol(want_a.dtype.type) * 10
                assert a.dtype == want_a.dtype and np.allclose(a, want_a, rtol=t, atol=t * np.abs(want_a).max())
                assert np.allclose(e, want_e, rtol=t, atol=t * np.abs(want_e).max())
        # An error raised inside the compute reaches its own thread.
        x, m, _, _, _ = inputs[0]
        y = x.copy()
        y[3] = y[1]
        fut = pool.submit(tdmaps.nbody_accelerations, y, m)
        with pytest.raises(ValueError, match="bodies 1 and 3 share a position"):
            fut.result(timeout=60)


def test_docstring_example():
    doc = tdmaps.nbody_accelerations.__doc__
    assert "nbody_accelerations(" in doc and "Raises" in doc and "Example" in doc
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for t in doctest.DocTestFinder().find(tdmaps.nbody_accelerations, "nbody_accelerations"):
        runner.run(t)
    assert runner.summarize(verbose=False).attempted > 0 and runner.failures == 0
