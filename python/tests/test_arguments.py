"""Arguments of every public function: byte order and complex input under
copy=True, and wrong-typed options, which raise TypeError instead of being
cast (a bool taken as an int, a string as a bool)."""

import numpy as np
import pytest

from conftest import expected, grid_spheres, tdmaps

X0 = np.random.default_rng(11).random((40, 3))
S0 = grid_spheres(np.random.default_rng(12), 40)

# Every public function that takes an array, with the array's name and dtype family.
FUNCTIONS = {
    "pdist": lambda X, **k: tdmaps.pdist(X, **k),
    "pair_histogram": lambda X, **k: tdmaps.pair_histogram(X, 8, rmax=1.0, **k),
    "nearest_neighbour": lambda X, **k: tdmaps.nearest_neighbour(X, **k),
    "k_nearest_neighbours": lambda X, **k: tdmaps.k_nearest_neighbours(X, 5, **k),
    "count_within": lambda X, **k: tdmaps.count_within(X, 0.5, **k),
    "collide": lambda X, **k: tdmaps.collide(X, **k),
}


def input_of(name):
    return S0 if name == "collide" else X0


def same(a, b):
    if isinstance(a, tuple):
        return all(same(x, y) for x, y in zip(a, b))
    return np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("order", [">", "<", "="])
def test_copy_converts_any_byte_order(name, order):
    f, A = FUNCTIONS[name], input_of(name)
    swapped = A.astype(A.dtype.newbyteorder(order))
    assert same(f(swapped, copy=True), f(A))
    if not swapped.dtype.isnative:
        with pytest.raises(TypeError, match=r"unsupported dtype 'big-endian"):
            f(swapped)


def test_copy_of_big_endian_float32_keeps_float32():
    Xb = X0.astype(">f4")
    got = tdmaps.pdist(Xb, copy=True)
    assert got.dtype == np.float32
    assert np.array_equal(got, tdmaps.pdist(X0.astype(np.float32)))


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_raises_even_with_copy(name, dtype):
    f, A = FUNCTIONS[name], input_of(name)
    C = A.astype(dtype)
    for kwargs in ({}, {"copy": True}):
        with pytest.raises(TypeError, match=r"unsupported dtype 'complex"):
            f(C, **kwargs)
    with pytest.raises(TypeError, match=r"complex"):
        f(C.tolist())  # lists are converted: complex ones raise too


def test_copy_still_converts_real_dtypes_like_scipy():
    for dtype in [np.int32, np.int64, np.uint8, np.float16, np.bool_, ">i8"]:
        A = (X0 * 10).astype(dtype)
        assert np.array_equal(tdmaps.pdist(A, copy=True), expected(A)), dtype


BAD_BOOLS = ["no", "", 1, 0, None, 1.0, [True]]


@pytest.mark.parametrize("value", BAD_BOOLS)
def test_bool_options_take_bools_only(value):
    if value is not None:  # symmetric=None is its default (layout='full': both halves)
        with pytest.raises(TypeError, match=r"symmetric: expected None, True or False, got"):
            tdmaps.pdist(X0, layout="full", symmetric=value)
    with pytest.raises(TypeError, match=r"reject_nonfinite: expected True or False, got"):
        tdmaps.pdist(X0, reject_nonfinite=value)
    for name, f in FUNCTIONS.items():
        with pytest.raises(TypeError, match=r"copy: expected True or False, got"):
            f(input_of(name), copy=value)


def test_numpy_bools_are_bools():
    full = tdmaps.pdist(X0, layout="full", symmetric=np.bool_(True))
    assert np.array_equal(full, expected(X0, layout="full"))
    assert np.array_equal(tdmaps.pdist(X0, copy=np.bool_(False), reject_nonfinite=np.bool_(True)), expected(X0))


