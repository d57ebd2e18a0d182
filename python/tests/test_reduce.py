"""tdmaps.pair_histogram, tdmaps.nearest_neighbour and tdmaps.count_within
against NumPy / SciPy oracles over the whole distance matrix: every
block-space map and block side, both dtypes, ties, NaN rows, edge sizes and
bad input."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist, pdist as scipy_pdist

from conftest import tdmaps

BLOCK_MAPS = ["bb", "hadouken", "lambda", "rb", "rec"]


def distances(X):
    """The pair distances i < j in fp64 (SciPy), and a distance matrix with inf on the diagonal."""
    X64 = np.asarray(X, dtype=np.float64)
    D = cdist(X64, X64)
    np.fill_diagonal(D, np.inf)
    return scipy_pdist(X64), D


def edge_pairs(r, bins, rmax, rel):
    """Pairs whose distance lies within rel (relative) of a bin edge or of rmax:
    the ones a float32 distance may put in the neighbouring bin."""
    t = r * (bins / rmax)
    return int(np.sum(np.abs(t - np.round(t)) <= rel * np.maximum(t, 1.0)))


def hist_oracle(r, bins, rmax):
    """tdmaps' bins are NumPy's: np.histogram over [0, rmax) of the distances below rmax."""
    r = r[r < rmax]
    return np.histogram(r, bins, (0, rmax))[0].astype(np.int64)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n,d", [(2, 1), (3, 2), (33, 3), (100, 4), (257, 3), (300, 7)])
def test_histogram(rng, n, d, dtype):
    X = rng.random((n, d)).astype(dtype)
    r, _ = distances(X)
    for bins, rmax in [(1, 10.0), (16, 1.0), (64, 0.8), (1000, 2.0)]:
        got = tdmaps.pair_histogram(X, bins, rmax=rmax)
        assert got.dtype == np.int64 and got.shape == (bins,)
        want = hist_oracle(r, bins, rmax)
        if dtype == np.float64 and d <= 4:
            np.testing.assert_array_equal(got, want)  # SciPy's distances, bit for bit
        else:
            rel = 4 * (d + 4) * float(np.finfo(dtype).eps)
            assert np.abs(got - want).sum() <= 2 * edge_pairs(r, bins, rmax, rel)
            assert abs(got.sum() - want.sum()) <= int(np.sum(np.abs(r - rmax) <= rel * rmax))


@pytest.mark.parametrize("map_name", BLOCK_MAPS)
@pytest.mark.parametrize("block", [8, 16, 32])
def test_histogram_every_map(rng, map_name, block):
    X = rng.random((181, 3))
    r, _ = distances(X)
    got = tdmaps.pair_histogram(X, 37, rmax=1.3, map=map_name, block=block)
    np.testing.assert_array_equal(got, hist_oracle(r, 37, 1.3))


@pytest.mark.parametrize("sqrt", ["sqrt", "newton", "rsqrt", "fp64"])
@pytest.mark.parametrize("form", ["exact", "eps"])
def test_reductions_lambda_variants(rng, sqrt, form):
    X = rng.random((150, 2))
    r, D = distances(X)
    np.testing.assert_array_equal(tdmaps.pair_histogram(X, 20, rmax=1.0, sqrt=sqrt, form=form), hist_oracle(r, 20, 1.0))
    dist, idx = tdmaps.nearest_neighbour(X, sqrt=sqrt, form=form)
    np.testing.assert_array_equal(idx, D.argmin(axis=1))
    assert tdmaps.count_within(X, 0.25, sqrt=sqrt, form=form) == int(np.sum(r < 0.25))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("map_name", BLOCK_MAPS)
@pytest.mark.parametrize("n,d", [(2, 3), (40, 1), (129, 4), (250, 6)])
def test_nearest_neighbour(rng, dtype, map_name, n, d):
    X = rng.standard_normal((n, d)).astype(dtype)
    _, D = distances(X)
    dist, idx = tdmaps.nearest_neighbour(X, map=map_name)
    assert dist.dtype == dtype and dist.shape == (n,)
    assert idx.dtype == np.int64 and idx.shape == (n,)
    want = D.min(axis=1)
    tol = 1e-12 if dtype == np.float64 else 4 * (d + 4) * float(np.finfo(np.float32).eps)
    np.testing.assert_allclose(dist, want, rtol=tol, atol=0)
    # The index is the oracle's unless another point lies as near within the rounding.
    at = D[np.arange(n), idx]
    assert np.all(at <= want * (1 + 2 * tol))
    unambiguous = np.sort(D, axis=1)[:, 1] > want * (1 + 4 * tol) if n > 2 else np.ones(n, bool)
    np.testing.assert_array_equal(idx[unambiguous], D.argmin(axis=1)[unambiguous])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("block", [8, 32])
def test_nearest_ties_go_to_the_smaller_index(rng, dtype, block):
    P = rng.random((70, 3)).astype(dtype)
    X = np.concatenate([P, P, P])  # every point has two copies at distance 0
    dist, idx = tdmaps.nearest_neighbour(X, block=block)
    m = len(P)
    want = np.concatenate([np.arange(m) + m, np.arange(m), np.arange(m)])
    np.testing.assert_array_equal(idx, want)
    np.testing.assert_array_equal(dist, np.zeros(3 * m, dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_nan_rows(rng, dtype):
    X = rng.random((90, 3)).astype(dtype)
    X[[5, 41], 1] = np.nan
    good = np.setdiff1d(np.arange(90), [5, 41])
    dist, idx = tdmaps.nearest_neighbour(X)
    np.testing.assert_array_equal(idx[[5, 41]], [-1, -1])
    assert np.all(np.isinf(dist[[5, 41]]))
    _, D = distances(X[good])
    np.testing.assert_array_equal(good[D.argmin(axis=1)], idx[good])
    r = scipy_pdist(X[good].astype(np.float64))
    got = tdmaps.pair_histogram(X, 10, rmax=2.0)
    if dtype == np.float64:
        np.testing.assert_array_equal(got, hist_oracle(r, 10, 2.0))
    assert got.sum() == len(r)  # NaN pairs are in no bin, every other pair is below rmax = 2 > sqrt(3)
    assert tdmaps.count_within(X, 5.0) == len(r)


@pytest.mark.parametrize("map_name", BLOCK_MAPS + ["utm"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_count_within(rng, map_name, dtype):
    X = rng.random((211, 3)).astype(dtype)
    r, _ = distances(X)
    for radius in [0.0, 0.05, 0.3, 0.9, 2.0, np.inf, -1.0]:
        got = tdmaps.count_within(X, radius, map=map_name)
        assert isinstance(got, int)
        want = int(np.sum(r < radius))
        if dtype == np.float64:
            assert got == want
        else:
            assert abs(got - want) <= int(np.sum(np.abs(r - radius) <= 1e-6 * max(radius, 1.0)))


def test_empty_and_single_point():
    for n in [0, 1]:
        X = np.zeros((n, 3))
        np.testing.assert_array_equal(tdmaps.pair_histogram(X, 5, rmax=1.0), np.zeros(5, np.int64))
        assert tdmaps.count_within(X, 1.0) == 0
        with pytest.raises(ValueError, match="nearest_neighbour needs at least 2 points"):
            tdmaps.nearest_neighbour(X)


def test_lists_and_copy(rng):
    X = rng.random((20, 2))
    np.testing.assert_array_equal(tdmaps.nearest_neighbour(X.tolist())[1], tdmaps.nearest_neighbour(X)[1])
    F = np.asfortranarray(X)
    with pytest.raises(ValueError, match="C"):
        tdmaps.count_within(F, 0.5)
    assert tdmaps.count_within(F, 0.5, copy=True) == tdmaps.count_within(X, 0.5)


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda X: tdmaps.pair_histogram(X, 0, rmax=1.0), ValueError, r"bins 0: need 1 \.\. 2\^24 bins"),
        (lambda X: tdmaps.pair_histogram(X, 2**24 + 1, rmax=1.0), ValueError, "need 1"),
        (lambda X: tdmaps.pair_histogram(X, 8), TypeError, "rmax is required"),
        (lambda X: tdmaps.pair_histogram(X, 8, rmax=0.0), ValueError, "need a finite value > 0"),
        (lambda X: tdmaps.pair_histogram(X, 8, rmax=np.inf), ValueError, "need a finite value > 0"),
        (lambda X: tdmaps.pair_histogram(X, 8, rmax=np.nan), ValueError, "need a finite value > 0"),
        (lambda X: tdmaps.pair_histogram(X, 8, rmax=1.0, map="utm"), ValueError, "thread-space map"),
        (lambda X: tdmaps.nearest_neighbour(X, map="utm"), ValueError, "thread-space map"),
        (lambda X: tdmaps.nearest_neighbour(X, map="nope"), ValueError, "map 'nope': unknown"),
        (lambda X: tdmaps.count_within(X, np.nan), ValueError, "radius: NaN"),
        (lambda X: tdmaps.count_within(X, 1.0, block=12), ValueError, "block side must be 8, 16 or 32"),
        (lambda X: tdmaps.count_within(X.astype(np.int32), 1.0), TypeError, "unsupported dtype 'int32'"),
        (lambda X: tdmaps.count_within(X[:, 0], 1.0), ValueError, "2-D array"),
        (lambda X: tdmaps.nearest_neighbour(X[:, :0]), ValueError, "0 dimensions"),
        (lambda X: tdmaps.pair_histogram(X[::2], 8, rmax=1.0), ValueError, "C"),
    ],
)
def test_bad_input(rng, call, error, match):
    X = rng.random((10, 3))
    with pytest.raises(error, match=match):
        call(X)
