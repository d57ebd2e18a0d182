"""One MPI rank of test_comm.py (run under mpirun -n P): every rank computes
tdmaps' reductions with comm=MPI.COMM_WORLD on the same seeded inputs and
checks them against the one-process call (comm=None, exactly) and against
NumPy brute force. Mismatches are counted, not raised, so that every rank
reaches every all-reduction; an unexpected exception aborts the job (a rank
that stopped would leave the others waiting). Prints one line per rank:
"comm_driver: rank R of P: N checks, F failed"; exits 1 when any failed."""

import sys
import traceback

import numpy as np
from mpi4py import MPI

from conftest import collision_mask, grid_spheres, tdmaps

COMM = MPI.COMM_WORLD
MAPS = ["lambda", "bb", "rb"]
checks = 0
failed = []


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failed.append(what)


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def squared(X):
    """|x_i - x_j|^2 as tdmaps forms it: the squares summed in order in X's dtype."""
    n, d = X.shape
    s = np.zeros((n, n), dtype=X.dtype)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        for k in range(d):
            t = X[:, None, k] - X[None, :, k]
            s = s + t * t
    return s


def oracle_hist(X, bins, rmax):
    r = np.sqrt(squared(X))[np.triu_indices(len(X), 1)]
    return np.histogram(r[r < rmax], bins, (0, rmax))[0].astype(np.int64)


def oracle_count(X, radius):
    r = np.sqrt(squared(X))[np.triu_indices(len(X), 1)]
    return int(np.sum(r < radius))


def oracle_nn(X):
    """Ties to the smaller index (argmin's first minimum); NaN distances count as none."""
    s = squared(X)
    s[np.isnan(s)] = np.inf
    np.fill_diagonal(s, np.inf)
    idx = np.argmin(s, axis=1).astype(np.int64)
    best = s[np.arange(len(X)), idx]
    idx[np.isinf(best)] = -1
    return np.sqrt(best).astype(X.dtype), idx


def inputs(rng, dtype):
    """(name, X): random points, grid points (many exact ties, distances on
    bin edges and radii), a NaN row, and sizes that leave ranks empty parts."""
    grid = (rng.integers(0, 5, (90, 2)) / 4).astype(dtype)
    nan_row = rng.random((70, 3)).astype(dtype)
    nan_row[13, 1] = np.nan
    return [("random", rng.random((97, 3)).astype(dtype)), ("grid", grid), ("nan", nan_row),
            ("n=2", rng.random((2, 4)).astype(dtype)), ("n=3", rng.random((3, 1)).astype(dtype))]


def run():
    rng = np.random.default_rng(20240611)
    size = COMM.Get_size()
    for dtype in (np.float32, np.float64):
        for name, X in inputs(rng, dtype):
            for m in MAPS:
                for block in (8, 32):
                    tag = "%s %s map=%s block=%d" % (np.dtype(dtype).name, name, m, block)
                    kw = dict(map=m, block=block)
                    for bins, rmax in [(1, 10.0), (7, 0.7), (64, 0.8), (1000, 2.0), (3, 1e-3)]:
                        h = tdmaps.pair_histogram(X, bins, rmax=rmax, comm=COMM, **kw)
                        check(same(h, tdmaps.pair_histogram(X, bins, rmax=rmax, **kw)), tag + " hist = one process")
                        check(same(h, oracle_hist(X, bins, rmax)), tag + " hist = numpy %d %g" % (bins, rmax))
                        check(same(h, COMM.bcast(h, root=0)), tag + " hist = rank 0's")
                    for radius in (0.0, 0.25, 0.5, 1.0, np.inf):
                        c = tdmaps.count_within(X, radius, comm=COMM, **kw)
                        check(type(c) is int and c == tdmaps.count_within(X, radius, **kw), tag + " count = one")
                        check(c == oracle_count(X, radius), tag + " count = numpy %g" % radius)
                    dist, idx = tdmaps.nearest_neighbour(X, comm=COMM, **kw)
                    d1, i1 = tdmaps.nearest_neighbour(X, **kw)
                    check(same(dist, d1) and same(idx, i1), tag + " nn = one process")
                    do, io = oracle_nn(X)
                    check(same(dist, do) and same(idx, io), tag + " nn = numpy")
        for n in (0, 1):  # no pairs: zeros on every rank
            X = np.zeros((n, 2), dtype)
            check(same(tdmaps.pair_histogram(X, 5, rmax=1.0, comm=COMM), np.zeros(5, np.int64)), "hist n=%d" % n)
            check(tdmaps.count_within(X, 1.0, comm=COMM) == 0, "count n=%d" % n)

    spheres = grid_spheres(rng, 150)
    want = int(np.tril(collision_mask(spheres), -1).sum())
    for m in MAPS:
        for kernel in ("tile", "element"):
            for block in (8, 32):
                got = tdmaps.collide(spheres, "count", map=m, kernel=kernel, block=block, comm=COMM)
                check(type(got) is int and got == want, "collide %s %s %d" % (m, kernel, block))
    bad = spheres.copy()
    bad[77, 3] = -1
    try:  # every rank checks every sphere, empty part or not: all raise alike
        tdmaps.collide(bad, "count", comm=COMM)
        check(False, "collide: a negative radius raises")
    except ValueError as e:
        check("row 77" in str(e), "collide: the error names row 77: %s" % e)

    X = rng.random((60, 3))
    for m in ("rec", "hadouken", "utm"):  # several launches / no blocks: one rank only
        try:
            c = tdmaps.count_within(X, 0.4, map=m, comm=COMM)
            check(size == 1 and c == tdmaps.count_within(X, 0.4, map=m), "count map=%s on one rank" % m)
        except ValueError as e:
            check(size > 1 and "omega ranges" in str(e), "count map=%s on %d ranks: %s" % (m, size, e))


try:
    run()
except Exception:
    traceback.print_exc()
    sys.stdout.flush()
    COMM.Abort(2)
total = COMM.allreduce(len(failed), op=MPI.SUM)
for f in failed[:20]:
    print("comm_driver: rank %d: FAILED %s" % (COMM.Get_rank(), f))
print("comm_driver: rank %d of %d: %d checks, %d failed" % (COMM.Get_rank(), COMM.Get_size(), checks, len(failed)))
sys.exit(1 if total else 0)
