"""tdmaps.pair_histogram's bins are np.histogram's: distances placed exactly
on every edge NumPy builds for X's dtype (and one ulp to either side),
many (rmax, bins), both dtypes, every block-space map, and the bins limit
(2^24 works, past the teams' scratch too; 2^24 + 1 raises)."""

import numpy as np
import pytest

from conftest import tdmaps

BLOCK_MAPS = ["bb", "hadouken", "lambda", "rb", "rec"]
CASES = [(0.7, 3), (0.7, 10), (1.0, 1), (1.0, 7), (0.1, 49), (1.1, 17), (0.3, 64), (2.5, 1000), (123.4, 333),
         (1e-3, 100), (1e-30, 5), (3e30, 12)]


def pair_distances(X):
    """|x_i - x_j| of the pairs i < j as tdmaps forms them: the squares summed
    in order in X's dtype, then the square root."""
    n, d = X.shape
    s = np.zeros((n, n), dtype=X.dtype)
    with np.errstate(over="ignore", under="ignore"):  # squares past the dtype's range, as in tdmaps
        for k in range(d):
            t = X[:, None, k] - X[None, :, k]
            s = s + t * t
    return np.sqrt(s)[np.triu_indices(n, 1)]


def numpy_histogram(X, bins, rmax):
    """The documented rule: np.histogram(d[d < R], bins, (0, R)) for R = rmax
    in X's dtype (float32 X: NumPy's float32 edges of a float32 range)."""
    d = pair_distances(X)
    R = X.dtype.type(rmax)
    return np.histogram(d[d < R], bins, (0, R))[0]


def edge_points(rmax, bins, dtype, most, rng):
    """1-D points: 0 and the edges (all, or `most` at random besides the ends),
    each also one ulp below and above: distances from 0 on every edge."""
    edges = np.histogram_bin_edges(np.zeros(1, dtype), bins, (0, dtype(rmax)))
    if bins + 1 > most:
        edges = edges[np.concatenate([[1, bins - 1, bins], rng.integers(0, bins + 1, most)])]
    with np.errstate(over="ignore"):
        x = np.concatenate([[0], edges, np.nextafter(edges, dtype(0)), np.nextafter(edges, dtype(np.inf))])
    return x.astype(dtype)[:, None]


def test_the_issues_values_are_in_the_bin_they_start():
    assert tdmaps.pair_histogram(np.array([[0.0], [0.7 / 3]]), 3, rmax=0.7).tolist() == [0, 1, 0]
    assert tdmaps.pair_histogram(np.array([[0.0], [0.7 / 3]], np.float32), 3, rmax=0.7).tolist() == [0, 1, 0]
    want = [0] * 10
    want[3] = 1
    assert tdmaps.pair_histogram(np.array([[0.0], [3 * 0.7 / 10]]), 10, rmax=0.7).tolist() == want
    assert tdmaps.pair_histogram(np.array([[0.0], [0.7]]), 3, rmax=0.7).tolist() == [0, 0, 0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("rmax,bins", CASES)
def test_values_on_every_edge(rng, rmax, bins, dtype):
    X = edge_points(rmax, bins, dtype, 150, rng)
    want = numpy_histogram(X, bins, rmax)
    for m in BLOCK_MAPS:
        np.testing.assert_array_equal(tdmaps.pair_histogram(X, bins, rmax=rmax, map=m), want, err_msg=m)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_random_rmax_and_bins(rng, dtype):
    for _ in range(20):
        rmax = float(10 ** rng.uniform(-4, 4))
        bins = int(rng.integers(1, 3000))
        X = edge_points(rmax, bins, dtype, 100, rng)
        np.testing.assert_array_equal(tdmaps.pair_histogram(X, bins, rmax=rmax), numpy_histogram(X, bins, rmax),
                                      err_msg=f"rmax {rmax!r} bins {bins}")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("d", [1, 2, 3, 5])
def test_random_points(rng, d, dtype):
    X = rng.random((300, d)).astype(dtype)
    for bins, rmax in [(1, 10.0), (16, 1.0), (64, 0.8), (1000, 2.0), (7, 0.7)]:
        np.testing.assert_array_equal(tdmaps.pair_histogram(X, bins, rmax=rmax), numpy_histogram(X, bins, rmax))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("bins", [8176, 8177, 100003, 2**24])
def test_bins_up_to_the_limit(rng, bins, dtype):
    X = np.concatenate([edge_points(1.3, bins, dtype, 60, rng)[:, 0], rng.random(40).astype(dtype)])[:, None]
    for m in ["lambda", "rec"]:
        got = tdmaps.pair_histogram(X, bins, rmax=1.3, map=m)
        assert got.shape == (bins,) and got.dtype == np.int64
        np.testing.assert_array_equal(got, numpy_histogram(X, bins, 1.3), err_msg=m)


def test_bins_past_the_limit_raise():
    with pytest.raises(ValueError, match=r"need 1 \.\. 2\^24"):
        tdmaps.pair_histogram(np.zeros((3, 1)), 2**24 + 1, rmax=1.0)
