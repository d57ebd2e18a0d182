"""The small-input path (python/src/small.cpp): pdist, pair_histogram and
count_within of few points run as plain loops on the calling thread. Their
results are bit for bit those of the Kokkos path, checked on the same inputs
with each path forced and at the crossover (n just below and just above it)."""

import numpy as np
import pytest
from scipy.spatial.distance import pdist as scipy_pdist

from conftest import tdmaps
from tdmaps import _tdmaps


def largest_small_n(d):
    limit = _tdmaps.small_path_limit()
    n = 2
    while (n + 1) * n // 2 * d <= limit:
        n += 1
    return n


def results(X, radius, rmax, metric="euclidean", reject=False):
    return (tdmaps.pdist(X, metric, reject_nonfinite=reject), tdmaps.pair_histogram(X, 37, rmax=rmax),
            tdmaps.count_within(X, radius))


def forced(X, limit, *args, **kw):
    old = _tdmaps._set_small_path_limit(limit)
    try:
        return results(X, *args, **kw)
    finally:
        _tdmaps._set_small_path_limit(old)


def same(a, b):
    assert a[0].dtype == b[0].dtype and np.array_equal(a[0], b[0], equal_nan=True)
    assert np.array_equal(a[1], b[1]) and a[2] == b[2]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("d", [1, 2, 3, 4, 7])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 57])
def test_paths_agree(rng, dtype, d, n):
    X = (rng.random((n, d)) * 3 - 1).astype(dtype)
    for metric in ("euclidean", "sqeuclidean"):
        small = forced(X, 1 << 62, 1.1, 2.5, metric)
        big = forced(X, 0, 1.1, 2.5, metric)
        same(small, big)
    if dtype == np.float64:
        assert np.array_equal(forced(X, 1 << 62, 1.0, 1.0)[0], scipy_pdist(X))


def test_nan_and_inf(rng):
    X = rng.random((12, 3))
    X[4, 1] = np.nan
    X[9, 0] = np.inf
    same(forced(X, 1 << 62, 0.5, 1.0), forced(X, 0, 0.5, 1.0))
    for limit in (0, 1 << 62):
        old = _tdmaps._set_small_path_limit(limit)
        try:
            with pytest.raises(ValueError, match=r"X: row 4 \(0-based\), column 1 is nan \(reject_nonfinite=True\)"):
                tdmaps.pdist(X, reject_nonfinite=True)
        finally:
            _tdmaps._set_small_path_limit(old)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_crossover(dtype):
    """n at the default crossover (d = 3) and one above: the small path below,
    the Kokkos path above, each equal to the other path forced."""
    n = largest_small_n(3)
    assert 100 <= n <= 5000
    rng = np.random.default_rng(n)
    for m in (n - 1, n, n + 1):
        X = rng.random((m, 3)).astype(dtype)
        default = results(X, 0.3, 1.5)
        same(default, forced(X, 0, 0.3, 1.5))
        same(default, forced(X, 1 << 62, 0.3, 1.5))
        if dtype == np.float64:
            assert np.array_equal(default[0], scipy_pdist(X))


def test_options_keep_the_kokkos_path(rng):
    """Layouts other than condensed and kernels other than auto / element
    take the Kokkos path; their results are unchanged."""
    X = rng.random((30, 3))
    ref = scipy_pdist(X)
    assert np.array_equal(tdmaps.pdist(X, kernel="element"), ref)
    assert np.array_equal(tdmaps.pdist(X, kernel="tile"), ref)
    full = tdmaps.pdist(X, layout="full")
    assert np.array_equal(full[np.triu_indices(30, 1)], ref)
    out = np.empty(len(ref))
    assert tdmaps.pdist(X, out=out) is out and np.array_equal(out, ref)
