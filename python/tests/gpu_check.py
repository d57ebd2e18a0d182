"""The CUDA build's check, run by hand on a GPU machine (CTest registers only
the host tests): tdmaps.pdist, the reductions (pair_histogram,
nearest_neighbour, k_nearest_neighbours, count_within) and tdmaps.collide on device tensors against
torch.pdist, SciPy and a brute force, the results' memory and kind, CuPy
arrays when CuPy is importable, a DLPack-only object, a profile of the calls
on device tensors (no copy of the data between host and device), then the
timing of tdmaps.pdist against torch.pdist at n = 30720, d = 4, fp32 (call to
result, synchronised), printed as a CSV line and a JSON line.

    PYTHONPATH=<cuda build>/python python3 python/tests/gpu_check.py [--n 30720] [--repeat 10]

Prints every failed check and exits 1 on any; 2 when it cannot run (no
torch, no GPU, a host build of tdmaps).
"""

import argparse
import json
import sys
import time

import numpy as np
from scipy.spatial.distance import pdist as scipy_pdist

failures = []
checks = 0


def check(ok, what):
    global checks
    checks += 1
    if not ok:
        failures.append(what)
        print("FAIL: " + what, flush=True)


def close(got, want, rtol, what):
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        check(False, "%s: shape %s, expected %s" % (what, got.shape, want.shape))
        return
    same_nan = np.array_equal(np.isnan(got), np.isnan(want))
    err = np.abs(got - want)[~np.isnan(want)]
    scale = np.abs(want)[~np.isnan(want)]
    worst = float(np.max(err / np.maximum(scale, 1e-300))) if err.size else 0.0
    check(same_nan and bool(np.all(err <= rtol * scale)), "%s: max relative difference %.3g > %.3g" % (what, worst, rtol))


def rtol(dtype, d):
    return 1e-12 if dtype == "float64" else (d + 4) * float(np.finfo(np.float32).eps)


def on_device(tdmaps, t, what):
    import torch

    check(isinstance(t, torch.Tensor) and t.is_cuda, "%s: result is not a CUDA torch tensor (%s)" % (what, type(t)))
    if isinstance(t, torch.Tensor) and t.numel() > 0:
        kind = tdmaps._tdmaps.pointer_memory(t.data_ptr())
        check(kind == "device", "%s: result memory is %s, not device" % (what, kind))


