#ifndef TDMAPS_CORE_TETRAHEDRAL_HPP
#define TDMAPS_CORE_TETRAHEDRAL_HPP

// Tetrahedral numbers, their exact integer inverse, and the packed order of
// the triplets of a tetrahedron (the 3-D analogue of the packed triangle).

#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>

#include <cstdint>

namespace tdmaps {

/// T3(k) = k (k + 1) (k + 2) / 6: the first linear index of layer k of a
/// tetrahedron k' <= j <= i (eq. (15) of the journal paper), and the number
/// of blocks before it; T3(-1) = T3(-2) = 0. For -2 <= k <= 2^21 + 2
/// (max_side3 + 2) the product k (k + 1) (k + 2) is a multiple of 6 below
/// 2^64, so it is halved and divided by 3 exactly as a multiplication by the
/// inverse of 3 modulo 2^64: no division instruction (a 64-bit one is a
/// software routine on GPUs), and the packed index of every triplet of a
/// kernel pays three multiplications.
KOKKOS_FORCEINLINE_FUNCTION constexpr index_t tet(index_t k) {
  return static_cast<index_t>(((static_cast<std::uint64_t>(k) * static_cast<std::uint64_t>(k + 1) *
                                static_cast<std::uint64_t>(k + 2)) >>
                               1) *
                              0xAAAAAAAAAAAAAAABull);
}

/// Largest k with tet(k) <= omega (the layer of linear index omega in a
/// tetrahedron incl. its faces). Exact for 0 <= omega <= tet(2^21): the
/// double cube-root guess is within a few of the answer there, and the
/// integer checks tet(k) <= omega < tet(k + 1) fix it.
KOKKOS_FORCEINLINE_FUNCTION index_t tet_root(index_t omega) {
  // k (k + 1) (k + 2) = 6 omega; with y = k + 1: y^3 - y = 6 omega, so
  // y = cbrt(6 omega) + 1 / (3 y) + ... ; the loops below absorb the rest.
  const double c = intrinsics::cbrt_d(6.0 * static_cast<double>(omega));
  const double x = c > 1.0 ? c - 1.0 + 1.0 / (3.0 * c) : 0.0;
  index_t k = static_cast<index_t>(x);
  while (k > 0 && tet(k) > omega) --k;
  while (tet(k + 1) <= omega) ++k;
  return k;
}

/// Number of triplets of an n-side tetrahedron: k <= j <= i < n (T3(n)) or
/// the strict k < j < i < n (T3(n - 2) = n (n - 1) (n - 2) / 6).
KOKKOS_FORCEINLINE_FUNCTION constexpr index_t tet_elements(index_t n, Triangle t) {
  return t == Triangle::lower ? tet(n) : (n >= 2 ? tet(n - 2) : 0);
}

/// Position of triplet (i, j, k) in the packed order of the tetrahedron:
/// layer by layer (i), row by row within a layer (j), k fastest, i.e. the
/// layout of a contiguous array of tet_elements(n, t) values. Lower:
/// T3(i) + T(j) + k; strict (k < j < i): T3(i - 2) + T(j - 1) + k.
KOKKOS_FORCEINLINE_FUNCTION constexpr index_t tet_index(index_t i, index_t j, index_t k, Triangle t) {
  return t == Triangle::lower ? tet(i) + tri(j) + k : tet(i - 2) + tri(j - 1) + k;
}

}  // namespace tdmaps

#endif
