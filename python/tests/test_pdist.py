"""tdmaps.pdist against scipy.spatial.distance.pdist: shapes, dtypes,
layouts, metrics, maps, kernels and out=."""

import numpy as np
import pytest

from conftest import DLPackOnly, expected, rtol, squareform, tdmaps

MAPS = ["bb", "hadouken", "h", "lambda", "rb", "rec", "utm"]
SHAPES = [(2, 1), (3, 2), (7, 3), (31, 4), (33, 5), (97, 3), (101, 64), (257, 4), (1000, 2)]


def check(got, X, metric="euclidean", layout="condensed"):
    want = expected(X, metric, layout)
    assert got.shape == want.shape
    assert got.dtype == X.dtype
    np.testing.assert_allclose(got, want, rtol=rtol(X.dtype, X.shape[1], metric), atol=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n,d", SHAPES)
def test_matches_scipy(rng, n, d, dtype):
    X = rng.standard_normal((n, d)).astype(dtype)
    check(tdmaps.pdist(X), X)
    check(tdmaps.pdist(X, "sqeuclidean"), X, "sqeuclidean")


def test_fp64_is_exact_for_small_d(rng):
    # The direct formula in fp64 is SciPy's own: on host builds the results
    # agree to the bit. CUDA contracts the sums of squares into fused
    # multiply-adds: within a few ulp there.
    X = rng.random((500, 4))
    if tdmaps.info()["device"]:
        np.testing.assert_allclose(tdmaps.pdist(X), expected(X), rtol=4 * np.finfo(np.float64).eps, atol=0)
    else:
        assert np.array_equal(tdmaps.pdist(X), expected(X))


@pytest.mark.parametrize("layout", ["condensed", "packed", "full"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n,d", [(1, 3), (2, 2), (37, 3), (130, 5)])
def test_layouts(rng, layout, dtype, n, d):
    X = rng.random((n, d)).astype(dtype)
    for metric in ["euclidean", "sqeuclidean"]:
        check(tdmaps.pdist(X, metric, layout=layout), X, metric, layout)


def test_condensed_works_with_squareform(rng):
    X = rng.random((45, 3))
    D = squareform(tdmaps.pdist(X))
    np.testing.assert_allclose(D, tdmaps.pdist(X, layout="full"), rtol=0, atol=0)
    assert np.array_equal(D, D.T)


@pytest.mark.parametrize("map_name", MAPS)
@pytest.mark.parametrize("block", [8, 16, 32])
def test_every_map(rng, map_name, block):
    X = rng.random((77, 3))
    for layout in ["condensed", "packed", "full"]:
        check(tdmaps.pdist(X, map=map_name, block=block, layout=layout), X, layout=layout)


@pytest.mark.parametrize("sqrt", ["sqrt", "newton", "rsqrt", "fp64"])
@pytest.mark.parametrize("form", ["exact", "eps"])
def test_lambda_variants(rng, sqrt, form):
    X = rng.random((150, 2)).astype(np.float32)
    check(tdmaps.pdist(X, map="lambda", sqrt=sqrt, form=form), X)


@pytest.mark.parametrize("kernel", ["auto", "element", "tile", "gemm", "linear"])
@pytest.mark.parametrize("layout", ["condensed", "packed", "full"])
def test_kernels(rng, kernel, layout):
    if kernel == "linear" and layout == "full":
        pytest.raises(ValueError, tdmaps.pdist, np.zeros((3, 2)), layout=layout, kernel=kernel)
        return
    for d in [1, 4, 48] if kernel == "tile" else [1, 4, 64]:  # the tile's scratch takes d <= 63 in fp64
        for dtype in [np.float64, np.float32]:
            X = (rng.random((90, d)) + 10.0).astype(dtype)  # off the origin: gemm's guard recomputes some pairs
            check(tdmaps.pdist(X, kernel=kernel, layout=layout), X, layout=layout)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["condensed", "packed", "full"])
def test_out_is_filled_and_returned(rng, dtype, layout):
    n = 50
    X = rng.random((n, 3)).astype(dtype)
    shape = {"condensed": (n * (n - 1) // 2,), "packed": (n * (n + 1) // 2,), "full": (n, n)}[layout]
    out = np.full(shape, np.nan, dtype=dtype)  # poisoned: every element must be written
    got = tdmaps.pdist(X, out=out, layout=layout)
    assert got is out
    check(out, X, layout=layout)


@pytest.mark.parametrize("metric", ["euclidean", "sqeuclidean"])
def test_full_lower_only_keeps_the_rest(rng, metric):
    n = 40
    X = rng.random((n, 2))
    out = np.full((n, n), -7.0)
    tdmaps.pdist(X, metric, out=out, layout="full", symmetric=False)
    lower = np.tril_indices(n)
    np.testing.assert_allclose(out[lower], expected(X, metric, "full")[lower], rtol=1e-12, atol=0)
    assert np.all(out[np.triu_indices(n, 1)] == -7.0)
    fresh = tdmaps.pdist(X, metric, layout="full", symmetric=False)  # allocated: zeros above the diagonal
    assert np.all(fresh[np.triu_indices(n, 1)] == 0.0)
    np.testing.assert_allclose(fresh[lower], expected(X, metric, "full")[lower], rtol=1e-12, atol=0)


@pytest.mark.parametrize("layout", ["condensed", "packed", "full"])
def test_n_0_and_1_like_scipy(layout):
    for n in [0, 1]:
        for dtype in [np.float64, np.float32]:
            X = np.zeros((n, 3), dtype=dtype)
            got = tdmaps.pdist(X, layout=layout)
            want = expected(X, layout=layout)
            assert got.shape == want.shape and got.dtype == dtype
            assert np.array_equal(got, want)


def test_nan_and_inf_propagate_like_scipy():
    X = np.array([[0.0, 1.0], [np.nan, 2.0], [3.0, 4.0], [np.inf, 0.0], [np.inf, 1.0]])
    got, want = tdmaps.pdist(X), expected(X)
    np.testing.assert_array_equal(got, want)  # NaN where SciPy has NaN, inf where it has inf
    assert np.isnan(got).sum() == np.isnan(want).sum() > 0


def test_read_only_and_lists_like_scipy(rng):
    X = rng.random((20, 3))
    X.setflags(write=False)
    check(tdmaps.pdist(X), X)
    L = X.tolist()
    got = tdmaps.pdist(L)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, expected(X), rtol=1e-12, atol=0)


def test_copy_converts_like_scipy(rng):
    I = rng.integers(-50, 50, size=(30, 3))
    np.testing.assert_allclose(tdmaps.pdist(I, copy=True), expected(I), rtol=1e-12, atol=0)
    F = np.asfortranarray(rng.random((30, 4)))
    np.testing.assert_allclose(tdmaps.pdist(F, copy=True), expected(F), rtol=1e-12, atol=0)
    S = rng.random((30, 8))[:, ::2]
    np.testing.assert_allclose(tdmaps.pdist(S, copy=True), expected(S), rtol=1e-12, atol=0)
    H = rng.random((30, 4)).astype(np.float32)
    got = tdmaps.pdist(H, copy=True)
    assert got.dtype == np.float32


def test_repeated_calls_and_module_info(rng):
    info = tdmaps.info()
    assert info["backend"] == tdmaps.backend
    assert info["device"] == (info["backend"] not in ("Serial", "OpenMP", "Threads"))
    assert set(MAPS) <= set(tdmaps.maps)
    X = rng.random((64, 3))
    first = tdmaps.pdist(X)
    for _ in range(5):
        assert np.array_equal(tdmaps.pdist(X), first)


def test_dlpack_host_arrays_in_place(rng):
    X = rng.random((120, 3)).astype(np.float32)
    got = tdmaps.pdist(DLPackOnly(X))
    assert isinstance(got, np.ndarray)
    check(got, X)
    out = np.full(120 * 119 // 2, np.nan, dtype=np.float32)
    assert tdmaps.pdist(DLPackOnly(X), out=DLPackOnly(out)) is not None
    check(out, X)
    with pytest.raises(ValueError, match=r"X: the array is not in C order"):
        tdmaps.pdist(DLPackOnly(np.asfortranarray(X)))
    with pytest.raises(TypeError, match=r"X: unsupported dtype 'int64'"):
        tdmaps.pdist(DLPackOnly(np.zeros((4, 2), dtype=np.int64)))
    with pytest.raises(ValueError, match=r"X: expected a 2-D array \(points x dims\), got 1-D shape \(4,\)"):
        tdmaps.pdist(DLPackOnly(np.zeros(4)))
    s = np.zeros((5, 4), dtype=np.float32)
    s[:, 3] = 1.0
    assert tdmaps.collide(DLPackOnly(s)) == 10
