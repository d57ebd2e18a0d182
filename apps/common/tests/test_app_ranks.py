"""tdmaps-collide, tdmaps-triplets and tdmaps-nbody on MPI ranks (each rank its omega range
of the map's league, the results met on rank 0) against one process of the
same tool: every collide result file byte for byte (count, flags, rowflags,
tileflags, intflags, pairs) for lambda, bb and rb with the tile and element
kernels on 2 and 3 ranks; the ATM energy to 1e-12 relative and the per-particle shares to
1e-12 of the largest, lambda3 and bb3; on 1, 2 and 3 ranks. Also the maps and
kernels ranks cannot split (a usage error, printed once) and the JSON's
"ranks". tdmaps-nbody (when given): a few leapfrog steps of a Plummer
sphere on 2 and 3 ranks (one sum of the accelerations per step), the final
state and forces to 1e-12 of one process's, lambda and bb, fp64. Small
inputs, one OpenMP thread per rank, every run under a timeout.

    TDMAPS_TEST_MPIRUN=mpirun python3 test_app_ranks.py <tdmaps-collide> <tdmaps-triplets> [<tdmaps-nbody>]
"""
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402

COLLIDE, TRIPLETS = sys.argv[1], sys.argv[2]
NBODY = sys.argv[3] if len(sys.argv) > 3 else None
MPIRUN = os.environ.get("TDMAPS_TEST_MPIRUN", "")
if not MPIRUN:
    print("test_app_ranks: this build has no MPI (TDMAPS_TEST_MPIRUN unset): nothing to check")
    print("0 passed, 0 failed")
    sys.exit(0)
MPI = clitest.mpirun_argv(MPIRUN) + ["-x", "OMP_NUM_THREADS=1", "-x", "OMP_PROC_BIND=false"]
ENV = {"OMP_NUM_THREADS": "1", "OMP_PROC_BIND": "false"}


def ranks(p, exe, args):
    return clitest.run(MPI[0], MPI[1:] + ["-n", str(p), exe] + [str(a) for a in args], ENV, timeout=180)


def json_line(out):
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    return __import__("json").loads(lines[-1]) if lines else None


tmp = tempfile.mkdtemp(prefix="tdmaps-app-ranks-")
spheres = os.path.join(tmp, "s.npy")
g = np.random.default_rng(11)
s = np.column_stack([g.random((700, 3)), g.uniform(0.01, 0.05, 700)]).astype(np.float32)
np.save(spheres, s)

# collide: every result, three maps, two kernels, 1 / 2 / 3 ranks against one process.
for result in ["count", "flags", "rowflags", "tileflags", "intflags", "pairs"]:
    for m, k, block in [("lambda", "tile", 32), ("bb", "element", 8), ("rb", "tile", 16)]:
        base = ["--input", spheres, "--result", result, "--map", m, "--kernel", k, "--block", block, "--json"]
        ref_file = os.path.join(tmp, f"ref_{result}_{m}.npy")
        args = base + (["--output", ref_file] if result != "count" else [])
        rc, out, err = clitest.run(COLLIDE, args, ENV)
        clitest.check(rc == 0, f"collide {result} {m} one process", err)
        ref = json_line(out)
        for p in (2, 3):
            f = os.path.join(tmp, f"r{p}_{result}_{m}.npy")
            args = base + (["--output", f] if result != "count" else [])
            rc, out, err = ranks(p, COLLIDE, args)
            what = f"collide {result} {m} {k} on {p} ranks"
            j = json_line(out)
            clitest.check(rc == 0 and j is not None, what + " runs", err)
            if j is None or ref is None:
                continue
            clitest.check(j["count"] == ref["count"], what + f": count {j['count']} == {ref['count']}")
            clitest.check(j["ranks"] == p, what + ": JSON ranks", str(j.get("ranks")))
            clitest.check(len([ln for ln in out.splitlines() if ln.startswith("{")]) == 1, what + ": one JSON line")
            if result != "count":
                same = open(f, "rb").read() == open(ref_file, "rb").read()
                clitest.check(same, what + ": the file equals one process's byte for byte")
        if result == "pairs" and ref is not None:
            want = [(i, j) for i in range(len(s)) for j in range(i)
                    if np.linalg.norm(s[i, :3].astype(np.float64) - s[j, :3]) < float(s[i, 3]) + float(s[j, 3])]
            got = [tuple(r) for r in np.load(ref_file)]
            clitest.check(got == want, f"collide pairs {m}: equal the brute-force list ({len(want)} pairs)")

