"""The collision, triplets and N-body apps' functions: collide, atm_energy
and nbody_accelerations."""

import math as _math

from . import _tdmaps
from ._args import (_PRECISIONS, _allocator, _check_bool, _check_int, _check_real, _check_str, _converted,
                    _map_options, _points, _ranks, _shared_position, _with_precision)

def collide(
    spheres, result="count", *, map="lambda", sqrt="rsqrt", form="exact", block=32, kernel="tile", copy=False, comm=None
):
    """All-pairs collision detection: spheres i and j, j < i, collide when
    |c_i - c_j| < r_i + r_j (touching spheres do not).

    collide(spheres, result="count", *, map="lambda", sqrt="rsqrt",
            form="exact", block=32, kernel="tile", copy=False, comm=None)

    spheres: (n, 4) float32 rows x, y, z, r (intervals: y = z = 0), C order,
    read in place (copy=True converts, e.g. from float64). NaN, Inf or a
    negative radius raise ValueError naming the row.
    result: "count" (an int), "pairs" ((m, 2) int64 (i, j), i > j, sorted:
    np.argwhere(np.tril(mask, -1))), "flags" (uint32 words, bit p = i (i - 1) / 2 + j),
    "rowflags", "tileflags" (uint32 words, the app's row-aligned and tiled
    bit layouts) or "intflags" (int32 0 / 1 per pair p). Arrays lie where the
    spheres lie.
    map, sqrt, form, block, kernel: the tdmaps-collide CLI's options.
    comm: as for pair_histogram, with result="count" (and kernel 'tile' or
    'element' on more than one rank).

    Device rules: on a CUDA build the spheres may be a device array; the
    result arrays are then of its library on its device. Raises TypeError
    (another dtype than float32 without copy=True, not an array, options of
    the wrong type), ValueError (not (n, 4), not C order, a bad sphere, an
    unknown result / map / kernel, a bad block), TooLarge (a MemoryError).

    Example
    -------
    >>> import numpy as np, tdmaps
    >>> s = np.array([[0, 0, 0, 1], [1.5, 0, 0, 1], [5, 0, 0, 1]], dtype=np.float32)
    >>> tdmaps.collide(s), tdmaps.collide(s, "pairs").tolist()
    (1, [[1, 0]])
    """
    if comm is not None:  # the ranks agree first (tdmaps/_mpi.py), before any check that could stop one of them
        _ranks().agree(comm, "collide", spheres, result=result, map=map, sqrt=sqrt, form=form, block=block,
                       kernel=kernel, copy=copy)
    result, kernel = _check_str("result", result), _check_str("kernel", kernel)
    map, sqrt, form, block = _map_options(map, sqrt, form, block)
    if _check_bool("copy", copy) or isinstance(spheres, (list, tuple)):
        spheres = _converted(spheres, ("float32",), "float32", "spheres")
    opts = (map, sqrt, form, block)

    def one():
        return _tdmaps.collide(spheres, result, _allocator(spheres), *opts, kernel)

    if comm is None:
        return one()
    mpi = _ranks()
    mpi.rank_size(comm)  # a wrong comm is a TypeError before any other complaint
    if result != "count":
        raise ValueError("collide: comm= gives result='count' only (one all-reduction of the count), not %r" % result)
    return mpi.run(comm, "collide", map, lambda *c: mpi.collide_count(spheres, opts, kernel, *c), one, kernel)


