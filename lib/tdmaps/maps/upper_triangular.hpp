#ifndef TDMAPS_MAPS_UPPER_TRIANGULAR_HPP
#define TDMAPS_MAPS_UPPER_TRIANGULAR_HPP

// UTM, the upper-triangular thread-space map of Avril et al. (formula in sec.
// 4.2 of the journal paper): thread k -> pair (a, b), a < b < N, row-major
// over the strict upper triangle, row a starting at S(a) = a (2N - a - 1) / 2.
// The paper's row is a = floor((2N - 1 - sqrt((2N - 1)^2 - 8k)) / 2), computed
// in fp32 and valid to N ~ 3000 (their UTM stops at n = 8192). Here:
//   (2N - 1)^2 - 8k = 4 D + 1 with D = N (N - 1) - 2k an exact int64, so
//   a = floor(N - 1/2 - sqrt(D + 1/4)) in double is within one of the answer,
//   and the integer checks S(a) <= k < S(a + 1) make it exact for N <= 2^31 + 1.
// tdmaps' domain is the lower triangle: (i, j) = (b - 1, a) with N = n + 1 for
// the diagonal included, (b, a) with N = n for the strict triangle.
// A thread-space map serves element kernels only.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/maps/map_concept.hpp>

namespace tdmaps {

/// \brief The upper-triangular map (UTM): a thread-space map sending a linear thread index k straight to one element
/// (i, j).
struct UpperTriangularMap {
  using space_tag = ThreadSpaceTag;           ///< the map contract's space (maps/map_concept.hpp)
  static constexpr const char* name = "utm";  ///< Map::name: kernel labels, with_map's name

  Domain2 domain;     ///< what the map covers
  index_t big_n = 0;  ///< N of the strict upper triangle
  index_t shift = 0;  ///< 1 when the diagonal is included

  /// \brief A map over the empty domain (n = 0).
  UpperTriangularMap() = default;
  /// \brief The map over d.
  explicit UpperTriangularMap(const Domain2& d)
      : domain(d), big_n(d.triangle == Triangle::lower ? d.n + 1 : d.n), shift(d.triangle == Triangle::lower ? 1 : 0) {}
  /// \brief The map over Domain2(n, rho, t).
  UpperTriangularMap(index_t n, int rho, Triangle t = Triangle::lower) : UpperTriangularMap(Domain2(n, rho, t)) {}

  /// \brief Threads of the launch: one per element of the domain.
  KOKKOS_FUNCTION index_t elements() const { return domain.elements(); }
  /// \brief First linear index of row a of the strict upper triangle of side big_n.
  KOKKOS_FORCEINLINE_FUNCTION index_t row_start(index_t a) const { return a * (2 * big_n - a - 1) / 2; }
  /// \brief Element (i, j) of thread index k.
  KOKKOS_FORCEINLINE_FUNCTION void element(index_t k, index_t& i, index_t& j) const {
    const index_t disc = big_n * (big_n - 1) - 2 * k;
    index_t a =
        static_cast<index_t>(static_cast<double>(big_n) - 0.5 - intrinsics::sqrt_d(static_cast<double>(disc) + 0.25));
    if (a < 0) a = 0;
    while (row_start(a) > k) --a;
    while (row_start(a + 1) <= k) ++a;
    j = a;
    i = a + 1 + (k - row_start(a)) - shift;
  }
};

}  // namespace tdmaps

#endif
