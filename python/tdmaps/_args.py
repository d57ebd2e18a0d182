"""Argument checks, conversions and result allocators shared by the public
functions of tdmaps (not public)."""

import numbers as _numbers
import operator as _operator
import sys as _sys

def _root(x):
    return type(x).__module__.split(".")[0]


def _on_device(x):
    try:
        if hasattr(x, "__cuda_array_interface__"):
            return True
    except Exception:  # torch raises more than AttributeError for some tensors
        return False
    if hasattr(x, "__dlpack_device__") and not hasattr(x, "__array_interface__"):
        return x.__dlpack_device__()[0] in (2, 13)  # kDLCUDA, kDLCUDAManaged
    return False


def _numpy_alloc(shape, dtype, zero):
    import numpy as np

    return (np.zeros if zero else np.empty)(shape, dtype=dtype)


def _allocator(x):
    """alloc(shape, dtype, zero): the result's array, made by the input's own
    library on the input's device; None for host arrays (the compiled module
    makes a NumPy array itself)."""
    np = _sys.modules.get("numpy")
    if np is not None and type(x) is np.ndarray:
        return None
    root = _root(x)
    if root == "torch":
        import torch

        dev = x.device  # a CPU tensor's result is a CPU tensor, read through DLPack

        def alloc(shape, dtype, zero):
            return (torch.zeros if zero else torch.empty)(shape, dtype=getattr(torch, dtype), device=dev)

        return alloc
    if root == "cupy":
        import cupy

        dev = x.device

        def alloc(shape, dtype, zero):
            with dev:
                return (cupy.zeros if zero else cupy.empty)(shape, dtype=dtype)

        return alloc
    if _on_device(x):

        def alloc(shape, dtype, zero):
            raise TypeError(
                "tdmaps: cannot allocate the result beside a %s device array (PyTorch and CuPy are supported); "
                "pass out= (pdist), or a torch / cupy array" % type(x).__name__
            )

        return alloc
    return None

def _is_bool(v):
    # NumPy's bool scalar: numpy.bool_ in NumPy 1, numpy.bool (bool_ an alias) in NumPy 2.
    return isinstance(v, bool) or (type(v).__name__ in ("bool_", "bool") and _root(v) == "numpy")


def _type_name(v):
    return type(v).__name__


def _check_bool(name, v, none_ok=False):
    """True / False (NumPy's bool too); anything else raises TypeError, as
    'no' or 1 would otherwise be taken by their truth value."""
    if v is True or v is False:
        return v
    if none_ok and v is None:
        return None
    if not _is_bool(v):
        raise TypeError("%s: expected %sTrue or False, got %s %r" % (name, "None, " if none_ok else "", _type_name(v), v))
    return bool(v)


def _check_int(name, v, bits=64):
    """An integer (Python's or NumPy's), not a bool and not a float."""
    if type(v) is int and -(1 << (bits - 1)) <= v < 1 << (bits - 1):
        return v
    if _is_bool(v):
        raise TypeError("%s: expected an int, got bool %r" % (name, v))
    try:
        i = _operator.index(v)
    except TypeError:
        raise TypeError("%s: expected an int, got %s %r" % (name, _type_name(v), v)) from None
    if not -(1 << (bits - 1)) <= i < 1 << (bits - 1):
        raise ValueError("%s %d: out of range" % (name, i))
    return i


def _check_real(name, v):
    """A real number (int, float, NumPy's), not a bool, complex or string."""
    if type(v) is float:
        return v
    if _is_bool(v) or not isinstance(v, _numbers.Real):
        if getattr(v, "shape", None) == () and getattr(getattr(v, "dtype", None), "kind", "") in "iuf":
            return float(v)  # a 0-d NumPy array
        raise TypeError("%s: expected a real number, got %s %r" % (name, _type_name(v), v))
    return float(v)


def _check_str(name, v):
    if not isinstance(v, str):
        raise TypeError("%s: expected a string, got %s %r" % (name, _type_name(v), v))
    return v


def _map_options(map, sqrt, form, block):
    return _check_str("map", map), _check_str("sqrt", sqrt), _check_str("form", form), _check_int("block", block, 32)


def _converted(x, allowed, default, name):
    """copy=True: x as a C-ordered array of an allowed dtype in native byte
    order, by its own library. Complex input raises TypeError (SciPy refuses
    it too) rather than lose its imaginary part."""
    root = _root(x)
    if root == "torch":
        import torch

        x = x.detach()
        if x.is_complex():
            raise TypeError("%s: unsupported dtype '%s' (complex; tdmaps computes real distances)" % (name, x.dtype))
        if str(x.dtype).replace("torch.", "") not in allowed:
            x = x.to(getattr(torch, default))
        return x.contiguous()
    if root == "cupy":
        import cupy

        if x.dtype.kind == "c":
            raise TypeError("%s: unsupported dtype '%s' (complex; tdmaps computes real distances)" % (name, x.dtype))
        return cupy.ascontiguousarray(x, dtype=x.dtype.name if x.dtype.name in allowed else default)
    import numpy as np

    a = np.asarray(x)
    if a.dtype.kind == "c":
        raise TypeError("%s: unsupported dtype '%s' (complex; tdmaps computes real distances)" % (name, a.dtype))
    # dtype.name drops the byte order: big-endian float64 becomes native float64.
    return np.ascontiguousarray(a, dtype=a.dtype.name if a.dtype.name in allowed else default)


def _ranks():
    """comm='s module, imported on first use (it brings NumPy and, for several ranks, mpi4py)."""
    from . import _mpi

    return _mpi


def _points(X, copy):
    if copy is False and not isinstance(X, (list, tuple)):
        return X
    if _check_bool("copy", copy) or isinstance(X, (list, tuple)):
        return _converted(X, ("float32", "float64"), "float64", "X")
    return X


_PRECISIONS = {"fp64": "float64", "fp32": "float32"}


def _dtype_name(x):
    return str(getattr(x, "dtype", "")).replace("torch.", "")


def _with_precision(X, precision):
    """X in the dtype of precision ('fp64' / 'fp32'), converted by its own
    library where it is another float dtype (a copy); X itself otherwise."""
    want = _PRECISIONS[precision]
    have = _dtype_name(X)
    if have == want or have not in _PRECISIONS.values():
        return X  # the right dtype, or one the compiled module refuses with its message
    if want == "float32" and _root(X) == "numpy":
        import numpy as np

        big = np.abs(X) > np.finfo(np.float32).max
        if big.any():
            r, c = (int(v) for v in np.argwhere(big)[0])
            raise ValueError(
                "X: row %d (0-based): %s = %r overflows float32 (largest finite 3.4028235e+38; precision='fp32')"
                % (r, "xyz"[c] if c < 3 else str(c), float(X[r, c]))
            )
    if _root(X) == "torch":
        import torch

        return X.to(getattr(torch, want)).contiguous()
    return X.astype(want)


def _shared_position(X):
    """The CLI's cause of a NaN energy: the first two particles at the same position."""
    try:
        import numpy as np

        a = np.asarray(X)
    except Exception:  # a device array: no host copy for a message
        return "two particles share a position (a zero distance)"
    order = np.lexsort((np.arange(len(a)), a[:, 2], a[:, 1], a[:, 0]))
    s = a[order]
    same = np.flatnonzero((s[1:] == s[:-1]).all(axis=1))
    if len(same):
        p, q = sorted((int(order[same[0]]), int(order[same[0] + 1])))
        return "particles %d and %d (0-based) share a position (a zero distance)" % (p, q)
    return "no two particles share a position, so a triplet's term is beyond float64's range"
