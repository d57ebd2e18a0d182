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
on a thread of tdmaps' own and ends there at interpreter exit; its
environment variables (OMP_NUM_THREADS, OMP_PROC_BIND, KOKKOS_DEVICE_ID, ...)
apply. Every function may be called from any Python thread: the call
releases the GIL and its Kokkos work runs on that thread, one call at a time.
"""

import atexit as _atexit
import numbers as _numbers
import operator as _operator
import os as _os

try:
    from . import _tdmaps
except ImportError as _e:
    raise ImportError(
        "tdmaps: the compiled module _tdmaps is not beside %s: import the built package (PYTHONPATH=<build>/python) "
        "or an installed one, not the source tree" % _os.path.dirname(__file__)
    ) from _e

__all__ = ["pdist", "pair_histogram", "nearest_neighbour", "count_within", "collide", "info", "maps", "backend", "TooLarge"]
__version__ = _tdmaps.__version__  # the project's one version: CMake's project(VERSION), as the CLIs' --version

TooLarge = _tdmaps.TooLarge  # a MemoryError: the output does not fit the free memory

if _tdmaps.initialize() and not getattr(_tdmaps, "_finalize_registered", False):
    _atexit.register(_tdmaps.finalize, True)  # at_exit: calls from daemon threads after it wait for the end
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

def _is_bool(v):
    return isinstance(v, bool) or (type(v).__name__ == "bool_" and _root(v) == "numpy")


def _type_name(v):
    return type(v).__name__


def _check_bool(name, v, none_ok=False):
    """True / False (NumPy's bool too); anything else raises TypeError, as
    'no' or 1 would otherwise be taken by their truth value."""
    if none_ok and v is None:
        return None
    if not _is_bool(v):
        raise TypeError("%s: expected %sTrue or False, got %s %r" % (name, "None, " if none_ok else "", _type_name(v), v))
    return bool(v)


def _check_int(name, v, bits=64):
    """An integer (Python's or NumPy's), not a bool and not a float."""
    if _is_bool(v):
        raise TypeError("%s: expected an int, got bool %r" % (name, v))
    try:
        i = _operator.index(v)
    except TypeError:
        raise TypeError("%s: expected an int, got %s %r" % (name, _type_name(v), v)) from None
    if not -(1 << (bits - 1)) <= i < 1 << (bits - 1):
        raise ValueError("%s %d: out of range" % (name, i))
    return i


def _check_real(name, v):
    """A real number (int, float, NumPy's), not a bool, complex or string."""
    if _is_bool(v) or not isinstance(v, _numbers.Real):
        if getattr(v, "shape", None) == () and getattr(getattr(v, "dtype", None), "kind", "") in "iuf":
            return float(v)  # a 0-d NumPy array
        raise TypeError("%s: expected a real number, got %s %r" % (name, _type_name(v), v))
    return float(v)


def _check_str(name, v):
    if not isinstance(v, str):
        raise TypeError("%s: expected a string, got %s %r" % (name, _type_name(v), v))
    return v


def _map_options(map, sqrt, form, block):
    return _check_str("map", map), _check_str("sqrt", sqrt), _check_str("form", form), _check_int("block", block, 32)


def _converted(x, allowed, default, name):
    """copy=True: x as a C-ordered array of an allowed dtype in native byte
    order, by its own library. Complex input raises TypeError (SciPy refuses
    it too) rather than lose its imaginary part."""
    root = _root(x)
    if root == "torch":
        import torch

        x = x.detach()
        if x.is_complex():
            raise TypeError("%s: unsupported dtype '%s' (complex; tdmaps computes real distances)" % (name, x.dtype))
        if str(x.dtype).replace("torch.", "") not in allowed:
            x = x.to(getattr(torch, default))
        return x.contiguous()
    if root == "cupy":
        import cupy

        if x.dtype.kind == "c":
            raise TypeError("%s: unsupported dtype '%s' (complex; tdmaps computes real distances)" % (name, x.dtype))
        return cupy.ascontiguousarray(x, dtype=x.dtype.name if x.dtype.name in allowed else default)
    import numpy as np

    a = np.asarray(x)
    if a.dtype.kind == "c":
        raise TypeError("%s: unsupported dtype '%s' (complex; tdmaps computes real distances)" % (name, a.dtype))
    # dtype.name drops the byte order: big-endian float64 becomes native float64.
    return np.ascontiguousarray(a, dtype=a.dtype.name if a.dtype.name in allowed else default)


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
    other dtypes to float64, other orders to C order and any byte order to the
    native one, as SciPy does; complex raises TypeError); lists are converted. The result has X's dtype and lies where X lies.
    metric: "euclidean" or "sqeuclidean".
    layout: "condensed" (SciPy's order, n (n - 1) / 2 values; squareform works
    on it), "packed" (lower triangle with the diagonal, row by row, n (n + 1) / 2
    values) or "full" ((n, n); symmetric=False writes the lower triangle only,
    leaving the rest as it was: zeros when tdmaps allocates).
    out: an existing array of the result's shape and dtype, filled and returned.
    map, sqrt, form, block, kernel: the tdmaps-edm CLI's --map, --sqrt, --form,
    --block and --kernel. kernel='auto' (tile or element) computes the direct
    formula: fp64 equals scipy.spatial.distance.pdist(X) bit for bit (host
    builds), sqeuclidean within 2 ulp of SciPy's. kernel='gemm' is never
    picked by 'auto': fp64 within 2 (d + 2) + 1 ulp of SciPy's (at most 10 ulp
    on random clouds, d <= 300; sqeuclidean 18), fp32 within 1 ulp of the
    correctly rounded distance (sqeuclidean 2).
    reject_nonfinite: raise on NaN / Inf (default: they propagate as in
    SciPy). n = 0 and 1 give SciPy's empty result.
    Raises ValueError / TypeError on bad input (options of the wrong type
    included: symmetric='no', block=True), TooLarge (a MemoryError) when the
    result does not fit the free memory.
    """
    if not isinstance(metric, str) and not callable(metric):
        raise TypeError("metric: expected a string ('euclidean' or 'sqeuclidean'), got %s %r" % (_type_name(metric), metric))
    layout, kernel = _check_str("layout", layout), _check_str("kernel", kernel)
    map, sqrt, form, block = _map_options(map, sqrt, form, block)
    symmetric = _check_bool("symmetric", symmetric, none_ok=True)
    reject_nonfinite = _check_bool("reject_nonfinite", reject_nonfinite)
    X = _points(X, copy)
    return _tdmaps.pdist(
        X, out, _allocator(X), metric, layout, map, sqrt, form, block, kernel, symmetric, reject_nonfinite
    )


def pair_histogram(X, bins=64, rmax=None, *, map="lambda", sqrt="rsqrt", form="exact", block=32, copy=False, comm=None):
    """Histogram of the distances |x_i - x_j| of the pairs i < j, without
    the distance matrix, NumPy's bins: np.histogram(d[d < rmax], bins,
    (0, rmax))[0] for the distances d (in X's dtype). The edges are
    np.linspace(0, rmax, bins + 1) (rounded to float32 for float32 X), bin b
    counts the pairs with edge_b <= r < edge_(b+1) (a distance on an edge is
    in the bin it starts); pairs at or beyond rmax and NaN distances are in
    no bin.

    X: (n, d) float32 or float64, C order, read in place (copy=True converts).
    bins: 1 .. 2^24; rmax: finite, > 0 (required). Returns int64 counts (bins,)
    where X lies (a NumPy array, or a torch / CuPy array on X's device).
    map, sqrt, form, block: the tdmaps-edm CLI's options (block-space maps).
    comm: an MPI communicator (mpi4py): every rank passes the same X and
    options, reduces its part of the pairs, and gets the whole result (NumPy
    / int, equal to one process's exactly); more than one rank needs map
    'lambda', 'bb' or 'rb' (ValueError otherwise). Also on nearest_neighbour,
    count_within and collide(..., "count").
    """
    if rmax is None:
        raise TypeError("pair_histogram: rmax is required (np.histogram's bins over [0, rmax): edges np.linspace(0, rmax, bins + 1))")
    bins, rmax = _check_int("bins", bins), _check_real("rmax", rmax)
    map, sqrt, form, block = _map_options(map, sqrt, form, block)
    X = _points(X, copy)
    opts = (map, sqrt, form, block)

    def one():
        return _tdmaps.pair_histogram(X, bins, rmax, _allocator(X), *opts)

    if comm is None:
        return one()
    mpi = _ranks()
    return mpi.run(comm, "pair_histogram", map, lambda *c: mpi.pair_histogram(X, bins, rmax, opts, *c), one)


def nearest_neighbour(X, *, map="lambda", sqrt="rsqrt", form="exact", block=32, copy=False, comm=None):
    """Each point's nearest other point, without the distance matrix.

    Returns (dist, index): dist (n,) in X's dtype, index (n,) int64; ties go
    to the smaller index. A point whose distances are all NaN has index -1
    and distance inf. X and comm as for pair_histogram, n >= 2.
    """
    map, sqrt, form, block = _map_options(map, sqrt, form, block)
    X = _points(X, copy)
    opts = (map, sqrt, form, block)

    def one():
        return _tdmaps.nearest_neighbour(X, _allocator(X), *opts)

    if comm is None:
        return one()
    mpi = _ranks()
    return mpi.run(comm, "nearest_neighbour", map, lambda *c: mpi.nearest_neighbour(X, opts, *c), one)


def count_within(X, radius, *, map="lambda", sqrt="rsqrt", form="exact", block=32, copy=False, comm=None):
    """The number of pairs i < j with |x_i - x_j| < radius (an int), without
    the distance matrix. X and comm as for pair_histogram; every map, utm
    included (on one rank)."""
    radius = _check_real("radius", radius)
    map, sqrt, form, block = _map_options(map, sqrt, form, block)
    X = _points(X, copy)
    opts = (map, sqrt, form, block)

    def one():
        return _tdmaps.count_within(X, radius, *opts)

    if comm is None:
        return one()
    mpi = _ranks()
    return mpi.run(comm, "count_within", map, lambda *c: mpi.count_within(X, radius, opts, *c), one)


def _ranks():
    """comm='s module, imported on first use (it brings NumPy and, for several ranks, mpi4py)."""
    from . import _mpi

    return _mpi


def _points(X, copy):
    if _check_bool("copy", copy) or isinstance(X, (list, tuple)):
        return _converted(X, ("float32", "float64"), "float64", "X")
    return X


def collide(
    spheres, result="count", *, map="lambda", sqrt="rsqrt", form="exact", block=32, kernel="tile", copy=False, comm=None
):
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
    comm: as for pair_histogram, with result="count" (and kernel 'tile' or
    'element' on more than one rank).
    """
    result, kernel = _check_str("result", result), _check_str("kernel", kernel)
    map, sqrt, form, block = _map_options(map, sqrt, form, block)
    if _check_bool("copy", copy) or isinstance(spheres, (list, tuple)):
        spheres = _converted(spheres, ("float32",), "float32", "spheres")
    opts = (map, sqrt, form, block)

    def one():
        return _tdmaps.collide(spheres, result, _allocator(spheres), *opts, kernel)

    if comm is None:
        return one()
    mpi = _ranks()
    mpi.rank_size(comm)  # a wrong comm is a TypeError before any other complaint
    if result != "count":
        raise ValueError("collide: comm= gives result='count' only (one all-reduction of the count), not %r" % result)
    return mpi.run(comm, "collide", map, lambda *c: mpi.collide_count(spheres, opts, kernel, *c), one, kernel)
