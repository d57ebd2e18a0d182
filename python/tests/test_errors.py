"""Bad input raises a Python exception with the CLIs' wording, never a crash,
and leaves a given out= untouched."""

import numpy as np
import pytest

from conftest import tdmaps


def raises(exc, match, *args, **kwargs):
    with pytest.raises(exc, match=match):
        tdmaps.pdist(*args, **kwargs)


@pytest.mark.parametrize("shape", [(5,), (2, 3, 4), ()])
def test_ndim(shape):
    raises(ValueError, r"X: expected a 2-D array \(points x dims\), got %d-D shape" % len(shape), np.zeros(shape))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float16, np.complex128, np.bool_, np.uint8])
def test_dtype(dtype):
    name = np.dtype(dtype).name
    raises(TypeError, r"X: unsupported dtype '%s' \(tdmaps reads float32 and float64 in place.*copy=True" % name,
           np.zeros((4, 2), dtype=dtype))


def test_big_endian_is_not_read_in_place():
    raises(TypeError, r"X: unsupported dtype 'big-endian", np.zeros((4, 2), dtype=">f8"))


@pytest.mark.parametrize("make", [np.asfortranarray, lambda a: a[:, ::2], lambda a: a[::2], lambda a: a.T])
def test_not_c_order(make):
    X = make(np.random.default_rng(1).random((10, 6)))
    raises(ValueError, r"X: the array is not in C order.*np.ascontiguousarray\(X\), or copy=True", X)


def test_unaligned():
    buf = np.zeros(8 * 12 + 1, dtype=np.uint8)[1:].view(np.float64).reshape(4, 3)
    raises(ValueError, r"X: the data are not aligned", buf)


@pytest.mark.parametrize("value,text", [(np.nan, "nan"), (np.inf, "inf"), (-np.inf, "-inf")])
def test_nonfinite_rejected_on_request(value, text):
    X = np.ones((6, 3))
    X[4, 2] = value
    raises(ValueError, r"X: row 4 \(0-based\), column 2 is %s \(reject_nonfinite=True\)" % text, X,
           reject_nonfinite=True)
    Xf = X.astype(np.float32)
    raises(ValueError, r"X: row 4 \(0-based\), column 2 is %s" % text, Xf, reject_nonfinite=True)
    assert np.isnan(tdmaps.pdist(X)).any() or np.isinf(tdmaps.pdist(X)).any()  # default: propagates


def test_zero_dimensions():
    raises(ValueError, r"X: points have 0 dimensions", np.zeros((5, 0)))


@pytest.mark.parametrize("metric", ["cityblock", "cosine", "Euclidean"])
def test_unknown_metric(metric):
    raises(ValueError, r"Unknown Distance Metric: %s" % metric, np.zeros((3, 2)), metric)


def test_callable_metric():
    raises(ValueError, r"metric: tdmaps computes 'euclidean' and 'sqeuclidean'", np.zeros((3, 2)), lambda u, v: 0.0)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"map": "lambda3"}, r"map 'lambda3': unknown \(known: bb, hadouken, lambda, rb, rec, utm, h\)"),
        ({"sqrt": "fast"}, r"sqrt 'fast': unknown \(known: sqrt, newton, rsqrt, fp64\)"),
        ({"form": "loose"}, r"form 'loose': unknown \(known: exact, eps\)"),
        ({"layout": "square"}, r"layout 'square': unknown \(known: condensed, packed, full\)"),
        ({"kernel": "blas"}, r"kernel 'blas': unknown"),
        ({"block": 64}, r"block 64: the block side must be 8, 16 or 32"),
        ({"symmetric": True}, r"symmetric=True applies to layout='full' only"),
        ({"layout": "full", "kernel": "linear"}, r"kernel='linear' writes the packed and condensed layouts"),
        ({"map": "utm", "kernel": "tile"}, r"map 'utm' is a thread-space map and cannot run a tile kernel"),
    ],
)
def test_bad_options(kwargs, match):
    raises(ValueError, match, np.random.default_rng(2).random((40, 3)), **kwargs)


def test_tile_too_large():
    raises(ValueError, r"kernel='tile': the tile of 32 \+ 32 fp64 points of d = 300 needs .* bytes of team scratch.*"
           r"use kernel='auto' or 'element'", np.zeros((40, 300)), kernel="tile")


def test_bad_out():
    X = np.random.default_rng(3).random((10, 3))
    raises(ValueError, r"out: shape \(44,\), expected \(45,\)", X, out=np.zeros(44))
    raises(ValueError, r"out: shape \(45,\), expected \(10, 10\)", X, out=np.zeros(45), layout="full")
    raises(ValueError, r"out: dtype float32, expected float64", X, out=np.zeros(45, dtype=np.float32))
    raises(ValueError, r"out: the array is not in C order", X, out=np.zeros((10, 10), order="F"), layout="full")
    ro = np.zeros(45)
    ro.setflags(write=False)
    raises(ValueError, r"out: the array is read-only", X, out=ro)
    raises(TypeError, r"out: expected an array .* got list", X, out=[0.0] * 45)
    big = np.zeros(100)
    raises(ValueError, r"out: overlaps the input", big[:30].reshape(10, 3), out=big[10:55])
    keep = np.full(45, 3.0)
    raises(ValueError, r"row 1", np.array([[0.0] * 3, [np.nan] * 3] + [[1.0] * 3] * 8), out=keep, reject_nonfinite=True)
    assert np.all(keep == 3.0)


def test_not_an_array():
    raises(TypeError, r"X: expected an array \(NumPy, or any object with the buffer protocol", {"a": 1})


class FakeDeviceArray:
    """A CUDA array as a host build sees it: __cuda_array_interface__ only."""

    __cuda_array_interface__ = {"shape": (4, 3), "typestr": "<f8", "data": (0, False), "version": 3, "strides": None}


def test_fake_device_array():
    if tdmaps.info()["device"]:  # a CUDA build checks the pointer (here 0, no device memory)
        raises(ValueError, r"X: its data pointer is not CUDA device memory \(unregistered\)", FakeDeviceArray())
    else:
        raises(TypeError, r"X is a CUDA device array \(__cuda_array_interface__\), but this tdmaps module was built "
               r"for the host backend", FakeDeviceArray())


def test_too_large_for_memory():
    X = np.zeros((1 << 21, 1))  # 16 MB in; the condensed output would take 17.6 TB
    with pytest.raises(MemoryError, match=r"the condensed output of n = 2097152 points \(2199022206976 fp64 elements"
                                          r".*of host memory but only .* is available; use fewer points, float32 points"):
        tdmaps.pdist(X)
    with pytest.raises(tdmaps.TooLarge, match=r"layout='condensed'"):
        tdmaps.pdist(X.astype(np.float32), layout="full")
