"""tdmaps.k_nearest_neighbours against a NumPy oracle of the whole distance
matrix: every block-space map, block sides 16 and 32, both dtypes, d and k
from 1 up, ties and duplicates, NaN and Inf rows, k = 1 (nearest_neighbour's
result), k = n - 1, and bad input.

The oracle sums (x_i - x_j)^2 in coordinate order from 0 in X's dtype, as
the kernels do (apps/edm/include/tdmaps/edm/element.hpp; the k-nearest walk
of lib/tdmaps/launch/pair_min_keys.hpp the same, bit for bit), and orders
each row by that squared distance, then by index: on host builds the
distances and the indices are compared exactly."""

import numpy as np
import pytest

from conftest import DLPackOnly, tdmaps

BLOCK_MAPS = ["bb", "hadouken", "lambda", "rb", "rec"]
BLOCKS = [16, 32]
DTYPES = [np.float64, np.float32]
HOST = not tdmaps.info()["device"]
needs_host = pytest.mark.skipif(not HOST, reason="CUDA contracts the sums into fused multiply-adds: not bit for bit")


def squares(X):
    """The squared distances of every ordered pair, in X's dtype, summed in coordinate order from 0."""
    n, d = X.shape
    s = np.zeros((n, n), X.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        for c in range(d):
            t = X[:, None, c] - X[None, :, c]
            s += t * t
    return s


def knn_oracle(X, k):
    """(dist, idx) (n, k): each row's other points with a distance (not NaN),
    by squared distance then index (np.lexsort), -1 / inf past the last."""
    n = len(X)
    s = squares(X)
    dist = np.full((n, k), np.inf, X.dtype)
    idx = np.full((n, k), -1, np.int64)
    cols = np.arange(n)
    for i in range(n):
        ok = (cols != i) & ~np.isnan(s[i])
        j, v = cols[ok], s[i, ok]
        order = np.lexsort((j, v))[:k]
        idx[i, : len(order)] = j[order]
        dist[i, : len(order)] = np.sqrt(v[order])
    return dist, idx


def check(X, k, **kw):
    """The call against the oracle, exactly (host builds), and the result's form."""
    dist, idx = tdmaps.k_nearest_neighbours(X, k, **kw)
    n = len(X)
    assert dist.shape == (n, k) and idx.shape == (n, k)
    assert dist.dtype == X.dtype and idx.dtype == np.int64
    assert dist.flags.c_contiguous and idx.flags.c_contiguous
    want_dist, want_idx = knn_oracle(X, k)
    if HOST:
        np.testing.assert_array_equal(idx, want_idx, err_msg="k=%d %r" % (k, kw))
        np.testing.assert_array_equal(dist, want_dist, err_msg="k=%d %r" % (k, kw))
    else:
        tol = 1e-12 if X.dtype == np.float64 else 4 * (X.shape[1] + 4) * float(np.finfo(np.float32).eps)
        np.testing.assert_allclose(dist, want_dist, rtol=tol, atol=0)
    return dist, idx


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("map_name", BLOCK_MAPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_random_points(rng, dtype, map_name, block):
    """Every d and every k per map (lambda: every pair of them; the other
    maps a Latin square's row, so that the maps together meet every pair)."""
    ks = [1, 2, 7, 16, 64]
    m = BLOCK_MAPS.index(map_name)
    for i, d in enumerate([1, 3, 5, 17, 130]):
        X = rng.standard_normal((97, d)).astype(dtype)
        for k in ks if map_name == "lambda" else [ks[(i + m) % 5]]:
            check(X, k, map=map_name, block=block)


@pytest.mark.parametrize("map_name", BLOCK_MAPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_many_blocks(rng, dtype, map_name):
    X = (rng.random((333, 3)) * 10).astype(dtype)
    for k in [5, 64]:
        check(X, k, map=map_name)


@needs_host
@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("map_name", BLOCK_MAPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_ties_and_duplicates(rng, dtype, map_name, block):
    """Points of a small integer grid (many equal distances, exact in both
    dtypes) with repeated rows: equal distances go to the smaller index."""
    ks = [1, 7, 16, 64, 119]
    m = BLOCK_MAPS.index(map_name)
    for i, d in enumerate([1, 2, 3, 5]):
        X = rng.integers(0, 3, (100, d)).astype(dtype)
        X = np.concatenate([X, X[:20]])  # 20 points twice more, at distance 0
        for k in [ks[(i + m) % 5], ks[(i + m + 2) % 5]]:
            check(X, k, map=map_name, block=block)


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("map_name", ["lambda", "rec"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_k_is_n_minus_1(rng, dtype, map_name, block):
    for n in [2, 3, 17, 33, 64, 65]:
        X = rng.standard_normal((n, 4)).astype(dtype)
        dist, idx = check(X, n - 1, map=map_name, block=block)
        # Every other point once per row.
        np.testing.assert_array_equal(np.sort(idx, axis=1), [np.delete(np.arange(n), i) for i in range(n)])


@pytest.mark.parametrize("map_name", BLOCK_MAPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_nan_and_inf_rows(rng, dtype, map_name):
    n = 90
    X = rng.random((n, 3)).astype(dtype)
    X[[5, 41], 1] = np.nan  # nobody's neighbour
    X[7, 0] = np.inf  # everybody's farthest, at distance inf (not the padding)
    for k in [1, 7, n - 1]:
        dist, idx = check(X, k, map=map_name)
        assert np.all(idx[[5, 41]] == -1) and np.all(np.isinf(dist[[5, 41]]))
        assert not np.isin([5, 41], idx).any()
    good = np.setdiff1d(np.arange(n), [5, 7, 41])
    np.testing.assert_array_equal(idx[good, -3], 7)  # k = n - 1: the inf point, then two empty slots
    np.testing.assert_array_equal(idx[good, -2:], -1)
    assert np.all(np.isinf(dist[good, -3:]))


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("map_name", BLOCK_MAPS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_k1_is_nearest_neighbour(rng, dtype, map_name, block):
    for X in [rng.standard_normal((150, 5)).astype(dtype), rng.integers(0, 4, (150, 2)).astype(dtype)]:
        X[3] = np.nan
        dist, idx = tdmaps.k_nearest_neighbours(X, 1, map=map_name, block=block)
        nn_dist, nn_idx = tdmaps.nearest_neighbour(X, map=map_name, block=block)
        assert dist.shape == (150, 1) and dist.dtype == nn_dist.dtype and idx.dtype == nn_idx.dtype
        np.testing.assert_array_equal(idx[:, 0], nn_idx)
        np.testing.assert_array_equal(dist[:, 0], nn_dist)
        assert idx[3, 0] == -1


@pytest.mark.parametrize("dtype", DTYPES)
def test_column_0_is_nearest_neighbour_and_rows_are_sorted(rng, dtype):
    X = rng.random((200, 6)).astype(dtype)
    dist, idx = tdmaps.k_nearest_neighbours(X, 16)
    nn_dist, nn_idx = tdmaps.nearest_neighbour(X)
    np.testing.assert_array_equal(idx[:, 0], nn_idx)
    np.testing.assert_array_equal(dist[:, 0], nn_dist)
    assert np.all(np.diff(dist, axis=1) >= 0)
    assert np.all(idx != np.arange(200)[:, None])


def test_inputs_read_and_converted(rng):
    X = rng.random((30, 2))
    want = tdmaps.k_nearest_neighbours(X, 4)
    for got in [tdmaps.k_nearest_neighbours(X.tolist(), 4), tdmaps.k_nearest_neighbours(DLPackOnly(X), 4),
                tdmaps.k_nearest_neighbours(np.asfortranarray(X), 4, copy=True),
                tdmaps.k_nearest_neighbours((X * 8).astype(np.int32), 4, copy=True)]:
        for g, w in zip(got, want):
            assert isinstance(g, np.ndarray) and g.shape == w.shape and g.dtype == w.dtype
    for got in [tdmaps.k_nearest_neighbours(X.tolist(), 4), tdmaps.k_nearest_neighbours(X, np.int64(4)),
                tdmaps.k_nearest_neighbours(np.asfortranarray(X), 4, copy=True)]:
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda X: tdmaps.k_nearest_neighbours(X, True), TypeError, r"k: expected an int, got bool True"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 2.0), TypeError, r"k: expected an int, got float 2\.0"),
        (lambda X: tdmaps.k_nearest_neighbours(X, "3"), TypeError, r"k: expected an int, got str"),
        (lambda X: tdmaps.k_nearest_neighbours(X, None), TypeError, r"k: expected an int, got NoneType"),
        (lambda X: tdmaps.k_nearest_neighbours(X), TypeError, r"k"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 0), ValueError, r"^k = 0 for n = 10 points \(need 1 <= k <= n - 1\)$"),
        (lambda X: tdmaps.k_nearest_neighbours(X, -3), ValueError, r"^k = -3 for n = 10 points \(need 1 <= k <= n - 1\)$"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 10), ValueError, r"^k = 10 for n = 10 points \(need 1 <= k <= n - 1\)$"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 1 << 40), ValueError, r"k = 1099511627776 for n = 10 points"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 1 << 70), ValueError, r"k 1180591620717411303424: out of range"),
        (lambda X: tdmaps.k_nearest_neighbours(X[:1], 1), ValueError,
         r"X: k_nearest_neighbours needs at least 2 points \(n = 1 has no other point\)"),
        (lambda X: tdmaps.k_nearest_neighbours(X[:0], 1), ValueError,
         r"X: k_nearest_neighbours needs at least 2 points \(n = 0\)"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 3, block=8), ValueError,
         r"^block 8: k_nearest_neighbours runs on blocks of side 16 or 32$"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 3, block=12), ValueError,
         r"k_nearest_neighbours runs on blocks of side 16 or 32"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 3, block=True), TypeError, r"block: expected an int, got bool"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 3, map="utm"), ValueError,
         r"map='utm' is a thread-space map; k_nearest_neighbours runs on the block-space maps"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 3, map="nope"), ValueError, r"map 'nope': unknown"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 3, sqrt="nope"), ValueError, r"sqrt 'nope': unknown"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 3, form="nope"), ValueError, r"form 'nope': unknown"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 3, map=1), TypeError, r"map: expected a string"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 3, copy="yes"), TypeError, r"copy: expected True or False"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 3, comm=object()), TypeError, r"unexpected keyword argument 'comm'"),
        (lambda X: tdmaps.k_nearest_neighbours(X, 3, 32), TypeError, r"positional argument"),
        (lambda X: tdmaps.k_nearest_neighbours(X.astype(np.int32), 3), TypeError, r"unsupported dtype 'int32'"),
        (lambda X: tdmaps.k_nearest_neighbours(X[:, 0], 3), ValueError, r"2-D array"),
        (lambda X: tdmaps.k_nearest_neighbours(X[:, :0], 3), ValueError, r"0 dimensions"),
        (lambda X: tdmaps.k_nearest_neighbours(X[::2], 3), ValueError, r"C"),
    ],
)
def test_bad_input(rng, call, error, match):
    X = rng.random((10, 3))
    with pytest.raises(error, match=match):
        call(X)


@pytest.mark.parametrize("dtype", DTYPES)
def test_too_large_for_memory(dtype):
    n = 1 << 20
    X = np.zeros((n, 1), dtype)  # 8 MB in; the results would take n (n - 1) (itemsize + 8) bytes, tens of TB
    with pytest.raises(tdmaps.TooLarge, match=r"^k_nearest_neighbours of n = 1048576 points needs .* memory but only "
                                              r".* is available; use fewer points$"):
        tdmaps.k_nearest_neighbours(X, n - 1)
