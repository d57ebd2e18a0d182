#ifndef TDMAPS_CORE_MATH_HPP
#define TDMAPS_CORE_MATH_HPP

// Portable spellings of the Kokkos math functions tdmaps uses in kernels.
// Kokkos 3.4 has them only as Kokkos::Experimental::*; 3.7 added Kokkos::*,
// and 4.x removed the Experimental ones. tdmaps supports any Kokkos >= 3.4,
// so code in kernels calls these instead of either spelling.

#include <Kokkos_Core.hpp>

namespace tdmaps {

#if KOKKOS_VERSION >= 30700
#define TDMAPS_KOKKOS_MATH Kokkos  ///< where Kokkos keeps its math functions (undefined below)
#else
#define TDMAPS_KOKKOS_MATH Kokkos::Experimental  ///< where Kokkos keeps its math functions (undefined below)
#endif

/// \brief Kokkos' sqrt of a float.
KOKKOS_INLINE_FUNCTION float sqrt_of(float x) { return TDMAPS_KOKKOS_MATH::sqrt(x); }
/// \brief Kokkos' sqrt of a double.
KOKKOS_INLINE_FUNCTION double sqrt_of(double x) { return TDMAPS_KOKKOS_MATH::sqrt(x); }

/// \brief Kokkos' exp of a float.
KOKKOS_INLINE_FUNCTION float exp_of(float x) { return TDMAPS_KOKKOS_MATH::exp(x); }
/// \brief Kokkos' exp of a double.
KOKKOS_INLINE_FUNCTION double exp_of(double x) { return TDMAPS_KOKKOS_MATH::exp(x); }

/// \brief Kokkos' fabs of a float.
KOKKOS_INLINE_FUNCTION float fabs_of(float x) { return TDMAPS_KOKKOS_MATH::fabs(x); }
/// \brief Kokkos' fabs of a double.
KOKKOS_INLINE_FUNCTION double fabs_of(double x) { return TDMAPS_KOKKOS_MATH::fabs(x); }

/// \brief Kokkos' isfinite of a float.
KOKKOS_INLINE_FUNCTION bool isfinite_of(float x) { return TDMAPS_KOKKOS_MATH::isfinite(x); }
/// \brief Kokkos' isfinite of a double.
KOKKOS_INLINE_FUNCTION bool isfinite_of(double x) { return TDMAPS_KOKKOS_MATH::isfinite(x); }

#undef TDMAPS_KOKKOS_MATH

}  // namespace tdmaps

#endif
