"""Two builds of the Python module, A and B, timed on the same GPU in one
call: each case is the best of `--repeat` calls on torch CUDA tensors (the
call to its result, synchronised), A and B alternating over `--rounds`
rounds, each round a fresh process per build. Prints a table (best round of
each build, B / A, each build's spread over its rounds) and whether the
outputs are identical (sha256 of the result's bytes; the N-body
accelerations, sums of atomic adds, by their largest difference instead);
writes every round as JSON lines to --out.

    python3 perf_tests/scripts/python_ab.py --a A_DIR --b B_DIR --out ab.jsonl

A_DIR and B_DIR each hold a tdmaps/ package (e.g. `pip install --target`).
Needs torch with CUDA.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys

# (label, call): the module's calls at their defaults (lambda, rsqrt, exact)
# and lambda's other square roots and its epsilon form.
CASES = [
    ("pdist fp32 d=2 n=16384", "tdmaps.pdist(X2)"),
    ("pdist fp32 d=2 n=16384 sqrt=sqrt", "tdmaps.pdist(X2, sqrt='sqrt')"),
    ("pdist fp32 d=2 n=16384 sqrt=newton", "tdmaps.pdist(X2, sqrt='newton')"),
    ("pdist fp32 d=2 n=16384 sqrt=fp64", "tdmaps.pdist(X2, sqrt='fp64')"),
    ("pdist fp32 d=2 n=16384 form=eps", "tdmaps.pdist(X2, form='eps')"),
    ("pdist fp64 d=4 n=16384 packed", "tdmaps.pdist(X4d, layout='packed')"),
    ("pdist fp32 d=32 n=8192", "tdmaps.pdist(X32)"),
    ("pair_histogram fp32 d=3 n=2^17", "tdmaps.pair_histogram(X3, 64, rmax=0.5)"),
    ("nearest_neighbour fp32 d=3 n=2^17", "tdmaps.nearest_neighbour(X3)"),
    ("count_within fp32 d=3 n=2^17", "tdmaps.count_within(X3, 0.05)"),
    ("k_nearest_neighbours k=8 fp32 d=3 n=2^16", "tdmaps.k_nearest_neighbours(X3h, 8)"),
    ("collide count n=30720", "tdmaps.collide(S)"),
    ("nbody_accelerations fp32 n=2^16", "tdmaps.nbody_accelerations(X3h, M)"),
]

WORKER = r"""
import hashlib, json, sys, time
import numpy as np, torch
import tdmaps
repeat = int(sys.argv[1])
g = np.random.default_rng(7)
dev = torch.device("cuda")
X2 = torch.tensor(g.random((16384, 2), dtype=np.float32), device=dev)
X4d = torch.tensor(g.random((16384, 4)), device=dev)
X32 = torch.tensor(g.random((8192, 32), dtype=np.float32), device=dev)
X3 = torch.tensor(g.random((1 << 17, 3), dtype=np.float32), device=dev)
X3h = X3[: 1 << 16].contiguous()
M = torch.tensor(g.random(1 << 16, dtype=np.float32) + 0.5, device=dev)
s = g.random((30720, 4), dtype=np.float32)
s[:, 3] = 0.002 + 0.004 * s[:, 3]
S = torch.tensor(s, device=dev)
def flat(r):
    if isinstance(r, tuple):
        return [flat(x) for x in r]
    if isinstance(r, torch.Tensor):
        return r.detach().cpu().numpy()
    return np.asarray(r)
def digest(r):
    h = hashlib.sha256()
    for a in (r if isinstance(r, list) else [r]):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()
out = []
for label, call in json.loads(sys.argv[2]):
    f = eval("lambda: " + call)
    r = f(); torch.cuda.synchronize()
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter(); f(); torch.cuda.synchronize()
        best = min(best, time.perf_counter() - t)
    v = flat(r)
    rec = {"case": label, "ms": best * 1e3, "sha256": digest(v)}
    if label.startswith("nbody"):
        rec["values"] = [float(x) for x in np.asarray(v).ravel()[:: 997]]
    out.append(rec)
print(json.dumps(out))
"""


def run(path, repeat):
    env = dict(os.environ, PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-c", WORKER, str(repeat), json.dumps(CASES)], env=env,
                       capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        sys.exit(f"the worker on {path} failed:\n{p.stderr[-4000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="folder holding build A's tdmaps/")
    ap.add_argument("--b", required=True, help="folder holding build B's tdmaps/")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", required=True, help="JSON lines: every round of each build")
    a = ap.parse_args()
    if a.rounds < 1 or a.repeat < 1:
        ap.error("--rounds and --repeat must be >= 1")
    for d in (a.a, a.b):
        if not os.path.isdir(os.path.join(d, "tdmaps")):
            ap.error(f"{d} holds no tdmaps/")
    rounds = {"A": [], "B": []}
    with open(a.out, "w") as f:
        for r in range(a.rounds):
            for name, path in (("A", a.a), ("B", a.b)):
                res = run(path, a.repeat)
                rounds[name].append(res)
                f.write(json.dumps({"round": r, "build": name, "dir": path, "cases": res}) + "\n")
    print("| case | A ms | B ms | B / A | rounds A / B | outputs |")
    print("| --- | --- | --- | --- | --- | --- |")
    for i, (label, _) in enumerate(CASES):
        ta = [x[i]["ms"] for x in rounds["A"]]
        tb = [x[i]["ms"] for x in rounds["B"]]
        ha = {x[i]["sha256"] for x in rounds["A"]}
        hb = {x[i]["sha256"] for x in rounds["B"]}
        if label.startswith("nbody"):
            va = rounds["A"][0][i]["values"]
            vb = rounds["B"][0][i]["values"]
            scale = max(abs(x) for x in va) or 1.0
            same = "max |A - B| / max |A| = %.2e" % (max(abs(x - y) for x, y in zip(va, vb)) / scale)
        else:
            same = "identical" if ha == hb and len(ha) == 1 else "DIFFER"
        spread = lambda t: 100 * (max(t) - min(t)) / min(t)
        print("| %s | %.3f | %.3f | %.3f | %.2f%% / %.2f%% | %s |"
              % (label, min(ta), min(tb), min(tb) / min(ta), spread(ta), spread(tb), same))


if __name__ == "__main__":
    main()
