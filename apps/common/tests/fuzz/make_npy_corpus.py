#!/usr/bin/env python3
"""Writes the seed corpus of apps/common/tests/fuzz_npy.py into npy_corpus/ (beside
this script): a few small .npy files that tdmaps reads, that NumPy reads but
tdmaps does not (unsupported dtype, order, rank, padding), and that NumPy
rejects. Deterministic; run it again only to change the corpus, and commit
the files it writes.

    python3 apps/common/tests/fuzz/make_npy_corpus.py
"""
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "npy_corpus")


def header(text, major=1, minor=0, align=64):
    """magic + version + length + text, space-padded and ended by '\\n' so
    that the data start on a multiple of `align`."""
    pre = 10 if major == 1 else 12
    raw = text.encode("utf-8" if major == 3 else "latin1")
    n = len(raw) + 1
    n += (-(pre + n)) % align
    fmt = "<H" if major == 1 else "<I"
    return b"\x93NUMPY" + bytes([major, minor]) + struct.pack(fmt, n) + raw + b" " * (n - len(raw) - 1) + b"\n"


def values(n, dtype):
    """n values of dtype with the awkward ones first: signed zero, infinity,
    NaN, subnormal, the extremes."""
    f = np.finfo(dtype)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, f.smallest_subnormal, f.max, f.min, 1.0, -2.5]
    rng = np.random.default_rng(20240917)
    v = np.concatenate([np.array(special, dtype=dtype), rng.standard_normal(max(0, n - len(special))).astype(dtype)])
    return v[:n]


def save(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        os.remove(os.path.join(OUT, old))

    def write(name, a, version=None):
        with open(os.path.join(OUT, name), "wb") as f:
            np.lib.format.write_array(f, a, version=version, allow_pickle=False)

    # Read by tdmaps and NumPy alike.
    write("v1_f8_3x4.npy", values(12, np.float64).reshape(3, 4))
    write("v1_f4_5x2.npy", values(10, np.float32).reshape(5, 2))
    write("v2_f8_2x3.npy", values(6, np.float64).reshape(2, 3), version=(2, 0))
    write("v3_f4_4x1.npy", values(4, np.float32).reshape(4, 1), version=(3, 0))
    write("v1_f8_0x3.npy", np.zeros((0, 3)))
    d = values(6, np.float64).tobytes()
    save("v1_f8_pad16.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }", align=16) + d)
    save("v1_f8_spelled.npy",
         header('{"shape": ( 2 ,\n 3 , ) ,\t"fortran_order":False, "descr": "<f8"}', align=16) + d)
    save("v2_f8_py2_long.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (2L, 3L), }", 2) + d)
    # Read by NumPy, not by tdmaps.
    write("v1_f8_6.npy", values(6, np.float64))
    write("v1_f8_fortran.npy", np.asfortranarray(values(6, np.float64).reshape(2, 3)))
    write("v1_i4_2x2.npy", np.arange(4, dtype="<i4").reshape(2, 2))
    write("v1_be_f8_2x2.npy", values(4, np.float64).astype(">f8").reshape(2, 2))
    write("v1_f4_2x2x2.npy", values(8, np.float32).reshape(2, 2, 2))
    unaligned = header("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }", align=8)
    assert len(unaligned) % 16 != 0
    save("v1_f8_unaligned.npy", unaligned + d)
    save("v1_f8_dup_key.npy",
         header("{'descr': '<f8', 'fortran_order': True, 'shape': (3, 2), 'fortran_order': False, }") + d)
    # Rejected by NumPy too.
    save("v1_1_f8.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }", 1, 1) + d)
    save("v1_f8_string_bool.npy", header("{'descr': '<f8', 'fortran_order': 'False', 'shape': (3, 2), }") + d)


if __name__ == "__main__":
    main()
