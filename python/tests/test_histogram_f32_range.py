"""float32 points: pair_histogram's edges are the ones NumPy builds for
float32 data and a float32 range, np.histogram(d, bins, (0, np.float32(rmax))),
for the NumPy installed here; an rmax that float32 cannot hold is refused."""

import numpy as np
import pytest

from conftest import tdmaps
from tdmaps import _tdmaps

# rmax values whose float32 and float64 edges differ somewhere (the first is
# the case that showed it: edge 5 of 7 for rmax 1.1).
CASES = [(1.1, 7), (0.1, 3), (0.3, 10), (2.7, 13), (1e-3, 9), (7.7, 31), (0.45, 100)]


def f32_distances(X):
    n = X.shape[0]
    d = np.abs(X[:, None, 0] - X[None, :, 0])  # 1-D points: |dx| in float32, exact
    return d[np.triu_indices(n, 1)]


def test_the_cases_hold_edges_where_the_two_rules_differ():
    # Not a test of tdmaps: that the cases below exercise edges where NumPy's
    # float32 edges differ from the rounded float64 ones (edge 5 of 7 for 1.1).
    def differ(rmax, bins):
        e32 = np.histogram_bin_edges(np.zeros(1, np.float32), bins, (0, np.float32(rmax)))
        return int((e32 != np.linspace(0, rmax, bins + 1).astype(np.float32)).sum())
    e = np.histogram_bin_edges(np.zeros(1, np.float32), 7, (0, np.float32(1.1)))
    assert e.dtype == np.float32 and e[5] == np.float32(0.7857143) != np.float32(5 * (1.1 / 7))
    assert sum(differ(r, b) for r, b in CASES) >= len(CASES)


@pytest.mark.parametrize("rmax,bins", CASES)
def test_values_on_numpys_float32_edges(rmax, bins):
    R = np.float32(rmax)
    e = np.histogram_bin_edges(np.zeros(1, np.float32), bins, (0, R))
    x = np.concatenate([[0], e, np.nextafter(e, np.float32(0)), np.nextafter(e, np.float32(np.inf))]).astype(np.float32)
    X = x[:, None]
    d = f32_distances(X)
    want = np.histogram(d[d < R], bins, (0, R))[0]
    for m in ["lambda", "bb", "rec"]:
        np.testing.assert_array_equal(tdmaps.pair_histogram(X, bins, rmax=rmax, map=m), want, err_msg=m)
    # float32 and Python float rmax are the same request for float32 points.
    np.testing.assert_array_equal(tdmaps.pair_histogram(X, bins, rmax=R), want)


def test_rmax_outside_float32_is_refused_for_float32_points():
    X = np.array([[0.0], [1.0]], np.float32)
    for r in (1e-50, 1e39):
        with pytest.raises(ValueError, match=r"rmax = %s is .* in float32" % ("1e-50" if r < 1 else r"1e\+39")):
            tdmaps.pair_histogram(X, 3, rmax=r)
        assert tdmaps.pair_histogram(X.astype(np.float64), 3, rmax=r).shape == (3,)


def emulated_edges(R, bins, in_float32):
    """np.histogram's float32 edges of (0, R) by each NumPy's rule, written out:
    NumPy 2 in float32 arithmetic (b * (R / B), b / B * R where R / B is 0),
    NumPy 1 in float64 rounded to float32; the last edge R itself."""
    R = np.float32(R)
    if in_float32:
        step = R / np.float32(bins)
        b = np.arange(bins + 1, dtype=np.float32)
        e = b * step if step != 0 else b / np.float32(bins) * R
    else:
        e = np.arange(bins + 1, dtype=np.float64) * (np.float64(R) / bins)
    e = e.astype(np.float32)
    e[-1] = R
    return e


def test_the_edge_rule_is_the_installed_numpys():
    # tdmaps' probe (tdmaps/_edm.py) names a rule, and that rule gives the
    # installed NumPy's float32 edges exactly, on ranges it did not probe.
    rule = tdmaps._edm._float32_edge_rule()
    assert rule in (True, False), "the installed NumPy %s builds float32 edges by neither rule" % np.__version__
    rng = np.random.default_rng(11)
    cases = [(float(rng.random()) * 10.0 ** int(rng.integers(-6, 7)), int(rng.integers(1, 3000))) for _ in range(300)]
    for R, bins in cases + [(1e-44, 3), (3e30, 12), (0.7, 100003)]:
        got = np.histogram_bin_edges(np.zeros(0, np.float32), bins, (0, np.float32(R)))
        np.testing.assert_array_equal(got, emulated_edges(R, bins, rule), err_msg="R = %r, bins = %d" % (R, bins))


@pytest.mark.parametrize("in_float32", [False, True])
@pytest.mark.parametrize("rmax,bins", CASES + [(0.7, 10), (123.4, 333)])
def test_either_rule_bins_on_its_own_edges(rmax, bins, in_float32):
    # Both rules of the kernels, whichever NumPy is installed: values on the
    # edges of the rule (and one ulp to either side) land in the bins those
    # edges make, on the whole league and split into parts.
    R = np.float32(rmax)
    e = emulated_edges(R, bins, in_float32)
    x = np.concatenate([[0], e, np.nextafter(e, np.float32(0)), np.nextafter(e, np.float32(np.inf))]).astype(np.float32)
    X = x[:, None]
    d = f32_distances(X)
    d = d[d < R]
    want = np.bincount(np.searchsorted(e, d, side="right") - 1, minlength=bins)
    assert want.shape == (bins,)
    alloc = tdmaps._args._allocator(X)
    for m in ["lambda", "bb", "rec"]:
        got = _tdmaps.pair_histogram(X, bins, rmax, alloc, m, "rsqrt", "exact", 8, edges_in_dtype=in_float32)
        np.testing.assert_array_equal(got, want, err_msg=m)
    parts = [_tdmaps.pair_histogram_part(X, bins, rmax, alloc, "lambda", "rsqrt", "exact", 8, p, 3,
                                         edges_in_dtype=in_float32) for p in range(3)]
    np.testing.assert_array_equal(np.sum(parts, axis=0), want)
    # float64 points: the two rules are one (the edges in float64 either way).
    X64 = X.astype(np.float64)
    np.testing.assert_array_equal(_tdmaps.pair_histogram(X64, bins, rmax, alloc, "bb", "rsqrt", "exact", 8, edges_in_dtype=in_float32),
                                  _tdmaps.pair_histogram(X64, bins, rmax, alloc, "bb", "rsqrt", "exact", 8, edges_in_dtype=not in_float32))
