#!/usr/bin/env python3
"""CLI test of tdmaps-nbody against a NumPy oracle.

Usage: test_cli.py PATH/TO/tdmaps-nbody

Checks, on bodies generated here (fixed seeds), that the accelerations and
energy shares (--forces) and the potential energy (text and --json) agree
with a NumPy fp64 oracle (every ordered pair, each law's force from its
formula) for gravity, Lennard-Jones (cut and shifted) and Coulomb, every
block-space map, fp64 and fp32, .npy and .csv input with and without
velocities; that --steps gives the leapfrog of a NumPy twin, reports every
--every steps (JSON lines of the report schema), writes (frames, n, 3)
snapshots and an (n, 7) final state; that --plummer and --random with
--save-input agree with the oracle on what they saved; that n = 1 runs; and
that bad input and options exit non-zero with a message and leave no output
file behind.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "common", "tests"))
import clitest  # noqa: E402
from clitest import check  # noqa: E402

EXE = None


def run(args, env_extra=None):
    return clitest.run(EXE, args, env_extra)


def oracle(x, m, q=None, law="gravity", G=1.0, eps=0.0, sigma=1.0, epsilon=1.0, cutoff=np.inf, k=1.0):
    """(n, 4) accelerations and energy shares, and the scale of each (sums of |terms|); fp64, all i != j."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    r = x[:, None, :] - x[None, :, :]  # x_i - x_j
    r2 = (r ** 2).sum(axis=2)
    off = ~np.eye(n, dtype=bool)
    if law == "gravity":
        d2 = np.where(off, r2 + eps * eps, 1.0)
        d = np.sqrt(d2)
        f = np.where(off[..., None], -G * (m[:, None] * m[None, :])[..., None] * r / (d2 * d)[..., None], 0.0)
        u = np.where(off, -G * m[:, None] * m[None, :] / d, 0.0)
    elif law == "coulomb":
        d2 = np.where(off, r2 + eps * eps, 1.0)
        d = np.sqrt(d2)
        kqq = k * q[:, None] * q[None, :]
        f = np.where(off[..., None], (kqq / (d2 * d))[..., None] * r, 0.0)
        u = np.where(off, kqq / d, 0.0)
    else:
        safe = np.where(off, r2, 1.0)
        inside = off & (np.sqrt(safe) < cutoff)
        s6 = (sigma * sigma / safe) ** 3
        shift = 0.0 if np.isinf(cutoff) else 4 * epsilon * ((sigma / cutoff) ** 12 - (sigma / cutoff) ** 6)
        f = np.where(inside[..., None], (24 * epsilon * (2 * s6 * s6 - s6) / safe)[..., None] * r, 0.0)
        u = np.where(inside, 4 * epsilon * (s6 * s6 - s6) - shift, 0.0)
    a = np.zeros((n, 4))
    scale = np.zeros((n, 4))
    a[:, :3] = f.sum(axis=1) / m[:, None]
    scale[:, :3] = np.abs(f).sum(axis=1) / m[:, None]
    a[:, 3] = 0.5 * u.sum(axis=1)
    scale[:, 3] = 0.5 * np.abs(u).sum(axis=1)
    return a, scale


def close(got, want, scale, tol):
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= tol * scale + 1e-300))


def bodies(n, seed, cols=4, spread=1.0):
    """(n, cols) x, y, z, m [, vx, vy, vz] [, q], values exact in float32."""
    rng = np.random.default_rng(seed)
    b = np.zeros((n, cols))
    b[:, :3] = rng.uniform(-spread, spread, (n, 3))
    b[:, 3] = rng.uniform(0.5, 2.0, n)
    if cols >= 7:
        b[:, 4:7] = rng.uniform(-0.1, 0.1, (n, 3))
    if cols in (5, 8):
        b[:, -1] = rng.choice([-1.0, 1.0], n) * rng.uniform(0.5, 1.5, n)
    return b.astype(np.float32).astype(np.float64)  # exact in fp32: fp32 runs see the oracle's input


def leapfrog(x, v, m, steps, dt, **law):
    """The NumPy twin of --steps: kick, drift, forces, kick; energies at the end."""
    a, _ = oracle(x, m, **law)
    for _ in range(steps):
        v = v + 0.5 * dt * a[:, :3]
        x = x + dt * v
        a, _ = oracle(x, m, **law)
        v = v + 0.5 * dt * a[:, :3]
    return x, v, a


