"""The EDM app's functions: pdist and the matrix-free reductions
(pair_histogram, nearest_neighbour, k_nearest_neighbours, count_within)."""

from typing import List, Optional

from . import _tdmaps
from ._args import _allocator, _check_bool, _check_int, _check_real, _check_str, _map_options, _points, _ranks, _type_name

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

    pdist(X, metric="euclidean", *, out=None, map="lambda", layout="condensed",
          symmetric=None, sqrt="rsqrt", form="exact", block=32, kernel="auto",
          reject_nonfinite=False, copy=False) -> array

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

    Device rules: on a CUDA build X may be a device array (PyTorch, CuPy, any
    __cuda_array_interface__ / __dlpack__ array on the device Kokkos runs
    on); the result is then a new array of X's library on that device (out,
    if given, must lie there too). Host arrays give NumPy results.

    Small inputs (host builds: n (n - 1) / 2 * d up to
    _tdmaps.small_path_limit(), the condensed layout, kernel 'auto' or
    'element') run as plain loops on the calling thread, the same values bit
    for bit, without the parallel dispatch's fixed cost.

    Example
    -------
    >>> import numpy as np, tdmaps
    >>> from scipy.spatial.distance import pdist
    >>> X = np.random.default_rng(0).random((100, 3))
    >>> bool(np.array_equal(tdmaps.pdist(X), pdist(X)))
    True
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


_EDGE_RULE: List[Optional[bool]] = []  # the installed NumPy's float32 edge rule, once


def _float32_edge_rule():
    """How the installed NumPy builds np.histogram's float32 edges of a float32
    range: True where in float32 arithmetic (NumPy 2: NEP 50 keeps linspace's
    terms in float32), False where in float64 rounded to float32 (NumPy 1),
    None where it matched neither on the probe ranges (tdmaps then keeps the
    float64 rule). Decided once, on ranges where the two rules differ."""
    if not _EDGE_RULE:
        import numpy as np

        def rule(R, B, in_float32):
            if in_float32:
                step = np.float32(R) / np.float32(B)
                e = np.arange(B + 1, dtype=np.float32) * step if step != 0 else \
                    np.arange(B + 1, dtype=np.float32) / np.float32(B) * np.float32(R)
            else:
                e = (np.arange(B + 1, dtype=np.float64) * (np.float64(R) / B)).astype(np.float32)
            e = e.astype(np.float32)
            e[-1] = R
            return e

        probes = [(1.1, 7), (0.1, 3), (0.3, 10), (2.7, 13), (1e-3, 9), (7.7, 31), (0.45, 100), (0.7, 10), (123.4, 333)]
        found = {}
        for in_float32 in (False, True):
            found[in_float32] = all(
                np.array_equal(np.histogram_bin_edges(np.zeros(0, np.float32), B, (0, np.float32(R))),
                               rule(np.float32(R), B, in_float32)) for R, B in probes)
        _EDGE_RULE.append(True if found[True] and not found[False] else (False if found[False] else None))
    return _EDGE_RULE[0]


