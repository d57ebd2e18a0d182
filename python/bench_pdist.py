"""tdmaps.pdist against scipy.spatial.distance.pdist on the host: the best of
a few calls each (call to result, the output allocated by the call), one JSON
line. The issue's target: tdmaps at least 2x SciPy at n = 16384, d = 4, fp64.

    OMP_PROC_BIND=false OMP_NUM_THREADS=2 PYTHONPATH=<build>/python python3 python/bench_pdist.py

--overhead prints the call-overhead table of small inputs instead
(python/bench_overhead.txt):

    OMP_PROC_BIND=false OMP_NUM_THREADS=2 PYTHONPATH=<build>/python python3 python/bench_pdist.py --overhead
"""

import argparse
import json
import os
import sys
import time

import numpy as np
from scipy.spatial.distance import pdist as scipy_pdist

# This script's folder holds the package's source (no compiled module): the
# built or installed tdmaps comes from PYTHONPATH.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)
import tdmaps  # noqa: E402


def best_of(f, repeat):
    f()  # untimed warm-up: first touch of the allocator's pages, thread start-up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def best_per_call(f, repeat, calls):
    """The best of `repeat` timings of `calls` calls, per call."""
    f()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(calls):
            f()
        best = min(best, (time.perf_counter() - t) / calls)
    return best


def overhead(a):
    """The call-overhead table: tdmaps against SciPy / NumPy in this process,
    fp64, d = 3, the best of 7 x (200 calls for n <= 100, 20 for n = 1000,
    3 for n = 10000); then the crossover of the small-input path (the
    Kokkos path forced against the plain loops forced)."""
    from tdmaps import _tdmaps

    rows = []
    print("call overhead, fp64, d = 3 (us per call; ratio = tdmaps / reference, < 1: tdmaps faster)")
    print("%-15s %7s %12s %12s %8s   reference" % ("function", "n", "tdmaps", "reference", "ratio"))
    for n in a.sizes:
        X = np.random.default_rng(1).random((n, 3))
        calls = 200 if n <= 100 else 20 if n <= 1000 else 3
        cases = [
            ("pdist", lambda: tdmaps.pdist(X), lambda: scipy_pdist(X), "scipy pdist(X)"),
            ("pair_histogram", lambda: tdmaps.pair_histogram(X, 64, rmax=1.0),
             lambda: np.histogram(scipy_pdist(X), 64, (0.0, 1.0)), "np.histogram(pdist(X), 64, (0, 1))"),
            ("count_within", lambda: tdmaps.count_within(X, 0.5), lambda: int((scipy_pdist(X) < 0.5).sum()),
             "(pdist(X) < 0.5).sum()"),
        ]
        for name, ours, ref, ref_name in cases:
            t_ours = best_per_call(ours, 7, calls)
            t_ref = best_per_call(ref, 7, calls)
            rows.append({"function": name, "n": n, "us_tdmaps": t_ours * 1e6, "us_reference": t_ref * 1e6})
            print("%-15s %7d %12.1f %12.1f %8.2f   %s" % (name, n, t_ours * 1e6, t_ref * 1e6, t_ours / t_ref, ref_name))
    limit = _tdmaps.small_path_limit()
    print()
    print("small-input path: n (n - 1) / 2 * d <= %d pair-coordinates (n <= %d at d = 3); each path forced (us per call)"
          % (limit, max(n for n in range(2, 100000) if n * (n - 1) // 2 * 3 <= limit)))
    print("%7s %14s %14s %14s %14s %14s %14s" % ("n", "pdist kokkos", "pdist small", "hist kokkos", "hist small",
                                                 "count kokkos", "count small"))
    try:
        for n in (300, 600, 1000, 1400, 2000):
            X = np.random.default_rng(1).random((n, 3))
            t = []
            for name in ("pdist", "hist", "count"):
                f = {"pdist": lambda: tdmaps.pdist(X), "hist": lambda: tdmaps.pair_histogram(X, 64, rmax=1.0),
                     "count": lambda: tdmaps.count_within(X, 0.5)}[name]
                for forced in (0, 1 << 62):
                    _tdmaps._set_small_path_limit(forced)
                    t.append(best_per_call(f, 7, 20) * 1e6)
            print("%7d %14.1f %14.1f %14.1f %14.1f %14.1f %14.1f" % ((n,) + tuple(t)))
    finally:
        _tdmaps._set_small_path_limit(limit)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=16384)
    p.add_argument("--d", type=int, default=4)
    p.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    p.add_argument("--map", default="lambda")
    p.add_argument("--kernel", default="auto")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--target", type=float, default=2.0, help="required speed-up over SciPy (exit 1 below it)")
    p.add_argument("--overhead", action="store_true",
                   help="print the call-overhead table (pdist, pair_histogram, count_within against SciPy / NumPy "
                        "at --sizes, fp64, d = 3) and the small-input path's crossover instead")
    p.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 10000])
    a = p.parse_args()
    if a.overhead:
        info = tdmaps.info()
        print("tdmaps %s, backend %s, concurrency %d, OMP_NUM_THREADS=%s, OMP_PROC_BIND=%s" % (
            tdmaps.__version__, info["backend"], info["concurrency"], os.environ.get("OMP_NUM_THREADS"),
            os.environ.get("OMP_PROC_BIND")))
        overhead(a)
        return 0

    X = np.random.default_rng(1).random((a.n, a.d)).astype(a.dtype)
    ours = tdmaps.pdist(X, map=a.map, kernel=a.kernel)
    ref = scipy_pdist(X)
    rel = float(np.max(np.abs(ours - ref) / np.maximum(np.abs(ref), np.finfo(ref.dtype).tiny)))
    t_ours = best_of(lambda: tdmaps.pdist(X, map=a.map, kernel=a.kernel), a.repeat)
    t_scipy = best_of(lambda: scipy_pdist(X), a.repeat)
    info = tdmaps.info()
    line = {
        "n": a.n, "d": a.d, "dtype": a.dtype, "map": a.map, "kernel": a.kernel,
        "backend": info["backend"], "concurrency": info["concurrency"], "kokkos": info["kokkos_version"],
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"), "omp_proc_bind": os.environ.get("OMP_PROC_BIND"),
        "s_tdmaps": t_ours, "s_scipy": t_scipy, "speedup": t_scipy / t_ours, "max_rel_diff": rel,
        "target": a.target,
    }
    print(json.dumps(line))
    ok = line["speedup"] >= a.target and rel <= (1e-12 if a.dtype == "float64" else 1e-5)
    print("tdmaps %.4f s, scipy %.4f s: %.2fx (target %.1fx) %s" % (t_ours, t_scipy, line["speedup"], a.target,
                                                                 "OK" if ok else "BELOW TARGET OR WRONG"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
