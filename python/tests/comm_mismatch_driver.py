"""One MPI rank of test_comm.py's mismatch tests (run under mpirun -n P, P >=
2): in each case one rank (the last, or rank 0) passes another X or option
than the others; every rank must raise the same ValueError naming what
differs and two ranks that differ, and nothing else (no MPI error, no
result, no wait). Equal inputs still give the one-process result. Each rank
gathers every rank's outcome after each case (so all compare the same
lists) and prints "comm_mismatch: rank R of P: N checks, F failed"; exits 1
when any failed. A rank left waiting fails the test by its timeout."""

import sys
import traceback

import numpy as np
from mpi4py import MPI

from conftest import grid_spheres, tdmaps

COMM = MPI.COMM_WORLD
RANK, SIZE = COMM.Get_rank(), COMM.Get_size()
LAST = SIZE - 1
checks = 0
failed = []


def outcome(f):
    try:
        r = f()
        return "result", r if isinstance(r, int) else np.asarray(r).tolist()
    except ValueError as e:
        return "ValueError", str(e)
    except Exception as e:  # anything else is wrong: recorded, so that every rank reaches the gather
        return type(e).__name__, str(e)


def case(name, f, want):
    """f() on every rank; want: a regular expression every rank's ValueError
    must match (the same message on every rank), or ("result", value)."""
    global checks
    got = COMM.allgather(outcome(f))
    checks += 1
    if isinstance(want, tuple):
        ok = all(g == ("result", want[1]) for g in got)
    else:
        import re

        ok = all(g[0] == "ValueError" for g in got) and len({g[1] for g in got}) == 1 and re.search(want, got[0][1])
    if not ok:
        failed.append("%s: %r" % (name, got))


rng = np.random.default_rng(11)
X = rng.random((300, 3))
other = X.copy()
other[17, 1] += 0.25  # one coordinate of one point
mine = other if RANK == LAST else X
pair = r"\(rank 0 vs rank %d\)" % LAST
try:
    serial_count = tdmaps.count_within(X, 0.3)
    serial_hist = tdmaps.pair_histogram(X, 16, rmax=1.0)
    case("equal", lambda: tdmaps.count_within(X, 0.3, comm=COMM), ("result", serial_count))
    case("equal hist", lambda: tdmaps.pair_histogram(X, 16, rmax=1.0, comm=COMM), ("result", serial_hist.tolist()))
    case("X", lambda: tdmaps.count_within(mine, 0.3, comm=COMM), r"^comm: ranks passed different X %s; " % pair)
    case("X nearest", lambda: tdmaps.nearest_neighbour(mine, comm=COMM), r"different X %s" % pair)
    case("X dtype", lambda: tdmaps.count_within(X.astype(np.float32) if RANK == LAST else X, 0.3, comm=COMM),
         r"different X %s" % pair)
    case("X order", lambda: tdmaps.count_within(np.asfortranarray(X) if RANK == LAST else X, 0.3, comm=COMM),
         r"different X %s" % pair)
    case("bins", lambda: tdmaps.pair_histogram(X, 16 + (RANK == LAST), rmax=1.0, comm=COMM),
         r"^comm: ranks passed different bins %s; .*pair_histogram\(comm=\.\.\.\)$" % pair)
    case("rmax", lambda: tdmaps.pair_histogram(X, 16, rmax=1.0 + 0.5 * (RANK == LAST), comm=COMM),
         r"different rmax %s" % pair)
    case("map", lambda: tdmaps.count_within(X, 0.3, map="bb" if RANK == 0 else "lambda", comm=COMM),
         r"different map %s" % pair.replace(str(LAST), "1"))
    # A map without omega ranges on one rank only: it would refuse, the others would wait.
    case("map utm", lambda: tdmaps.count_within(X, 0.3, map="utm" if RANK == LAST else "lambda", comm=COMM),
         r"different map %s" % pair)
    # A bad option on one rank: its own check would raise there first.
    case("bad bins", lambda: tdmaps.pair_histogram(X, "16" if RANK == LAST else 16, rmax=1.0, comm=COMM),
         r"different bins %s" % pair)
    case("two", lambda: tdmaps.pair_histogram(mine, 16, rmax=1.0, block=8 if RANK == LAST else 32, comm=COMM),
         r"different X %s, block %s;" % (pair, pair))
    case("function", lambda: (tdmaps.count_within(X, 0.3, comm=COMM) if RANK == LAST
                              else tdmaps.pair_histogram(X, 16, rmax=1.0, comm=COMM)),
         r"^comm: ranks called different tdmaps functions or passed different keywords %s" % pair)
    # The same bad option everywhere: the call's own error, on every rank.
    case("same bad bins", lambda: tdmaps.pair_histogram(X, 0, rmax=1.0, comm=COMM), r"^bins 0: need 1 \.\. 2\^24")
    s = grid_spheres(np.random.default_rng(3), 120)
    case("collide result", lambda: tdmaps.collide(s, "pairs" if RANK == LAST else "count", comm=COMM),
         r"different result %s" % pair)
    case("collide kernel", lambda: tdmaps.collide(s, kernel="element" if RANK == LAST else "tile", comm=COMM),
         r"different kernel %s" % pair)
    P = np.random.default_rng(5).random((40, 3)) * 3
    case("atm cutoff", lambda: tdmaps.atm_energy(P, cutoff=2.5 if RANK == LAST else 2.0, comm=COMM),
         r"different cutoff %s" % pair)
except Exception:
    traceback.print_exc()
    sys.stdout.flush()
    COMM.Abort(2)

print("comm_mismatch: rank %d of %d: %d checks, %d failed" % (RANK, SIZE, checks, len(failed)))
for f in failed:
    print("comm_mismatch: rank %d: FAILED %s" % (RANK, f))
sys.stdout.flush()
sys.exit(1 if failed else 0)
