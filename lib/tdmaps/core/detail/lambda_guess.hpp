#ifndef TDMAPS_CORE_DETAIL_LAMBDA_GUESS_HPP
#define TDMAPS_CORE_DETAIL_LAMBDA_GUESS_HPP

// Not API (tdmaps::detail): the floating-point row guess that
// core/sqrt.hpp's lambda_block and lambda_row_strict start from.

#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace detail {

/// The row guess of eq. (4) with the papers' epsilon (no correction), in the
/// precision of the square-root tag (Sqrt::real_type).
/// `with_diagonal` selects eq. (4) (offset -1/2, diagonal included) or
/// eq. (5) (offset +1/2, strict triangle).
template <class Sqrt>
KOKKOS_FORCEINLINE_FUNCTION index_t lambda_guess(index_t omega, bool with_diagonal) {
  using real = typename Sqrt::real_type;
  const real x = real(0.25) + real(2) * static_cast<real>(omega);
  const real r = Sqrt::sqrt(x) + (with_diagonal ? real(-0.5) : real(0.5)) + real(1e-4);
  return static_cast<index_t>(r);
}

}  // namespace detail
}  // namespace tdmaps

#endif
