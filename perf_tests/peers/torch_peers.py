#!/usr/bin/env python3
"""PyTorch peers of tdmaps' all-pairs reductions, timed on the GPU.

What a PyTorch user writes for these reductions without storing the n x n
matrix: chunked ``torch.cdist`` (rows [a, b) against all n points), then a
reduction per chunk. A peer measured beside tdmaps, not a dependency of it
(perf_tests/peers/README.md).

  nn     nearest other point of every point: cdist, self set to +inf, argmin
         (ties: the smaller index, as tdmaps). Methods cdist_mm
         (compute_mode="use_mm_for_euclid_dist", GEMM) and cdist_exact
         ("donot_use_mm_for_euclid_dist"); cdist_mm's check reports the
         fraction of indices equal to cdist_exact's when both ran.
  knn    the k nearest other points of every point (--k, default 16): cdist,
         self set to +inf, topk(k, largest=False, sorted=True) (what
         sklearn's brute force and FAISS's IndexFlatL2 return; torch breaks
         ties as it likes). Methods as nn.
  kde    Gaussian kernel sum s_i = sum_{j != i} exp(-|x_i - x_j|^2 / (2 h^2)):
         cdist (mm), squared, exp, row sums (in place, self entries -> 0).
  count  ordered pairs i != j with |x_i - x_j| < r (strict, as tdmaps'
         count_within), both compute modes.

Points: fp32 uniform in [0, 1)^d, numpy.random.default_rng(seed), or --input
FILE.npy (n, d). Timing: --warmup untimed rounds, then --rounds timed ones
(torch.cuda.synchronize around each), median / min / max in ms.

CSV (stdout and --csv): peer,method,query,d,n,rounds,median_ms,min_ms,max_ms,check
Exit status: 0 ok, 2 bad arguments, 3 no CUDA (or no torch / numpy).
"""

import argparse
import math
import os
import sys
import time

CSV_HEADER = "peer,method,query,d,n,rounds,median_ms,min_ms,max_ms,check"
QUERIES = ("nn", "knn", "kde", "count")
MODES = {"cdist_exact": "donot_use_mm_for_euclid_dist", "cdist_mm": "use_mm_for_euclid_dist"}


def fail(msg, code=2):
    print(f"torch_peers.py: error: {msg}", file=sys.stderr)
    sys.exit(code)


def int_list(text, name, lo):
    out = []
    for item in text.split(","):
        item = item.strip()
        try:
            v = float(item)
        except ValueError:
            fail(f"{name}: '{item}' is not an integer")
        if not math.isfinite(v) or v != int(v) or v < lo:
            fail(f"{name}: '{item}' must be an integer >= {lo}")
        out.append(int(v))
    return out


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="torch_peers.py", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: python3 perf_tests/peers/torch_peers.py --what nn,kde,count "
               "--n 10000,100000 --d 3,8 --rounds 5 --h 0.05 --csv torch.csv")
    p.add_argument("--what", default="nn", help="nn, kde, count or a list of them (default nn)")
    p.add_argument("--n", default=None, help="point counts (default 10000,100000)")
    p.add_argument("--d", default=None, help="dimensions (default 3,8)")
    p.add_argument("--rounds", type=int, default=5, help="timed rounds after the warm-up (default 5)")
    p.add_argument("--warmup", type=int, default=1, help="untimed rounds first (default 1)")
    p.add_argument("--k", default="16", help="knn: neighbour counts (default 16)")
    p.add_argument("--h", type=float, default=0.05, help="kde bandwidth (default 0.05)")
    p.add_argument("--r", type=float, default=None,
                   help="count radius for every n and d (default: volume of the d-ball = --neighbours / n)")
    p.add_argument("--neighbours", type=float, default=32.0, help="mean neighbour count that sets r (default 32)")
    p.add_argument("--methods", default="cdist_exact,cdist_mm",
                   help="cdist_exact, cdist_mm or both (default both; kde always uses cdist_mm)")
    p.add_argument("--seed", type=int, default=20261128, help="numpy generator seed (default 20261128)")
    p.add_argument("--input", default=None, help="points from a (n, d) .npy instead (n, d from the file)")
    p.add_argument("--chunk-gb", type=float, default=1.5,
                   help="rows per chunk so that the chunk x n fp32 matrix is about this many GB (default 1.5)")
    p.add_argument("--exact-max-n", type=int, default=300000,
                   help="skip cdist_exact above this n (default 300000: it runs at ~1e9 pairs/s; 0: never)")
    p.add_argument("--slow-ms", type=float, default=30000.0,
                   help="a warm-up slower than this gets 1 timed round (default 30000)")
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"),
                   help="cuda (default; fails without a GPU) or cpu (a smoke test only)")
    p.add_argument("--csv", default=None, help="also write the CSV to this path")
    a = p.parse_args(argv)

    a.what = [w.strip() for w in a.what.split(",")]
    for w in a.what:
        if w not in QUERIES:
            fail(f"--what: unknown query '{w}' (known: {', '.join(QUERIES)})")
    a.methods = [m.strip() for m in a.methods.split(",")]
    for m in a.methods:
        if m not in MODES:
            fail(f"--methods: unknown method '{m}' (known: {', '.join(MODES)})")
    # exact first, so that cdist_mm's nn row can report its agreement with it
    a.methods = [m for m in MODES if m in a.methods]
    if a.input is not None:
        if a.n is not None or a.d is not None:
            fail("--input takes n and d from the file: drop --n / --d")
    else:
        a.n = int_list(a.n or "10000,100000", "--n", 2)
        a.d = int_list(a.d or "3,8", "--d", 1)
    a.k = int_list(a.k, "--k", 1)
    if a.rounds < 1:
        fail("--rounds must be at least 1")
    if a.warmup < 0:
        fail("--warmup must be at least 0")
    if not (a.h > 0 and math.isfinite(a.h)):
        fail("--h must be a positive number")
    if a.r is not None and not (a.r > 0 and math.isfinite(a.r)):
        fail("--r must be a positive number")
    if not (a.neighbours > 0):
        fail("--neighbours must be positive")
    if not (a.chunk_gb > 0):
        fail("--chunk-gb must be positive")
    return a


