#!/usr/bin/env python3
"""Mutation fuzz of the apps' .npy reader against numpy.load.

    fuzz_npy.py path/to/tdmaps_npy_probe [--cases 4000] [--seed N] [--keep]

Mutates the seed corpus (fuzz/npy_corpus/, written by
fuzz/make_npy_corpus.py) with a fixed seed: byte flips, insertions,
deletions, truncation, and edits of the header text (duplicate keys, version
bytes, quotes, commas, braces, True -> 'True', padding, shapes, dtypes,
whitespace), the header length and the data often refitted so that the edit
reaches the parser rather than an early length check. tdmaps_npy_probe reads
all cases in one process; each is then loaded with
numpy.load(allow_pickle=False).

Fails (exit 1) when tdmaps accepts a file that NumPy rejects or reads as a
different dtype, shape or values (bit for bit as float64), or when a rejection
message does not start with the file's path or lacks "byte <offset>". tdmaps
may reject files NumPy reads (other dtypes, ranks, Fortran order, padding,
duplicate keys...): those are counted, not errors.
"""
import argparse
import ast
import collections
import os
import random
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "fuzz", "npy_corpus")
MAGIC = b"\x93NUMPY"

# Bytes that matter to a Python dict literal, for insertions and overwrites.
SYNTAX = b" \t\n\r\x0c\x0b\x00,:{}()[]'\"0123456789LTFx-._#\\\xe9\x93"


# ---- file structure --------------------------------------------------------

def split(b):
    """(major, minor, header text, data) when the length field is readable."""
    if len(b) < 8 or b[:6] != MAGIC:
        return None
    major, minor = b[6], b[7]
    pre = 10 if major == 1 else 12
    if len(b) < pre:
        return None
    n = struct.unpack("<H" if major == 1 else "<I", b[8:pre])[0]
    if len(b) < pre + n:
        return None
    return major, minor, b[pre:pre + n], b[pre + n:]


def join(major, minor, text, data):
    """The file with the length field recomputed for text (the length's
    width follows the major version: 2 bytes for 1, else 4)."""
    if major == 1:
        if len(text) > 0xFFFF:
            return None
        length = struct.pack("<H", len(text))
    else:
        length = struct.pack("<I", len(text))
    return MAGIC + bytes([major, minor]) + length + text + data


def repad(major, text, align):
    """text up to its last '}' plus spaces and '\\n' to a multiple of align."""
    k = text.rfind(b"}")
    body = text[:k + 1] if k >= 0 else text.rstrip()
    pre = 10 if major == 1 else 12
    n = len(body) + 1
    n += (-(pre + n)) % align
    return body + b" " * (n - len(body) - 1) + b"\n"


def refit(rng, text, data):
    """Data of the size the header asks for (random bits, so NaN payloads and
    subnormals come up), when the header evaluates and the size is small;
    else the data unchanged."""
    try:
        d = ast.literal_eval(text.decode("latin1").strip(" \t\n"))
        shape = d["shape"]
        if isinstance(shape, int):
            shape = (shape,)
        count = 1
        for s in shape:
            count *= int(s)
        itemsize = np.dtype(d["descr"]).itemsize
    except Exception:
        return data
    if not 0 <= count <= 1024 or itemsize <= 0 or itemsize > 16:
        return data
    return rng.randbytes(count * itemsize)


# ---- mutators: each takes (rng, bytes) and returns bytes -----------------------

def pos(rng, b, header_bias=True):
    if not b:
        return 0
    if header_bias and rng.random() < 0.8:
        return rng.randrange(min(len(b), 140))
    return rng.randrange(len(b))


def m_flip_bit(rng, b):
    if not b:
        return b
    i = pos(rng, b)
    return b[:i] + bytes([b[i] ^ (1 << rng.randrange(8))]) + b[i + 1:]


def m_set_byte(rng, b):
    if not b:
        return b
    i = pos(rng, b)
    c = rng.choice(SYNTAX) if rng.random() < 0.8 else rng.randrange(256)
    return b[:i] + bytes([c]) + b[i + 1:]