def pair_histogram(X, bins=64, rmax=None, *, map="lambda", sqrt="rsqrt", form="exact", block=32, copy=False, comm=None):
    """Histogram of the distances |x_i - x_j| of the pairs i < j, without
    the distance matrix.

    pair_histogram(X, bins=64, rmax=None, *, map="lambda", sqrt="rsqrt",
                   form="exact", block=32, copy=False, comm=None) -> int64 array

    NumPy's bins: np.histogram(d[d < R], bins, (0, R))[0] for the distances d
    and R = rmax, both in X's dtype (float32 X: NumPy's float32 edges of a
    float32 range, np.float32(rmax)). The edges are np.linspace(0, R,
    bins + 1) in X's dtype as the installed NumPy computes them: for float32,
    NumPy 1 in float64 rounded to float32, NumPy 2 in float32 arithmetic,
    which tdmaps tells apart once, on ranges where the two differ (a NumPy
    that matches neither gets NumPy 1's rule). Bin b counts the pairs with
    edge_b <= r < edge_(b+1) (a distance on an edge is in the bin it
    starts); pairs at or beyond rmax and NaN distances are in no bin.

    X: (n, d) float32 or float64, C order, read in place (copy=True converts).
    bins: 1 .. 2^24; rmax: finite, > 0 in X's dtype (required). Returns int64 counts (bins,)
    where X lies (a NumPy array, or a torch / CuPy array on X's device).
    map, sqrt, form, block: the tdmaps-edm CLI's options (block-space maps).
    comm: an MPI communicator (mpi4py): every rank passes the same X and
    options (checked first, by hashes: otherwise every rank raises the same
    ValueError naming what differs), reduces its part of the pairs, and gets
    the whole result (NumPy / int, equal to one process's exactly); more
    than one rank needs map
    'lambda', 'bb' or 'rb' (ValueError otherwise). Also on nearest_neighbour,
    count_within and collide(..., "count").

    Raises TypeError (rmax missing, X of another dtype or not an array,
    options of the wrong type), ValueError (X not 2-D or not in C order, d =
    0, bins outside 1 .. 2^24, rmax not finite or <= 0, an unknown map / sqrt
    / form, a block other than 8, 16, 32, map='utm'), TooLarge (a
    MemoryError). Device rules as for pdist.

    Example
    -------
    >>> import numpy as np, tdmaps
    >>> from scipy.spatial.distance import pdist
    >>> X = np.random.default_rng(0).random((200, 3))
    >>> h = tdmaps.pair_histogram(X, 16, rmax=1.0)
    >>> d = pdist(X)
    >>> bool(np.array_equal(h, np.histogram(d[d < 1.0], 16, (0, 1.0))[0]))
    True
    """
    if comm is not None:  # the ranks agree first (tdmaps/_mpi.py), before any check that could stop one of them
        _ranks().agree(comm, "pair_histogram", X, bins=bins, rmax=rmax, map=map, sqrt=sqrt, form=form, block=block,
                       copy=copy)
    if rmax is None:
        raise TypeError("pair_histogram: rmax is required (np.histogram's bins over [0, rmax): edges np.linspace(0, rmax, bins + 1))")
    bins, rmax = _check_int("bins", bins), _check_real("rmax", rmax)
    map, sqrt, form, block = _map_options(map, sqrt, form, block)
    X = _points(X, copy)
    opts = (map, sqrt, form, block)

    def one():
        return _tdmaps.pair_histogram(X, bins, rmax, _allocator(X), *opts, edges_in_dtype=bool(_float32_edge_rule()))

    if comm is None:
        return one()
    mpi = _ranks()
    return mpi.run(comm, "pair_histogram", map, lambda *c: mpi.pair_histogram(X, bins, rmax, opts, *c), one)


def nearest_neighbour(X, *, map="lambda", sqrt="rsqrt", form="exact", block=32, copy=False, comm=None):
    """Each point's nearest other point, without the distance matrix.

    nearest_neighbour(X, *, map="lambda", sqrt="rsqrt", form="exact", block=32,
                      copy=False, comm=None) -> (dist, index)

    Returns (dist, index): dist (n,) in X's dtype, index (n,) int64; ties go
    to the smaller index. A point whose distances are all NaN has index -1
    and distance inf. X ((n, d) float32 / float64, C order, read in place;
    copy=True converts), the options, comm, the device rules and the errors
    as for pair_histogram; n < 2 raises ValueError.

    Example
    -------
    >>> import numpy as np, tdmaps
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])
    >>> dist, idx = tdmaps.nearest_neighbour(X)
    >>> dist.tolist(), idx.tolist()
    ([1.0, 1.0, 2.0], [1, 0, 1])
    """
    if comm is not None:
        _ranks().agree(comm, "nearest_neighbour", X, map=map, sqrt=sqrt, form=form, block=block, copy=copy)
    map, sqrt, form, block = _map_options(map, sqrt, form, block)
    X = _points(X, copy)
    opts = (map, sqrt, form, block)

    def one():
        return _tdmaps.nearest_neighbour(X, _allocator(X), *opts)

    if comm is None:
        return one()
    mpi = _ranks()
    return mpi.run(comm, "nearest_neighbour", map, lambda *c: mpi.nearest_neighbour(X, opts, *c), one)


