"""Shared helpers of the pytest suite: the module under test, seeded inputs,
and the SciPy / NumPy oracles the results are compared with."""

import zlib

import numpy as np
import pytest
from scipy.spatial.distance import pdist as scipy_pdist, squareform

import tdmaps

SEED = 20240611


@pytest.fixture
def rng(request):
    """A generator seeded per test (the seed is in the test's id on failure)."""
    return np.random.default_rng([SEED, zlib.crc32(request.node.name.encode())])


def expected(X, metric="euclidean", layout="condensed"):
    """SciPy's distances (fp64) in a tdmaps layout."""
    c = scipy_pdist(np.asarray(X, dtype=np.float64), metric)
    if layout == "condensed":
        return c
    full = squareform(c, checks=False) if len(X) > 1 else np.zeros((len(X), len(X)))
    if layout == "full":
        return full
    return full[np.tril_indices(len(X))]  # packed: (i, j), j <= i, at i (i + 1) / 2 + j


def rtol(dtype, d, metric="euclidean"):
    """fp64: 1e-12; fp32: the rounding of d + 2 float32 operations (twice for squares)."""
    if dtype == np.float64:
        return 1e-12
    r = (d + 4) * float(np.finfo(np.float32).eps)
    return 2 * r if metric == "sqeuclidean" else r


def grid_spheres(rng, n, r_lo=0.02, r_hi=0.12):
    """(n, 4) float32 spheres on the 2^-24 grid of [0, 1) (the collision
    test and the fp64 oracle below are then exact)."""
    s = np.floor(rng.random((n, 4)) * 2**24) / 2**24
    s[:, 3] = r_lo + np.floor(rng.random(n) * (r_hi - r_lo) * 2**24) / 2**24
    return s.astype(np.float32)


def collision_mask(s):
    """mask[i, j]: spheres i and j collide (|c_i - c_j| < r_i + r_j), exact in fp64 for grid inputs."""
    s = s.astype(np.float64)
    d2 = ((s[:, None, :3] - s[None, :, :3]) ** 2).sum(axis=2)
    r2 = (s[:, None, 3] + s[None, :, 3]) ** 2
    return d2 < r2


__all__ = ["tdmaps", "expected", "rtol", "grid_spheres", "collision_mask", "squareform"]


class DLPackOnly:
    """A host array known only through DLPack (as a PyTorch CPU tensor is)."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()
