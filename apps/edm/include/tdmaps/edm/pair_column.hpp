#ifndef TDMAPS_EDM_PAIR_COLUMN_HPP
#define TDMAPS_EDM_PAIR_COLUMN_HPP

// Not API (tdmaps::edm::detail): what the EDM reductions (reduce.hpp,
// histogram.hpp) share: argument checks, the dimension dispatch and column
// j's point held in registers (a kernel's column(j), launch/reduce.hpp).

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/element.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace edm {
namespace detail {

template <class Real, class Points>
void check_points(const Points& points, const char* who) {
  static_assert(Kokkos::is_view<Points>::value && Points::rank == 2 &&
                    std::is_same<typename Points::array_layout, Kokkos::LayoutRight>::value &&
                    std::is_same<typename Points::non_const_value_type, Real>::value,
                "tdmaps::edm reductions: points are a LayoutRight n x d View of float or double");
  if (points.extent(1) < 1) throw std::invalid_argument(std::string(who) + ": points have d = 0 dimensions");
}

template <class Map>
void check_map(const Map& map, std::size_t n, const char* who) {
  if (map.domain.triangle != Triangle::strict_lower || map.domain.n != static_cast<index_t>(n))
    throw std::invalid_argument(std::string(who) + ": the map must cover the pairs i < j of the n = " +
                                std::to_string(n) + " points (Domain2(n, rho, Triangle::strict_lower))");
}

/// f(std::integral_constant<int, D>()) with D = d for d = 2, 3, 4 on rows
/// stored back to back (the kernels' loops unrolled, addresses by a constant),
/// else D = 0 (d and the row stride at run time).
template <class Points, class F>
void with_dims(const Points& x, F&& f) {
  const int d = static_cast<int>(x.extent(1));
  const bool packed = x.extent(0) < 2 || static_cast<std::size_t>(x.stride(0)) == x.extent(1);
  if (packed && d == 2) f(std::integral_constant<int, 2>());
  else if (packed && d == 3) f(std::integral_constant<int, 3>());
  else if (packed && d == 4) f(std::integral_constant<int, 4>());
  else f(std::integral_constant<int, 0>());
}

/// Column j of a reduction's pairs (launch/reduce.hpp, a kernel's column(j)):
/// point j held in registers (D > 0) once, then sq(i) = sq_dist_rows<D>(x, i, j, d)
/// (element.hpp) bit for bit (the same differences and sums in the same order).
template <class Real, int D>
struct ColumnPoint {
  const Real* x;  // row i at x + i * stride
  index_t stride;
  int d;
  const Real* pj;
  Real xj[D > 0 ? D : 1];

  KOKKOS_FORCEINLINE_FUNCTION ColumnPoint(const Real* x_, index_t stride_, int d_, index_t j)
      : x(x_), stride(D > 0 ? D : stride_), d(D > 0 ? D : d_), pj(x_ + j * (D > 0 ? D : stride_)), xj{} {
    if constexpr (D > 0)
      for (int k = 0; k < D; ++k) xj[k] = pj[k];
  }
  KOKKOS_FORCEINLINE_FUNCTION Real sq(const index_t i) const {
    Real s = 0;
    if constexpr (D > 0) {
      const Real* pi = x + i * D;
      for (int k = 0; k < D; ++k) {
        const Real t = pi[k] - xj[k];
        s += t * t;
      }
    } else {
      const Real* pi = x + i * stride;
      for (int k = 0; k < d; ++k) {
        const Real t = pi[k] - pj[k];
        s += t * t;
      }
    }
    return s;
  }
};

template <int D, class Points>
KOKKOS_FORCEINLINE_FUNCTION ColumnPoint<typename Points::non_const_value_type, D> column_point(const Points& x,
                                                                                              index_t j) {
  return ColumnPoint<typename Points::non_const_value_type, D>(x.data(), static_cast<index_t>(x.stride(0)),
                                                               static_cast<int>(x.extent(1)), j);
}

}  // namespace detail
}  // namespace edm
}  // namespace tdmaps

#endif
