#!/usr/bin/env python3
"""tdmaps-edm against scipy.spatial.distance.pdist on the same machine.

    bench_vs_scipy.py PATH/TO/tdmaps-edm [--n 16384] [--dims 4] [--repeat 5]
                      [--seed 1] [--no-check] [--edm-args "--map bb --block 16"]

Both compute the condensed fp64 distance matrix of the same n x d points
(uniform in [0, 1)). SciPy's time is the best of `repeat` calls of pdist
(each call allocates its output, as a caller of pdist pays); tdmaps-edm's is
the best of `repeat` timed kernel runs after one warm-up, as it reports
(output preallocated). The warm-up's time is printed too: it includes the
first touch of the output's pages, which pdist pays on every call (a large
part of a call for outputs of gigabytes on 4 KiB pages).
The figures printed: both times, the ratio scipy / tdmaps (> 1: tdmaps-edm
is faster), and, unless --no-check, the largest difference between the two
outputs. OpenMP: OMP_PROC_BIND=spread and OMP_PLACES=threads unless set.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy.spatial.distance import pdist


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--n", type=int, default=16384)
    ap.add_argument("--dims", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-check", action="store_true", help="skip the element-wise comparison")
    ap.add_argument("--edm-args", default="", help="more tdmaps-edm options, one quoted string")
    a = ap.parse_args()

    env = dict(os.environ)
    env.setdefault("OMP_PROC_BIND", "spread")
    env.setdefault("OMP_PLACES", "threads")

    x = np.random.default_rng(a.seed).random((a.n, a.dims))
    with tempfile.TemporaryDirectory(prefix="tdmaps-bench-") as tmp:
        pts = os.path.join(tmp, "points.npy")
        np.save(pts, x)

        # SciPy: best of `repeat` calls after one warm-up call.
        ref = pdist(x)
        scipy_times = []
        for _ in range(a.repeat):
            t = time.perf_counter()
            d = pdist(x)
            scipy_times.append(time.perf_counter() - t)
            del d
        scipy_best = min(scipy_times)

        cmd = [a.binary, "--input", pts, "--layout", "condensed", "--precision", "fp64",
               "--repeat", str(a.repeat), "--json"] + shlex.split(a.edm_args)
        if not a.no_check:
            out = os.path.join(tmp, "d.npy")
            cmd += ["--output", out]
        t = time.perf_counter()
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t
        if p.returncode != 0:
            sys.stderr.write(p.stderr)
            sys.exit("tdmaps-edm failed: " + " ".join(cmd))
        r = json.loads(p.stdout.strip().splitlines()[-1])
        tdmaps_best = r["ms_min"] * 1e-3
        tdmaps_mean = r["ms_mean"] * 1e-3

        maxdiff = None
        if not a.no_check:
            got = np.load(out)
            if got.shape != ref.shape:
                sys.exit(f"shape mismatch: tdmaps {got.shape}, scipy {ref.shape}")
            maxdiff = float(np.max(np.abs(got - ref))) if got.size else 0.0

    print(f"points      n = {a.n}, d = {a.dims}, fp64, condensed ({ref.nbytes / 1e9:.3f} GB of output)")
    print(f"scipy       pdist best {scipy_best:.4f} s  (all: {', '.join(f'{s:.4f}' for s in scipy_times)})")
    print(f"tdmaps-edm  best {tdmaps_best:.4f} s, mean {tdmaps_mean:.4f} s over {a.repeat} after a warm-up "
          f"(map {r['map']}, block {r['block']}, {r['kernel']} kernel, {r['backend']} x {r['concurrency']}); "
          f"first run incl. page faults {r['ms_warmup'] * 1e-3:.4f} s; process wall {wall:.2f} s incl. I/O")
    print(f"ratio       scipy / tdmaps-edm = {scipy_best / tdmaps_best:.2f}  "
          f"({'tdmaps-edm faster' if tdmaps_best <= scipy_best else 'SciPy faster'})")
    if maxdiff is not None:
        print(f"check       max |tdmaps - scipy| = {maxdiff:.3e}")
        if not maxdiff <= 1e-12:
            sys.exit("outputs differ")


if __name__ == "__main__":
    main()
