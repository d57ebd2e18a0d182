"""comm= on pair_histogram, nearest_neighbour, count_within and
collide(..., "count"): comm_driver.py under mpirun -n 1, 2, 3 (every rank
against the one-process call and NumPy), and in this process the parts the
ranks compute (they partition the pairs, balanced), a communicator of one
rank, and the refusals (no communicator, maps without omega ranges)."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import collision_mask, grid_spheres, tdmaps

from tdmaps import _tdmaps

HERE = os.path.dirname(os.path.abspath(__file__))
RANGE_MAPS = ["lambda", "bb", "rb"]


def alloc(shape, dtype, zero):
    return np.empty(shape, dtype)


class FakeComm:
    """A communicator by duck typing: rank `rank` of `size`. Its Allreduce is
    only reached with more than one rank, where the ranks first compare their
    arguments (tdmaps/_mpi.py's agree): it answers as if every rank had passed
    this one's, and the tests here refuse before any work."""

    def __init__(self, rank=0, size=1):
        self.rank, self.size = rank, size

    def Get_rank(self):
        return self.rank

    def Get_size(self):
        return self.size

    def Allreduce(self, send, recv, op=None):
        if self.size == 1 or send[0].dtype != np.int64 or len(send[0]) != 16:
            raise AssertionError("Allreduce on a communicator of %d rank(s), not the agreement" % self.size)
        recv[0][...] = send[0]  # MIN and MAX of equal vectors


def mpirun_command(ranks, driver="comm_driver.py"):
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        pytest.skip("mpirun is not installed (Debian: openmpi-bin)")
    if importlib.util.find_spec("mpi4py") is None:
        pytest.skip("mpi4py is not installed for %s (Debian: python3-mpi4py)" % sys.executable)
    version = subprocess.run([mpirun, "--version"], capture_output=True, text=True, timeout=30).stdout
    # Open MPI refuses more ranks than cores, and root, unless told; MPICH's mpirun takes neither flag.
    flags = ["--oversubscribe", "--allow-run-as-root", "--bind-to", "none"] if "Open MPI" in version else []
    return [mpirun, *flags, "-n", str(ranks), sys.executable, os.path.join(HERE, driver)]


def run_ranks(ranks, driver):
    cmd = mpirun_command(ranks, driver)
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false", PYTHONDONTWRITEBYTECODE="1")
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tdmaps.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([package_root, HERE] + [p for p in [env.get("PYTHONPATH")] if p])
    return subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env, cwd=HERE)


@pytest.mark.parametrize("ranks", [2, 3])
def test_ranks_that_differ_all_raise_the_same_error(ranks):
    """X, bins, rmax, map, ... different on one rank: every rank raises the
    same ValueError naming it (comm_mismatch_driver.py), none waits."""
    p = run_ranks(ranks, "comm_mismatch_driver.py")
    reports = re.findall(r"comm_mismatch: rank (\d+) of (\d+): (\d+) checks, (\d+) failed", p.stdout)
    assert p.returncode == 0, p.stdout[-4000:] + "\n" + p.stderr[-3000:]
    done = {int(r) for r, size, checks, failed in reports if int(size) == ranks and failed == "0" and int(checks) > 0}
    assert done == set(range(ranks)), p.stdout[-3000:]


@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_ranks_equal_one_process(ranks):
    p = run_ranks(ranks, "comm_driver.py")
    # mpirun forwards the ranks' lines as they come: one rank's newline may
    # follow another's text, so the reports are matched, not split in lines.
    reports = re.findall(r"comm_driver: rank (\d+) of (\d+): (\d+) checks, (\d+) failed", p.stdout)
    assert p.returncode == 0, p.stdout[-3000:] + "\n" + p.stderr[-3000:]
    done = {int(r) for r, size, checks, failed in reports if int(size) == ranks and failed == "0" and int(checks) > 0}
    assert done == set(range(ranks)), p.stdout[-3000:]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("map_name", RANGE_MAPS)
def test_parts_partition_the_pairs(rng, map_name, dtype):
    X = rng.random((203, 3)).astype(dtype)
    opts = (map_name, "rsqrt", "exact", 8)
    whole = tdmaps.pair_histogram(X, 50, rmax=1.2, map=map_name, block=8)
    total = 203 * 202 // 2
    for parts in (1, 2, 3, 5, 64):
        rule = bool(tdmaps._edm._float32_edge_rule())
        hists = [_tdmaps.pair_histogram_part(X, 50, 1.2, alloc, *opts, p, parts, edges_in_dtype=rule) for p in range(parts)]
        np.testing.assert_array_equal(np.sum(hists, axis=0), whole)
        pairs = [_tdmaps.count_within_part(X, np.inf, *opts, p, parts) for p in range(parts)]
        assert sum(pairs) == total
        if map_name != "rb":  # lambda and bb balance by pairs: within one block's pairs (rho^2)
            assert max(abs(c - total / parts) for c in pairs) <= 8 * 8, pairs
        keys = [_tdmaps.nearest_part(X, None, alloc, *opts, p, parts)[0] for p in range(parts)]
        assert all(k.dtype == np.uint64 for k in keys)
        best = np.minimum.reduce(keys)
        if dtype == np.float32:
            dist, idx = _tdmaps.nearest_decode(best, None, True, alloc)
        else:
            second = np.minimum.reduce([_tdmaps.nearest_part(X, best, alloc, *opts, p, parts)[0] for p in range(parts)])
            dist, idx = _tdmaps.nearest_decode(best, second, False, alloc)
        d1, i1 = tdmaps.nearest_neighbour(X, map=map_name, block=8)
        np.testing.assert_array_equal(idx, i1)
        np.testing.assert_array_equal(dist, d1)
        assert dist.dtype == dtype
    s = grid_spheres(rng, 140)
    want = int(np.tril(collision_mask(s), -1).sum())
    for kernel in ("tile", "element"):
        got = [_tdmaps.collide_count_part(s, *opts, kernel, p, 3) for p in range(3)]
        assert sum(got) == want and min(got) > 0, got


