"""tdmaps.atm_energy against a NumPy triple loop (the Axilrod-Teller-Muto
formula from the angles, the cutoffs as atm.hpp applies them), fp64 and fp32,
every 3-D map, cbrt variant, form and block side; the shares; n < 3; the
errors; comm= on one rank; and the tdmaps-triplets CLI on one input."""

import json
import math
import os
import shutil
import subprocess

import numpy as np
import pytest

from conftest import tdmaps

INF = math.inf
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def particles(n, seed):
    """(n, 3) float64 uniform in [0, n^(1/3))^3 (the CLI's --random density)."""
    return np.random.default_rng(seed).random((n, 3)) * np.cbrt(n)


def oracle(x, c9=1.0, cutoff=INF, triple=INF):
    """(energy, sum of |terms|, shares, |shares|) over k < j < i in fp64, the
    cosines from the law of cosines. A triplet counts when r_ij, r_jk, r_ki <
    cutoff and r_ij r_jk r_ki < triple^3 (atm.hpp: a, b, c < cutoff^2 and
    a b c < cutoff_triple^6)."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    total = abs_total = 0.0
    share, abs_share = np.zeros(n), np.zeros(n)
    for i in range(n):
        for j in range(i):
            for k in range(j):
                rij = math.dist(x[i], x[j])
                rjk = math.dist(x[j], x[k])
                rki = math.dist(x[k], x[i])
                if not (rij < cutoff and rjk < cutoff and rki < cutoff and (rij * rjk * rki) ** 2 < triple ** 6):
                    continue
                ci = (rij ** 2 + rki ** 2 - rjk ** 2) / (2 * rij * rki)
                cj = (rij ** 2 + rjk ** 2 - rki ** 2) / (2 * rij * rjk)
                ck = (rjk ** 2 + rki ** 2 - rij ** 2) / (2 * rjk * rki)
                e = c9 * (1 + 3 * ci * cj * ck) / (rij * rjk * rki) ** 3
                total += e
                abs_total += abs(e)
                for p in (i, j, k):
                    share[p] += e / 3
                    abs_share[p] += abs(e) / 3
    return total, abs_total, share, abs_share


def check(x, got, ref, dtype):
    """fp64: 1e-12 of the sum of |terms|; fp32: 1e-5 (apps/triplets/README.md)."""
    tol = 1e-12 if dtype == np.float64 else 1e-5
    e_ref, abs_ref = ref[0], ref[1]
    assert abs(got - e_ref) <= tol * abs_ref + 1e-300, (got, e_ref)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [3, 4, 9, 17, 40])
def test_energy_and_shares(n, dtype):
    x = particles(n, 100 + n).astype(dtype)
    ref = oracle(x)
    e = tdmaps.atm_energy(x)
    assert isinstance(e, float)
    check(x, e, ref, dtype)
    e2, shares = tdmaps.atm_energy(x, per_particle=True)
    assert shares.dtype == np.float64 and shares.shape == (n,)
    check(x, e2, ref, dtype)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    assert np.all(np.abs(shares - ref[2]) <= tol * ref[3] + 1e-300)
    assert abs(shares.sum() - e2) <= 1e-12 * ref[1]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("c9,cutoff,triple", [(0.5, 1.2, None), (2.0, None, 1.1), (1.0, 1.5, 1.3), (0.0, None, None)])
def test_c9_and_cutoffs(dtype, c9, cutoff, triple):
    x = particles(30, 7).astype(dtype)
    # Well away from the cutoffs in fp32 (the run's precision decides them).
    ref = oracle(x, c9, INF if cutoff is None else cutoff, INF if triple is None else triple)
    e, shares = tdmaps.atm_energy(x, c9=c9, cutoff=cutoff, cutoff_triple=triple, per_particle=True)
    check(x, e, ref, dtype)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    assert np.all(np.abs(shares - ref[2]) <= tol * ref[3] + 1e-300)
    if c9 == 0:
        assert e == 0 and not shares.any()
    e_inf = tdmaps.atm_energy(x, c9=c9, cutoff=INF if cutoff is None else cutoff,
                              cutoff_triple=INF if triple is None else triple)
    assert abs(e_inf - e) <= 1e-12 * ref[1]


def map_options():
    for block in (2, 4, 8):
        yield dict(map="bb3", block=block)
        for cbrt in ("cbrt", "cardano", "fp64"):
            for form in ("exact", "eps"):
                yield dict(map="lambda3", cbrt=cbrt, form=form, block=block)


def test_every_map():
    assert tdmaps.maps3 == ("bb3", "lambda3")
    x = particles(23, 3)
    ref = oracle(x)
    for opts in map_options():
        check(x, tdmaps.atm_energy(x, **opts), ref, np.float64)
        e, s = tdmaps.atm_energy(x.astype(np.float32), per_particle=True, **opts)
        check(x, e, ref, np.float32)


def test_precision():
    x = particles(20, 5)
    def close(a, b):  # one kernel on the same values; the atomic sums' order may differ
        return abs(a - b) <= 1e-12 * abs(b)

    assert close(tdmaps.atm_energy(x, precision="fp32"), tdmaps.atm_energy(x.astype(np.float32)))
    assert close(tdmaps.atm_energy(x.astype(np.float32), precision="fp64"),
                 tdmaps.atm_energy(x.astype(np.float32).astype(np.float64)))
    assert close(tdmaps.atm_energy(x, precision="fp64"), tdmaps.atm_energy(x))
    assert tdmaps.atm_energy(x, precision="fp32") != tdmaps.atm_energy(x)  # the terms in fp32
    big = x.copy()
    big[4, 2] = 1e39
    with pytest.raises(ValueError, match=r"row 4 \(0-based\): z = 1e\+39 overflows float32"):
        tdmaps.atm_energy(big, precision="fp32")


def test_few_particles():
    for n in (0, 1, 2):
        x = particles(n, 1) if n else np.zeros((0, 3))
        assert tdmaps.atm_energy(x) == 0.0
        e, s = tdmaps.atm_energy(x, per_particle=True)
        assert e == 0.0 and s.shape == (n,) and not s.any()


def test_coincident_particles_warn():
    x = particles(12, 2)
    x[7] = x[3]
    with pytest.warns(RuntimeWarning, match="particles 3 and 7 .* share a position"):
        assert math.isnan(tdmaps.atm_energy(x))


def test_errors():
    x = particles(10, 1)
    cases = [
        (dict(c9=-1.0), ValueError, "c9 -1: C9 must be a finite number >= 0"),
        (dict(c9=float("nan")), ValueError, "c9 nan"),
        (dict(c9=INF), ValueError, "c9 inf"),
        (dict(cutoff=0.0), ValueError, "cutoff 0: the cutoff must be a number > 0"),
        (dict(cutoff_triple=-2.0), ValueError, "cutoff_triple -2"),
        (dict(map="lambda"), ValueError, r"map 'lambda': unknown \(known: bb3, lambda3\)"),
        (dict(cbrt="x"), ValueError, "cbrt 'x': unknown"),
        (dict(form="x"), ValueError, "form 'x': unknown"),
        (dict(block=16), ValueError, "block 16: the block side of the 3-D maps must be 2, 4 or 8"),
        (dict(precision="fp16"), ValueError, r"precision 'fp16': unknown \(known: fp64, fp32\)"),
        (dict(per_particle="yes"), TypeError, "per_particle"),
        (dict(c9="1"), TypeError, "c9"),
    ]
    for kw, exc, words in cases:
        with pytest.raises(exc, match=words):
            tdmaps.atm_energy(x, **kw)
    with pytest.raises(ValueError, match=r"X: 2 columns; expected 3 \(x, y, z\)"):
        tdmaps.atm_energy(x[:, :2].copy())
    with pytest.raises(ValueError, match="X: expected a 2-D array"):
        tdmaps.atm_energy(x[0])
    with pytest.raises(TypeError, match="X: unsupported dtype 'int64'"):
        tdmaps.atm_energy(x.astype(np.int64))
    with pytest.raises(ValueError, match="not in C order"):
        tdmaps.atm_energy(np.asfortranarray(x))
    for bad in (np.nan, np.inf):
        y = x.copy()
        y[6, 1] = bad
        with pytest.raises(ValueError, match=r"X: row 6 \(0-based\): y is %s \(not finite\)" % ("nan" if bad != bad else "inf")):
            tdmaps.atm_energy(y)
    xi = x.astype(np.int64)
    e = tdmaps.atm_energy(xi.astype(float))
    assert abs(tdmaps.atm_energy(xi, copy=True) - e) <= 1e-12 * abs(e)
    e = tdmaps.atm_energy(x)
    assert abs(tdmaps.atm_energy(x.tolist()) - e) <= 1e-12 * abs(e)


class OneRank:
    def Get_rank(self):
        return 0

    def Get_size(self):
        return 1

    def Allreduce(self, send, recv, op=None):
        raise AssertionError("one rank: no reduction")


def test_comm_one_rank_and_parts():
    x = particles(25, 9)
    e, s = tdmaps.atm_energy(x, per_particle=True)
    e1, s1 = tdmaps.atm_energy(x, per_particle=True, comm=OneRank())
    # The same launch; its atomic sums may add in another order (last bits).
    assert abs(e1 - e) <= 1e-12 * abs(e) and np.allclose(s1, s, rtol=1e-12, atol=0)
    assert abs(tdmaps.atm_energy(x, comm=OneRank()) - e) <= 1e-12 * abs(e)
    from tdmaps import _tdmaps

    for m in ("bb3", "lambda3"):
        parts = [_tdmaps.atm_energy_part(x, 1.0, None, None, True, None, m, "cbrt", "exact", 4, p, 3) for p in range(3)]
        assert abs(sum(p[0] for p in parts) - e) <= 1e-12 * abs(e)
        assert np.allclose(sum(p[1] for p in parts), s, rtol=1e-12, atol=0)
    with pytest.raises(TypeError, match="comm: expected an MPI communicator"):
        tdmaps.atm_energy(x, comm=object())


def cli():
    exe = os.environ.get("TDMAPS_TRIPLETS_CLI") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(tdmaps._tdmaps.__file__))), "bin", "tdmaps-triplets")
    if not os.path.exists(exe):
        pytest.skip("tdmaps-triplets is not built beside the module (set TDMAPS_TRIPLETS_CLI)")
    return exe


@pytest.mark.parametrize("precision", ["fp64", "fp32"])
def test_against_cli(tmp_path, precision):
    exe = cli()
    x = particles(50, 11)
    path = tmp_path / "p.npy"
    np.save(path, x)
    out = tmp_path / "shares.npy"
    args = [exe, "--input", str(path), "--precision", precision, "--c9", "0.75", "--cutoff", "2.5",
            "--map", "bb3", "--block", "4", "--output", str(out), "--json", "--quiet"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, OMP_PROC_BIND="false"))
    assert p.returncode == 0, p.stderr
    line = json.loads(p.stdout.strip().splitlines()[-1])
    e, s = tdmaps.atm_energy(x, c9=0.75, cutoff=2.5, map="bb3", block=4, precision=precision, per_particle=True)
    # The same kernel; the sums' order may differ in the last bits (atomics).
    assert abs(e - line["energy"]) <= 1e-12 * abs(line["energy"])
    assert line["triplets"] == 50 * 49 * 48 // 6 and line["c9"] == 0.75 and line["cutoff"] == 2.5
    assert np.allclose(s, np.load(out), rtol=1e-12, atol=1e-12 * np.abs(s).max())
