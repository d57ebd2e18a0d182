"""tdmaps: pairwise distances, all-pairs collision detection, N-body forces
and three-body sums on triangular and tetrahedral Kokkos maps (the EDM,
collision, N-body and triplets apps of the tdmaps C++ library).

    import numpy as np, tdmaps
    X = np.random.rand(10000, 3)
    d = tdmaps.pdist(X)                       # scipy.spatial.distance.pdist(X)
    h = tdmaps.pair_histogram(X, 64, rmax=1)  # np.histogram(pdist(X), 64, (0, 1))[0]
    dist, idx = tdmaps.nearest_neighbour(X)   # each point's nearest other point
    dist, idx = tdmaps.k_nearest_neighbours(X, 8)  # (n, 8): each point's 8 nearest, sorted
    k = tdmaps.collide(spheres)               # colliding pairs of (n, 4) x, y, z, r
    e = tdmaps.atm_energy(X, cutoff=2.5)      # the Axilrod-Teller-Muto three-body energy
    a = tdmaps.nbody_accelerations(X, m)      # direct-sum gravity (also "lj", "coulomb")

The values: tdmaps.backend (Kokkos' execution space), tdmaps.maps (the 2-D
maps' names, map=), tdmaps.maps3 (atm_energy's 3-D maps), tdmaps.__version__;
TooLarge (a MemoryError) is raised where a result does not fit the free memory.

Arrays are read in place, never copied behind the caller's back: NumPy (or
any buffer) on the host, and on a CUDA build any __cuda_array_interface__ or
__dlpack__ device array (PyTorch, CuPy), whose result comes back as the same
kind of array on the same device. A wrong dtype or a non-C-order array raises;
copy=True converts instead. Kokkos starts on import (unless it runs already)
on a thread of tdmaps' own and ends there at interpreter exit; its
environment variables (OMP_NUM_THREADS, OMP_PROC_BIND, KOKKOS_DEVICE_ID, ...)
apply. Every function may be called from any Python thread: the call
releases the GIL and its Kokkos work runs on that thread, one call at a time.
Ctrl-C in the main thread raises KeyboardInterrupt within about a second:
the integer reductions stop between chunks of their work, other kernels at
their end (a given out= is then complete; untouched where the call had not
started).
"""

import atexit as _atexit
import os as _os

try:
    from . import _tdmaps
except ImportError as _e:
    raise ImportError(
        "tdmaps: the compiled module _tdmaps is not beside %s: import the built package (PYTHONPATH=<build>/python) "
        "or an installed one, not the source tree" % _os.path.dirname(__file__)
    ) from _e

__all__ = [
    "pdist", "pair_histogram", "nearest_neighbour", "k_nearest_neighbours", "count_within", "collide", "atm_energy",
    "nbody_accelerations", "info", "maps", "maps3", "backend", "TooLarge",
]
__version__ = _tdmaps.__version__  # the project's one version: CMake's project(VERSION), as the CLIs' --version

TooLarge = _tdmaps.TooLarge  # a MemoryError: the output does not fit the free memory

if _tdmaps.initialize() and not getattr(_tdmaps, "_finalize_registered", False):
    _atexit.register(_tdmaps.finalize, True)  # at_exit: calls from daemon threads after it wait for the end
    _tdmaps._finalize_registered = True


def info():
    """The build and the running Kokkos, as a dict.

    info() -> dict

    Keys: "backend" (Kokkos' default execution space: "OpenMP", "Serial",
    "Cuda"), "device" (True on CUDA builds: results lie where the input lies),
    "kokkos_version" ("3.4.1"), "concurrency" (threads or GPU lanes),
    "maps", "sqrt", "forms" (the names map=, sqrt= and form= take), "gemm"
    (whether kernel="gemm" is available). Takes no arguments; raises nothing.

    Example
    -------
    >>> import tdmaps
    >>> tdmaps.info()["backend"] in ("OpenMP", "Serial", "Threads", "Cuda")
    True
    """
    return _tdmaps.info()


_info = _tdmaps.info()
backend = _info["backend"]
maps = tuple(_info["maps"])  # the names the CLIs' --map takes
maps3 = ("bb3", "lambda3")  # the 3-D maps atm_energy's map= takes (tdmaps-triplets --map)


from ._edm import count_within, k_nearest_neighbours, nearest_neighbour, pair_histogram, pdist  # noqa: E402
from ._apps import atm_energy, collide, nbody_accelerations  # noqa: E402
