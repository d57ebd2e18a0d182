"""Calls from any Python thread: a pool calling every function at once gives
the serial results, exceptions raised inside the compute arrive as the same
Python exceptions, the GIL is released meanwhile, and a forked child gets an
error instead of a hang."""

import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from conftest import grid_spheres, tdmaps
from test_module import PACKAGE_DIR, run_python

THREADS = 6
ROUNDS = 4


def calls(seed):
    """(name, thunk) pairs covering every function that runs Kokkos, on inputs of a fixed seed."""
    rng = np.random.default_rng(seed)
    X = rng.random((int(rng.integers(40, 160)), int(rng.integers(1, 6))))
    Xf = X.astype(np.float32)
    wide = rng.random((30, 240))  # past the tile's scratch: the element kernel
    spheres = grid_spheres(rng, int(rng.integers(30, 120)))
    return [
        ("pdist", lambda: tdmaps.pdist(X)),
        ("pdist fp32 full", lambda: tdmaps.pdist(Xf, layout="full", map="hadouken", block=16)),
        ("pdist sqeuclidean packed", lambda: tdmaps.pdist(X, "sqeuclidean", layout="packed", map="utm")),
        ("pdist wide", lambda: tdmaps.pdist(wide)),
        ("pdist gemm", lambda: tdmaps.pdist(wide, kernel="gemm") if tdmaps.info()["gemm"] else None),
        ("pair_histogram", lambda: tdmaps.pair_histogram(X, 16, rmax=1.0)),
        ("nearest_neighbour", lambda: tdmaps.nearest_neighbour(Xf, map="bb")),
        ("count_within", lambda: tdmaps.count_within(X, 0.3, map="utm")),
        ("collide count", lambda: tdmaps.collide(spheres)),
        ("collide pairs", lambda: tdmaps.collide(spheres, "pairs", map="rb")),
        ("collide flags", lambda: tdmaps.collide(spheres, "tileflags")),
        ("info", lambda: tdmaps.info()["concurrency"]),
    ]


def same(a, b):
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    return a == b


def test_pool_calling_every_function_at_once_matches_serial():
    seeds = [1000 + k for k in range(THREADS * ROUNDS)]
    serial = {s: [(name, f()) for name, f in calls(s)] for s in seeds}
    jobs = [(s, name, f) for s in seeds for name, f in calls(s)]
    np.random.default_rng(7).shuffle(jobs)  # every function at once, in a fixed mixed order
    start = threading.Barrier(THREADS)

    def first(job):
        try:  # the pool's threads begin together
            start.wait(timeout=30)
        except threading.BrokenBarrierError:
            pass
        return job[2]()

    with ThreadPoolExecutor(THREADS) as pool:
        futures = [pool.submit(first if k < THREADS else (lambda job: job[2]()), job) for k, job in enumerate(jobs)]
        got = [f.result(timeout=600) for f in futures]
    want = {(s, name): r for s in seeds for name, r in serial[s]}
    for (s, name, _), r in zip(jobs, got):
        assert same(r, want[(s, name)]), "%s, seed %d: differs from the serial call" % (name, s)


def test_single_worker_thread_like_the_issue():
    X = np.random.default_rng(3).random((100, 3))
    with ThreadPoolExecutor(1) as pool:
        assert np.array_equal(pool.submit(tdmaps.pdist, X).result(), tdmaps.pdist(X))
        assert pool.submit(tdmaps.collide, grid_spheres(np.random.default_rng(4), 50)).result() >= 0


def raising_calls():
    X = np.ones((6, 3))
    X[4, 2] = np.nan
    bad = grid_spheres(np.random.default_rng(5), 20)
    bad[7, 3] = -1.0
    return [
        (ValueError, r"X: row 4 \(0-based\), column 2 is nan", lambda: tdmaps.pdist(X, reject_nonfinite=True)),
        (ValueError, r"spheres: row 7 \(0-based\)", lambda: tdmaps.collide(bad)),
        (ValueError, r"spheres: row 7 \(0-based\)", lambda: tdmaps.collide(bad, "pairs")),
        (ValueError, r"kernel='tile': the tile of 32 \+ 32 fp64 points", lambda: tdmaps.pdist(np.zeros((40, 300)),
                                                                                              kernel="tile")),
        (tdmaps.TooLarge, r"condensed output", lambda: tdmaps.pdist(np.zeros((1 << 21, 1)))),
        (TypeError, r"unsupported dtype", lambda: tdmaps.nearest_neighbour(np.zeros((5, 2), dtype=np.int32))),
    ]


def test_exceptions_inside_compute_arrive_in_the_calling_thread():
    with ThreadPoolExecutor(4) as pool:
        for _ in range(3):
            futures = [(exc, match, pool.submit(f)) for exc, match, f in raising_calls()]
            for exc, match, fut in futures:
                with pytest.raises(exc, match=match):
                    fut.result(timeout=300)
    # and the module still works afterwards, from both sides
    X = np.random.default_rng(6).random((50, 2))
    with ThreadPoolExecutor(2) as pool:
        assert np.array_equal(pool.submit(tdmaps.pdist, X).result(), tdmaps.pdist(X))