def pdist_checks(tdmaps, torch, dev):
    from scipy.spatial.distance import squareform

    g = torch.Generator(device="cpu").manual_seed(7)
    for n, d in [(2, 1), (3, 2), (97, 3), (1000, 4), (4097, 5), (300, 64)]:
        for dtype in ["float32", "float64"]:
            Xh = torch.rand(n, d, generator=g, dtype=getattr(torch, dtype)) * 10
            X = Xh.to(dev)
            what = "pdist n=%d d=%d %s" % (n, d, dtype)
            got = tdmaps.pdist(X)
            on_device(tdmaps, got, what)
            check(got.dtype == X.dtype and got.device == X.device, what + ": dtype or device differs from X's")
            close(got.cpu().numpy(), torch.pdist(X).cpu().numpy(), 4 * rtol(dtype, d), what + " vs torch.pdist")
            ref = scipy_pdist(Xh.numpy().astype(np.float64))
            close(got.cpu().numpy(), ref, rtol(dtype, d), what + " vs scipy")
            close(tdmaps.pdist(X, "sqeuclidean").cpu().numpy(), ref**2, 2 * rtol(dtype, d), what + " sqeuclidean")
            full = tdmaps.pdist(X, layout="full")
            on_device(tdmaps, full, what + " full")
            close(full.cpu().numpy(), squareform(ref), rtol(dtype, d), what + " full")
            packed = tdmaps.pdist(X, layout="packed")
            close(packed.cpu().numpy(), squareform(ref)[np.tril_indices(n)], rtol(dtype, d), what + " packed")
            staged = tdmaps.pdist(Xh.numpy())  # a host array on the CUDA build: staged through the device
            check(isinstance(staged, np.ndarray), what + ": a NumPy input did not give a NumPy result")
            close(staged, ref, rtol(dtype, d), what + " numpy input")
    X = torch.rand(513, 3, device=dev)
    ref = scipy_pdist(X.cpu().numpy().astype(np.float64))
    for m in tdmaps.maps:
        for kernel in ["auto", "element", "linear"] + ([] if m == "utm" else ["tile"]):
            close(tdmaps.pdist(X, map=m, kernel=kernel).cpu().numpy(), ref, rtol("float32", 3),
                  "pdist map=%s kernel=%s" % (m, kernel))
    out = torch.full((513 * 512 // 2,), float("nan"), device=dev)
    check(tdmaps.pdist(X, out=out) is out, "pdist out=: not the same tensor returned")
    close(out.cpu().numpy(), ref, rtol("float32", 3), "pdist out=")
    for bad, exc, what in [(X.t(), ValueError, "non-C-order tensor"), (X.to(torch.int32), TypeError, "int tensor")]:
        try:
            tdmaps.pdist(bad)
            check(False, "pdist of a %s did not raise" % what)
        except exc:
            check(True, "")
    close(tdmaps.pdist(X.t().contiguous().t(), copy=True).cpu().numpy(), ref, rtol("float32", 3), "pdist copy=True")

    class DLPackOnly:
        """A device array known only through DLPack (the C++ DLPack reader)."""

        def __init__(self, t):
            self.t = t

        def __dlpack__(self, stream=None):
            return self.t.__dlpack__()

        def __dlpack_device__(self):
            return self.t.__dlpack_device__()

    out = torch.empty(513 * 512 // 2, device=dev)
    tdmaps.pdist(DLPackOnly(X), out=out)
    close(out.cpu().numpy(), ref, rtol("float32", 3), "pdist of a DLPack-only object")


def collide_checks(tdmaps, torch, dev):
    rng = np.random.default_rng(3)
    s = np.floor(rng.random((700, 4)) * 2**24) / 2**24
    s[:, 3] = 0.02 + np.floor(rng.random(700) * 0.1 * 2**24) / 2**24
    s = s.astype(np.float32)
    c = s.astype(np.float64)
    mask = ((c[:, None, :3] - c[None, :, :3]) ** 2).sum(axis=2) < (c[:, None, 3] + c[None, :, 3]) ** 2
    want = np.argwhere(np.tril(mask, -1))
    S = torch.from_numpy(s).to(dev)
    for m in tdmaps.maps:
        for kernel in ["tile", "element", "linear"]:
            if m == "utm" and kernel == "tile":
                continue
            what = "collide map=%s kernel=%s" % (m, kernel)
            check(tdmaps.collide(S, map=m, kernel=kernel) == len(want), what + ": count")
            pairs = tdmaps.collide(S, "pairs", map=m, kernel=kernel)
            on_device(tdmaps, pairs, what + " pairs")
            check(np.array_equal(pairs.cpu().numpy(), want), what + ": pairs differ from the brute force")
            ints = tdmaps.collide(S, "intflags", map=m, kernel=kernel)
            check(np.array_equal(ints.cpu().numpy(), mask[np.tril_indices(700, -1)].astype(np.int32)),
                  what + ": intflags")
    check(np.array_equal(tdmaps.collide(s, "pairs"), want), "collide of a NumPy input (staged)")


def reduce_checks(tdmaps, torch, dev):
    from scipy.spatial.distance import cdist

    g = torch.Generator(device="cpu").manual_seed(11)
    for n, d in [(2, 3), (300, 2), (2049, 3), (5000, 4)]:
        for dtype in ["float32", "float64"]:
            Xh = torch.rand(n, d, generator=g, dtype=getattr(torch, dtype))
            X = Xh.to(dev)
            what = "reduce n=%d d=%d %s" % (n, d, dtype)
            x64 = Xh.numpy().astype(np.float64)
            r = scipy_pdist(x64)
            D = cdist(x64, x64)
            np.fill_diagonal(D, np.inf)
            for m in ["lambda", "bb", "rec"]:
                h = tdmaps.pair_histogram(X, 50, rmax=1.2, map=m)
                on_device(tdmaps, h, what + " hist")
                t = r * (50 / 1.2)
                want = np.bincount(np.minimum(np.floor(t[r < 1.2]).astype(np.int64), 49), minlength=50)
                edge = int(np.sum(np.abs(t - np.round(t)) <= 1e-5 * np.maximum(t, 1)))
                diff = int(np.abs(h.cpu().numpy() - want).sum())
                check(diff == 0 if dtype == "float64" else diff <= 2 * edge,
                      "%s map=%s: histogram differs by %d (pairs near an edge: %d)" % (what, m, diff, edge))
                dist, idx = tdmaps.nearest_neighbour(X, map=m)
                on_device(tdmaps, dist, what + " nn dist")
                on_device(tdmaps, idx, what + " nn index")
                check(dist.dtype == X.dtype and idx.dtype == torch.int64, what + ": nn dtypes")
                close(dist.cpu().numpy(), D.min(axis=1), rtol(dtype, d) * 4, what + " nn distance map=" + m)
                at = D[np.arange(n), idx.cpu().numpy()]
                check(bool(np.all(at <= D.min(axis=1) * (1 + 8 * rtol(dtype, d)))),
                      what + " map=%s: an nn index is not a nearest point" % m)
                c = tdmaps.count_within(X, 0.1, map=m)
                cw = int(np.sum(r < 0.1))
                near = int(np.sum(np.abs(r - 0.1) <= 1e-6))
                check(abs(c - cw) <= (0 if dtype == "float64" else near), "%s map=%s: count %d, brute force %d" % (what, m, c, cw))
            hs = tdmaps.pair_histogram(Xh.numpy(), 50, rmax=1.2)  # NumPy input: staged through the device
            check(isinstance(hs, np.ndarray), what + ": a NumPy input did not give a NumPy histogram")
            check(np.array_equal(hs, tdmaps.pair_histogram(X, 50, rmax=1.2).cpu().numpy()), what + ": staged histogram")
    Xu = torch.rand(700, 3, generator=g).to(dev)
    want = int(np.sum(scipy_pdist(Xu.cpu().numpy().astype(np.float64)) < 0.2))
    got = tdmaps.count_within(Xu, 0.2, map="utm")
    near = int(np.sum(np.abs(scipy_pdist(Xu.cpu().numpy().astype(np.float64)) - 0.2) <= 1e-6))
    check(abs(got - want) <= near, "count_within map=utm: %d, brute force %d" % (got, want))


def knn_checks(tdmaps, torch, dev):
    """k_nearest_neighbours on device tensors against SciPy's cdist in fp64:
    each row's distances sorted and within the precision's tolerance of the
    k smallest, each index at its distance, column 0 nearest_neighbour's."""
    from scipy.spatial.distance import cdist

    g = torch.Generator(device="cpu").manual_seed(13)
    for n, d, k in [(2, 3, 1), (300, 5, 7), (2049, 17, 16), (1500, 130, 64)]:
        for dtype in ["float32", "float64"]:
            Xh = torch.rand(n, d, generator=g, dtype=getattr(torch, dtype))
            X = Xh.to(dev)
            what = "knn n=%d d=%d k=%d %s" % (n, d, k, dtype)
            x64 = Xh.numpy().astype(np.float64)
            D = cdist(x64, x64)
            np.fill_diagonal(D, np.inf)
            want = np.sort(D, axis=1)[:, :k]
            for m in ["lambda", "bb", "rec"]:
                dist, idx = tdmaps.k_nearest_neighbours(X, k, map=m)
                on_device(tdmaps, dist, what + " dist")
                on_device(tdmaps, idx, what + " index")
                check(tuple(dist.shape) == (n, k) and tuple(idx.shape) == (n, k), what + ": shapes")
                check(dist.dtype == X.dtype and idx.dtype == torch.int64, what + ": dtypes")
                dh, ih = dist.cpu().numpy().astype(np.float64), idx.cpu().numpy()
                check(bool(np.all(np.diff(dh, axis=1) >= 0)), what + " map=%s: rows not sorted" % m)
                close(dh, want, rtol(dtype, d) * 4, what + " distances map=" + m)
                close(D[np.arange(n)[:, None], ih], dh, rtol(dtype, d) * 4, what + " index at its distance map=" + m)
                check(all(len(set(r)) == k for r in ih.tolist()), what + " map=%s: an index twice in a row" % m)
                d1, i1 = tdmaps.nearest_neighbour(X, map=m)
                check(bool(torch.equal(i1, idx[:, 0])), what + " map=%s: column 0 is not nearest_neighbour's" % m)


def profile_checks(tdmaps, torch, dev):
    """The calls on device tensors copy no data between host and device: in a
    CUPTI profile of each, host <-> device copies total less than 4 KiB
    (launch parameters at most; the input is 64 KiB, pdist's result 33 MB)."""
    import os
    import tempfile

    X = torch.rand(4096, 4, device=dev)
    calls = {
        "pdist": lambda: tdmaps.pdist(X),
        "pair_histogram": lambda: tdmaps.pair_histogram(X, 64, rmax=1.0),
        "nearest_neighbour": lambda: tdmaps.nearest_neighbour(X),
        "collide": lambda: tdmaps.collide(torch.cat([X[:, :3], X[:, 3:] * 0.01], 1).contiguous(), "intflags"),
    }
    for name, call in calls.items():
        call()
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            r = call()
            torch.cuda.synchronize()
        del r
        path = os.path.join(tempfile.mkdtemp(), "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            events = json.load(f).get("traceEvents", [])
        kernels = [e for e in events if e.get("cat") == "kernel"]
        copies = [e for e in events if e.get("cat") == "gpu_memcpy" and ("HtoD" in e.get("name", "") or "DtoH" in e.get("name", ""))]
        moved = sum(int(e.get("args", {}).get("bytes", 0)) for e in copies)
        print("profile %s: %d kernels, %d host<->device copies, %d bytes" % (name, len(kernels), len(copies), moved), flush=True)
        check(len(kernels) > 0, "profile %s: no kernel in the profile (CUPTI unavailable?)" % name)
        check(moved < 4096, "profile %s: %d bytes copied between host and device" % (name, moved))


def cupy_checks(tdmaps):
    try:
        import cupy
    except ImportError:
        print("cupy: not importable, its checks skipped", flush=True)
        return
    X = cupy.random.random((1000, 3), dtype=cupy.float64)
    got = tdmaps.pdist(X)
    check(isinstance(got, cupy.ndarray), "cupy: result is %s, not a cupy array" % type(got))
    kind = tdmaps._tdmaps.pointer_memory(got.data.ptr)
    check(kind == "device", "cupy: result memory is %s" % kind)
    close(cupy.asnumpy(got), scipy_pdist(cupy.asnumpy(X)), 1e-12, "cupy pdist vs scipy")


def timing(tdmaps, torch, dev, n, repeat):
    X = torch.rand(n, 4, device=dev, dtype=torch.float32)

    def timed(f):
        f()  # warm-up: module load, allocator pools
        torch.cuda.synchronize()
        best = float("inf")
        for _ in range(repeat):
            torch.cuda.synchronize()
            t = time.perf_counter()
            r = f()
            torch.cuda.synchronize()
            best = min(best, time.perf_counter() - t)
            del r
        return best

    t_ours = timed(lambda: tdmaps.pdist(X))
    torch.cuda.empty_cache()
    t_torch = timed(lambda: torch.pdist(X))
    a = tdmaps.pdist(X)
    close(a[:: 4099].cpu().numpy(), torch.pdist(X)[:: 4099].cpu().numpy(), 1e-5, "timing case vs torch.pdist")
    del a
    row = {"n": n, "d": 4, "dtype": "float32", "device": torch.cuda.get_device_name(dev), "repeat": repeat,
           "ms_tdmaps": 1e3 * t_ours, "ms_torch_pdist": 1e3 * t_torch, "speedup": t_torch / t_ours,
           "tdmaps_backend": tdmaps.backend, "torch": torch.__version__}
    print("n,d,dtype,ms_tdmaps,ms_torch_pdist,speedup")
    print("%d,4,float32,%.3f,%.3f,%.3f" % (n, row["ms_tdmaps"], row["ms_torch_pdist"], row["speedup"]))
    print(json.dumps(row), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=30720)
    p.add_argument("--repeat", type=int, default=10)
    a = p.parse_args()
    try:
        import torch
    except ImportError:
        print("gpu_check: torch is not importable", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("gpu_check: torch sees no CUDA device", file=sys.stderr)
        return 2
    import tdmaps

    if not tdmaps.info()["device"]:
        print("gpu_check: this tdmaps is a host build (%s); build with the cuda preset" % tdmaps.backend, file=sys.stderr)
        return 2
    print("tdmaps %s, %s" % (tdmaps.__file__, tdmaps.info()), flush=True)
    dev = torch.device("cuda", torch.cuda.current_device())
    pdist_checks(tdmaps, torch, dev)
    reduce_checks(tdmaps, torch, dev)
    knn_checks(tdmaps, torch, dev)
    collide_checks(tdmaps, torch, dev)
    cupy_checks(tdmaps)
    profile_checks(tdmaps, torch, dev)
    timing(tdmaps, torch, dev, a.n, a.repeat)
    print("gpu_check: %d checks, %d failed" % (checks, len(failures)), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
