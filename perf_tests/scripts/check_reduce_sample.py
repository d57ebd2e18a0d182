"""Checks the device batch's reductions against brute force on the host:
the 20,000-point runs exactly (histogram, nearest neighbour, count), the
10^6-point nearest neighbours on a sample of 300 points.

    python3 check_reduce_sample.py OUT
"""
import json
import sys

import numpy as np

out = sys.argv[1]


def sq(x, rows):
    """Squared distances as the CUDA kernels form them: s = fma(t, t, s) in
    fp32 (t * t is exact in fp64, so fp64 then one rounding emulates it)."""
    s = np.zeros((len(rows), len(x)), dtype=np.float32)
    for k in range(x.shape[1]):
        t = (x[rows, None, k] - x[None, :, k]).astype(np.float64)
        s = (t * t + s.astype(np.float64)).astype(np.float32)
    return s


def nn_of(x, rows):
    s = sq(x, rows)
    s[np.arange(len(rows)), rows] = np.inf
    idx = np.argmin(s, axis=1)
    return idx, np.sqrt(s[np.arange(len(rows)), idx]).astype(np.float64)


x = np.load(out + "/p20k.npy")
n = len(x)
hist = np.zeros(64, dtype=np.int64)
count = 0
for a in range(0, n, 2000):
    rows = np.arange(a, min(n, a + 2000))
    r = np.sqrt(sq(x, rows))
    mask = np.arange(n)[None, :] > rows[:, None]
    v = r[mask]
    keep = v < np.float32(1.0)
    b = np.minimum((v[keep] * (np.float32(64) / np.float32(1.0))).astype(np.int64), 63)
    hist += np.bincount(b, minlength=64)
    count += int(np.count_nonzero(v < np.float32(0.05)))
got = np.load(out + "/hist_20k.npy")
print(f"hist 20k: {int(np.abs(got - hist).sum())} pair(s) in another bin than the host's (of {n * (n - 1) // 2})")
idx, dist = nn_of(x, np.arange(n))
g = np.load(out + "/nn_20k.npy")
print(f"nn 20k: {int(np.count_nonzero(g[:, 0] != idx))} index and {int(np.count_nonzero(g[:, 1] != dist))} distance "
      f"mismatches of {n}")
for line in open(out + "/scale.jsonl"):
    j = json.loads(line)
    if j.get("reduce") == "count" and j["n"] == n:
        print(f"count 20k: device {j['count']} host {count}")
x = np.load(out + "/p1m.npy")
rows = np.random.default_rng(1).choice(len(x), 300, replace=False)
idx, dist = nn_of(x, rows)
for m in ["lambda", "bb"]:
    g = np.load(out + f"/nn_1m_{m}.npy")
    bad_i = int(np.count_nonzero(g[rows, 0] != idx))
    bad_d = int(np.count_nonzero(g[rows, 1] != dist))
    print(f"nn 1m {m}: sample of 300: {bad_i} index, {bad_d} distance mismatches")
h = [np.load(out + f"/hist_1m_{m}.npy") for m in ["lambda", "bb"]]
print(f"hist 1m: lambda and bb equal: {bool(np.array_equal(h[0], h[1]))}; pairs counted {int(h[0].sum())}")
