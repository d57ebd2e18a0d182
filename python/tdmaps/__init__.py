"""tdmaps: pairwise distances and all-pairs collision detection on triangular
Kokkos maps (the EDM and collision apps of the tdmaps C++ library).

    import numpy as np, tdmaps
    X = np.random.rand(10000, 3)
    d = tdmaps.pdist(X)                       # scipy.spatial.distance.pdist(X)
    h = tdmaps.pair_histogram(X, 64, rmax=1)  # np.histogram(pdist(X), 64, (0, 1))[0]
    dist, idx = tdmaps.nearest_neighbour(X)   # each point's nearest other point
    k = tdmaps.collide(spheres)               # colliding pairs of (n, 4) x, y, z, r

Arrays are read in place, never copied behind the caller's back: NumPy (or
any buffer) on the host, and on a CUDA build any __cuda_array_interface__ or
__dlpack__ device array (PyTorch, CuPy), whose result comes back as the same
kind of array on the same device. A wrong dtype or a non-C-order array raises;
copy=True converts instead. Kokkos starts on import (unless it runs already)
and ends at interpreter exit; its environment variables (OMP_NUM_THREADS,
OMP_PROC_BIND, KOKKOS_DEVICE_ID, ...) apply.
"""

import atexit as _atexit
import os as _os

try:
    from . import _tdmaps
except ImportError as _e:
    raise ImportError(
        "tdmaps: the compiled module _tdmaps is not beside %s: import the built package (PYTHONPATH=<build>/python) "
        "or an installed one, not the source tree" % _os.path.dirname(__file__)
    ) from _e

__all__ = ["pdist", "pair_histogram", "nearest_neighbour", "count_within", "collide", "info", "maps", "backend", "TooLarge"]
__version__ = "0.1.0"

TooLarge = _tdmaps.TooLarge  # a MemoryError: the output does not fit the free memory

if _tdmaps.initialize() and not getattr(_tdmaps, "_finalize_registered", False):
    _atexit.register(_tdmaps.finalize)
    _tdmaps._finalize_registered = True


def info():
    """The build: backend, Kokkos version, concurrency, map names, gemm kernel."""
    return _tdmaps.info()


_info = _tdmaps.info()
backend = _info["backend"]
maps = tuple(_info["maps"])  # the names the CLIs' --map takes


def _root(x):
    return type(x).__module__.split(".")[0]


def _on_device(x):
    try:
        if hasattr(x, "__cuda_array_interface__"):
            return True
    except Exception:  # torch raises more than AttributeError for some tensors
        return False
    if hasattr(x, "__dlpack_device__") and not hasattr(x, "__array_interface__"):
        return x.__dlpack_device__()[0] in (2, 13)  # kDLCUDA, kDLCUDAManaged
    return False


def _numpy_alloc(shape, dtype, zero):
    import numpy as np

    return (np.zeros if zero else np.empty)(shape, dtype=dtype)


def _allocator(x):
    """alloc(shape, dtype, zero): the result's array, made by the input's own
    library on the input's device (NumPy for host arrays)."""
    root = _root(x)
    if root == "torch":
        import torch

        dev = x.device  # a CPU tensor's result is a CPU tensor, read through DLPack

        def alloc(shape, dtype, zero):
            return (torch.zeros if zero else torch.empty)(shape, dtype=getattr(torch, dtype), device=dev)

        return alloc
    if root == "cupy":
        import cupy

        dev = x.device

        def alloc(shape, dtype, zero):
            with dev:
                return (cupy.zeros if zero else cupy.empty)(shape, dtype=dtype)

        return alloc
    if _on_device(x):

        def alloc(shape, dtype, zero):
            raise TypeError(
                "tdmaps: cannot allocate the result beside a %s device array (PyTorch and CuPy are supported); "
                "pass out= (pdist), or a torch / cupy array" % type(x).__name__
            )

        return alloc
    return _numpy_alloc


def _converted(x, allowed, default):
    """copy=True: x as a C-ordered array of an allowed dtype, by its own library."""
    root = _root(x)
    if root == "torch":
        import torch

        x = x.detach()
        if str(x.dtype).replace("torch.", "") not in allowed:
            x = x.to(getattr(torch, default))
        return x.contiguous()
    if root == "cupy":
        import cupy

        return cupy.ascontiguousarray(x, dtype=x.dtype if x.dtype.name in allowed else default)
    import numpy as np

    a = np.asarray(x)
    return np.ascontiguousarray(a, dtype=a.dtype if a.dtype.name in allowed else default)


