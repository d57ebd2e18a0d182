"""tdmaps.collide against a NumPy brute force (exact for spheres on the
2^-24 grid): every result, map and kernel; bad spheres."""

import numpy as np
import pytest

from conftest import collision_mask, grid_spheres, tdmaps

BLOCK_MAPS = ["bb", "hadouken", "h", "lambda", "rb", "rec"]


def packed_bits(mask):
    return mask[np.tril_indices(len(mask), -1)]  # (1,0), (2,0), (2,1), ...: p = i (i - 1) / 2 + j


def words(bits, count):
    w = np.zeros(count * 32, dtype=np.uint8)
    w[: len(bits)] = bits
    return np.packbits(w, bitorder="little").view("<u4")


def row_words(mask):
    n = len(mask)
    start = [0]
    for k in range(n):
        start.append(start[-1] + (k + 31) // 32)  # row k takes ceil(k / 32) words
    w = np.zeros(start[n] if n > 1 else 0, dtype=np.uint32)
    for i, j in np.argwhere(np.tril(mask, -1)):
        w[start[i] + j // 32] |= np.uint32(1 << (j % 32))
    return w


def tile_words(mask):
    n = len(mask)
    nt = (n + 31) // 32
    w = np.zeros(32 * nt * (nt + 1) // 2 if n > 1 else 0, dtype=np.uint32)
    for i, j in np.argwhere(np.tril(mask, -1)):
        w[32 * ((i // 32) * (i // 32 + 1) // 2 + j // 32) + i % 32] |= np.uint32(1 << (j % 32))
    return w


def check_all(s, **kw):
    m = collision_mask(s)
    bits = packed_bits(m)
    assert tdmaps.collide(s, "count", **kw) == bits.sum()
    pairs = tdmaps.collide(s, "pairs", **kw)
    assert pairs.dtype == np.int64 and pairs.shape == (bits.sum(), 2)
    assert np.array_equal(pairs, np.argwhere(np.tril(m, -1)))
    flags = tdmaps.collide(s, "flags", **kw)
    assert flags.dtype == np.uint32 and np.array_equal(flags, words(bits, (len(bits) + 31) // 32))
    ints = tdmaps.collide(s, "intflags", **kw)
    assert ints.dtype == np.int32 and np.array_equal(ints, bits.astype(np.int32))
    assert np.array_equal(tdmaps.collide(s, "rowflags", **kw), row_words(m))
    assert np.array_equal(tdmaps.collide(s, "tileflags", **kw), tile_words(m))


@pytest.mark.parametrize("n", [2, 3, 31, 33, 97, 300])
def test_every_result(rng, n):
    s = grid_spheres(rng, n)
    assert collision_mask(s).sum() > n // 4  # the case tests something
    check_all(s)


@pytest.mark.parametrize("map_name", BLOCK_MAPS + ["utm"])
@pytest.mark.parametrize("kernel", ["tile", "element", "linear"])
@pytest.mark.parametrize("block", [8, 32])
def test_every_map_and_kernel(rng, map_name, kernel, block):
    if map_name == "utm" and kernel == "tile":
        with pytest.raises(ValueError, match=r"map='utm' is a thread-space map and cannot run the tile kernel"):
            tdmaps.collide(grid_spheres(rng, 10), map=map_name, kernel=kernel)
        return
    check_all(grid_spheres(rng, 150), map=map_name, kernel=kernel, block=block)


def test_touching_spheres_do_not_collide():
    s = np.array([[0, 0, 0, 0.25], [0.5, 0, 0, 0.25], [0.5, 0.5, 0, 0.25], [0.5, 0.5, 0.4375, 0.25]], dtype=np.float32)
    assert np.array_equal(tdmaps.collide(s, "pairs"), np.array([[3, 2]]))
    assert tdmaps.collide(s) == 1


def test_intervals(rng):
    s = grid_spheres(rng, 200, 0.001, 0.01)
    s[:, 1:3] = 0
    check_all(s)


@pytest.mark.parametrize("n", [0, 1])
def test_no_pairs(n):
    s = np.zeros((n, 4), dtype=np.float32)
    assert tdmaps.collide(s) == 0
    assert tdmaps.collide(s, "pairs").shape == (0, 2)
    for r in ["flags", "rowflags", "tileflags", "intflags"]:
        assert tdmaps.collide(s, r).shape == (0,)


def test_copy_converts(rng):
    s = grid_spheres(rng, 80)
    assert tdmaps.collide(s.astype(np.float64), "count", copy=True) == tdmaps.collide(s)
    assert tdmaps.collide(np.asfortranarray(s), copy=True) == tdmaps.collide(s)


@pytest.mark.parametrize(
    "row,col,value,text",
    [(2, 0, np.nan, "x is nan"), (3, 1, np.inf, "y is inf"), (5, 3, -0.5, "radius -0.5.* is negative"),
     (0, 3, np.nan, "radius is nan")],
)
def test_bad_spheres(rng, row, col, value, text):
    s = grid_spheres(rng, 8)
    s[row, col] = value
    for result in ["count", "pairs", "flags", "intflags"]:
        with pytest.raises(ValueError, match=r"spheres: row %d \(0-based\): %s" % (row, text)):
            tdmaps.collide(s, result)


def test_bad_input(rng):
    with pytest.raises(ValueError, match=r"spheres: expected shape \(n, 4\).*got 2-D shape \(5, 3\)"):
        tdmaps.collide(np.zeros((5, 3), dtype=np.float32))
    with pytest.raises(TypeError, match=r"spheres: unsupported dtype 'float64'.*copy=True"):
        tdmaps.collide(np.zeros((5, 4)))
    with pytest.raises(ValueError, match=r"spheres: the array is not in C order"):
        tdmaps.collide(np.asfortranarray(np.zeros((5, 4), dtype=np.float32)))
    with pytest.raises(ValueError, match=r"result 'mask': unknown \(known: count, pairs, flags"):
        tdmaps.collide(np.zeros((5, 4), dtype=np.float32), "mask")
    with pytest.raises(ValueError, match=r"kernel 'auto': unknown \(known: tile, element, linear\)"):
        tdmaps.collide(np.zeros((5, 4), dtype=np.float32), kernel="auto")