@pytest.mark.parametrize("map_name", ["lambda", "bb", "rb", "rec", "hadouken"])
def test_one_rank_without_mpi(rng, map_name):
    X = rng.random((90, 2))
    comm = FakeComm()
    np.testing.assert_array_equal(tdmaps.pair_histogram(X, 9, rmax=0.9, map=map_name, comm=comm),
                                  tdmaps.pair_histogram(X, 9, rmax=0.9, map=map_name))
    assert tdmaps.count_within(X, 0.3, map=map_name, comm=comm) == tdmaps.count_within(X, 0.3, map=map_name)
    for got, want in zip(tdmaps.nearest_neighbour(X, map=map_name, comm=comm), tdmaps.nearest_neighbour(X, map=map_name)):
        np.testing.assert_array_equal(got, want)
    s = grid_spheres(rng, 70)
    assert tdmaps.collide(s, "count", map=map_name, comm=comm) == int(np.tril(collision_mask(s), -1).sum())
    assert tdmaps.count_within(X, 0.3, map="utm", comm=comm) == tdmaps.count_within(X, 0.3, map="utm")
    assert tdmaps.collide(s, "count", kernel="linear", map=map_name, comm=comm) == tdmaps.collide(s, "count")


@pytest.mark.parametrize("comm", [42, "world", object(), type("OnlyRank", (), {"Get_rank": lambda self: 0})()])
def test_no_communicator(comm):
    X = np.random.default_rng(1).random((10, 2))
    with pytest.raises(TypeError, match="comm: expected an MPI communicator"):
        tdmaps.pair_histogram(X, 4, rmax=1.0, comm=comm)
    with pytest.raises(TypeError, match="comm: expected an MPI communicator"):
        tdmaps.nearest_neighbour(X, comm=comm)
    with pytest.raises(TypeError, match="comm: expected an MPI communicator"):
        tdmaps.count_within(X, 0.5, comm=comm)
    with pytest.raises(TypeError, match="comm: expected an MPI communicator"):
        tdmaps.collide(np.zeros((3, 4), np.float32), "pairs", comm=comm)


def test_bad_rank():
    X = np.zeros((4, 2))
    with pytest.raises(ValueError, match="rank 2 of size 2"):
        tdmaps.count_within(X, 1.0, comm=FakeComm(2, 2))
    with pytest.raises(TypeError, match="must return ints"):
        tdmaps.count_within(X, 1.0, comm=FakeComm(0.0, 2))
    for part, parts in [(-1, 2), (2, 2), (0, 0)]:
        with pytest.raises(ValueError, match="part"):
            _tdmaps.count_within_part(X, 1.0, "lambda", "rsqrt", "exact", 32, part, parts)
        with pytest.raises(ValueError, match="part"):
            _tdmaps.collide_count_part(np.zeros((4, 4), np.float32), "lambda", "rsqrt", "exact", 32, "tile", part, parts)


@pytest.mark.parametrize("map_name", ["rec", "hadouken", "h", "utm"])
def test_maps_without_omega_ranges_refuse_ranks(map_name):
    X = np.random.default_rng(2).random((20, 3))
    comm = FakeComm(1, 2)
    with pytest.raises(ValueError, match="no omega ranges.*use map='lambda', 'bb' or 'rb'"):
        tdmaps.pair_histogram(X, 4, rmax=1.0, map=map_name, comm=comm)
    with pytest.raises(ValueError, match="no omega ranges"):
        tdmaps.nearest_neighbour(X, map=map_name, comm=comm)
    with pytest.raises(ValueError, match="no omega ranges"):
        tdmaps.count_within(X, 0.5, map=map_name, comm=comm)
    with pytest.raises(ValueError, match="no omega ranges"):
        tdmaps.collide(np.zeros((5, 4), np.float32), "count", map=map_name, kernel="element", comm=comm)
    with pytest.raises(ValueError, match="omega ranges"):
        _tdmaps.count_within_part(X, 0.5, map_name, "rsqrt", "exact", 32, 0, 2)


def test_collide_on_ranks_counts_only():
    s = np.zeros((5, 4), np.float32)
    with pytest.raises(ValueError, match="kernel='linear'"):
        tdmaps.collide(s, "count", kernel="linear", comm=FakeComm(0, 2))
    for result in ("pairs", "flags", "intflags"):
        with pytest.raises(ValueError, match="result='count' only"):
            tdmaps.collide(s, result, comm=FakeComm(0, 2))
