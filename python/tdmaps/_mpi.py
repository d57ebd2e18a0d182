"""comm=: the reductions of tdmaps over the ranks of an MPI communicator.

Every rank passes the same input and options; each reduces its part of the
map's league (tdmaps::omega_range: contiguous omegas, balanced by pairs for
lambda and bb) and one all-reduction per result finishes it on every rank:
the sum of the histogram's bins or of the counts, the minimum of the nearest
neighbour keys (for float64 points a second pass finds the smallest index at
the reduced distance, then a second minimum). Sums of integers and minima of
keys do not depend on the order of the ranks, so the result equals the
one-process result exactly, on any number of ranks.

Before anything else (argument checks included) the ranks compare what they
were given, as the CLIs' ranks do (apps/common/ranks_agree.cpp): agree()
hashes the call's name, X (its dtype, shape, order and bytes) and every
option into a fixed-size vector, and two all-reductions of it (MIN and MAX)
show whether every rank holds the same; if not, every rank raises the same
ValueError naming what differs and two ranks that differ. Every rank makes
the same all-reductions whatever it was given, so a mistake on one rank
raises everywhere instead of leaving ranks waiting or summing different
problems. X's bytes are hashed on the host (BLAKE2b): a device array (CuPy,
PyTorch) is copied to the host for it once, O(n d) bytes next to the call's
O(n^2 d) work and far less than its own traffic; a checksum on the device
would need each library's own kernels.

The compiled module is not linked against MPI: the all-reductions are the
communicator's own Allreduce (mpi4py's, or any object with Get_rank,
Get_size and Allreduce) on host NumPy arrays, so comm= returns NumPy arrays
and ints wherever the input lies. mpi4py is imported only for the
reduction operators of a communicator with more than one rank.
"""

import hashlib as _hashlib
import numbers as _numbers
import operator as _operator

import numpy as _np

from . import _tdmaps

def _alloc(shape, dtype, zero):
    return (_np.zeros if zero else _np.empty)(shape, dtype=dtype)


def rank_size(comm):
    """(rank, size) of a communicator; TypeError for any other object."""
    missing = [m for m in ("Get_rank", "Get_size", "Allreduce") if not callable(getattr(comm, m, None))]
    if missing:
        raise TypeError(
            "comm: expected an MPI communicator (mpi4py's MPI.COMM_WORLD, or an object with Get_rank, Get_size and "
            "Allreduce), got %s %r (no %s)" % (type(comm).__name__, comm, ", ".join(missing))
        )
    try:
        rank, size = _operator.index(comm.Get_rank()), _operator.index(comm.Get_size())
    except TypeError:
        raise TypeError("comm: Get_rank() and Get_size() must return ints") from None
    if not 0 <= rank < size:
        raise ValueError("comm: rank %d of size %d (need 0 <= rank < size)" % (rank, size))
    return rank, size


_SLOTS = 16  # the agreement vector: the call, X's layout, X's bytes, then up to 13 options


def _hash(*parts):
    """A 64-bit digest (int64) of byte strings."""
    h = _hashlib.blake2b(digest_size=8)
    for p in parts:
        h.update(p)
    return int.from_bytes(h.digest(), "little", signed=True)


def _option_text(v):
    """An option's value as text that equal values share across ranks: numbers
    by value (NumPy's scalars as Python's), anything else by type and repr."""
    if v is None or isinstance(v, (bool, str)):
        return repr(v)
    if isinstance(v, _numbers.Integral):
        return "int %d" % int(v)
    if isinstance(v, _numbers.Real):
        return "float %r" % float(v)
    return "%s %r" % (type(v).__name__, v)