def atm_energy(
    X,
    *,
    c9=1.0,
    cutoff=None,
    cutoff_triple=None,
    per_particle=False,
    precision=None,
    map="lambda3",
    cbrt="cbrt",
    form="exact",
    block=8,
    copy=False,
    comm=None,
):
    """The Axilrod-Teller-Muto three-body energy of n particles (the
    tdmaps-triplets CLI's --kernel atm).

    atm_energy(X, *, c9=1.0, cutoff=None, cutoff_triple=None, per_particle=False,
               precision=None, map="lambda3", cbrt="cbrt", form="exact", block=8,
               copy=False, comm=None) -> float | (float, ndarray)

    E = sum over the triplets k < j < i < n of
        c9 (1 + 3 cos g_i cos g_j cos g_k) / (r_ij r_jk r_ki)^3,
    g the inner angles of triangle (i, j, k), over the triplets inside the
    cutoffs: all three distances < cutoff, and r_ij r_jk r_ki < cutoff_triple^3.

    Parameters
    ----------
    X : (n, 3) float32 or float64 array, C order, read in place
        Particle positions x, y, z: a NumPy array (or any buffer) on the host;
        on a CUDA build also a device array (__cuda_array_interface__,
        __dlpack__: PyTorch, CuPy). copy=True converts other dtypes to float64
        and other orders to C order; lists are converted.
    c9 : float, finite, >= 0
        The coefficient C9 (--c9).
    cutoff, cutoff_triple : float > 0, or None / inf (no cutoff)
        --cutoff and --cutoff-triple. Cutoffs are decided in the run's
        precision.
    per_particle : bool
        Also return each particle's share: a third of the energy of each
        triplet it belongs to (float64 (n,), where X lies); the shares sum to
        the energy.
    precision : None, "fp64" or "fp32"
        The precision of the triplet terms (--precision); every sum is fp64.
        None: X's dtype. A precision other than X's dtype converts X (a copy;
        values beyond float32's range raise ValueError for "fp32").
    map, cbrt, form, block : the CLI's --map (bb3, lambda3), --cbrt (cbrt,
        cardano, fp64), --form (exact, eps) and --block (2, 4, 8).
    comm : an MPI communicator (mpi4py) or None
        Every rank passes the same X and options and computes the triplets of
        its part of the map's league; the parts' energies (and shares) are
        summed over the ranks, as the CLI's ranks do: the result equals one
        process's up to the order of the fp64 sums (NumPy results).

    Returns
    -------
    energy : float, or (energy, shares) with per_particle=True.
    n < 3 (no triplets, n = 0 included) gives energy 0.0 (shares zeros).
    Particles at the same position give NaN terms and a NaN energy (a
    RuntimeWarning names two such particles).

    Raises
    ------
    TypeError: X of another dtype (float32 / float64 only, or copy=True), not
        an array, options of the wrong type.
    ValueError: X not (n, 3) or not in C order, NaN or infinite coordinates
        (naming the row), c9 negative / NaN / inf, a cutoff <= 0 or NaN, an
        unknown map / cbrt / form / precision, a block other than 2, 4, 8.
    TooLarge (a MemoryError): the shares do not fit the free memory.

    Example
    -------
    >>> import numpy as np, tdmaps
    >>> X = np.random.default_rng(7).random((100, 3)) * 100 ** (1 / 3)
    >>> e, shares = tdmaps.atm_energy(X, cutoff=2.5, per_particle=True)
    >>> bool(np.isclose(shares.sum(), e))
    True
    """
    if comm is not None:
        _ranks().agree(comm, "atm_energy", X, c9=c9, cutoff=cutoff, cutoff_triple=cutoff_triple,
                       per_particle=per_particle, precision=precision, map=map, cbrt=cbrt, form=form, block=block,
                       copy=copy)
    c9 = _check_real("c9", c9)
    cutoff = None if cutoff is None else _check_real("cutoff", cutoff)
    cutoff_triple = None if cutoff_triple is None else _check_real("cutoff_triple", cutoff_triple)
    per_particle = _check_bool("per_particle", per_particle)
    if precision is not None:
        _check_str("precision", precision)
        if precision not in _PRECISIONS:
            raise ValueError("precision '%s': unknown (known: fp64, fp32)" % precision)
    map, cbrt, form = _check_str("map", map), _check_str("cbrt", cbrt), _check_str("form", form)
    block = _check_int("block", block, 32)
    X = _points(X, copy)
    if precision is not None:
        X = _with_precision(X, precision)
    opts = (c9, cutoff, cutoff_triple, per_particle)
    geometry = (map, cbrt, form, block)

    def one():
        return _tdmaps.atm_energy(X, *opts, _allocator(X), *geometry)

    if comm is None:
        result = one()
    else:
        result = _ranks().atm_energy(X, opts, geometry, comm)
    energy = result[0] if per_particle else result
    if energy != energy:  # NaN: say why, as the CLI does
        import warnings

        warnings.warn("tdmaps.atm_energy: the energy is NaN: %s" % _shared_position(X), RuntimeWarning, stacklevel=2)
    return result


