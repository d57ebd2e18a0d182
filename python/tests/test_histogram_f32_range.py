"""float32 points: pair_histogram's edges are the ones NumPy builds for
float32 data and a float32 range, np.histogram(d, bins, (0, np.float32(rmax))),
for the NumPy installed here; an rmax that float32 cannot hold is refused."""

import numpy as np
import pytest

from conftest import tdmaps

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