def _array_digests(X):
    """(layout, bytes) digests of X as the compiled module reads it."""
    if isinstance(X, (list, tuple)):  # converted by the call (copy): hashed by value
        try:
            X = _np.asarray(X)
        except Exception:  # a ragged list: refused by the call, hashed by its text
            return _hash(b"list", repr(X).encode()), 0
        if X.dtype.hasobject:
            return _hash(b"list", repr(X.tolist()).encode()), 0
    try:
        layout, data = _tdmaps.array_bytes(X)
    except Exception as e:  # no array: refused by the call on every rank given it; any rank gets here
        return _hash(b"not an array", type(X).__name__.encode(), str(e).encode()), 0
    if data is None:  # not in C order: refused, or converted by copy=True, so hashed by value
        root = type(X).__module__.split(".")[0]
        try:
            if root == "torch":
                data = _tdmaps.array_bytes(X.contiguous())[1]
            elif root == "cupy":
                import cupy

                data = _tdmaps.array_bytes(cupy.ascontiguousarray(X))[1]
            else:
                data = _np.ascontiguousarray(X).view(_np.uint8).reshape(-1)
        except Exception:  # another library's strided array: refused by the call, its layout decides
            data = _np.zeros(0, _np.uint8)
    return _hash(b"layout", layout.encode()), _hash(b"data", memoryview(data))


def agree(comm, what, X, **options):
    """ValueError on every rank unless every rank of comm called `what` with
    the same X and options (the top of this file); first in every comm= call,
    before its arguments are checked. Returns (rank, size)."""
    rank, size = rank_size(comm)
    if size == 1:
        return rank, size
    MPI = _mpi()
    if len(options) > _SLOTS - 3:
        raise AssertionError("tdmaps: agree() takes %d options at most" % (_SLOTS - 3))
    names = ["", "X", "X"] + list(options)
    mine = _np.zeros(_SLOTS, _np.int64)
    mine[0] = _hash(b"call", what.encode(), ",".join(options).encode())
    mine[1], mine[2] = _array_digests(X)
    for k, (name, v) in enumerate(options.items()):
        mine[3 + k] = _hash(name.encode(), _option_text(v).encode())
    lo, hi = _np.empty_like(mine), _np.empty_like(mine)
    comm.Allreduce([mine, MPI.INT64_T], [lo, MPI.INT64_T], op=MPI.MIN)
    comm.Allreduce([mine, MPI.INT64_T], [hi, MPI.INT64_T], op=MPI.MAX)
    if _np.array_equal(lo, hi):
        return rank, size
    # Every rank has the same lo and hi, so all of them get here: one more
    # all-reduction finds, for each slot, the first rank holding lo and hi.
    who = _np.where(_np.concatenate((mine == lo, mine == hi)), rank, size).astype(_np.int64)
    first = _np.empty_like(who)
    comm.Allreduce([who, MPI.INT64_T], [first, MPI.INT64_T], op=MPI.MIN)

    def ranks(k):
        return "rank %d vs rank %d" % tuple(sorted((int(first[k]), int(first[_SLOTS + k]))))

    if lo[0] != hi[0]:  # another function or other keywords: the other slots do not line up
        raise ValueError("comm: ranks called different tdmaps functions or passed different keywords (%s); every rank "
                         "of the communicator must make the same call" % ranks(0))
    parts = []
    for k in range(1, _SLOTS):
        if lo[k] != hi[k] and not (k == 2 and lo[1] != hi[1]):  # X once
            parts.append("%s (%s)" % (names[k], ranks(k)))
    raise ValueError("comm: ranks passed different %s; every rank of the communicator must pass the same input and "
                     "options to %s(comm=...)" % (", ".join(parts), what))


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError:
        raise ImportError("tdmaps: comm= on more than one rank needs mpi4py (its MPI.SUM and MPI.MIN)") from None
    return MPI


