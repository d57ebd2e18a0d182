# Type stubs of the package tdmaps (python/tdmaps/__init__.py); checked
# against the built package by python/tests/test_stubs.py (mypy's stubtest).
from typing import Any, Dict, Literal, Optional, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

__all__ = [
    "pdist",
    "pair_histogram",
    "nearest_neighbour",
    "k_nearest_neighbours",
    "count_within",
    "collide",
    "atm_energy",
    "nbody_accelerations",
    "info",
    "maps",
    "maps3",
    "backend",
    "TooLarge",
]

__version__: str
backend: str
maps: Tuple[str, ...]
maps3: Tuple[str, ...]

# An array the module reads in place: a NumPy array or any buffer, on CUDA
# builds also a __cuda_array_interface__ / __dlpack__ device array; lists
# where copy=True converts.
_ArrayLike = Any
# A communicator: mpi4py's, or any object with Get_rank, Get_size, Allreduce.
_Comm = Any

# The compiled module (private; python/src/): its functions are the package's.
_tdmaps: Any

class TooLarge(MemoryError): ...

def info() -> Dict[str, Any]: ...
def pdist(
    X: _ArrayLike,
    metric: str = ...,
    *,
    out: Optional[_ArrayLike] = ...,
    map: str = ...,
    layout: str = ...,
    symmetric: Optional[bool] = ...,
    sqrt: str = ...,
    form: str = ...,
    block: int = ...,
    kernel: str = ...,
    reject_nonfinite: bool = ...,
    copy: bool = ...,
) -> Any: ...
def pair_histogram(
    X: _ArrayLike,
    bins: int = ...,
    rmax: Optional[float] = ...,
    *,
    map: str = ...,
    sqrt: str = ...,
    form: str = ...,
    block: int = ...,
    copy: bool = ...,
    comm: Optional[_Comm] = ...,
) -> Any: ...
def nearest_neighbour(
    X: _ArrayLike,
    *,
    map: str = ...,
    sqrt: str = ...,
    form: str = ...,
    block: int = ...,
    copy: bool = ...,
    comm: Optional[_Comm] = ...,
) -> Tuple[Any, Any]: ...
def k_nearest_neighbours(
    X: _ArrayLike,
    k: int,
    *,
    map: str = ...,
    sqrt: str = ...,
    form: str = ...,
    block: int = ...,
    copy: bool = ...,
) -> Tuple[Any, Any]: ...
def count_within(
    X: _ArrayLike,
    radius: float,
    *,
    map: str = ...,
    sqrt: str = ...,
    form: str = ...,
    block: int = ...,
    copy: bool = ...,
    comm: Optional[_Comm] = ...,
) -> int: ...
@overload
def collide(
    spheres: _ArrayLike,
    result: Literal["count"] = ...,
    *,
    map: str = ...,
    sqrt: str = ...,
    form: str = ...,
    block: int = ...,
    kernel: str = ...,
    copy: bool = ...,
    comm: Optional[_Comm] = ...,
) -> int: ...
@overload
def collide(
    spheres: _ArrayLike,
    result: str,
    *,
    map: str = ...,
    sqrt: str = ...,
    form: str = ...,
    block: int = ...,
    kernel: str = ...,
    copy: bool = ...,
    comm: Optional[_Comm] = ...,
) -> Any: ...
@overload
def atm_energy(
    X: _ArrayLike,
    *,
    c9: float = ...,
    cutoff: Optional[float] = ...,
    cutoff_triple: Optional[float] = ...,
    per_particle: Literal[False] = ...,
    precision: Optional[str] = ...,
    map: str = ...,
    cbrt: str = ...,
    form: str = ...,
    block: int = ...,
    copy: bool = ...,
    comm: Optional[_Comm] = ...,
) -> float: ...
@overload
def atm_energy(
    X: _ArrayLike,
    *,
    c9: float = ...,
    cutoff: Optional[float] = ...,
    cutoff_triple: Optional[float] = ...,
    per_particle: Literal[True],
    precision: Optional[str] = ...,
    map: str = ...,
    cbrt: str = ...,
    form: str = ...,
    block: int = ...,
    copy: bool = ...,
    comm: Optional[_Comm] = ...,
) -> Tuple[float, npt.NDArray[np.float64]]: ...
@overload
def atm_energy(
    X: _ArrayLike,
    *,
    c9: float = ...,
    cutoff: Optional[float] = ...,
    cutoff_triple: Optional[float] = ...,
    per_particle: bool = ...,
    precision: Optional[str] = ...,
    map: str = ...,
    cbrt: str = ...,
    form: str = ...,
    block: int = ...,
    copy: bool = ...,
    comm: Optional[_Comm] = ...,
) -> Union[float, Tuple[float, npt.NDArray[np.float64]]]: ...
@overload
def nbody_accelerations(
    X: _ArrayLike,
    m: _ArrayLike,
    q: Optional[_ArrayLike] = ...,
    *,
    law: str = ...,
    G: float = ...,
    softening: float = ...,
    sigma: float = ...,
    epsilon: float = ...,
    cutoff: float = ...,
    k: float = ...,
    precision: Optional[str] = ...,
    map: str = ...,
    block: int = ...,
    potential: Literal[False] = ...,
    out: Optional[_ArrayLike] = ...,
    copy: bool = ...,
) -> Any: ...
@overload
def nbody_accelerations(
    X: _ArrayLike,
    m: _ArrayLike,
    q: Optional[_ArrayLike] = ...,
    *,
    law: str = ...,
    G: float = ...,
    softening: float = ...,
    sigma: float = ...,
    epsilon: float = ...,
    cutoff: float = ...,
    k: float = ...,
    precision: Optional[str] = ...,
    map: str = ...,
    block: int = ...,
    potential: Literal[True],
    out: Optional[_ArrayLike] = ...,
    copy: bool = ...,
) -> Tuple[Any, Any]: ...
@overload
def nbody_accelerations(
    X: _ArrayLike,
    m: _ArrayLike,
    q: Optional[_ArrayLike] = ...,
    *,
    law: str = ...,
    G: float = ...,
    softening: float = ...,
    sigma: float = ...,
    epsilon: float = ...,
    cutoff: float = ...,
    k: float = ...,
    precision: Optional[str] = ...,
    map: str = ...,
    block: int = ...,
    potential: bool = ...,
    out: Optional[_ArrayLike] = ...,
    copy: bool = ...,
) -> Union[Any, Tuple[Any, Any]]: ...
