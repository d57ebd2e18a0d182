#!/usr/bin/env python3
"""Tests of targets.py on a synthetic results.csv whose outcome is known
target by target (met, missed, no data, a wrong-output case excluded).

  python3 perf_tests/scripts/test_targets.py
"""

import csv
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIELDS = ["group", "test", "variant", "map", "rho", "n", "ms_median", "ms_min", "ms_mean", "iterations", "gb_per_s",
          "gpairs_per_s", "I", "vs_cuda", "pct_write_ceiling", "errors", "hits", "label", "skipped", "gtriplets_per_s",
          "inexact"]


def row(test, variant, m, rho, n, ms, I="", vs_cuda="", errors=0, gtrip=""):
    return {"group": test, "test": test, "variant": variant, "map": m, "rho": rho, "n": n, "ms_median": ms,
            "I": I, "vs_cuda": vs_cuda, "errors": errors, "gtriplets_per_s": gtrip}


ROWS = [
    # Kokkos vs plain CUDA: the worst tdmaps ratio (1.20) misses, the tile one (0.98) meets.
    row("launch", "edm_full_d4.tdmaps", "lambda_rsqrt", 32, 30720, 1.4, vs_cuda=1.05),
    row("launch", "dummy.tdmaps", "bb", 32, 30720, 1.2, vs_cuda=1.20),
    row("launch", "edm_full_d4.tdmaps_tile", "lambda_rsqrt", 32, 30720, 0.7, vs_cuda=0.98),
    row("launch", "edm_full_d4.tdmaps_tile", "bb", 32, 65536, 9.0, vs_cuda=3.0),  # other n: ignored
    # EDM d = 4: the fastest case has wrong output and must not count; 0.60 ms meets 0.65.
    row("edm", "packed_d4_element", "hadouken", 32, 30720, 0.50, I=1.9, errors=3),
    row("edm", "packed_d4_tile", "lambda_rsqrt", 32, 30720, 0.60, I=1.2),
    row("edm", "condensed_d4_tile_t128", "rb", 32, 30720, 0.62, I=1.1),
    row("edm", "packed_d4_tile", "lambda_rsqrt", 16, 30720, 0.40),  # block side 16: not a target case
    # EDM 2-D full: 0.95 ms meets 1.00, I = 1.6 meets 1.5 (UTM's 3.0 is not a block-space map).
    row("edm", "full_d2_tile", "rb", 32, 30720, 0.95, I=1.6),
    row("edm", "full_d2_element", "utm", 32, 30720, 1.5, I=3.0),
    # Dummy: I 1.3 at block side 32 (missed), 2.0 at block side 8 (met); exact / eps = 1.01 (met).
    row("dummy", "store", "lambda_rsqrt", 32, 30720, 1.01, I=1.3),
    row("dummy", "store", "lambda_rsqrt_eps", 32, 30720, 1.00, I=1.31),
    row("dummy", "store", "rb", 8, 30720, 4.4, I=2.0),
    # Collision: int flags 0.85 ms (missed) with I 1.2 (met); packed bit flags 0.45 ms (1.89x),
    # row-aligned 0.40 ms (2.12x), tiled 0.38 ms: 2.24x (met: the fastest layout counts; the
    # tiled case at block side 16, 0.30 ms, is not a target case).
    row("collision", "3d_intflags_tile", "lambda_rsqrt", 32, 30720, 0.85, I=1.2),
    row("collision", "3d_intflags_element", "bb", 32, 30720, 1.02),
    row("collision", "3d_flags_tile", "hadouken", 32, 30720, 0.45, I=1.1),
    row("collision", "3d_rowflags_tile", "hadouken", 32, 30720, 0.40, I=1.1),
    row("collision", "3d_tileflags_tile", "lambda_rsqrt", 32, 30720, 0.38, I=1.2),
    row("collision", "3d_tileflags_tile", "lambda_rsqrt", 16, 30720, 0.30),
    # 3-D element path: worst 1.04 at the largest n (met); the 1.50 at a smaller n is ignored.
    row("launch3", "dummy3.tdmaps", "bb3", 8, 2048, 3.0, vs_cuda=1.03),
    row("launch3", "dummy3.tdmaps", "lambda3_cbrt", 8, 2048, 2.0, vs_cuda=1.04),
    row("launch3", "dummy3.tdmaps", "lambda3_cbrt", 8, 1024, 0.5, vs_cuda=1.50),
    # dummy3, block side 8: at n = 2048 the wrong fp64 case (I 5.0) does not count, cbrt's 4.5 does.
    row("dummy3", "store", "bb3", 8, 2048, 9.0, I=1.0),
    row("dummy3", "store", "lambda3_cbrt", 8, 2048, 2.0, I=4.5),
    row("dummy3", "store", "lambda3_fp64", 8, 2048, 1.8, I=5.0, errors=1),
    # The Cardano epsilon form is wrong at 2048: exact / epsilon is read at 1024 (+3.7%, missed),
    # where the epsilon form is also the fastest right dummy3 case (0.27 ms, met).
    row("dummy3", "store", "lambda3_cardano_eps", 8, 2048, 1.5, I=6.0, errors=7),
    row("dummy3", "store", "lambda3_cbrt", 8, 1024, 0.28, I=4.0),
    row("dummy3", "store", "lambda3_cardano_eps", 8, 1024, 0.27, I=4.1),
    row("dummy3", "store", "lambda3_cbrt", 4, 1024, 0.25, I=3.0, errors=1),
    # ATM, n = 4096: fp64 I 1.5 of the fastest lambda3 case and 1.15e11 triplets/s (met), fp32 3e11 (missed).
    row("atm", "fp64", "bb3", 8, 4096, 150.0, I=1.0, gtrip=75.0),
    row("atm", "fp64", "lambda3_cbrt", 8, 4096, 100.0, I=1.5, gtrip=115.0),
    row("atm", "fp64", "lambda3_cbrt", 4, 4096, 160.0, I=2.8, gtrip=72.0),  # larger I, slower: not the one
    row("atm", "fp32", "lambda3_cbrt", 8, 4096, 38.0, I=1.4, gtrip=300.0),
]

