#ifndef TDMAPS_CORE_TRIANGULAR_HPP
#define TDMAPS_CORE_TRIANGULAR_HPP

// Triangular numbers and their exact integer inverse.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>

#include <cstdint>

namespace tdmaps {

/// T(i) = i (i + 1) / 2: the first linear index of row i of a lower triangle
/// incl. diagonal (eq. (1) of the papers). Exact while i (i + 1) < 2^63,
/// i.e. for i < 3.03e9.
KOKKOS_FORCEINLINE_FUNCTION constexpr index_t tri(index_t i) { return i * (i + 1) / 2; }

/// Largest i with tri(i) <= omega (the row of linear index omega in a lower
/// triangle incl. diagonal). Exact for 0 <= omega <= tri(2^31): the double
/// guess of eq. (4) is within one of the answer there, and the integer checks
/// tri(i) <= omega < tri(i+1) fix it.
KOKKOS_FORCEINLINE_FUNCTION index_t tri_root(index_t omega) {
  index_t i = static_cast<index_t>(intrinsics::sqrt_d(0.25 + 2.0 * static_cast<double>(omega)) - 0.5);
  while (tri(i) > omega) --i;
  while (tri(i + 1) <= omega) ++i;
  return i;
}

/// \brief Position of (i, j) in a packed triangle: row-major lower triangle,
/// T(i) + j with the diagonal (lambda order), T(i - 1) + j without it.
KOKKOS_FORCEINLINE_FUNCTION index_t packed_index(index_t i, index_t j, Triangle t) {
  return t == Triangle::lower ? tri(i) + j : tri(i - 1) + j;
}

}  // namespace tdmaps

#endif
