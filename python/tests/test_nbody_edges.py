"""tdmaps.nbody_accelerations at the edges of the run's precision: a result
that is not finite from finite inputs raises ValueError naming the first
body and a cause of its law and precision (fp32 bodies closer than float32
can resolve, for every law; fp64 takes the same bodies and matches a NumPy
fp64 oracle); parameters, masses and charges that overflow or underflow the
precision are refused up front, named as typed; values at the limits that
do fit run and match the oracle."""

import numpy as np
import pytest

from conftest import tdmaps

f = tdmaps.nbody_accelerations


def oracle(x, m, q=None, law="gravity", G=1.0, softening=0.0, sigma=1.0, epsilon=1.0, k=1.0):
    """(n, 3) accelerations in fp64 over every ordered pair i != j, from the laws' formulas."""
    x, m = np.asarray(x, np.float64), np.asarray(m, np.float64)
    d = x[None, :, :] - x[:, None, :]  # x_j - x_i
    r2 = (d**2).sum(-1)
    off = ~np.eye(len(x), dtype=bool)
    r2 = np.where(off, r2, 1.0)
    if law == "gravity":
        s = G * m[None, :] / (r2 + softening**2) ** 1.5
    elif law == "coulomb":
        s = -k * np.outer(q, q) / (r2 + softening**2) ** 1.5 / m[:, None]
    else:
        s6 = (sigma**2 / r2) ** 3
        s = -24 * epsilon * (2 * s6 * s6 - s6) / r2 / m[:, None]
    return (np.where(off, s, 0.0)[..., None] * d).sum(1)


def close(got, want, rtol):
    scale = np.abs(want).max()
    return got.shape == want.shape and np.all(np.abs(np.asarray(got, np.float64) - want) <= rtol * scale)


# Three bodies, the first two closer than float32's terms can take: (x, m, q, law, keywords, the cause's words).
NEAR = {
    "gravity": ([[0, 0, 0], [1e-13, 0, 0], [1, 1, 1]], None, {}, ["softening", "precision='fp64'"]),
    "coulomb": ([[0, 0, 0], [1e-13, 0, 0], [1, 1, 1]], [1.0, -1.0, 1.0], {"softening": 0.0},
                ["softening", "precision='fp64'"]),
    "lj": ([[0, 0, 0], [1e-3, 0, 0], [3, 3, 3]], None, {}, [r"\(sigma/r\)\^12", "precision='fp64'"]),
}


@pytest.mark.parametrize("law", sorted(NEAR))
def test_near_coincident_fp32_raises(law):
    x, q, kw, words = NEAR[law]
    x, m = np.array(x, np.float64), np.ones(3)
    q = None if q is None else np.array(q)
    assert len({tuple(r) for r in x.astype(np.float32)}) == 3  # distinct in float32: check_bodies lets them pass
    for X in (x.astype(np.float32), x):
        kwargs = dict(law=law, precision="fp32", **kw)
        with pytest.raises(ValueError, match=r"body 0: acceleration \(-?inf, NaN, NaN\) is not finite in float32: "
                                             r"body 1 is only (1e-13|0.001) away") as e:
            f(X, m, q, **kwargs)
        for w in words:
            assert e.match(w)
        with pytest.raises(ValueError, match="not finite in float32"):
            f(X, m, q, potential=True, **kwargs)
    # fp64 holds the same terms: finite and the oracle's.
    a = f(x, m, q, law=law, **kw)
    assert np.all(np.isfinite(a)) and close(a, oracle(x, m, q, law, **kw), 1e-12)


def test_softened_coincident_bodies_fp32():
    x = np.array([[0.0, 0, 0], [0.5, 0, 0], [0.0, 0, 0]], np.float32)
    # softening^2 = 1e-38 is > 0 in float32, its 1 / eps^3 is not finite: the result says so.
    with pytest.raises(ValueError, match=r"body 0: acceleration .* not finite in float32: body 2 is at its position"):
        f(x, np.ones(3), softening=1e-19)
    a = f(x.astype(np.float64), np.ones(3), softening=1e-19)
    assert close(a, oracle(x, np.ones(3), softening=1e-19), 1e-12)


