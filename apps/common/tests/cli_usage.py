#!/usr/bin/env python3
"""Every tool's command-line errors in its own words, and its input rule.

    cli_usage.py PATH/TO/tdmaps-edm PATH/TO/tdmaps-collide PATH/TO/tdmaps-triplets PATH/TO/tdmaps-nbody

- Each error the option parser (CLI11) finds (an option given twice, one
  without its value, an unknown option, a stray argument, a value outside a
  list or a range or of the wrong type, a flag given a value, options that
  need or exclude each other) is a usage error: exit 2, "tdmaps-<tool>:
  error: <option> <value as typed>: <rule>" and the --help hint, none of
  CLI11's own phrasing.
- Inputs by extension (npy.hpp, input_format_rule): .csv and .txt in any case
  are comma-separated text read as numpy.loadtxt reads them (the distances of
  a .TXT input against NumPy's), any other extension is refused with the
  rule, which every tool's --help states; a field numpy refuses (hex) is
  refused with its line, row and column.
test_cli_conventions.py runs it too (ctest cli.conventions).
"""
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402
from clitest import check, run  # noqa: E402

# CLI11's wording, which no message may show.
CLI11_WORDS = ["At Most", "required but received", "The following argument", "not in {", "Could not convert", " requires ", "Value ", "not in range", "Should be", " missing", "ArgumentMismatch"]


def expect_usage(exe, args, words, label):
    tool = os.path.basename(exe)
    t0 = time.monotonic()
    rc, out, err = run(exe, args)
    lines = err.strip().splitlines()
    check(rc == 2, f"{label}: exit {rc}, expected 2: {err.strip()!r}")
    check(len(lines) == 2 and lines[0].startswith(f"{tool}: error: ") and lines[1] == f"Run {tool} --help for more "
          "information.", f"{label}: not '{tool}: error: ...' and the --help hint: {err.strip()!r}")
    check(all(w in err for w in words), f"{label}: {err.strip()!r} lacks {words}")
    check(not any(w in err for w in CLI11_WORDS), f"{label}: CLI11's wording in {err.strip()!r}")
    check(out == "", f"{label}: stdout {out!r}")
    check(time.monotonic() - t0 < 10, f"{label}: took {time.monotonic() - t0:.1f} s")


def parse_errors(exe, inp, block, other_block):
    cases = [
        (["--input", inp, "--input", "b.npy"], ["--input is given 2 times", inp, "b.npy", "give it once"]),
        (["--random", 10, "--random", 20], ["--random is given 2 times", "'10'", "'20'"]),
        (["--random", 10, "--repeat", 1, "--repeat", 2], ["--repeat is given 2 times ('1', '2')"]),
        (["--random"], ["--random needs a value"]),
        (["--random", 10, "--input"], ["--input needs a value"]),
        (["--random", 10, "--frobnicate"], ["unknown option '--frobnicate'"]),
        (["--random", 10, "stray"], ["unexpected argument 'stray'"]),
        (["--random", 10, "--map", "nope"], ["--map nope: must be one of", "bb", "lambda"]),
        (["--random", 10, "--block", other_block], [f"--block {other_block}: must be one of", str(block)]),
        (["--random", 10, "--repeat", 0], ["--repeat 0: must be an integer from 1 to 1000000"]),
        (["--random", 10, "--repeat", "x"], ["--repeat x: must be an integer"]),
        (["--random", 10, "--team-threads", 2000], ["--team-threads 2000: must be an integer from 0 to 1024"]),
        (["--random", 10, "--json=maybe"], ["--json=maybe: --json is a flag and takes no value"]),
        (["--input", inp, "--seed", 3], ["--seed needs --random"]),
        (["--input", inp, "--random", 10], ["--input", "--random", "excludes", "; give one of them"]),
    ]
    for args, words in cases:
        expect_usage(exe, args, words, f"{os.path.basename(exe)} {' '.join(map(str, args))}")