def nbody_accelerations(
    X,
    m,
    q=None,
    *,
    law="gravity",
    G=1.0,
    softening=0.0,
    sigma=1.0,
    epsilon=1.0,
    cutoff=_math.inf,
    k=1.0,
    precision=None,
    map="lambda",
    block=32,
    potential=False,
    out=None,
    copy=False,
):
    """Direct-sum N-body accelerations of n bodies under a pair law (the
    tdmaps-nbody CLI's force evaluation, apps/nbody), each pair evaluated
    once and applied to both ends.

    nbody_accelerations(X, m, q=None, *, law="gravity", G=1.0, softening=0.0,
                        sigma=1.0, epsilon=1.0, cutoff=inf, k=1.0,
                        precision=None, map="lambda", block=32,
                        potential=False, out=None, copy=False)
        -> ndarray | (ndarray, ndarray)

    a_i = sum over j != i of F_ij / m_i, the pair energies u_ij at separation
    r = |x_i - x_j| (F_ij = -grad_i u_ij):

        "gravity"   u = -G m_i m_j / sqrt(r^2 + softening^2)
        "lj"        u = 4 epsilon ((sigma/r)^12 - (sigma/r)^6) - u(cutoff)
                    for r < cutoff, else 0 (shifted to 0 at the cutoff;
                    cutoff=inf: every pair, no shift)
        "coulomb"   u = k q_i q_j / sqrt(r^2 + softening^2)

    Parameters
    ----------
    X : (n, 3) float32 or float64 array, C order, read in place
        Positions, n >= 1: a NumPy array (or any buffer) on the host; on a
        CUDA build also a device array (__cuda_array_interface__,
        __dlpack__: PyTorch, CuPy). copy=True converts other dtypes to
        float64 and other orders to C order; lists are converted.
    m : (n,) float32 or float64 array
        Masses, finite and > 0 (converted to the run's precision; on the host
        or on X's device).
    q : (n,) float32 or float64 array, or None
        Charges, finite: required by law="coulomb", refused by the others.
    law : "gravity", "lj" or "coulomb"
    G, k : float, finite, > 0
        Gravity's and Coulomb's constants.
    softening : float, finite, >= 0
        Gravity's and Coulomb's softening length (Plummer); ignored by "lj".
    sigma, epsilon : float, finite, > 0
        Lennard-Jones' length and well depth.
    cutoff : float > 0, or inf (none)
        Lennard-Jones' cutoff, decided in the run's precision.
    precision : None, "fp64" or "fp32"
        The precision of the terms and sums; None: X's dtype. Another
        precision than X's dtype converts X (a copy; values beyond float32's
        range raise ValueError for "fp32").
    map, block : the CLI's --map (a block-space map: bb, hadouken, lambda, rb,
        rec) and --block (8, 16, 32).
    potential : bool
        Also return each body's share of the potential energy: half of each
        of its pairs' u (the shares sum to the potential energy).
    out : None, or an (n, 3) array of the result's dtype where X lies,
        filled with the accelerations and returned.

    Returns
    -------
    acc : (n, 3) accelerations in the run's dtype (float64 for fp64, float32
    for fp32), where X lies (NumPy for host input, X's library on X's device
    otherwise); or (acc, e) with potential=True, e the (n,) shares. n = 1
    gives zeros.

    Raises
    ------
    TypeError: X, m or q of another dtype (float32 / float64 only, or
        copy=True), not an array, q missing for "coulomb", options of the
        wrong type, an unknown keyword.
    ValueError: X not (n, 3) or not in C order, n = 0, m or q not (n,),
        NaN or infinite coordinates, masses or charges, a mass <= 0, two
        bodies at the same position where the law is infinite there
        (gravity and Coulomb without softening, Lennard-Jones always), q
        given for another law than "coulomb", a parameter out of its range,
        an unknown law / map / precision, a block other than 8, 16, 32, a
        bad out. Also what the run's precision cannot hold, named as typed:
        G, k, softening^2, sigma^2, 24 epsilon, cutoff^2 or a mass or
        charge that overflows or becomes 0 there (a mass whose 1 / m
        overflows for "lj" and "coulomb"); and a result that is not finite
        from finite inputs (bodies closer than the precision can resolve, a
        constant too large for the masses), naming the first such body and
        the likely cause, before anything is written to out.
    TooLarge (a MemoryError): the workspace does not fit the free memory.

    Example
    -------
    >>> import numpy as np, tdmaps
    >>> X = np.array([[0.0, 0, 0], [1, 0, 0]])
    >>> a, e = tdmaps.nbody_accelerations(X, np.array([1.0, 3.0]), potential=True)
    >>> a.tolist(), e.tolist()
    ([[3.0, 0.0, 0.0], [-1.0, 0.0, 0.0]], [-1.5, -1.5])
    """
    law = _check_str("law", law)
    G, softening, sigma, epsilon, cutoff, k = (
        _check_real(name, v)
        for name, v in (("G", G), ("softening", softening), ("sigma", sigma), ("epsilon", epsilon),
                        ("cutoff", cutoff), ("k", k))
    )
    potential = _check_bool("potential", potential)
    if precision is not None:
        _check_str("precision", precision)
        if precision not in _PRECISIONS:
            raise ValueError("precision '%s': unknown (known: fp64, fp32)" % precision)
    map, block = _check_str("map", map), _check_int("block", block, 32)
    X = _points(X, copy)
    if copy or isinstance(m, (list, tuple)):
        m = _converted(m, ("float32", "float64"), "float64", "m")
    if q is not None and (copy or isinstance(q, (list, tuple))):
        q = _converted(q, ("float32", "float64"), "float64", "q")
    if precision is not None:
        X = _with_precision(X, precision)
    return _tdmaps.nbody_accelerations(X, m, q, law, G, softening, sigma, epsilon, cutoff, k, potential, out,
                                       _allocator(X), map, block)
