"""Ctrl-C (SIGINT, KeyboardInterrupt) ends a long call within about a second:
the waiting main thread runs Python's signal handlers while the Kokkos
thread works, and the reductions stop between chunks of their league. Each
case runs in a child process that signals itself from a timer thread while a
call that would take several seconds runs, and reports how long the
KeyboardInterrupt took to arrive; the module stays usable afterwards."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import tdmaps

CHILD = textwrap.dedent(
    r"""
    import json, os, signal, sys, threading, time
    import numpy as np
    import tdmaps
    from tdmaps import _tdmaps

    # Ctrl-C as a terminal delivers it: Python's handler, whatever this
    # process inherited (a job started in the background by a
    # non-interactive shell has SIGINT ignored, and Python keeps it so).
    signal.signal(signal.SIGINT, signal.default_int_handler)

    case = sys.argv[1]
    rng = np.random.default_rng(7)

    def call(X):
        if case == "count_within":
            return tdmaps.count_within(X, 0.5)
        if case == "pair_histogram":
            return tdmaps.pair_histogram(X, 64, rmax=2.0, map="bb")
        if case == "count_within_part":  # one rank's part under comm=
            return _tdmaps.count_within_part(X, 0.5, "lambda", "rsqrt", "exact", 32, 0, 1)
        if case == "nbody":  # the forces of the first three coordinates as bodies
            B = np.ascontiguousarray(X[:, :3])
            return tdmaps.nbody_accelerations(B, np.ones(len(B)), softening=0.01)
        raise SystemExit("unknown case " + case)

    # Calibrate: grow n until the uninterrupted call would take >= 4 s (the
    # pairs grow as n^2: the time of a quarter of the points times 16).
    d, n = 16, 4000
    while True:
        X = rng.random((n, d))
        t = time.perf_counter()
        expected = call(X)
        took = time.perf_counter() - t
        if took * 16 >= 4.0 or n >= 2 ** 20:
            break
        n *= 2
    X = rng.random((4 * n, d))
    sent = []

    def interrupt():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.3, interrupt)
    start = time.perf_counter()
    timer.start()
    try:
        call(X)
        outcome = "finished"
    except KeyboardInterrupt:
        outcome = "interrupted"
    end = time.perf_counter()
    # Usable afterwards: a small call gives the right result.
    Y = X[:2000].copy()
    a, b = np.asarray(call(Y)), np.asarray(call(Y.copy()))
    # Integer results are exact; the forces' sums meet in another order from run to run.
    again = bool(np.allclose(a, b, rtol=1e-12, atol=0)) if case == "nbody" else bool(np.all(a == b))
    print(json.dumps({"outcome": outcome, "latency": end - sent[0] if sent else None, "n": 4 * n,
                      "predicted": took * 16, "usable": bool(again)}))
    """
)


@pytest.mark.skipif(not hasattr(os, "kill") or sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("case", ["count_within", "pair_histogram", "count_within_part", "nbody"])
def test_ctrl_c_ends_a_long_call_within_a_second(case):
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tdmaps.__file__)))
    env = dict(os.environ, PYTHONPATH=package_root, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-c", CHILD, case], capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    r = json.loads(p.stdout.strip().splitlines()[-1])
    assert r["outcome"] == "interrupted", r
    assert r["predicted"] >= 4.0, r  # the call would have run for seconds
    assert r["latency"] < 1.5, r
    assert r["usable"], r


PDIST_CHILD = textwrap.dedent(
    r"""
    import json, os, signal, threading, time
    import numpy as np
    import tdmaps

    signal.signal(signal.SIGINT, signal.default_int_handler)  # as in CHILD

    # pdist's kernel, once started, runs to its end: the interrupt is raised
    # after it, with out= complete (never half written).
    rng = np.random.default_rng(9)
    n = 2000
    while True:
        X = rng.random((n, 8))
        t = time.perf_counter()
        tdmaps.pdist(X)
        if (time.perf_counter() - t) * 4 >= 1.0 or n >= 2 ** 16:
            break
        n *= 2
    X = rng.random((2 * n, 8))
    want = tdmaps.pdist(X)
    out = np.full(len(want), -1.0)
    threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        tdmaps.pdist(X, out=out)
        outcome = "finished"
    except KeyboardInterrupt:
        outcome = "interrupted"
    print(json.dumps({"outcome": outcome, "complete": bool(np.array_equal(out, want)),
                      "untouched": bool((out == -1.0).all())}))
    """
)


@pytest.mark.skipif(not hasattr(os, "kill") or sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_leaves_pdist_out_complete():
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tdmaps.__file__)))
    env = dict(os.environ, PYTHONPATH=package_root, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-c", PDIST_CHILD], capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    r = json.loads(p.stdout.strip().splitlines()[-1])
    assert r["outcome"] == "interrupted" and r["complete"], r
