#ifndef TDMAPS_EDM_ELEMENT_HPP
#define TDMAPS_EDM_ELEMENT_HPP

// The distance of one pair, as every kernel computes it, and the element
// kernel: kernel(i, j) per pair with the points read from global memory, so
// it runs under every map (thread-space maps such as UTM included).

#include <tdmaps/core/math.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/layout.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace edm {
namespace detail {

template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Real sqrt_real(Real x) {
  return tdmaps::sqrt_of(x);
}

/// Squared distance of rows i and j of a LayoutRight n x d view; D > 0 fixes d.
template <int D, class Real, class Points>
KOKKOS_FORCEINLINE_FUNCTION Real sq_dist_rows(const Points& x, index_t i, index_t j, int d) {
  const int dd = D > 0 ? D : d;
  Real s = 0;
  for (int k = 0; k < dd; ++k) {
    const Real t = x(i, k) - x(j, k);
    s += t * t;
  }
  return s;
}

/// The element kernel's distance of rows i and j: d = 1..4 specialised at
/// compile time (a branch uniform over the launch). The gemm path recomputes
/// its uncertain pairs with this same function, so those pairs, NaN and Inf
/// included, are bit-identical to the element kernel's.
template <class Real, class Points>
KOKKOS_FORCEINLINE_FUNCTION Real direct_dist(const Points& x, index_t i, index_t j, int d) {
  switch (d) {
    case 1: return sqrt_real(sq_dist_rows<1, Real>(x, i, j, d));
    case 2: return sqrt_real(sq_dist_rows<2, Real>(x, i, j, d));
    case 3: return sqrt_real(sq_dist_rows<3, Real>(x, i, j, d));
    case 4: return sqrt_real(sq_dist_rows<4, Real>(x, i, j, d));
    default: return sqrt_real(sq_dist_rows<0, Real>(x, i, j, d));
  }
}

/// Element kernel: one pair, points from global memory.
template <class Real, class MemorySpace>
struct ElementKernel {
  EdmData<Real, MemorySpace> e;

  KOKKOS_FUNCTION void operator()(index_t i, index_t j) const {
    // A condensed output has no diagonal; a map over the full lower
    // triangle may still hand it over.
    if (e.layout == Layout::condensed && i == j) return;
    e.store(i, j, direct_dist<Real>(e.x, i, j, e.d));
  }
};

/// A point of D <= 4 coordinates padded to a power of two and aligned to its
/// size, so one vector load (LDS/LDG.64/128 on CUDA) reads it.
template <class Real, int D>
struct alignas(sizeof(Real) * (D == 3 ? 4 : D)) PaddedPoint {
  Real c[D == 3 ? 4 : D];
};

}  // namespace detail
}  // namespace edm
}  // namespace tdmaps

#endif