def k_nearest_neighbours(X, k, *, map="lambda", sqrt="rsqrt", form="exact", block=32, copy=False):
    """Each point's k nearest other points, without the distance matrix.

    k_nearest_neighbours(X, k, *, map="lambda", sqrt="rsqrt", form="exact",
                         block=32, copy=False) -> (dist, index)

    Returns (dist, index), both (n, k): row i holds the k nearest other
    points of point i sorted by their exact squared distance, equal ones by
    the smaller index (sklearn's NearestNeighbors(algorithm="brute") and FAISS's
    IndexFlatL2 order); dist in X's dtype, index int64. Where fewer than k
    other points have a distance the row ends in index -1 and distance inf
    (NaN coordinates make a point nobody's neighbour, and its own row all
    -1 / inf). The distances are nearest_neighbour's (column 0 is its
    result; k = 1 gives it as (n, 1)).

    X ((n, d) float32 / float64, C order, read in place; copy=True
    converts), the options and the device rules as for pair_histogram,
    except that block is 16 or 32 (the k-nearest walk's tiles). k: an int,
    1 <= k <= n - 1. Runs on one process (no comm=).

    Raises TypeError (k not an int, a bool included; X of another dtype or
    not an array, options of the wrong type), ValueError (n < 2, k outside
    1 .. n - 1, X not 2-D or not in C order, d = 0, an unknown map / sqrt /
    form, a block other than 16 or 32, map='utm'), TooLarge (a MemoryError:
    the results, n k (itemsize + 8) bytes, and the keys, n k 8 bytes, twice
    for float64, do not fit).

    Example
    -------
    >>> import numpy as np, tdmaps
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0], [6.0, 0.0]])
    >>> dist, idx = tdmaps.k_nearest_neighbours(X, 2)
    >>> idx.tolist()
    [[1, 2], [0, 2], [1, 0], [2, 1]]
    >>> dist.tolist()
    [[1.0, 3.0], [1.0, 2.0], [2.0, 3.0], [3.0, 5.0]]
    """
    k = _check_int("k", k)
    map, sqrt, form, block = _map_options(map, sqrt, form, block)
    X = _points(X, copy)
    return _tdmaps.k_nearest_neighbours(X, k, _allocator(X), map, sqrt, form, block)


def count_within(X, radius, *, map="lambda", sqrt="rsqrt", form="exact", block=32, copy=False, comm=None):
    """The number of pairs i < j with |x_i - x_j| < radius (an int), without
    the distance matrix.

    count_within(X, radius, *, map="lambda", sqrt="rsqrt", form="exact",
                 block=32, copy=False, comm=None) -> int

    The distance is pdist's (correctly rounded, in X's dtype) and the test is
    strict: (scipy.spatial.distance.pdist(X) < radius).sum() for float64 X;
    NaN distances are never within. radius: a real number (NaN raises
    ValueError; <= 0 counts nothing). X ((n, d) float32 / float64, C order,
    read in place; copy=True converts), comm, the device rules (the count is
    a Python int wherever X lies) and the errors as for pair_histogram;
    every map, utm included (on one rank).

    Example
    -------
    >>> import numpy as np, tdmaps
    >>> from scipy.spatial.distance import pdist
    >>> X = np.random.default_rng(0).random((300, 3))
    >>> tdmaps.count_within(X, 0.25) == int((pdist(X) < 0.25).sum())
    True
    """
    if comm is not None:
        _ranks().agree(comm, "count_within", X, radius=radius, map=map, sqrt=sqrt, form=form, block=block, copy=copy)
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