def m_insert(rng, b):
    i = pos(rng, b)
    ins = bytes(rng.choice(SYNTAX) for _ in range(rng.randint(1, 3)))
    return b[:i] + ins + b[i:]


def m_delete(rng, b):
    if not b:
        return b
    i = pos(rng, b)
    return b[:i] + b[i + rng.randint(1, 4):]


def m_truncate(rng, b):
    return b[:rng.randrange(len(b) + 1)]


def m_append(rng, b):
    return b + rng.randbytes(rng.choice([1, 4, 8, 16]))


def m_length_field(rng, b):
    s = split(b)
    if s is None:
        return m_flip_bit(rng, b)
    major, minor, text, data = s
    delta = rng.choice([-16, -8, -2, -1, 1, 2, 8, 16, 1 << 16, 1 << 24])
    n = max(0, len(text) + delta)
    length = struct.pack("<H", n & 0xFFFF) if major == 1 else struct.pack("<I", n & 0xFFFFFFFF)
    return b[:8] + length + text + data


def text_edit(edit):
    """A mutator from a function of the header text; it recomputes the
    length field, and often refits the data and repads the header."""
    def mutate(rng, b):
        s = split(b)
        if s is None:
            return m_set_byte(rng, b)
        major, minor, text, data = s
        new = edit(rng, text)
        if new is None:
            return b
        if rng.random() < 0.6:
            new = repad(major, new, rng.choice([16, 64]))
        if rng.random() < 0.6:
            data = refit(rng, new, data)
        out = join(major, minor, new, data)
        return b if out is None else out
    mutate.__name__ = edit.__name__
    return mutate


ENTRY = re.compile(rb"""(['"])(descr|fortran_order|shape)\1\s*:\s*(\([^)]*\)|'[^']*'|"[^"]*"|\w+)""")


@text_edit
def e_duplicate_key(rng, t):
    entries = list(ENTRY.finditer(t))
    k = t.rfind(b"}")
    if not entries or k < 0:
        return None
    e = rng.choice(entries)
    dup = e.group(0)
    if rng.random() < 0.5:  # the duplicate with another value
        dup = rng.choice([dup.replace(b"False", b"True"), dup.replace(b"True", b"False"),
                          dup.replace(b"<f8", b"<f4"), dup.replace(b"<f4", b"<f8"), re.sub(rb"\d+", b"7", dup)])
    sep = b"" if t[:k].rstrip().endswith(b",") else b", "
    return t[:k].rstrip() + sep + dup + b", " + t[k:]


def m_version(rng, b):
    s = split(b)
    v = rng.choice([(1, 0), (2, 0), (3, 0), (1, 1), (2, 1), (3, 7), (0, 0), (4, 0), (1, 255), (0, 1)])
    if s is None or rng.random() < 0.3:  # only the two bytes: the length field no longer fits
        return b[:6] + bytes(v) + b[8:] if len(b) >= 8 else b
    _, _, text, data = s
    out = join(v[0], v[1], repad(v[0], text, 64) if rng.random() < 0.5 else text, data)
    return b if out is None else out


@text_edit
def e_remove_quote(rng, t):
    qs = [i for i, c in enumerate(t) if c in b"'\""]
    if not qs:
        return None
    i = rng.choice(qs)
    return t[:i] + t[i + 1:]


@text_edit
def e_swap_quote(rng, t):
    qs = [i for i, c in enumerate(t) if c in b"'\""]
    if not qs:
        return None
    i = rng.choice(qs)
    return t[:i] + (b'"' if t[i] == ord("'") else b"'") + t[i + 1:]


@text_edit
def e_extra_punct(rng, t):
    marks = [i for i, c in enumerate(t) if c in b",}):{("]
    if not marks:
        return None
    i = rng.choice(marks) + rng.choice([0, 1])
    return t[:i] + rng.choice([b",", b",,", b"}", b"}}", b")", b"(", b"{", b":", b", ,"]) + t[i:]