def pdist(
    X,
    metric="euclidean",
    *,
    out=None,
    map="lambda",
    layout="condensed",
    symmetric=None,
    sqrt="rsqrt",
    form="exact",
    block=32,
    kernel="auto",
    reject_nonfinite=False,
    copy=False,
):
    """Pairwise distances of the rows of X, scipy.spatial.distance.pdist's result.

    X: (n, d) float32 or float64, C order, read in place (copy=True converts
    other dtypes to float64 and other orders to C order, as SciPy does); lists
    are converted. The result has X's dtype and lies where X lies.
    metric: "euclidean" or "sqeuclidean".
    layout: "condensed" (SciPy's order, n (n - 1) / 2 values; squareform works
    on it), "packed" (lower triangle with the diagonal, row by row, n (n + 1) / 2
    values) or "full" ((n, n); symmetric=False writes the lower triangle only,
    leaving the rest as it was: zeros when tdmaps allocates).
    out: an existing array of the result's shape and dtype, filled and returned.
    map, sqrt, form, block, kernel: the tdmaps-edm CLI's --map, --sqrt, --form,
    --block and --kernel. reject_nonfinite: raise on NaN / Inf (default: they
    propagate as in SciPy). n = 0 and 1 give SciPy's empty result.
    Raises ValueError / TypeError on bad input, TooLarge (a MemoryError) when
    the result does not fit the free memory.
    """
    X = _points(X, copy)
    return _tdmaps.pdist(
        X, out, _allocator(X), metric, layout, map, sqrt, form, block, kernel, symmetric, reject_nonfinite
    )


def pair_histogram(X, bins=64, rmax=None, *, map="lambda", sqrt="rsqrt", form="exact", block=32, copy=False):
    """Histogram of the distances |x_i - x_j| of the pairs i < j, without
    the distance matrix: bin b counts the pairs with b rmax / bins <= r <
    (b + 1) rmax / bins (np.histogram(pdist(X), bins, (0, rmax))[0], except
    that distances equal to rmax are not counted). Pairs at or beyond rmax
    and NaN distances are in no bin.

    X: (n, d) float32 or float64, C order, read in place (copy=True converts).
    bins: 1 .. 2^24; rmax: finite, > 0 (required). Returns int64 counts (bins,)
    where X lies (a NumPy array, or a torch / CuPy array on X's device).
    map, sqrt, form, block: the tdmaps-edm CLI's options (block-space maps).
    """
    if rmax is None:
        raise TypeError("pair_histogram: rmax is required (bin b holds distances in [b rmax / bins, (b + 1) rmax / bins))")
    X = _points(X, copy)
    return _tdmaps.pair_histogram(X, bins, rmax, _allocator(X), map, sqrt, form, block)


def nearest_neighbour(X, *, map="lambda", sqrt="rsqrt", form="exact", block=32, copy=False):
    """Each point's nearest other point, without the distance matrix.

    Returns (dist, index): dist (n,) in X's dtype, index (n,) int64; ties go
    to the smaller index. A point whose distances are all NaN has index -1
    and distance inf. X as for pair_histogram, n >= 2.
    """
    X = _points(X, copy)
    return _tdmaps.nearest_neighbour(X, _allocator(X), map, sqrt, form, block)


def count_within(X, radius, *, map="lambda", sqrt="rsqrt", form="exact", block=32, copy=False):
    """The number of pairs i < j with |x_i - x_j| < radius (an int), without
    the distance matrix. X as for pair_histogram; every map, utm included."""
    X = _points(X, copy)
    return _tdmaps.count_within(X, radius, map, sqrt, form, block)


def _points(X, copy):
    if isinstance(X, (list, tuple)) or copy:
        return _converted(X, ("float32", "float64"), "float64")
    return X


def collide(spheres, result="count", *, map="lambda", sqrt="rsqrt", form="exact", block=32, kernel="tile", copy=False):
    """All-pairs collision detection: spheres i and j, j < i, collide when
    |c_i - c_j| < r_i + r_j (touching spheres do not).

    spheres: (n, 4) float32 rows x, y, z, r (intervals: y = z = 0), C order,
    read in place (copy=True converts, e.g. from float64). NaN, Inf or a
    negative radius raise ValueError naming the row.
    result: "count" (an int), "pairs" ((m, 2) int64 (i, j), i > j, sorted:
    np.argwhere(np.tril(mask, -1))), "flags" (uint32 words, bit p = i (i - 1) / 2 + j),
    "rowflags", "tileflags" (uint32 words, the app's row-aligned and tiled
    bit layouts) or "intflags" (int32 0 / 1 per pair p). Arrays lie where the
    spheres lie.
    map, sqrt, form, block, kernel: the tdmaps-collide CLI's options.
    """
    if isinstance(spheres, (list, tuple)) or copy:
        spheres = _converted(spheres, ("float32",), "float32")
    return _tdmaps.collide(spheres, result, _allocator(spheres), map, sqrt, form, block, kernel)