def split(comm, map, what, kernel=None):
    """(rank, size) where the ranks split the league; None for one rank with a
    map (or kernel) whose work is no single launch of blocks: the caller then
    runs the one-process call, which is the result. More ranks raise there."""
    rank, size = rank_size(comm)
    if _tdmaps.one_launch(map) and kernel != "linear":
        if size > 1:
            _mpi()  # before any work, not at the first all-reduction
        return rank, size
    if size == 1:
        return None
    raise ValueError(
        "%s(comm=...) on %d ranks: map=%r%s has no omega ranges to split (rec and hadouken launch several times, "
        "utm has no blocks%s); use map='lambda', 'bb' or 'rb'"
        % (what, size, map, "" if kernel is None else ", kernel=%r" % kernel,
           "" if kernel is None else ", the linear kernel writes whole words")
    )


def _allreduce(comm, size, a, op):
    """a reduced over the ranks (a itself on one rank: nothing to add)."""
    if size == 1:
        return a
    MPI = _mpi()
    mpi_type = {"int64": MPI.INT64_T, "uint64": MPI.UINT64_T}[a.dtype.name]
    out = _np.empty_like(a)
    comm.Allreduce([a, mpi_type], [out, mpi_type], op=getattr(MPI, op))
    return out


def _host(a):
    """A result of the one-process call as NumPy (comm= returns NumPy)."""
    if isinstance(a, tuple):
        return tuple(_host(x) for x in a)
    root = type(a).__module__.split(".")[0]
    if root == "torch":
        return a.detach().cpu().numpy()
    if root == "cupy":
        return a.get()
    return a


def run(comm, what, map, ranked, single, kernel=None):
    """ranked(comm, rank, size) where the ranks split the league, else (one
    rank, a map without omega ranges) single(), the one-process call."""
    where = split(comm, map, what, kernel)
    return _host(single()) if where is None else ranked(comm, *where)


def pair_histogram(X, bins, rmax, options, comm, rank, size):
    from ._edm import _float32_edge_rule

    part = _tdmaps.pair_histogram_part(X, bins, rmax, _alloc, *options, rank, size,
                                       edges_in_dtype=bool(_float32_edge_rule()))
    return _allreduce(comm, size, part, "SUM")


def count_within(X, radius, options, comm, rank, size):
    c = _np.array([_tdmaps.count_within_part(X, radius, *options, rank, size)], dtype=_np.int64)
    return int(_allreduce(comm, size, c, "SUM")[0])


def nearest_neighbour(X, options, comm, rank, size):
    keys, fp32 = _tdmaps.nearest_part(X, None, _alloc, *options, rank, size)
    keys = _allreduce(comm, size, keys, "MIN")
    second = None
    if not fp32:  # every rank's distances first, then the smallest index at that distance
        second, _ = _tdmaps.nearest_part(X, keys, _alloc, *options, rank, size)
        second = _allreduce(comm, size, second, "MIN")
    return _tdmaps.nearest_decode(keys, second, fp32, _alloc)


def collide_count(spheres, options, kernel, comm, rank, size):
    c = _np.array([_tdmaps.collide_count_part(spheres, *options, kernel, rank, size)], dtype=_np.int64)
    return int(_allreduce(comm, size, c, "SUM")[0])


def _allreduce_f64(comm, size, a):
    """a (float64) summed over the ranks (a itself on one rank)."""
    if size == 1:
        return a
    MPI = _mpi()
    out = _np.empty_like(a)
    comm.Allreduce([a, MPI.DOUBLE], [out, MPI.DOUBLE], op=MPI.SUM)
    return out


def atm_energy(X, options, geometry, comm):
    """atm_energy over the ranks: each its omega range of the 3-D map's
    league, the energies (and shares) summed as tdmaps-triplets' ranks do."""
    rank, size = rank_size(comm)
    if size > 1:
        _mpi()
    per_particle = options[3]
    r = _tdmaps.atm_energy_part(X, *options, _alloc, *geometry, rank, size)
    if not per_particle:
        return float(_allreduce_f64(comm, size, _np.array([r], dtype=_np.float64))[0])
    e, shares = r
    both = _allreduce_f64(comm, size, _np.concatenate(([e], shares)))
    return float(both[0]), both[1:].copy()
