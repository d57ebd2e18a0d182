"""tdmaps.pdist against scipy.spatial.distance.pdist on the host: the best of
a few calls each (call to result, the output allocated by the call), one JSON
line. The issue's target: tdmaps at least 2x SciPy at n = 16384, d = 4, fp64.

    OMP_PROC_BIND=false OMP_NUM_THREADS=2 PYTHONPATH=<build>/python python3 python/bench_pdist.py
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


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=16384)
    p.add_argument("--d", type=int, default=4)
    p.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    p.add_argument("--map", default="lambda")
    p.add_argument("--kernel", default="auto")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--target", type=float, default=2.0, help="required speed-up over SciPy (exit 1 below it)")
    a = p.parse_args()

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