def test_parameters_beyond_the_precision_are_refused():
    x = np.array([[0.0, 0, 0], [1, 0, 0], [0, 2, 0]])
    m, q = np.ones(3), np.array([1.0, -1.0, 0.5])
    x32 = x.astype(np.float32)
    cases = [
        (x32, dict(G=1e39), r"G = 1e\+39 overflows float32 \(largest finite 3.4028235e\+38\)"),
        (x32, dict(G=1e-50), r"G = 1e-50 underflows float32 \(becomes 0"),
        (x32, dict(softening=1e-30), r"softening = 1e-30: softening\^2 underflows float32"),
        (x32, dict(softening=1e20), r"softening = 1e\+20: softening\^2 overflows float32"),
        (x, dict(softening=1e-300), r"softening = 1e-300: softening\^2 underflows float64"),
        (x, dict(softening=1e160), r"softening = 1e\+160: softening\^2 overflows float64"),
        (x32, dict(law="lj", epsilon=5e37), r"epsilon = 5e\+37: 24 epsilon overflows float32"),
        (x32, dict(law="lj", sigma=1e20), r"sigma = 1e\+20: sigma\^2 overflows float32"),
        (x32, dict(law="lj", cutoff=1e-25), r"cutoff = 1e-25: cutoff\^2 underflows float32"),
        (x32, dict(law="lj", cutoff=1e-4), r"cutoff = 0.0001: the energy shift .* overflows float32"),
        (x, dict(law="coulomb", k=1e39), None),  # fits float64
        (x32, dict(law="coulomb", k=1e39), r"k = 1e\+39 overflows float32"),
    ]
    for X, kw, words in cases:
        qq = q if kw.get("law") == "coulomb" else None
        if words is None:
            f(X, m, qq, **kw)
            continue
        with pytest.raises(ValueError, match="tdmaps::nbody: " + words):
            f(X, m, qq, **kw)
    # The precision= conversion is judged as the run's precision.
    with pytest.raises(ValueError, match=r"G = 1e\+39 overflows float32"):
        f(x, m, G=1e39, precision="fp32")
    # Coincident bodies with a softening whose square is 0 in float64: refused, not NaN.
    y = np.array([[0.0, 0, 0], [0.0, 0, 0], [1, 1, 1]])
    with pytest.raises(ValueError, match=r"softening\^2 underflows float64"):
        f(y, m, softening=1e-300)


def test_parameters_at_the_limits_run():
    # A grid of side 2 (r >= 2): G / r fits float32 at G = 3e38; softening^2 = 1e-38 is a float32 subnormal > 0.
    g = 2.0 * np.stack(np.meshgrid(np.arange(3), np.arange(3), np.arange(2)), -1).reshape(-1, 3)
    m = np.full(len(g), 1e-15)
    a = f(g.astype(np.float32), m, G=3e38, softening=1e-19)
    assert a.dtype == np.float32 and close(a, oracle(g, m, G=3e38, softening=1e-19), 1e-5)
    a = f(g, m, G=1e308, softening=1e-154)  # float64: softening^2 = 1e-308 > 0
    assert close(a, oracle(g, m, G=1e308, softening=1e-154), 1e-12)
    # The constant times the masses overflowing float32 although each fits: the result names them.
    with pytest.raises(ValueError, match=r"the gravity terms overflow float32 with G = 3e\+38 and masses up to 1e\+10"):
        f(g.astype(np.float32), np.full(len(g), 1e10), G=3e38)


def test_masses_and_charges_named_as_typed():
    x = np.array([[0.0, 0, 0], [1, 0, 0], [0, 2, 0]])
    x32 = x.astype(np.float32)
    for X, law, m, q, words in [
        (x32, "gravity", [1, 1e-46, 1], None, r"body 1: mass 1e-46 underflows float32 \(becomes 0"),
        (x32, "gravity", [1, 1, 1e39], None, r"body 2: mass 1e\+39 overflows float32"),
        (x, "gravity", [1, -1e-10, 1], None, r"body 1: mass -1e-10 must be finite and > 0"),
        (x32, "lj", [1, 1e-39, 1], None, r"body 1: mass 1e-39: 1 / mass overflows float32"),
        (x, "coulomb", [1, 1e-310, 1], [1, 1, 1], r"body 1: mass 1e-310: 1 / mass overflows float64"),
        (x32, "coulomb", [1, 1, 1], [1, 1e39, 1], r"body 1: charge 1e\+39 overflows float32"),
        (x32, "coulomb", [1, 1, 1], [1, -1e-46, 1], r"body 1: charge -1e-46 underflows float32"),
    ]:
        with pytest.raises(ValueError, match="tdmaps::nbody: " + words):
            f(X, np.array(m, np.float64), None if q is None else np.array(q, np.float64), law=law)
    # The same values fit float64 (gravity takes no 1 / mass): finite and the oracle's.
    m = np.array([1, 1e-46, 1e39])
    assert close(f(x, m), oracle(x, m), 1e-12)
    q = np.array([1, 0.0, -1])  # a charge of 0 stays 0
    assert close(f(x32, np.ones(3), q, law="coulomb"), oracle(x, np.ones(3), q, "coulomb"), 1e-6)


def test_finite_results_pass_on_random_bodies():
    rng = np.random.default_rng(20240611)
    x = rng.uniform(-4, 4, (200, 3))
    m, q = rng.uniform(0.5, 2, 200), rng.uniform(-1, 1, 200)
    for law, kw in (("gravity", {"softening": 0.01}), ("coulomb", {"softening": 0.01}), ("lj", {"sigma": 0.2})):
        qq = q if law == "coulomb" else None
        for X, rtol in ((x, 1e-12), (x.astype(np.float32), 1e-4)):
            a, e = f(X, m, qq, law=law, potential=True, **kw)
            assert np.all(np.isfinite(a)) and np.all(np.isfinite(e))
            assert close(a, oracle(X, m, qq, law, **kw), rtol)