def main():
    global EXE
    EXE = clitest.tool_argument("usage: test_cli.py PATH/TO/tdmaps-nbody")
    with tempfile.TemporaryDirectory() as tmp:
        def T(name):
            return os.path.join(tmp, name)

        # Forces of every law, map, precision and input format against the oracle.
        laws = [("gravity", 4, ["--softening", "0.05", "--G", "0.7"], dict(law="gravity", G=0.7, eps=0.05), 1.0),
                ("lj", 4, ["--sigma", "0.3", "--epsilon", "1.5", "--cutoff", "1.5"],
                 dict(law="lj", sigma=0.3, epsilon=1.5, cutoff=1.5), 4.0),
                ("coulomb", 5, ["--k", "2", "--softening", "0.1"], dict(law="coulomb", k=2.0, eps=0.1), 1.0)]
        for name, cols, opts, law, spread in laws:
            for n in (2, 37, 130):
                b = bodies(n, 10 + n, cols, spread)
                q = b[:, -1] if name == "coulomb" else None
                want, scale = oracle(b[:, :3], b[:, 3], q, **law)
                np.save(T("in.npy"), b)
                for mp, block, precision, tol in (("lambda", 32, "fp64", 1e-12), ("bb", 8, "fp32", 3e-5),
                                                  ("rec", 16, "fp64", 1e-12), ("hadouken", 32, "fp32", 3e-5),
                                                  ("rb", 8, "fp64", 1e-12)):
                    args = ["--input", T("in.npy"), "--law", name, "--map", mp, "--block", block, "--precision",
                            precision, "--forces", T("f.npy"), "--json"] + opts
                    rc, out, err = run(args)
                    ok = rc == 0
                    if ok:
                        got = np.load(T("f.npy"))
                        rep = json.loads(out)
                        ok = (close(got, want, scale, tol) and rep["n"] == n and rep["elements"] == n * (n - 1) // 2 and
                              abs(rep["potential"] - want[:, 3].sum()) <= tol * scale[:, 3].sum())
                        os.remove(T("f.npy"))
                    check(ok, f"{name} n = {n} {mp} {block} {precision}: differs from the oracle (rc {rc}, {err.strip()})")
        # .csv input with velocities: the same forces.
        b = bodies(50, 3, 7)
        np.savetxt(T("in.csv"), b, delimiter=",")
        want, scale = oracle(b[:, :3], b[:, 3])
        rc, out, err = run(["--input", T("in.csv"), "--forces", T("f.npy"), "--softening", "0"])
        check(rc == 0 and close(np.load(T("f.npy")), want, scale, 1e-12), f".csv input: rc {rc} {err}")

        # Time stepping against the NumPy twin; reports, snapshots, final state.
        b = bodies(40, 5, 7)
        np.save(T("in7.npy"), b)
        steps, every, dt = 12, 4, 0.01
        rc, out, err = run(["--input", T("in7.npy"), "--softening", "0.1", "--steps", steps, "--dt", dt, "--every", every,
                            "--snapshots", T("snap.npy"), "--output", T("final.npy"), "--forces", T("f.npy"), "--json"])
        ok = rc == 0
        if ok:
            lines = [json.loads(line) for line in out.splitlines()]
            x, v, a = leapfrog(b[:, :3], b[:, 4:7], b[:, 3], steps, dt, law="gravity", eps=0.1)
            final = np.load(T("final.npy"))
            snap = np.load(T("snap.npy"))
            x4, _, _ = leapfrog(b[:, :3], b[:, 4:7], b[:, 3], 4, dt, law="gravity", eps=0.1)
            kinetic = 0.5 * (b[:, 3] * (v ** 2).sum(axis=1)).sum()
            last = lines[-1]
            ok = ([ln["mode"] for ln in lines] == ["nbody_step"] * 4 + ["nbody"] and
                  [ln["step"] for ln in lines] == [0, 4, 8, 12, 12] and
                  final.shape == (40, 7) and np.allclose(final[:, :3], x, rtol=0, atol=1e-12) and
                  np.allclose(final[:, 4:7], v, rtol=0, atol=1e-12) and np.array_equal(final[:, 3], b[:, 3]) and
                  snap.shape == (4, 40, 3) and np.array_equal(snap[0], b[:, :3]) and
                  np.allclose(snap[1], x4, rtol=0, atol=1e-12) and np.allclose(snap[3], x, rtol=0, atol=1e-12) and
                  np.allclose(np.load(T("f.npy"))[:, :3], a[:, :3], rtol=0, atol=1e-10) and
                  abs(last["kinetic"] - kinetic) <= 1e-12 * kinetic and
                  abs(last["energy_drift"] - (last["energy"] - lines[0]["energy"]) / abs(lines[0]["energy"])) < 1e-15 and
                  np.allclose(last["momentum"], (b[:, 3:4] * b[:, 4:7]).sum(axis=0), rtol=0, atol=1e-12))
        check(ok, f"--steps: differs from the NumPy leapfrog (rc {rc}, {err.strip()})")
        # Text reports: one line per report.
        rc, out, err = run(["--input", T("in7.npy"), "--softening", "0.1", "--steps", 5, "--dt", dt, "--every", 2])
        check(rc == 0 and [ln.split()[1] for ln in out.splitlines() if ln.startswith("step ")] == ["0", "2", "4", "5"],
              f"text reports: rc {rc} {out}")

        # --plummer and --random: the saved bodies give the reported energy; a Plummer sphere has E near -1/4.
        for gen, n in (("--plummer", 300), ("--random", 200)):
            rc, out, err = run([gen, n, "--seed", 4, "--softening", "0.01", "--save-input", T("gen.npy"), "--json"])
            ok = rc == 0
            if ok:
                g = np.load(T("gen.npy"))
                want, _ = oracle(g[:, :3], g[:, 3], law="gravity", eps=0.01)
                kin = 0.5 * (g[:, 3] * (g[:, 4:7] ** 2).sum(axis=1)).sum()
                rep = json.loads(out)
                ok = (g.shape == (n, 7) and abs(rep["potential"] - want[:, 3].sum()) < 1e-9 and
                      abs(rep["kinetic"] - kin) < 1e-12 and abs(g[:, 3].sum() - 1.0) < 1e-12 and
                      rep["generator"] == gen[2:] and
                      (gen == "--random" or abs(rep["energy"] + 0.25) < 0.05))
                os.remove(T("gen.npy"))
            check(ok, f"{gen}: rc {rc} {out} {err}")
        # n = 1: no pairs, zero acceleration, a warning.
        np.save(T("one.npy"), bodies(1, 1))
        rc, out, err = run(["--input", T("one.npy"), "--forces", T("f1.npy")])
        check(rc == 0 and np.array_equal(np.load(T("f1.npy")), np.zeros((1, 4))) and "no pairs" in err,
              f"n = 1: rc {rc} {err}")

        # Every file written as an input (--output, --save-input) starts a next run under the same options,
        # the charges included: two runs of 3 steps give the NumPy leapfrog of 6.
        for name, opts, law in (("gravity", ["--softening", "0.1", "--G", "0.7"], dict(law="gravity", G=0.7, eps=0.1)),
                                ("lj", ["--sigma", "0.3", "--cutoff", "1.5"], dict(law="lj", sigma=0.3, cutoff=1.5)),
                                ("coulomb", ["--k", "2", "--softening", "0.1"], dict(law="coulomb", k=2.0, eps=0.1))):
            b = bodies(30, 7, 8 if name == "coulomb" else 7, 4.0 if name == "lj" else 1.0)
            if name == "coulomb":
                law["q"] = b[:, 7]
            np.save(T("rt0.npy"), b)
            common = ["--law", name, "--steps", 3, "--dt", 0.01] + opts
            rc1, _, err1 = run(["--input", T("rt0.npy"), "--output", T("rt1.npy")] + common)
            rc2, _, err2 = run(["--input", T("rt1.npy"), "--output", T("rt2.npy"), "--forces", T("rtf.npy")] + common)
            ok = rc1 == 0 and rc2 == 0
            if ok:
                x, v, a = leapfrog(b[:, :3], b[:, 4:7], b[:, 3], 6, 0.01, **law)
                out1, out2 = np.load(T("rt1.npy")), np.load(T("rt2.npy"))
                ok = (out1.shape == out2.shape == b.shape and np.array_equal(out2[:, 3], b[:, 3]) and
                      np.array_equal(out2[:, 7:], b[:, 7:]) and np.allclose(out2[:, :3], x, rtol=0, atol=1e-12) and
                      np.allclose(out2[:, 4:7], v, rtol=0, atol=1e-12) and
                      np.allclose(np.load(T("rtf.npy"))[:, :3], a[:, :3], rtol=1e-12, atol=1e-12))
            check(ok, f"{name}: --output as the next --input: rc {rc1} {rc2} ({err1.strip()} {err2.strip()})")
        rc, out, err = run(["--random", 40, "--law", "coulomb", "--softening", "0.1", "--save-input", T("gq.npy"), "--json"])
        rc2, out2, err2 = run(["--input", T("gq.npy"), "--law", "coulomb", "--softening", "0.1", "--json"])
        ok = rc == 0 and rc2 == 0
        if ok:
            g = np.load(T("gq.npy"))
            want, scale = oracle(g[:, :3], g[:, 3], g[:, 7], law="coulomb", eps=0.1)
            ok = (g.shape == (40, 8) and np.array_equal(g[:, 7], np.where(np.arange(40) % 2, -1.0, 1.0)) and
                  all(abs(json.loads(o)["potential"] - want[:, 3].sum()) <= 1e-12 * scale[:, 3].sum() for o in (out, out2)))
        check(ok, f"coulomb --save-input as --input: rc {rc} {rc2} {err} {err2}")

        # A force evaluation that is not finite from finite inputs fails (exit 1), naming the first body and a
        # cause of its law and precision; fp64 takes the same bodies and matches the oracle. Parameters that do
        # not fit the precision are refused up front (exit 2), values named as typed.
        near = {"gravity": ([[0, 0, 0, 1], [1e-13, 0, 0, 1], [1, 1, 1, 1]], [], ["softening", "fp64"]),
                "coulomb": ([[0, 0, 0, 1, 1], [1e-13, 0, 0, 1, -1], [1, 1, 1, 1, 1]], ["--law", "coulomb"],
                            ["softening", "fp64"]),
                "lj": ([[0, 0, 0, 1], [1e-3, 0, 0, 1], [3, 3, 3, 1]], ["--law", "lj"], ["(sigma/r)^12", "fp64"])}
        for name, (rows, opts, words) in near.items():
            c = np.array(rows, dtype=np.float64)
            np.save(T("near.npy"), c)
            for more in ([], ["--steps", 2, "--dt", 1e-3, "--snapshots", T("ns.npy")]):
                rc, out, err = run(["--input", T("near.npy"), "--precision", "fp32", "--forces", T("nf.npy")] + opts + more)
                msg = err.lower()
                check(rc == 1 and "body 0: acceleration (" in msg and "not finite in float32" in msg and
                      "body 1 is only" in msg and all(w in msg for w in words) and
                      ("--softening" not in msg) == (name == "lj") and (not more or "step 0" in msg) and
                      not os.path.exists(T("nf.npy")) and not os.path.exists(T("ns.npy")),
                      f"{name} fp32 near-coincident {more}: rc {rc}, {err.strip()!r}")
            rc, out, err = run(["--input", T("near.npy"), "--forces", T("nf.npy")] + opts)
            want, scale = oracle(c[:, :3], c[:, 3], c[:, 4] if name == "coulomb" else None, law=name)
            check(rc == 0 and close(np.load(T("nf.npy")), want, scale, 1e-12), f"{name} fp64 near-coincident: rc {rc} {err}")
            os.path.exists(T("nf.npy")) and os.remove(T("nf.npy"))
        lim = np.zeros((18, 4))  # a grid of side 2: G / r fits float32 at G = 3e38
        lim[:, :3] = 2.0 * np.stack(np.meshgrid(np.arange(3), np.arange(3), np.arange(2)), -1).reshape(-1, 3)
        lim[:, 3] = 1e-15
        np.save(T("lim.npy"), lim)
        want, scale = oracle(lim[:, :3], lim[:, 3], G=3e38, eps=1e-19)
        rc, out, err = run(["--input", T("lim.npy"), "--precision", "fp32", "--G", "3e38", "--softening", "1e-19",
                            "--forces", T("lf.npy")])
        check(rc == 0 and close(np.load(T("lf.npy")), want, scale, 3e-5), f"G and softening at fp32's limits: rc {rc} {err}")
        same = bodies(4, 2)
        same[3, :3] = same[1, :3]
        np.save(T("same4.npy"), same)
        rc, out, err = run(["--input", T("same4.npy"), "--precision", "fp32", "--softening", "1e-19"])
        check(rc == 1 and "body 1: acceleration" in err and "float32" in err, f"softening^2 denormal in fp32: {err}")
        # The energy sums (fp64) overflowing after finite forces: a warning that says so, no --softening.
        big = bodies(10, 3, 7, 4.0)
        big[:, 3], big[:, 4:7] = 1e300, 1e10
        np.save(T("big.npy"), big)
        rc, out, err = run(["--input", T("big.npy"), "--law", "lj"])
        check(rc == 0 and "the energy is not finite" in err and "kinetic" in err and "float64" in err and
              "softening" not in err, f"kinetic overflow warning: rc {rc} {err!r}")
        # Text mode: the write line times what was written, never -1.
        for more in (["--forces", T("wf.npy")], ["--steps", 2, "--dt", 0.01, "--snapshots", T("ws.npy")]):
            rc, out, err = run(["--input", T("big.npy"), "--law", "lj"] + more)
            write = [ln for ln in out.splitlines() if ln.startswith("write: ")]
            check(rc == 0 and len(write) == 1 and str(more[-1]) in write[0] and float(write[0].split()[1]) >= 0,
                  f"write line of {more}: {out!r}")

        # An interrupted run leaves no snapshot file, whole or partial, and no temporary file: signalled
        # once its report of step 200 is out (two snapshots written, the file open), with the unnamed
        # temporary file (O_TMPFILE) and with the named one the signal handler removes.
        os.mkdir(T("int"))
        for sig, extra in ((signal.SIGINT, None), (signal.SIGTERM, {"TDMAPS_NO_O_TMPFILE": "1"})):
            p = subprocess.Popen([EXE, "--plummer", "1500", "--softening", "0.01", "--steps", "100000", "--dt", "1e-4",
                                  "--every", "100", "--snapshots", os.path.join(T("int"), "s.npy")],
                                 env=clitest.env_with(extra), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 text=True)
            lines = []
            for line in p.stdout:  # the run takes minutes: it is still writing when step 200 is reported
                lines.append(line)
                if line.startswith("step 200 "):
                    break
            mid_run = bool(lines) and lines[-1].startswith("step 200 ") and p.poll() is None
            named = sorted(os.listdir(T("int")))
            p.send_signal(sig)
            p.stdout.close()
            rc = p.wait(timeout=60)
            left = os.listdir(T("int"))
            temp_seen = named == [f"s.npy.tmp.{p.pid}"] if extra else named == []
            check(mid_run and temp_seen and rc == -sig and left == [],
                  f"signal {sig} ({'named' if extra else 'unnamed'} temporary): mid-run {mid_run}, in the folder "
                  f"then {named}, rc {rc}, left {left}")

        # Error cases.
        good = bodies(20, 50)
        np.save(T("good.npy"), good)
        nan = good.copy()
        nan[5, 1] = np.nan
        np.save(T("nan.npy"), nan)
        zero_m = good.copy()
        zero_m[3, 3] = 0
        np.save(T("zero_m.npy"), zero_m)
        same = good.copy()
        same[6, :3] = same[2, :3]
        np.save(T("same.npy"), same)
        np.save(T("three.npy"), good[:, :3])
        np.save(T("empty.npy"), np.zeros((0, 4)))
        np.save(T("eight.npy"), bodies(20, 51, 8))
        for name, col, value in (("neg_m", 3, -1e-10), ("tiny_m", 3, 1e-46), ("huge_m", 3, 1e39), ("huge_x", 1, 3e39)):
            v = good.copy()
            v[4, col] = value
            np.save(T(name + ".npy"), v)
        cases = [
            (["--random", "0"], ["--random 0", "from 1"], "n = 0 (--random)"),
            (["--plummer", "-5"], ["--plummer -5"], "negative --plummer"),
            (["--input", T("empty.npy")], ["0 rows"], "n = 0 (file)"),
            (["--input", T("nan.npy"), "--forces", "@OUT"], ["body 5", "y", "nan"], "NaN coordinate"),
            (["--input", T("zero_m.npy"), "--forces", "@OUT"], ["body 3", "mass", "> 0"], "zero mass"),
            (["--input", T("same.npy"), "--forces", "@OUT"], ["bodies 2 and 6", "share a position", "--softening"],
             "coincident bodies without softening"),
            (["--input", T("three.npy")], ["3 columns", "4 (x, y, z, m)"], "3 columns"),
            (["--input", T("good.npy"), "--law", "coulomb"], ["4 columns", "5 (x, y, z, m, q)"], "coulomb without q"),
            (["--input", T("eight.npy")], ["8 columns", "--law coulomb", "7 (x, y, z, m, vx, vy, vz)"],
             "coulomb input without --law coulomb"),
            (["--input", T("neg_m.npy")], ["body 4: mass -1e-10 must be finite and > 0"], "mass -1e-10"),
            (["--input", T("tiny_m.npy"), "--precision", "fp32"], ["body 4: mass 1e-46 underflows float32"],
             "mass underflowing fp32"),
            (["--input", T("huge_m.npy"), "--precision", "fp32"], ["body 4: mass 1e+39 overflows float32"],
             "mass overflowing fp32"),
            (["--input", T("huge_x.npy"), "--precision", "fp32"], ["body 4: y = 3e+39 overflows float32"],
             "y overflowing fp32"),
            (["--random", "10", "--G", "1e39", "--precision", "fp32"], ["--G 1e39 overflows float32"], "G overflowing fp32"),
            (["--random", "10", "--G", "1e-50", "--precision", "fp32"], ["--G 1e-50 underflows float32"], "G underflowing"),
            (["--random", "10", "--softening", "1e-30", "--precision", "fp32"],
             ["--softening 1e-30: softening^2 underflows float32"], "softening^2 underflowing fp32"),
            (["--random", "10", "--softening", "1e-200"], ["--softening 1e-200: softening^2 underflows float64"],
             "softening^2 underflowing fp64"),
            (["--random", "10", "--law", "lj", "--epsilon", "5e37", "--precision", "fp32"],
             ["--epsilon 5e37: 24 epsilon overflows float32"], "epsilon overflowing fp32"),
            (["--random", "100", "--law", "yukawa"], ["--law yukawa", "gravity, lj, coulomb"], "unknown law"),
            (["--random", "100", "--law", "lj", "--G", "2"], ["--G", "lj"], "--G with lj"),
            (["--random", "100", "--sigma", "2"], ["--sigma", "gravity"], "--sigma with gravity"),
            (["--random", "100", "--softening", "-1"], ["--softening -1"], "negative softening"),
            (["--random", "100", "--G", "nan"], ["--G nan"], "NaN G"),
            (["--random", "100", "--law", "lj", "--cutoff", "0"], ["--cutoff 0"], "zero cutoff"),
            (["--random", "100", "--steps", "10"], ["--steps 10 needs --dt"], "--steps without --dt"),
            (["--random", "100", "--dt", "0.1"], ["--dt needs --steps"], "--dt without --steps"),
            (["--random", "100", "--steps", "10", "--dt", "0"], ["--dt 0"], "zero dt"),
            (["--random", "100", "--steps", "10", "--dt", "0.1", "--every", "11"], ["--every 11"], "--every past --steps"),
            (["--random", "100", "--snapshots", "@OUT"], ["--snapshots needs --steps"], "--snapshots without --steps"),
            (["--random", "100", "--steps", "2", "--dt", "0.1", "--repeat", "3"], ["--repeat"], "--repeat with --steps"),
            (["--random", "100", "--plummer", "100"], ["--plummer", "exclude"], "--random and --plummer"),
            (["--input", T("good.npy"), "--seed", "3"], ["--seed"], "--seed with --input"),
            (["--input", T("good.npy"), "--forces", T("good.npy")], ["would overwrite"], "--forces onto --input"),
            (["--random", "100", "--forces", T("x.txt")], [".npy"], "not .npy"),
            (["--random", "100", "--map", "utm"], ["utm"], "thread-space map"),
            (["--random", "100", "--block", "7"], ["--block", "7"], "--block 7"),
            (["--random", "100", "--precision", "fp16"], ["--precision"], "unknown precision"),
            (["--random", "3000000000"], ["--random 3000000000"], "n beyond the largest"),
            (["--random", "100", "--frobnicate"], ["frobnicate"], "unknown option"),
            ([], ["--random", "--plummer"], "no input"),
        ]
        runtime = {"n = 0 (file)", "NaN coordinate", "zero mass", "coincident bodies without softening", "3 columns",
                   "coulomb without q", "coulomb input without --law coulomb", "mass -1e-10", "mass underflowing fp32",
                   "mass overflowing fp32", "y overflowing fp32"}
        clitest.expect_errors(EXE, tmp, cases, runtime)
        clitest.failing_run_keeps_output(EXE, tmp, ["--input", T("nan.npy")])
        clitest.help_and_version(EXE, ["--plummer", "n = 1 is allowed"])
    return clitest.summary()


if __name__ == "__main__":
    sys.exit(main())