# What ranks cannot split: a usage error, printed once.
for extra in (["--map", "rec"], ["--map", "hadouken"], ["--kernel", "linear"], ["--map", "utm", "--kernel", "element"]):
    rc, out, err = ranks(2, COLLIDE, ["--random", 100] + extra)
    clitest.check(rc != 0 and err.count("tdmaps-collide: error:") == 1 and "omega ranges" in err,
                  f"collide {' '.join(extra)} on 2 ranks: one clear usage error", err)
rc, out, err = ranks(2, TRIPLETS, ["--random", 50, "--kernel", "dummy3"])
clitest.check(rc != 0 and err.count("tdmaps-triplets: error:") == 1, "triplets dummy3 on 2 ranks: one usage error", err)

# triplets: the ATM energy and the shares.
pts = os.path.join(tmp, "p.npy")
np.save(pts, np.random.default_rng(12).random((90, 3)) * 3.0)
for m, block in [("lambda3", 4), ("bb3", 2), ("lambda3", 8)]:
    for prec in ("fp64", "fp32"):
        ref_file = os.path.join(tmp, f"t_ref_{m}_{block}_{prec}.npy")
        base = ["--input", pts, "--map", m, "--block", block, "--precision", prec, "--json", "--cutoff", "2.0"]
        rc, out, err = clitest.run(TRIPLETS, base + ["--output", ref_file], ENV)
        clitest.check(rc == 0, f"triplets {m} {prec} one process", err)
        ref = json_line(out)
        for p in (1, 2, 3):
            f = os.path.join(tmp, f"t_{p}_{m}_{block}_{prec}.npy")
            rc, out, err = ranks(p, TRIPLETS, base + ["--output", f])
            j = json_line(out)
            what = f"triplets {m} block {block} {prec} on {p} ranks"
            clitest.check(rc == 0 and j is not None, what + " runs", err)
            if j is None or ref is None:
                continue
            e, e1 = j["energy"], ref["energy"]
            clitest.check(abs(e - e1) <= 1e-12 * abs(e1), what + f": energy {e!r} == {e1!r} to 1e-12")
            a, b = np.load(f), np.load(ref_file)
            clitest.check(a.shape == b.shape and np.max(np.abs(a - b)) <= 1e-12 * np.max(np.abs(b)),
                          what + ": shares to 1e-12 of the largest")
            clitest.check(j["ranks"] == p, what + ": JSON ranks")

# nbody: leapfrog steps, each rank its omega range, the accelerations summed every step.
if NBODY:
    for m, block in [("lambda", 32), ("bb", 8)]:
        base = ["--plummer", 150, "--seed", 3, "--softening", "0.02", "--steps", 6, "--dt", "0.01", "--every", 3,
                "--map", m, "--block", block, "--json"]
        ref_state, ref_forces = os.path.join(tmp, f"n_ref_{m}.npy"), os.path.join(tmp, f"n_ref_f_{m}.npy")
        rc, out, err = clitest.run(NBODY, base + ["--output", ref_state, "--forces", ref_forces], ENV)
        clitest.check(rc == 0, f"nbody {m} one process", err)
        ref = json_line(out)
        for p in (2, 3):
            st, fo = os.path.join(tmp, f"n_{p}_{m}.npy"), os.path.join(tmp, f"n_{p}_f_{m}.npy")
            rc, out, err = ranks(p, NBODY, base + ["--output", st, "--forces", fo])
            j = json_line(out)
            what = f"nbody {m} on {p} ranks"
            clitest.check(rc == 0 and j is not None, what + " runs", err)
            if j is None or ref is None:
                continue
            clitest.check(j["ranks"] == p and abs(j["energy"] - ref["energy"]) <= 1e-12 * abs(ref["energy"]),
                          what + f": energy {j['energy']!r} == {ref['energy']!r} to 1e-12")
            clitest.check(len([ln for ln in out.splitlines() if ln.startswith("{")]) == 4, what + ": 3 reports + 1")
            # A host build sums through MPI (NCCL is for CUDA ranks): the report says so.
            clitest.check(ref.get("rank_sums") == "one rank" and j.get("rank_sums", "").startswith("host ("),
                          what + f": rank_sums {j.get('rank_sums')!r} (one process {ref.get('rank_sums')!r})")
            for a, b, name in ((np.load(st), np.load(ref_state), "state"), (np.load(fo), np.load(ref_forces), "forces")):
                clitest.check(a.shape == b.shape and np.max(np.abs(a - b)) <= 1e-12 * np.max(np.abs(b)),
                              what + f": final {name} to 1e-12 of the largest")
    rc, out, err = ranks(2, NBODY, ["--random", 50, "--map", "rec"])
    clitest.check(rc != 0 and err.count("tdmaps-nbody: error:") == 1 and "one-launch" in err,
                  "nbody --map rec on 2 ranks: one clear usage error", err)
sys.exit(clitest.summary())
