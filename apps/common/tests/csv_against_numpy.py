#!/usr/bin/env python3
"""The apps' .csv / .txt reader against numpy.loadtxt(path, delimiter=",", ndmin=2).

    csv_against_numpy.py path/to/tdmaps_npy_probe [--cases 3000] [--seed N] [--keep]

Writes hand-picked fields (hex, hex floats, nan / inf spellings, '_', partial
exponents, spaces of every kind, NUL, '\\r'), random fields over the bytes
that matter to a number, mutations of numbers numpy writes, and random files
(comments, blank and space-only lines, CRLF, ragged rows, trailing commas),
all ASCII, as .csv, .txt and .CSV files; tdmaps_npy_probe reads them all in one
process (read_matrix<double>), numpy.loadtxt reads each again.

Fails (exit 1) unless, for every file:
- numpy reads it: tdmaps reads the same shape and values, bit for bit as
  float64 (NaN's sign included), but for a finite text that overflows float64,
  which numpy reads as inf and tdmaps refuses as "out of range" (csv_read.cpp);
- numpy refuses it: tdmaps refuses it too, with "<path>:<line>: row R, column C
  (0-based): '<field>' ..." naming a field that is on that line, in that
  column, the R-th row of data, and that numpy cannot read alone either; or
  with the line of a row of another length;
- numpy finds no data: tdmaps reads 0 rows.
Also: an input of any other extension is refused with the one extension rule.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import warnings

import numpy as np

# Fields numpy and strtod may disagree on, and the edges of the grammar.
HAND = [
    "0x10", "0X1A", "0x1p3", "0x.8p1", "-0x10", "1e3", "1E3", ".5", "5.", "+.5", "-.5", "+5", "00012", "1.", "-0",
    "nan", "NaN", "-nan", "+nan", "NAN", "nan(123)", "nan()", "nanq", "snan", "inf", "-inf", "+inf", "Inf", "INF",
    "infinity", "Infinity", "-INFINITY", "infinit", "infinityy", "in", "inf1", "1inf", "1_000", "1__0", "_1", "1_",
    "1e", "e3", "1e+", "1e-", "1d3", "1f", "1.5e+3", "1.5e+03", "1e400", "-1e400", "1e-400", "4.9e-324", "2.5e-324",
    "1.7976931348623157e308", "1.7976931348623159e308", "..5", "1..", "++1", "+-1", "--1", "0b1", "0o7", "true", ".",
    "+", "-", "e", ".e1", "1.e1", "1.e", " 1 ", "\t1\t", "\v1\f", "\x1c1\x1f", "1 2", "1\t2", "", " ", "1\x00",
    "\x001", "1\r", "\r1", "1\x0b2", "'1'", '"1"', "1;2", "0.1", "-1.25e-07", "123456789012345678901234567890",
    "0.000000000000000000000000000000000000000001", "1" * 400, "0." + "0" * 350 + "1", "1e" + "9" * 30,
    "1e-" + "9" * 30, "1e0000000000000000000005",
]
# The bytes of a number and what may surround one.
ALPHABET = "0123456789+-.eEnaifNItyxXp_ \t\v\f\x1c\r\x00d,#"
SPACES = [" ", "\t", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x1f", "  "]


def random_field(rng):
    r = rng.random()
    if r < 0.3:
        return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 8)))
    v = rng.choice([rng.uniform(-1e3, 1e3), rng.gauss(0, 1) * 10.0 ** rng.randint(-320, 308), float(rng.randint(-99, 99))])
    s = rng.choice([repr(v), "%.17g" % v, "%e" % v, "%.3f" % v, "%.18e" % v])
    if r < 0.75:  # a mutation of a number numpy writes
        k = rng.randrange(len(s) + 1)
        op = rng.randrange(3)
        c = rng.choice(ALPHABET.replace(",", "").replace("#", ""))
        s = s[:k] + c + s[k:] if op == 0 else s[:k] + s[k + 1:] if op == 1 else s[:k] + c + s[k + 1:]
    if rng.random() < 0.3:
        s = rng.choice(SPACES) + s
    if rng.random() < 0.3:
        s = s + rng.choice(SPACES)
    return s


def random_file(rng):
    cols = rng.randint(1, 4)
    lines = []
    for _ in range(rng.randint(0, 5)):
        r = rng.random()
        if r < 0.1:
            lines.append("")
        elif r < 0.2:
            lines.append(rng.choice(["# a comment", "  # indented", "#", " ", "\t", "\r"]))
        else:
            n = cols if rng.random() < 0.85 else rng.randint(1, 5)
            fields = [random_field(rng) if rng.random() < 0.15 else repr(rng.uniform(-10, 10)) for _ in range(n)]
            line = ",".join(fields)
            if rng.random() < 0.1:
                line += ","
            if rng.random() < 0.15:
                line += rng.choice([" # note", "#x,y", "#"])
            lines.append(line)
    eol = rng.choice(["\n", "\n", "\r\n"])
    text = eol.join(lines)
    return text + (eol if rng.random() < 0.8 else "")


def numpy_verdict(path):
    """("ok", array) / ("empty", None) / ("reject", message)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            a = np.loadtxt(path, delimiter=",", ndmin=2, dtype=np.float64)
        except UserWarning as e:
            return ("empty", None) if "no data" in str(e) else ("reject", str(e))
        except (ValueError, UnicodeDecodeError) as e:
            return ("reject", str(e))
    return ("ok", np.ascontiguousarray(a)) if a.size else ("empty", None)


