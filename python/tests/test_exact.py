"""The default kernel is SciPy's pdist bit for bit (host builds), at every d:
kernel='auto' never takes the gemm path, whose Gram values are not
bit-identical; kernel='gemm' is held to the bounds the docs state. The CLI's
default path (the same resolution, apps/edm/include/tdmaps/edm/driver.hpp)
too."""

import os
import subprocess

import numpy as np
import pytest
from scipy.spatial.distance import pdist as scipy_pdist

from conftest import expected, tdmaps
from test_module import build_tree, cache_value

DIMS = [1, 2, 3, 100, 223, 224, 230, 300]
HOST = not tdmaps.info()["device"]
needs_host = pytest.mark.skipif(not HOST, reason="CUDA contracts the sums into fused multiply-adds: not bit for bit")
needs_gemm = pytest.mark.skipif(not tdmaps.info()["gemm"], reason="built without Kokkos Kernels")

# kernel='gemm', as python/README.md and apps/edm/README.md state them.
GEMM_FP64_ULP = 10      # euclidean, against the direct sum (SciPy), d <= 300, random clouds
GEMM_FP64_SQ_ULP = 18   # sqeuclidean, against SciPy's
GEMM_FP32_ULP = 1       # euclidean, against the correctly rounded distance
GEMM_FP32_SQ_ULP = 2    # sqeuclidean, against the correctly rounded square
SQ_ULP = 2              # sqeuclidean of every other kernel, against SciPy's (fp64)


def ulp(a, b):
    """The largest distance in units in the last place between two arrays of
    non-negative floats of one dtype (consecutive floats are consecutive ints)."""
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.size == 0:
        return 0
    ints = np.int64 if a.dtype == np.float64 else np.int32
    return int(np.max(np.abs(a.view(ints).astype(np.int64) - b.view(ints).astype(np.int64))))


def clouds(d):
    """Random, normal and offset (far from the origin) points, fixed seeds."""
    n = 120 if d <= 100 else 60
    for kind in range(3):
        rng = np.random.default_rng([d, kind])
        X = rng.random((n, d))
        yield X if kind == 0 else rng.standard_normal((n, d)) if kind == 1 else 100.0 + X


@needs_host
@pytest.mark.parametrize("d", DIMS)
def test_default_is_scipy_bit_for_bit(d):
    for X in clouds(d):
        assert np.array_equal(tdmaps.pdist(X), scipy_pdist(X)), d
        for layout in ["packed", "full"]:
            assert np.array_equal(tdmaps.pdist(X, layout=layout), expected(X, layout=layout)), (d, layout)
        assert ulp(tdmaps.pdist(X, "sqeuclidean"), scipy_pdist(X, "sqeuclidean")) <= SQ_ULP, d


@needs_host
def test_default_is_scipy_at_every_d_on_a_map_without_tiles():
    # utm (thread-space) never runs the tile kernel: auto is the element kernel at every d.
    for d in DIMS:
        X = np.random.default_rng(d).random((50, d))
        assert np.array_equal(tdmaps.pdist(X, map="utm"), scipy_pdist(X)), d


@needs_gemm
@pytest.mark.parametrize("d", list(range(1, 12)) + [31, 64, 100, 150, 223, 224, 230, 285, 300])
def test_gemm_within_its_stated_bound(d):
    for X in clouds(d):
        got, want = tdmaps.pdist(X, kernel="gemm"), scipy_pdist(X)
        # The guarantee (detail::GemmAccuracy): a relative 4 (d + 2) 2^-53, i.e. 2 (d + 2) ulp, plus the rounding.
        assert ulp(got, want) <= min(GEMM_FP64_ULP, 2 * (d + 2) + 1), d
        assert ulp(tdmaps.pdist(X, "sqeuclidean", kernel="gemm"), scipy_pdist(X, "sqeuclidean")) <= GEMM_FP64_SQ_ULP
        Xf = X.astype(np.float32)
        rounded = scipy_pdist(Xf.astype(np.float64)).astype(np.float32)
        assert ulp(tdmaps.pdist(Xf, kernel="gemm"), rounded) <= GEMM_FP32_ULP, d
        rounded_sq = scipy_pdist(Xf.astype(np.float64), "sqeuclidean").astype(np.float32)
        assert ulp(tdmaps.pdist(Xf, "sqeuclidean", kernel="gemm"), rounded_sq) <= GEMM_FP32_SQ_ULP, d


@needs_gemm
@needs_host
def test_gemm_is_not_bit_identical_so_auto_leaves_it():
    # Why the default never takes it: the case, 60 x 230.
    X = np.random.default_rng(0).random((60, 230))
    assert not np.array_equal(tdmaps.pdist(X, kernel="gemm"), scipy_pdist(X))
    assert np.array_equal(tdmaps.pdist(X), scipy_pdist(X))


@needs_host
@pytest.mark.parametrize("d", [3, 230, 300])
def test_cli_default_is_scipy_bit_for_bit(tmp_path, d):
    build = build_tree()
    if cache_value(build, "TDMAPS_ENABLE_APPS") not in ("ON", "1", "TRUE"):
        pytest.skip("built without the apps")
    X = np.random.default_rng([7, d]).random((60, d))
    np.save(tmp_path / "x.npy", X)
    r = subprocess.run([str(build / "bin" / "tdmaps-edm"), "--input", str(tmp_path / "x.npy"), "--output",
                        str(tmp_path / "d.npy"), "--json"], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, OMP_PROC_BIND="false"))
    assert r.returncode == 0, r.stderr
    assert '"kernel":"gemm"' not in r.stdout, r.stdout
    assert np.array_equal(np.load(tmp_path / "d.npy"), scipy_pdist(X)), d
