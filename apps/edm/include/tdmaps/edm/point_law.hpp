#ifndef TDMAPS_EDM_POINT_LAW_HPP
#define TDMAPS_EDM_POINT_LAW_HPP

// The points of the EDM reductions' pair laws (nearest_law.hpp, and the
// count and histogram laws of reduce.hpp and histogram.hpp, walked by the
// library's public pair-law walks on GPU backends): a point is its D
// coordinates of Real, stored back to back, in a lane's registers; the
// squared distance is ColumnPoint::sq's (pair_column.hpp: row minus column,
// summed in order), bit for bit, so a law's results equal the element
// kernels'.
//
// Not API (tdmaps::edm::detail).

#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace edm {
namespace detail {

template <class Real, int D>
struct PointLaw {
  struct point_type {
    Real p[D];
  };
  const Real* x = nullptr;  ///< n x D, back to back

  KOKKOS_FORCEINLINE_FUNCTION point_type load(index_t i) const {
    point_type a;
    for (int k = 0; k < D; ++k) a.p[k] = x[i * D + k];
    return a;
  }
  /// |a - b|^2 as ColumnPoint::sq computes it for row a and column b.
  KOKKOS_FORCEINLINE_FUNCTION static Real sq(const point_type& a, const point_type& b) {
    Real s = 0;
    for (int k = 0; k < D; ++k) {
      const Real t = a.p[k] - b.p[k];
      s += t * t;
    }
    return s;
  }
};

}  // namespace detail
}  // namespace edm
}  // namespace tdmaps

#endif