@text_edit
def e_bool(rng, t):
    m = re.search(rb"True|False|'True'|'False'", t)
    if not m:
        return None
    new = rng.choice([b"True", b"False", b"'True'", b"'False'", b'"False"', b"true", b"false", b"0", b"1",
                      b"None", b"Falsey", b"False False", b"(False)", b"not True"])
    return t[:m.start()] + new + t[m.end():]


DESCRS = [b"'<f8'", b"'<f4'", b"'>f8'", b"'>f4'", b"'|f8'", b"'=f8'", b"'<i4'", b"'<i8'", b"'<f2'", b"'f8'",
          b"'<u1'", b"'|u1'", b"'|b1'", b"'<c8'", b"'<c16'", b"<f8", b'"<f8"', b"'<f8 '", b"' <f8'",
          b"'float64'", b"'d'", b"'<f16'", b"'<U2'", b"'|O'", b"'<M8[s]'", b"[('a', '<f8')]", b"u'<f8'",
          b"b'<f8'", b"'<' 'f8'", b"'<f\\x38'", b"'<f8\xe9'"]


@text_edit
def e_descr(rng, t):
    m = re.search(rb"""(['"])descr\1\s*:\s*('[^']*'|"[^"]*"|\[[^\]]*\]|[^,}]*)""", t)
    if not m:
        return None
    return t[:m.start(2)] + rng.choice(DESCRS) + t[m.end(2):]


def random_shape(rng):
    nd = rng.choice([0, 1, 2, 2, 2, 2, 3])
    dims = [rng.choice([0, 1, 2, 3, 4, 5, 7, 12, 16]) for _ in range(nd)]
    txt = [str(d).encode() for d in dims]
    style = rng.random()
    if nd >= 1 and rng.random() < 0.35:  # one broken dimension
        i = rng.randrange(nd)
        txt[i] = rng.choice([b"-" + txt[i], b"0" + txt[i], txt[i] + b"L", txt[i] + b" L", b"0x" + txt[i],
                             txt[i] + b".", txt[i] + b".0", b"1_0", b"True", b"+" + txt[i], b"99999999999999999999",
                             b"9223372036854775807", b"'" + txt[i] + b"'", txt[i] + b"j", b"", b"00"])
    if nd == 1 and style < 0.3:
        return b"(" + txt[0] + b")"
    sep = rng.choice([b", ", b",", b" , ", b",\n", b",\t", b",, "])
    inner = sep.join(txt)
    if nd == 1 or rng.random() < 0.2:
        inner += b","
    return rng.choice([b"(", b"( ", b"(\n", b"["]) + inner + rng.choice([b")", b" )", b"]"])


@text_edit
def e_shape(rng, t):
    m = re.search(rb"""(['"])shape\1\s*:\s*(\([^)]*\)|\[[^\]]*\]|[^,}]*)""", t)
    if not m:
        return None
    return t[:m.start(2)] + random_shape(rng) + t[m.end(2):]


@text_edit
def e_whitespace(rng, t):
    k = t.rfind(b"}")
    if k <= 0:
        return None
    i = rng.randrange(k + 1)
    ws = rng.choice([b" ", b"  ", b"\t", b"\n", b"\n  ", b"\r", b"\r\n", b"\x0c", b"\x0b", b"\x00", b"\\\n", b"#c\n"])
    return t[:i] + ws + t[i:]


@text_edit
def e_padding(rng, t):
    k = t.rfind(b"}")
    if k < 0:
        return None
    body, pad = t[:k + 1], t[k + 1:]
    choice = rng.randrange(9)
    if choice == 0:
        return body + b"\n"  # no padding
    if choice == 1:
        return body + pad[:-1]  # no final newline
    if choice == 2:
        return body + pad[:-1] + b" "  # newline turned into a space
    if choice == 3:
        return body + b"\n" + pad[1:]  # newline before the padding
    if choice == 4:
        return body + b"\t" + pad[1:]
    if choice == 5:
        return body + pad + b" " * rng.randint(1, 20)  # text after the newline
    if choice == 6:
        return b" " + t  # leading blank
    if choice == 7:
        return body + b" " * (16 * rng.randint(1, 4)) + pad  # 16 or 64 more
    return body + pad[:-1] + b"\n\n"