def fnv1a(a):
    h = 0xCBF29CE484222325
    for b in a.astype("<f8").tobytes():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def printable(s):
    """csv_read.cpp's printable(): anything but printable ASCII as \\xNN."""
    return "".join(c if 0x20 <= ord(c) < 0x7F else "\\x%02x" % ord(c) for c in s)


def probe_text(s):
    """npy_probe.cpp writes control characters of a message as \\xNN."""
    return "".join(c if ord(c) >= 0x20 else "\\x%02x" % ord(c) for c in s)


FIELD_ERROR = re.compile(r":(\d+): row (\d+), column (\d+) \(0-based\): '(.*?)' is (not a number|out of range)")
ROW_ERROR = re.compile(r":(\d+): row (\d+) has (\d+) columns, but the first row has (\d+)")


def data_lines(text):
    """[(1-based line number, the line without its comment)] of the lines that hold data, as numpy splits them
    ("\r\n", "\n" and a lone "\r" end a line)."""
    out = []
    for no, line in enumerate(re.split("\r\n|\r|\n", text), 1):  # numpy opens a path with universal newlines
        line = line.split("#", 1)[0]
        if line:
            out.append((no, line))
    return out


def check_reject(path, text, message, np_verdict, np_value):
    """Why a rejection is right and where it points; an error text or None."""
    if not message.startswith(probe_text(path) + ":"):
        return "message does not start with the path"
    rows = data_lines(text)
    m = FIELD_ERROR.search(message)
    if m:
        line_no, row, col, field, why = int(m[1]), int(m[2]), int(m[3]), m[4], m[5]
        at = [i for i, (no, _) in enumerate(rows) if no == line_no]
        if at != [row]:
            return f"line {line_no} is not data row {row}"
        fields = rows[row][1].split(",")
        if col >= len(fields) or printable(fields[col]) != field:
            return f"column {col} of line {line_no} is not {field!r}"
        alone = numpy_verdict_of_text(fields[col])
        if why == "out of range":
            # The documented difference: numpy reads the field as inf (and the file, if nothing else is wrong).
            inf = alone[0] == "ok" and np.isinf(alone[1]).all()
            return None if inf else f"out of range, numpy reads the field alone as {alone}"
        if np_verdict == "ok":
            return "numpy reads the file"
        return None if alone[0] != "ok" else f"numpy reads the field {fields[col]!r} alone"
    m = ROW_ERROR.search(message)
    if m:
        line_no, row, n, first = (int(x) for x in m.groups())
        at = [i for i, (no, _) in enumerate(rows) if no == line_no]
        ok = at == [row] and len(rows[row][1].split(",")) == n and len(rows[0][1].split(",")) == first and n != first
        return None if ok and np_verdict == "reject" else f"row length message wrong ({rows})"
    return "message names no line, row and column"