def radius_for(n, d, k):
    """r with (volume of the d-ball of radius r) = k / n."""
    log_unit_ball = 0.5 * d * math.log(math.pi) - math.lgamma(0.5 * d + 1)
    return math.exp((math.log(k / n) - log_unit_ball) / d)


class Runner:
    def __init__(self, args, torch, np):
        self.a, self.torch, self.np = args, torch, np
        self.dev = torch.device(args.device)
        self.rows = []
        self.csv = open(args.csv, "w") if args.csv else None
        self._emit_line(CSV_HEADER)

    def _emit_line(self, line):
        print(line, flush=True)
        if self.csv:
            self.csv.write(line + "\n")
            self.csv.flush()

    def emit(self, method, query, d, n, t, check):
        self._emit_line(f"torch,{method},{query},{d},{n},{t[0]},{t[1]:.4f},{t[2]:.4f},{t[3]:.4f},{check}")

    def sync(self):
        if self.dev.type == "cuda":
            self.torch.cuda.synchronize()

    def timed(self, fn, what):
        out = None
        warm_ms = 0.0
        for _ in range(self.a.warmup):
            self.sync()
            t0 = time.perf_counter()
            out = fn()
            self.sync()
            warm_ms = (time.perf_counter() - t0) * 1e3
        rounds = self.a.rounds
        if warm_ms > self.a.slow_ms and rounds > 1:
            print(f"# {what}: warm-up took {warm_ms:.0f} ms > --slow-ms: 1 timed round", file=sys.stderr)
            rounds = 1
        ms = []
        for _ in range(rounds):
            self.sync()
            t0 = time.perf_counter()
            out = fn()
            self.sync()
            ms.append((time.perf_counter() - t0) * 1e3)
        ms.sort()
        m = len(ms)
        med = ms[m // 2] if m % 2 else 0.5 * (ms[m // 2 - 1] + ms[m // 2])
        return (m, med, ms[0], ms[-1]), out

    def chunk_rows(self, n):
        return max(1, min(n, int(self.a.chunk_gb * 1e9 / (4.0 * n))))

    # -------------------------------------------------------------- kernels
    def nn(self, X, mode):
        torch = self.torch
        n = X.shape[0]
        c = self.chunk_rows(n)
        idx = torch.empty(n, dtype=torch.int64, device=self.dev)
        dist = torch.empty(n, dtype=X.dtype, device=self.dev)
        for a in range(0, n, c):
            b = min(n, a + c)
            D = torch.cdist(X[a:b], X, compute_mode=mode)
            D.diagonal(offset=a).fill_(float("inf"))  # entries (k, a + k): the points themselves
            v, i = torch.min(D, dim=1)
            dist[a:b] = v
            idx[a:b] = i
            del D
        return idx, dist

    def knn(self, X, mode, k):
        torch = self.torch
        n = X.shape[0]
        c = self.chunk_rows(n)
        idx = torch.empty((n, k), dtype=torch.int64, device=self.dev)
        dist = torch.empty((n, k), dtype=X.dtype, device=self.dev)
        for a in range(0, n, c):
            b = min(n, a + c)
            D = torch.cdist(X[a:b], X, compute_mode=mode)
            D.diagonal(offset=a).fill_(float("inf"))
            v, i = torch.topk(D, k, dim=1, largest=False, sorted=True)
            dist[a:b] = v
            idx[a:b] = i
            del D
        return idx, dist

    def kde(self, X, h):
        torch = self.torch
        n = X.shape[0]
        c = self.chunk_rows(n)
        s = torch.empty(n, dtype=X.dtype, device=self.dev)
        scale = -1.0 / (2.0 * h * h)
        for a in range(0, n, c):
            b = min(n, a + c)
            D = torch.cdist(X[a:b], X, compute_mode=MODES["cdist_mm"])
            D.square_().mul_(scale)
            D.diagonal(offset=a).fill_(float("-inf"))  # exp(-inf) = 0: j != i
            D.exp_()
            s[a:b] = D.sum(dim=1)
            del D
        return s

    def count(self, X, mode, r):
        torch = self.torch
        n = X.shape[0]
        c = self.chunk_rows(n)
        total = torch.zeros((), dtype=torch.int64, device=self.dev)
        for a in range(0, n, c):
            b = min(n, a + c)
            D = torch.cdist(X[a:b], X, compute_mode=mode)
            D.diagonal(offset=a).fill_(float("inf"))
            total += (D < r).sum()
            del D
        return int(total.item())

    # -------------------------------------------------------------- one point set
    def run_points(self, P):
        torch, a = self.torch, self.a
        n, d = P.shape
        X = torch.from_numpy(P).to(self.dev).contiguous()
        tag = f"d={d} n={n}"
        for q in a.what:
            if q == "kde":
                t, s = self.timed(lambda: self.kde(X, a.h), f"kde {tag}")
                ordered = n * (n - 1) / (t[1] * 1e-3)
                check = (f"ksum={float(s.double().sum()):.9g};h={a.h:.9g};"
                         f"ordered_pairs_per_s={ordered:.4g};unordered_pairs_per_s={ordered / 2:.4g}")
                self.emit("cdist_mm", "kde", d, n, t, check)
                continue
            exact_idx = None
            for m in a.methods:
                if m == "cdist_exact" and a.exact_max_n and n > a.exact_max_n:
                    print(f"# skip cdist_exact {q} {tag} (> --exact-max-n {a.exact_max_n})", file=sys.stderr)
                    continue
                mode = MODES[m]
                if q == "knn":
                    for k in a.k:
                        if k > n - 1:
                            fail(f"--k {k}: at most n - 1 = {n - 1}")
                        t, (idx, dist) = self.timed(lambda: self.knn(X, mode, k), f"{m} knn k={k} {tag}")
                        self.emit(m, "knn", d, n, t,
                                  f"k={k};idxsum={int(idx.sum())};distsum={float(dist.double().sum()):.9g}")
                    continue
                if q == "nn":
                    t, (idx, dist) = self.timed(lambda: self.nn(X, mode), f"{m} nn {tag}")
                    check = (f"idxsum={int(idx.sum())};distsum={float(dist.double().sum()):.9g}")
                    if m == "cdist_exact":
                        exact_idx = idx
                    elif exact_idx is not None:
                        agree = float((idx == exact_idx).double().mean())
                        check += f";agree_exact={agree:.6f}"
                    self.emit(m, "nn", d, n, t, check)
                else:
                    r = a.r if a.r is not None else radius_for(n, d, a.neighbours)
                    r = float(self.np.float32(r))  # the fp32 radius, printed so that it round-trips
                    t, pairs = self.timed(lambda: self.count(X, mode, r), f"{m} count {tag}")
                    self.emit(m, "count", d, n, t, f"pairs={pairs};unordered={pairs // 2};r={r:.9g}")
                    print(f"# {m} count {tag}: r = {r:.6g}, mean neighbours {pairs / n:.2f}", file=sys.stderr)
            del exact_idx
        del X
        if self.dev.type == "cuda":
            torch.cuda.empty_cache()

    def run(self):
        a, np = self.a, self.np
        if a.input is not None:
            P = np.load(a.input)
            if P.ndim != 2 or P.shape[0] < 2:
                fail(f"--input: need a (n, d) array with n >= 2, got shape {P.shape}")
            self.run_points(np.ascontiguousarray(P, dtype=np.float32))
        else:
            for d in a.d:
                for n in a.n:
                    rng = np.random.default_rng(a.seed)
                    self.run_points(rng.random((n, d), dtype=np.float32))
        if self.csv:
            self.csv.close()


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        import numpy as np
        import torch
    except ImportError as e:
        fail(f"needs PyTorch and NumPy ({e})", 3)
    if args.device == "cuda" and not torch.cuda.is_available():
        fail("no CUDA device visible to PyTorch (torch.cuda.is_available() is False); "
             "this peer is timed on the GPU (--device cpu is a smoke test only)", 3)
    dev = torch.cuda.get_device_name() if args.device == "cuda" else "cpu"
    print(f"# torch {torch.__version__}, numpy {np.__version__}, device {dev}", file=sys.stderr)
    if args.csv and os.path.dirname(args.csv):
        os.makedirs(os.path.dirname(args.csv), exist_ok=True)
    Runner(args, torch, np).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