def test_numpy_2s_bool_scalar_is_a_bool_too():
    # NumPy 2 names its bool scalar type numpy.bool (bool_ is an alias): a
    # stand-in of that name and module is taken as a bool, as np.bool_ is here;
    # a class named so elsewhere is not.
    for module, taken in (("numpy", True), ("notnumpy", False)):
        scalar = type("bool", (), {"__module__": module, "__bool__": lambda self: True})()
        if taken:
            assert tdmaps._args._check_bool("symmetric", scalar) is True
        else:
            with pytest.raises(TypeError, match=r"symmetric: expected True or False, got bool"):
                tdmaps._args._check_bool("symmetric", scalar)


@pytest.mark.parametrize("value", [True, False, 32.0, "32", None, np.float64(16)])
def test_block_takes_ints_only(value):
    for name, f in FUNCTIONS.items():
        with pytest.raises(TypeError, match=r"block: expected an int, got"):
            f(input_of(name), block=value)


def test_block_and_bins_take_numpy_ints():
    assert np.array_equal(tdmaps.pdist(X0, block=np.int64(16)), expected(X0))
    h = tdmaps.pair_histogram(X0, np.int32(8), rmax=1.0)
    assert h.shape == (8,) and h.sum() == np.count_nonzero(expected(X0) < 1.0)


@pytest.mark.parametrize("value", [True, 8.0, "8", None])
def test_bins_takes_ints_only(value):
    with pytest.raises(TypeError, match=r"bins: expected an int, got"):
        tdmaps.pair_histogram(X0, value, rmax=1.0)


def test_huge_ints_are_out_of_range_not_a_cast_error():
    with pytest.raises(ValueError, match=r"bins 1180591620717411303424: out of range"):
        tdmaps.pair_histogram(X0, 2**70, rmax=1.0)
    with pytest.raises(ValueError, match=r"block 4294967296: out of range"):
        tdmaps.pdist(X0, block=2**32)


@pytest.mark.parametrize("value", [True, "1", 1j, None, [1.0]])
def test_real_options_take_real_numbers_only(value):
    with pytest.raises(TypeError, match=r"radius: expected a real number, got"):
        tdmaps.count_within(X0, value)
    if value is not None:  # rmax=None: "rmax is required"
        with pytest.raises(TypeError, match=r"rmax: expected a real number, got"):
            tdmaps.pair_histogram(X0, 8, rmax=value)


def test_real_options_take_ints_and_numpy_scalars():
    want = int(np.count_nonzero(expected(X0) < 0.5))
    for r in [0.5, np.float32(0.5), np.float64(0.5), np.array(0.5)]:
        assert tdmaps.count_within(X0, r) == want
    assert tdmaps.count_within(X0, 2) == len(expected(X0))  # every distance of the unit cube is < 2
    assert np.array_equal(tdmaps.pair_histogram(X0, 4, rmax=2), tdmaps.pair_histogram(X0, 4, rmax=2.0))


@pytest.mark.parametrize("option", ["map", "sqrt", "form"])
@pytest.mark.parametrize("value", [None, 1, b"lambda"])
def test_string_options_take_strings_only(option, value):
    for name, f in FUNCTIONS.items():
        with pytest.raises(TypeError, match=r"%s: expected a string, got" % option):
            f(input_of(name), **{option: value})


def test_other_string_options():
    for kwargs in [{"layout": None}, {"kernel": 1}]:
        with pytest.raises(TypeError, match=r"%s: expected a string, got" % next(iter(kwargs))):
            tdmaps.pdist(X0, **kwargs)
    for kwargs in [{"result": None}, {"kernel": b"tile"}]:
        with pytest.raises(TypeError, match=r"%s: expected a string, got" % next(iter(kwargs))):
            tdmaps.collide(S0, **kwargs)
    with pytest.raises(TypeError, match=r"metric: expected a string \('euclidean' or 'sqeuclidean'\), got int"):
        tdmaps.pdist(X0, 5)
    assert np.array_equal(tdmaps.pdist(X0, np.str_("euclidean"), map=np.str_("bb")), expected(X0))