@text_edit
def e_key(rng, t):
    entries = list(ENTRY.finditer(t))
    if not entries:
        return None
    e = rng.choice(entries)
    choice = rng.randrange(5)
    if choice == 0:  # drop the entry
        end = e.end()
        if t[end:end + 1] == b",":
            end += 1
        return t[:e.start()] + t[end:]
    if choice == 1:
        new = rng.choice([b"descrr", b"Descr", b"shape ", b"fortran", b"", b"fortran_order\xe9"])
        return t[:e.start(2)] + new + t[e.end(2):]
    if choice == 2:  # unquoted key
        return t[:e.start(1)] + e.group(2) + t[e.end(2) + 1:]
    if choice == 3:  # shuffled entries, still valid
        es = [x.group(0) for x in entries]
        if len(es) != 3:
            return None
        rng.shuffle(es)
        k = t.rfind(b"}")
        return b"{" + b", ".join(es) + rng.choice([b"", b", ", b","]) + t[k:]
    # trailing comma toggled
    k = t.rfind(b"}")
    head = t[:k].rstrip()
    return (head[:-1] if head.endswith(b",") else head + b",") + t[k:]


@text_edit
def e_python2_long(rng, t):
    ds = [m.end() for m in re.finditer(rb"\d+", t)]
    if not ds:
        return None
    i = rng.choice(ds)
    return t[:i] + rng.choice([b"L", b"L", b"l", b"LL"]) + t[i:]


@text_edit
def e_non_ascii(rng, t):
    qs = [i for i, c in enumerate(t) if c in b"'\""]
    if not qs:
        return None
    i = rng.choice(qs) + 1
    return t[:i] + rng.choice([b"\xe9", "é".encode(), b"\xff", b"\x80"]) + t[i:]


def m_data(rng, b):
    s = split(b)
    if s is None:
        return m_truncate(rng, b)
    major, minor, text, data = s
    choice = rng.randrange(4)
    if choice == 0:
        data = data[:max(0, len(data) - rng.choice([1, 4, 8]))]
    elif choice == 1:
        data = data + rng.randbytes(rng.choice([1, 4, 8]))
    elif choice == 2:
        data = refit(rng, text, data)
    else:
        data = b""
    return join(major, minor, text, data)


def m_respell(rng, b):
    """A valid file in a random spelling: version 1.0 / 2.0 / 3.0, keys in any
    order and either quote, blanks, trailing commas, 16- or 64-byte padding,
    a random 2-D (sometimes other) shape, the seed's dtype or '<f4' / '<f8',
    refitted data.
    Most cases start here, so the later mutations start from files that
    tdmaps reads."""
    s = split(b)
    descr = rng.choice(["<f8", "<f4"]) if s is None or rng.random() < 0.5 else None
    if descr is None:
        m = re.search(rb"""descr['"]\s*:\s*['"]([^'"]*)['"]""", s[2])
        descr = m.group(1).decode("latin1") if m else "<f8"
    nd = rng.choice([2] * 8 + [0, 1, 3])
    dims = [rng.choice([0, 1, 1, 2, 3, 4, 5, 8, 13]) for _ in range(nd)]

    def blank():
        return rng.choice(["", "", " ", " ", "\n", "\t", "  \n "])

    def quote(x):
        q = rng.choice("'\"")
        return q + x + q

    shape = "(" + blank() + ("," + blank()).join(str(d) for d in dims)
    if nd == 1 or (nd > 1 and rng.random() < 0.3):
        shape += ","
    shape += blank() + ")"
    entries = [quote("descr") + blank() + ":" + blank() + quote(descr),
               quote("fortran_order") + blank() + ":" + blank() + rng.choice(["False"] * 5 + ["True"]),
               quote("shape") + blank() + ":" + blank() + shape]
    rng.shuffle(entries)
    text = "{" + blank() + ("," + blank()).join(entries) + blank() + rng.choice(["", ",", ", "]) + blank() + "}"
    major = rng.choice([1, 1, 2, 3])
    text = repad(major, text.encode("ascii") + b" " * rng.choice([0, 0, 3]), rng.choice([16, 64]))
    return join(major, 0, text, refit(rng, text, b""))


