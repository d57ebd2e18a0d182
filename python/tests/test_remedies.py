"""The fixes that error messages suggest are spelled in the array's own
library: X.to(torch.float64) / X.contiguous() for PyTorch tensors,
X.astype(cupy.float64) / cupy.ascontiguousarray(X) for CuPy arrays, NumPy's
for everything else. The module reads host tensors through DLPack and knows
their library by the top module of their type, so stand-ins whose type lives
in a module named torch or cupy and export a NumPy array through DLPack are
read as PyTorch and CuPy arrays are (neither library is needed)."""

import numpy as np
import pytest

from conftest import DLPackOnly, tdmaps

from tdmaps import _tdmaps


FakeTensor = type("Tensor", (DLPackOnly,), {"__module__": "torch"})
FakeCupy = type("ndarray", (DLPackOnly,), {"__module__": "cupy._core.core"})
FakeOther = type("Array", (DLPackOnly,), {"__module__": "jax.numpy"})

ASTYPE = {"torch": r"X\.to\(torch\.float64\)", "cupy": r"X\.astype\(cupy\.float64\)", "numpy": r"X\.astype\(np\.float64\)"}
CONTIGUOUS = {"torch": r"X\.contiguous\(\)", "cupy": r"cupy\.ascontiguousarray\(X\)", "numpy": r"np\.ascontiguousarray\(X\)"}
WRAP = {"torch": FakeTensor, "cupy": FakeCupy, "numpy": lambda a: a, "other": FakeOther}


def calls(X):
    """The functions that read X, called as the Python layer calls the compiled ones (alloc None: no library needed)."""
    return [
        lambda: tdmaps.count_within(X, 0.5),
        lambda: _tdmaps.pdist(X, None, None, "euclidean", "condensed", "lambda", "rsqrt", "exact", 32, "auto", None, False),
        lambda: _tdmaps.pair_histogram(X, 8, 1.0, None, "lambda", "rsqrt", "exact", 32),
        lambda: _tdmaps.nearest_neighbour(X, None, "lambda", "rsqrt", "exact", 32),
    ]


@pytest.mark.parametrize("library", ["torch", "cupy", "numpy", "other"])
def test_dtype_fix_in_the_arrays_library(rng, library):
    X = WRAP[library]((rng.random((40, 3)) * 100).astype(np.int32))
    want = ASTYPE.get(library, ASTYPE["numpy"])
    for call in calls(X):
        with pytest.raises(TypeError, match=r"X: unsupported dtype 'int32' \(.*convert with %s, or pass copy=True" % want):
            call()
    if library in ("torch", "cupy"):
        with pytest.raises(TypeError) as e:
            tdmaps.count_within(X, 0.5)
        assert "np." not in str(e.value)


@pytest.mark.parametrize("library", ["torch", "cupy", "numpy", "other"])
def test_order_fix_in_the_arrays_library(rng, library):
    X = WRAP[library](rng.random((3, 40)).T)
    want = CONTIGUOUS.get(library, CONTIGUOUS["numpy"])
    for call in calls(X):
        with pytest.raises(ValueError, match=r"X: the array is not in C order.*pass %s, or copy=True" % want):
            call()
    if library in ("torch", "cupy"):
        with pytest.raises(ValueError) as e:
            tdmaps.count_within(X, 0.5)
        assert "np." not in str(e.value)


@pytest.mark.parametrize("library", ["torch", "cupy"])
def test_collide_and_atm_fixes(rng, library):
    s = WRAP[library](rng.random((10, 4)))  # float64: the collision test reads float32
    fix = {"torch": r"spheres\.to\(torch\.float32\)", "cupy": r"spheres\.astype\(cupy\.float32\)"}[library]
    with pytest.raises(TypeError, match=r"spheres: unsupported dtype 'float64' .*convert with %s," % fix):
        _tdmaps.collide(s, "count", None, "lambda", "rsqrt", "exact", 32, "tile")
    X = WRAP[library](rng.random((10, 3)).astype(np.float16))
    with pytest.raises(TypeError, match=r"X: unsupported dtype 'float16' .*convert with %s," % ASTYPE[library]):
        _tdmaps.atm_energy(X, 1.0, None, None, False, None, "lambda3", "cbrt", "exact", 8)


def test_stand_ins_are_read_as_arrays(rng):
    """The stand-ins are real arrays to the module: valid ones give NumPy's results."""
    X = rng.random((60, 3))
    assert tdmaps.count_within(FakeTensor(X), 0.4) == tdmaps.count_within(X, 0.4)
    assert tdmaps.count_within(FakeCupy(X), 0.4) == tdmaps.count_within(X, 0.4)
