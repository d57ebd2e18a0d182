"""comm=: the reductions of tdmaps over the ranks of an MPI communicator.

Every rank passes the same input and options; each reduces its part of the
map's league (tdmaps::omega_range: contiguous omegas, balanced by pairs for
lambda and bb) and one all-reduction per result finishes it on every rank:
the sum of the histogram's bins or of the counts, the minimum of the nearest
neighbour keys (for float64 points a second pass finds the smallest index at
the reduced distance, then a second minimum). Sums of integers and minima of
keys do not depend on the order of the ranks, so the result equals the
one-process result exactly, on any number of ranks.

The compiled module is not linked against MPI: the all-reductions are the
communicator's own Allreduce (mpi4py's, or any object with Get_rank,
Get_size and Allreduce) on host NumPy arrays, so comm= returns NumPy arrays
and ints wherever the input lies. mpi4py is imported only for the
reduction operators of a communicator with more than one rank.
"""

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
    part = _tdmaps.pair_histogram_part(X, bins, rmax, _alloc, *options, rank, size)
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
