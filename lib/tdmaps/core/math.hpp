#ifndef TDMAPS_CORE_MATH_HPP
#define TDMAPS_CORE_MATH_HPP

// Portable spellings of the Kokkos math functions tdmaps uses in kernels.
// Kokkos 3.4 has them only as Kokkos::Experimental::*; 3.7 added Kokkos::*,
// and 4.x removed the Experimental ones. tdmaps supports any Kokkos >= 3.4,
// so code in kernels calls these instead of either spelling.

#include <Kokkos_Core.hpp>

namespace tdmaps {

#if KOKKOS_VERSION >= 30700
#define TDMAPS_KOKKOS_MATH Kokkos
#else
#define TDMAPS_KOKKOS_MATH Kokkos::Experimental
#endif

KOKKOS_INLINE_FUNCTION float sqrt_of(float x) { return TDMAPS_KOKKOS_MATH::sqrt(x); }
KOKKOS_INLINE_FUNCTION double sqrt_of(double x) { return TDMAPS_KOKKOS_MATH::sqrt(x); }

KOKKOS_INLINE_FUNCTION float fabs_of(float x) { return TDMAPS_KOKKOS_MATH::fabs(x); }
KOKKOS_INLINE_FUNCTION double fabs_of(double x) { return TDMAPS_KOKKOS_MATH::fabs(x); }

KOKKOS_INLINE_FUNCTION bool isfinite_of(float x) { return TDMAPS_KOKKOS_MATH::isfinite(x); }
KOKKOS_INLINE_FUNCTION bool isfinite_of(double x) { return TDMAPS_KOKKOS_MATH::isfinite(x); }

#undef TDMAPS_KOKKOS_MATH

}  // namespace tdmaps

#endif