EXPECTED = {
    "Kokkos tdmaps <= 1.10 x plain CUDA (cuda_t256), every body and map": ("missed", "worst 1.20x"),
    "Kokkos tdmaps_tile <= 1.10 x plain CUDA (cuda_tile), every body and map": ("met", "worst 0.98x"),
    "EDM d = 4 packed/condensed, n = 30720: <= 0.65 ms": ("met", "0.600 ms"),
    "EDM d = 4 packed/condensed, n = 65536: <= 2.95 ms": ("no data", "-"),
    "EDM d = 2 full, n = 30720: <= 1.00 ms": ("met", "0.950 ms"),
    "I over BB, EDM full layout: >= 1.5": ("met", "1.60"),
    "I over BB, dummy: >= 1.9 (block side 32)": ("missed", "1.31"),
    "I over BB, dummy: >= 1.9 (any block side)": ("met", "2.00"),
    "collision 3-D int flags, n = 30720: <= 0.80 ms": ("missed", "0.850 ms"),
    "... and its I over BB >= 1.1": ("met", "1.20"),
    "bit flags >= 2x faster than int flags": ("met", "2.24x"),
    "exact lambda-R within 2% of epsilon lambda-R (dummy)": ("met", "+1.0%"),
    "2-D element path tdmaps <= 1.05 x plain CUDA (cuda_t256), every body and map": ("missed", "worst 1.20x"),
    "3-D element path tdmaps <= 1.05 x plain CUDA (launch3, largest n)": ("met", "worst 1.04x"),
    "3-D: I over BB3, dummy3 (block side 8, largest n): >= 4": ("met", "4.50"),
    "3-D: exact lambda3 within 3% of the papers' fp32 Cardano epsilon form (dummy3)": ("missed", "+3.7%"),
    "3-D: dummy3 strict (exact forms), packed, n = 1024: <= 0.30 ms": ("met", "0.280 ms"),
    "3-D: dummy3 strict (exact forms), full n^3 array (the authors' stores), n = 1024: <= 0.30 ms": ("no data", "-"),
    "3-D: ATM fp64, n = 4096: I over BB3 >= 1.3 (fastest lambda3 case)": ("met", "1.50"),
    "3-D: ATM fp64, n = 4096: >= 1e+11 triplets/s": ("met", "1.15e+11 triplets/s"),
    "3-D: ATM fp32, n = 4096: >= 4e+11 triplets/s": ("missed", "3e+11 triplets/s"),
}


class TargetsTest(unittest.TestCase):
    def run_targets(self, rows):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "results.csv")
            with open(path, "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=FIELDS, restval="")
                w.writeheader()
                w.writerows(rows)
            p = subprocess.run([sys.executable, os.path.join(HERE, "targets.py"), path], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        table = {}
        for line in p.stdout.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 4 and cells[0] not in ("target",) and not set(cells[0]) <= {"-"}:
                table[cells[0]] = cells
        return table, p.stdout

    def test_every_target_as_constructed(self):
        table, out = self.run_targets(ROWS)
        self.assertEqual(set(table), set(EXPECTED), out)
        for target, (status, measured) in EXPECTED.items():
            self.assertEqual(table[target][3], status, target + "\n" + out)
            self.assertTrue(table[target][1].startswith(measured), "%s: %r\n%s" % (target, table[target][1], out))
        self.assertIn("13 of 21 targets met", out)

    def test_wrong_output_never_counts(self):
        table, out = self.run_targets([r for r in ROWS if r["map"] != "lambda_rsqrt" or r["test"] != "edm"])
        # Without the good tile case only the erroneous 0.50 ms and the 0.62 ms case are left.
        self.assertEqual(table["EDM d = 4 packed/condensed, n = 30720: <= 0.65 ms"][1], "0.620 ms", out)

    def test_fastest_bit_layout_counts(self):
        target = "bit flags >= 2x faster than int flags"
        table, out = self.run_targets(ROWS)
        self.assertEqual(table[target][2], "collision/3d_tileflags_tile/lambda_rsqrt/r32/n30720", out)
        # Without the tiled case the row-aligned one (0.40 ms, 2.12x) is the fastest.
        table, out = self.run_targets([r for r in ROWS if "tileflags" not in r["variant"]])
        self.assertEqual(table[target][2], "collision/3d_rowflags_tile/hadouken/r32/n30720", out)
        self.assertTrue(table[target][1].startswith("2.12x"), out)
        self.assertEqual(table[target][3], "met", out)

    def test_unreadable_input_is_an_error(self):
        p = subprocess.run([sys.executable, os.path.join(HERE, "targets.py"), "/nonexistent/results.csv"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("cannot read", p.stderr)


if __name__ == "__main__":
    unittest.main()