def input_rule(exe, tmp, cols):
    """.TXT read as numpy.loadtxt reads it; .dat refused with the rule; the rule in --help; hex refused."""
    tool = os.path.basename(exe)
    rng = np.random.default_rng(37)
    a = rng.random((30, cols))
    a[:, -1] = 0.01 + 0.05 * a[:, -1]  # a radius or a mass where the tool reads one
    txt = os.path.join(tmp, f"{tool}.TXT")
    np.savetxt(txt, a, delimiter=",", fmt="%.17g", header="x,y,z")
    rc, out, err = run(exe, ["--input", txt, "--json"])
    j = clitest.check_report(out.strip(), f"{tool} --input .TXT") if rc == 0 else None
    check(j is not None and j["n"] == 30 and j["input"] == txt, f"{tool} --input .TXT: rc {rc} {err.strip()!r}")
    dat = os.path.join(tmp, f"{tool}.dat")
    with open(dat, "w") as f:
        f.write("1,2,3,4\n")
    rc, _, err = run(exe, ["--input", dat])
    check(rc == 1 and err.startswith(f"{tool}: error: {dat}: unknown input extension '.dat'") and
          all(w in err for w in (".npy", ".csv or .txt", "numpy.loadtxt", "no other extension")),
          f"{tool} --input .dat: rc {rc} {err.strip()!r}")
    hexed = os.path.join(tmp, f"{tool}_hex.csv")
    with open(hexed, "w") as f:
        f.write("# x\n" + ",".join(["0.5"] * cols) + "\n" + ",".join(["0.25"] * (cols - 1) + ["0x10"]) + "\n")
    rc, _, err = run(exe, ["--input", hexed])
    check(rc == 1 and f"{hexed}:3: row 1, column {cols - 1} (0-based): '0x10' is not a number" in err and
          "no hex" in err, f"{tool} hex field: rc {rc} {err.strip()!r}")
    rc, out, _ = run(exe, ["--help"])
    check(rc == 0 and "Input: input files by extension" in out and ".csv or .txt" in out and "no hex" in out,
          f"{tool} --help: no input rule")


def edm_txt_values(edm, tmp):
    """The distances of a .txt input against NumPy's, from numpy.loadtxt's reading of the same file."""
    rng = np.random.default_rng(38)
    txt = os.path.join(tmp, "pts.txt")
    with open(txt, "w") as f:
        f.write("# x, y\n\n")
        for x, y in rng.standard_normal((25, 2)):
            f.write(f" {x!r} ,\t{y:.6e} # row\r\n")
        f.write("NaN, -Infinity\n")
    pts = np.loadtxt(txt, delimiter=",", ndmin=2)
    out = os.path.join(tmp, "d.npy")
    rc, _, err = run(edm, ["--input", txt, "--layout", "full", "--symmetric", "--output", out])
    with np.errstate(invalid="ignore"):  # inf - inf in the last row
        want = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
    got = np.load(out) if rc == 0 else None
    # The last point (nan, -inf) is nan away from every other one.
    check(got is not None and got.shape == want.shape and np.allclose(got[:-1, :-1], want[:-1, :-1], rtol=1e-14, atol=0)
          and np.isnan(got[-1, :-1]).all() and np.isnan(got[:-1, -1]).all(),
          f"edm .txt distances: rc {rc} {err.strip()!r}")


def usage_and_inputs(edm, collide, triplets, nbody, tmp):
    inp = os.path.join(tmp, "in.npy")
    np.save(inp, np.random.default_rng(1).random((10, 4)))
    for exe, block, other, cols in ((edm, 16, 7, 3), (collide, 16, 4, 4), (triplets, 4, 16, 3), (nbody, 16, 4, 4)):
        parse_errors(exe, inp, block, other)
        input_rule(exe, tmp, cols)
    edm_txt_values(edm, tmp)


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        usage_and_inputs(*(os.path.abspath(a) for a in sys.argv[1:]), tmp)
    return clitest.summary()


if __name__ == "__main__":
    sys.exit(main())