_TMP = None


def numpy_verdict_of_text(text):
    path = os.path.join(_TMP, "alone.csv")
    with open(path, "w", newline="") as f:
        f.write(text + "\n")
    return numpy_verdict(path)


def main():
    global _TMP
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("probe")
    ap.add_argument("--cases", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=37)
    ap.add_argument("--keep", action="store_true", help="keep the case files")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    _TMP = tempfile.mkdtemp(prefix="tdmaps_csv_")
    texts = []
    for f in HAND:
        texts += [f + ",1\n", "1," + f + "\n", f + "\n"]
    while len(texts) < args.cases:
        texts.append(random_file(rng) if rng.random() < 0.4 else random_field(rng) + "," + random_field(rng) + "\n")
    cases = []
    for i, text in enumerate(texts):
        path = os.path.join(_TMP, "case%05d%s" % (i, (".csv", ".txt", ".CSV", ".Txt")[i % 4]))
        with open(path, "w", newline="") as f:
            f.write(text)
        cases.append((path, text))
    with open(os.path.join(_TMP, "list"), "w") as f:
        f.write("".join(p + "\n" for p, _ in cases))
    out = subprocess.run([args.probe, "@" + os.path.join(_TMP, "list")], capture_output=True, text=True,
                         errors="replace", check=True).stdout.splitlines()
    if len(out) != len(cases):
        sys.exit(f"probe printed {len(out)} lines for {len(cases)} files")
    failures = []
    counts = {"ok": 0, "empty": 0, "reject": 0, "out of range": 0}
    for (path, text), verdict in zip(cases, out):
        kind, value = numpy_verdict(path)
        why = None
        if verdict.startswith("ok "):
            _, dtype, r, c, h = verdict.split(" ")
            if kind == "empty":
                why = None if r == "0" else "numpy finds no data, tdmaps reads rows"
            elif kind == "reject":
                why = "tdmaps reads what numpy refuses: " + value
            elif (int(r), int(c), h) != (value.shape[0], value.shape[1], fnv1a(value)):
                why = f"tdmaps reads {r}x{c} {h}, numpy {value.shape} {fnv1a(value)}: {value.tolist()}"
            counts[kind] += 1
        else:
            message = verdict[len("reject "):]
            why = check_reject(path, text, message, kind, value) if kind != "empty" else "numpy finds no data"
            counts["out of range" if "out of range" in message else "reject"] += 1
        if why:
            failures.append(f"{os.path.basename(path)} {text!r}: {why}\n    tdmaps: {verdict}")
    # Any other extension: the one rule, in the message.
    for name in ("points.dat", "points.tsv", "points", "points.npz"):
        path = os.path.join(_TMP, name)
        with open(path, "w") as f:
            f.write("1,2\n")
        v = subprocess.run([args.probe, path], capture_output=True, text=True, check=True).stdout.strip()
        if not (v.startswith("reject " + path + ": ") and all(w in v for w in (".npy", ".csv", ".txt", "loadtxt"))):
            failures.append(f"{name}: not refused with the extension rule: {v}")
    for f in failures[:int(os.environ.get("CSV_SHOW", "40"))]:
        print("FAIL:", f)
    print(f"{len(cases)} files: {counts['ok']} read by both, {counts['empty']} without data, {counts['reject']} "
          f"refused by both, {counts['out of range']} overflowing float64 (numpy: inf); {len(failures)} failures")
    if args.keep or failures:
        print("cases kept in", _TMP)
    else:
        shutil.rmtree(_TMP)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