RAW = [m_flip_bit, m_set_byte, m_insert, m_delete, m_truncate, m_append, m_length_field, m_data]
TEXT = [e_duplicate_key, m_version, e_remove_quote, e_swap_quote, e_extra_punct, e_bool, e_descr, e_shape,
        e_shape, e_whitespace, e_padding, e_key, e_key, e_python2_long, e_non_ascii]


def mutate(rng, b):
    names = []
    if rng.random() < 0.5:
        b = m_respell(rng, b)
        names.append("m_respell")
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3] if names else [1, 1, 1, 2, 2, 3])):
        m = rng.choice(RAW) if rng.random() < 0.35 else rng.choice(TEXT)
        b = m(rng, b)
        names.append(m.__name__)
    return b, names


# ---- oracles -----------------------------------------------------------------

def fnv1a(data):
    h = 0xCBF29CE484222325
    for c in data:
        h = ((h ^ c) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def numpy_load(path):
    """('ok', array) or ('reject', reason)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = np.load(path, allow_pickle=False)
    except Exception as e:  # numpy.load raises ValueError, EOFError, OSError, SyntaxError, MemoryError...
        return "reject", "%s: %s" % (type(e).__name__, str(e)[:120])
    if not isinstance(a, np.ndarray):  # an .npz archive
        getattr(a, "close", lambda: None)()
        return "reject", "not an array: %s" % type(a).__name__
    return "ok", a


def rule_of(message):
    """The rule of a tdmaps message, without the path, offset and values."""
    m = re.match(r".*?: byte \d+: (.*)", message)
    rule = m.group(1) if m else message
    rule = re.sub(r"'[^']*'|\"[^\"]*\"|\([^)]*\)|\d+", "_", rule)
    return rule[:90]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("probe")
    ap.add_argument("--cases", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=20240917)
    ap.add_argument("--corpus", default=CORPUS)
    ap.add_argument("--keep", action="store_true", help="keep the case files")
    args = ap.parse_args()

    # numpy.load of a header with a huge shape allocates it before finding the
    # data short; cap the address space so that fails fast as MemoryError (a
    # rejection either way: the data cannot fill such a shape).
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as f:
        vm = int(f.read().split()[0]) * resource.getpagesize()
    cap = vm + (2 << 30)
    if hard == resource.RLIM_INFINITY or cap < hard:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))

    seeds = []
    for name in sorted(os.listdir(args.corpus)):
        with open(os.path.join(args.corpus, name), "rb") as f:
            seeds.append((name, f.read()))
    if not seeds:
        sys.exit("fuzz_npy: empty corpus %s" % args.corpus)

    rng = random.Random(args.seed)
    tmp = tempfile.mkdtemp(prefix="tdmaps_fuzz_npy_")
    failed = True
    try:
        cases = []  # (path, seed name, mutations)
        for i in range(args.cases):
            if i < len(seeds):  # the seeds themselves first
                name, b = seeds[i]
                muts = []
            else:
                name, b = rng.choice(seeds)
                b, muts = mutate(rng, b)
            path = os.path.join(tmp, "case%05d.npy" % i)
            with open(path, "wb") as f:
                f.write(b)
            cases.append((path, name, muts))
        listing = os.path.join(tmp, "cases.txt")
        with open(listing, "w") as f:
            f.write("".join(p + "\n" for p, _, _ in cases))

        out = subprocess.run([args.probe, "@" + listing], stdout=subprocess.PIPE, check=True).stdout
        lines = out.decode("latin1").split("\n")[:-1]
        if len(lines) != len(cases):
            sys.exit("fuzz_npy: the probe printed %d lines for %d cases" % (len(lines), len(cases)))

        errors = []
        table = collections.Counter()
        numpy_only = collections.Counter()
        by_mutator = collections.defaultdict(lambda: [0, 0, 0])  # cases, tdmaps ok, numpy ok
        both_reject = collections.Counter()

        for (path, name, muts), line in zip(cases, lines):
            what = "%s (from %s by %s)" % (path, name, ", ".join(muts) or "no mutation")
            verdict, a = numpy_load(path)
            for m in set(muts) or {"(seed)"}:
                by_mutator[m][0] += 1
                by_mutator[m][1] += line.startswith("ok ")
                by_mutator[m][2] += verdict == "ok"
            if line.startswith("reject "):
                msg = line[len("reject "):]
                if not msg.startswith(path + ": "):
                    errors.append("%s: message does not start with the path: %s" % (what, msg))
                elif " byte " not in msg[len(path):]:
                    errors.append("%s: message names no byte offset: %s" % (what, msg))
                table["tdmaps reject, numpy " + verdict] += 1
                (numpy_only if verdict == "ok" else both_reject)[rule_of(msg)] += 1
                continue
            table["tdmaps ok, numpy " + verdict] += 1
            parts = line.split()
            if len(parts) != 5 or parts[0] != "ok":
                errors.append("%s: unreadable probe line %r" % (what, line))
                continue
            _, dtype, rows, cols, digest = parts
            if verdict != "ok":
                errors.append("%s: tdmaps reads %s (%s, %s) but numpy.load rejects it: %s" % (what, dtype, rows, cols, a))
                continue
            got = (a.dtype.str, a.shape)
            want = (dtype, (int(rows), int(cols)))
            if got != want:
                errors.append("%s: tdmaps reads %s %s, numpy.load %s %s" % (what, want[0], want[1], got[0], got[1]))
                continue
            with np.errstate(invalid="ignore"):  # a signalling NaN of float32 is quieted, as in C++
                numpy_digest = fnv1a(np.ascontiguousarray(a, dtype="<f8").tobytes())
            if numpy_digest != digest:
                errors.append("%s: values differ from numpy.load's (fnv1a %s, numpy %s)" % (what, digest, numpy_digest))

        n = len(cases)
        t_ok = table["tdmaps ok, numpy ok"] + table["tdmaps ok, numpy reject"]
        n_ok = table["tdmaps ok, numpy ok"] + table["tdmaps reject, numpy ok"]
        print("fuzz_npy: %d cases (seed %d, %d corpus files)" % (n, args.seed, len(seeds)))
        print("  tdmaps: %d accepted, %d rejected" % (t_ok, n - t_ok))
        print("  numpy:  %d accepted, %d rejected" % (n_ok, n - n_ok))
        for k in sorted(table):
            print("  %-28s %d" % (k, table[k]))
        print("  cases / read by tdmaps / read by numpy, by mutation (a case has one to four):")
        for m in sorted(by_mutator):
            print("    %-18s %5d %5d %5d" % ((m,) + tuple(by_mutator[m])))
        print("  read by numpy, rejected by tdmaps, by rule:")
        for rule, c in numpy_only.most_common(12):
            print("    %5d  %s" % (c, rule))
        print("  rejected by both, the most frequent tdmaps rules:")
        for rule, c in both_reject.most_common(8):
            print("    %5d  %s" % (c, rule))
        if table["tdmaps ok, numpy ok"] == 0:
            errors.append("no case was read by both: the fuzz checks nothing")
        if errors:
            print("fuzz_npy: %d FAILURES (case files kept in %s):" % (len(errors), tmp))
            for e in errors[:30]:
                print("  " + e)
            return 1
        failed = False
        print("fuzz_npy: no disagreement")
        return 0
    finally:
        if not failed and not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