def test_gil_is_released_during_compute():
    X = np.random.default_rng(8).random((16000, 3))
    t0 = time.perf_counter()
    want = tdmaps.count_within(X, 0.5)
    duration = time.perf_counter() - t0
    started = threading.Event()

    def long_call():
        started.set()
        return tdmaps.count_within(X, 0.5)

    with ThreadPoolExecutor(1) as pool:
        fut = pool.submit(long_call)
        started.wait(timeout=60)
        gap, last = 0.0, time.perf_counter()
        while not fut.done():  # pure Python: runs on only while the call has the GIL released
            now = time.perf_counter()
            gap, last = max(gap, now - last), now
        assert fut.result() == want
    # With the GIL held through the call, this loop would stall for all of it.
    assert gap < max(duration / 2, 0.05), (gap, duration)


def test_imported_in_one_thread_used_in_others(tmp_path):
    code = """
        import threading, numpy as np
        from concurrent.futures import ThreadPoolExecutor
        from scipy.spatial.distance import pdist
        box = {}
        t = threading.Thread(target=lambda: box.update(tdmaps=__import__("tdmaps")))
        t.start(); t.join()
        tdmaps = box["tdmaps"]
        X = np.random.default_rng(9).random((200, 4))
        assert np.array_equal(tdmaps.pdist(X), pdist(X))  # the main thread, not the importer
        with ThreadPoolExecutor(3) as pool:
            for r in pool.map(lambda k: tdmaps.pdist(X), range(6)):
                assert np.array_equal(r, pdist(X))
        print("ok", tdmaps._tdmaps.owns_kokkos(), flush=True)
    """
    r = run_python(code, PACKAGE_DIR, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["ok True"], r.stdout
    assert r.stderr == "", r.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_forked_child_gets_an_error_not_a_hang(tmp_path):
    code = """
        import os, numpy as np, tdmaps
        X = np.random.default_rng(10).random((20, 3))
        tdmaps.pdist(X)
        pid = os.fork()
        if pid == 0:
            try:
                tdmaps.pdist(X)
                os._exit(3)
            except RuntimeError as e:
                os._exit(0 if "forked child cannot use it" in str(e) else 4)
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status), "parent", tdmaps.pdist(X).shape, flush=True)
    """
    if sys.version_info < (3, 9):
        code = code.replace("os.waitstatus_to_exitcode(status)", "status >> 8")
    r = run_python(code, PACKAGE_DIR, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["child 0 parent (190,)"], r.stdout + r.stderr


def test_collide_pairs_finalised_between_its_two_jobs_raises_and_exits_cleanly(tmp_path):
    # The pair list lives between collide's two Kokkos jobs (its array is made
    # by Python in between). Kokkos ended in that window (the interpreter's
    # exit while a daemon thread was there; here the allocator ends it, so the
    # window is hit every time): a RuntimeError, and the list's Views are not
    # freed after Kokkos::finalize (which would abort the process).
    code = """
        import numpy as np, tdmaps
        from tdmaps import _tdmaps
        S = np.array([[0, 0, 0, 1], [1.5, 0, 0, 1], [5, 0, 0, 1]], dtype=np.float32)
        assert tdmaps.collide(S, "pairs").tolist() == [[1, 0]]
        def alloc(shape, dtype, zero):
            print("finalize", _tdmaps.finalize(), flush=True)
            return np.zeros(shape, dtype)
        try:
            _tdmaps.collide(S, "pairs", alloc, "lambda", "rsqrt", "exact", 32, "tile")
        except RuntimeError as e:
            print("RuntimeError", "not initialised" in str(e), flush=True)
    """
    r = run_python(code, PACKAGE_DIR, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["finalize True", "RuntimeError True"] and r.stderr == "", r.stdout + r.stderr


def test_daemon_threads_calling_at_exit_end_cleanly(tmp_path):
    # Threads still calling while the interpreter exits: Kokkos is finalised
    # on its own thread and the callers wait for the process to end, no
    # abort ("terminate called ...") and no hang.
    code = """
        import threading, time, numpy as np, tdmaps
        X = np.random.default_rng(11).random((2000, 3))
        S = np.random.default_rng(12).random((500, 4)).astype(np.float32) * 0.05
        def loop(f):
            while True:
                try:
                    f()
                except RuntimeError:
                    pass
        for f in [lambda: tdmaps.pdist(X), lambda: tdmaps.count_within(X, 0.2), lambda: tdmaps.collide(S, "pairs")]:
            threading.Thread(target=loop, args=(f,), daemon=True).start()
        time.sleep(0.2)
        print("exit", flush=True)
    """
    for _ in range(3):
        r = run_python(code, PACKAGE_DIR, tmp_path)
        assert r.returncode == 0, r.stderr
        assert r.stdout == "exit\n" and r.stderr == "", r.stdout + r.stderr
