#ifndef TDMAPS_EDM_REDUCE_HPP
#define TDMAPS_EDM_REDUCE_HPP

// Reductions of the distance matrix that never store it (the pairs i < j of
// n points; the library's pair reductions, launch/reduce.hpp), each over the
// whole triangle or one omega range (chunks, MPI ranks: add the parts up):
//
//   pair_histogram(space, points, map[, range], rmax, counts)
//       counts(b) += #{pairs with b rmax / B <= |x_i - x_j| < (b + 1) rmax / B},
//       B = counts.extent(0); pairs at or beyond rmax are not counted.
//   count_within(space, points, map[, range], radius) -> #{pairs |x_i - x_j| < radius}
//   nearest_neighbour(space, points, map[, range], keys)
//       keys(i) = the nearest other point of i, as a NearestKey (decode with
//       nearest_index / nearest_distance); ties go to the smaller index.
//       keys starts as nearest_init(); ranges join into it.
//
// The distance is the element kernel's (direct_dist), so a histogram or a
// count agrees with the distances tdmaps-edm writes. map: a map over
// Domain2(n, rho, Triangle::strict_lower), bb or lambda for ranges. NaN
// distances are in no bin, not within any radius, and nobody's nearest.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/element.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/reduce.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace edm {

/// A point's nearest neighbour as reduce_rows keys it: fp32 points in one
/// pass, (ordered bits of the squared distance << 32) | index; fp64 points
/// in two passes (the squared distance's ordered bits, then the smallest
/// index at that distance). nearest_neighbour hands back the final form.
using NearestKey = std::uint64_t;

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

/// pair_histogram's kernel: the bin of the distance, -1 for none.
template <class Real, class Points, int D>
struct HistogramKernel {
  Points x;
  Real rmax;
  Real scale;  // bins / rmax
  int bins;
  struct Column {
    ColumnPoint<Real, D> p;
    Real rmax, scale;
    int bins;
    KOKKOS_FORCEINLINE_FUNCTION int operator()(const index_t i, const index_t) const {
      const Real r = sqrt_real(p.sq(i));  // direct_dist(x, i, j, d)
      if (!(r < rmax)) return -1;         // beyond rmax, or NaN
      const int b = static_cast<int>(r * scale);
      return b < bins ? b : bins - 1;  // r < rmax: the last bin when r * scale rounds up to bins
    }
  };
  KOKKOS_FORCEINLINE_FUNCTION Column column(const index_t j) const { return {column_point<D>(x, j), rmax, scale, bins}; }
  KOKKOS_FUNCTION int operator()(const index_t i, const index_t j) const { return column(j)(i, j); }
};

/// The smallest squared distance s >= 0 whose distance sqrt_of(s) is not
/// below r (+inf when r is +inf): sqrt_of is correctly rounded, so it is
/// monotone and sqrt_of(s) < r exactly when s < sq_threshold(r). Found by
/// bisection over the bit patterns of the non-negative Reals (ordered as
/// their values); r <= 0 gives 0.
template <class Real>
Real sq_threshold(Real r) {
  using Bits = std::conditional_t<sizeof(Real) == 4, std::uint32_t, std::uint64_t>;
  if (!(r > Real(0))) return Real(0);
  const auto value = [](Bits b) {
    Real v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  };
  const Real inf = std::numeric_limits<Real>::infinity();
  Bits lo = 0, hi;  // sqrt_of(value(lo)) < r (value 0, r > 0) and sqrt_of(value(hi)) >= r (+inf)
  std::memcpy(&hi, &inf, sizeof hi);
  while (hi - lo > 1) {
    const Bits mid = lo + (hi - lo) / 2;
    if (sqrt_real(value(mid)) >= r) hi = mid;
    else lo = mid;
  }
  return value(hi);
}

/// count_within's kernel: the distance below the radius, as a comparison of
/// the squared distance with sq_threshold(radius) (no square root per pair;
/// the same pairs as direct_dist(...) < radius).
template <class Real, class Points, int D>
struct CountKernel {
  Points x;
  Real threshold;  // sq_threshold(radius)
  struct Column {
    ColumnPoint<Real, D> p;
    Real threshold;
    KOKKOS_FORCEINLINE_FUNCTION void operator()(const index_t i, const index_t, index_t& c) const {
      c += p.sq(i) < threshold ? 1 : 0;
    }
  };
  KOKKOS_FORCEINLINE_FUNCTION Column column(const index_t j) const { return {column_point<D>(x, j), threshold}; }
  KOKKOS_FUNCTION void operator()(const index_t i, const index_t j, index_t& c) const { column(j)(i, j, c); }
};

/// fp32: the whole key in one pass (NaN: no key).
template <class Points, int D>
struct NearestKeyF {
  Points x;
  struct Column {
    ColumnPoint<float, D> p;
    index_t j;
    KOKKOS_FORCEINLINE_FUNCTION NearestKey operator()(const index_t a, const index_t) const {
      const float s = p.sq(a);
      if (s != s) return ~NearestKey(0);
      return (NearestKey(ordered_bits(s)) << 32) | NearestKey(j);
    }
    /// Both ends from one distance (reduce_rows): the distance is symmetric bit for bit.
    KOKKOS_FORCEINLINE_FUNCTION void both(const index_t a, const index_t, NearestKey& ka, NearestKey& kb) const {
      const float s = p.sq(a);
      const NearestKey hi = s != s ? ~NearestKey(0) : NearestKey(ordered_bits(s)) << 32;
      ka = s != s ? hi : hi | NearestKey(j);
      kb = s != s ? hi : hi | NearestKey(a);
    }
  };
  KOKKOS_FORCEINLINE_FUNCTION Column column(const index_t b) const { return {column_point<D>(x, b), b}; }
  KOKKOS_FUNCTION NearestKey operator()(const index_t a, const index_t b) const { return column(b)(a, b); }
  KOKKOS_FUNCTION void both(const index_t a, const index_t b, NearestKey& ka, NearestKey& kb) const {
    column(b).both(a, b, ka, kb);
  }
};

/// fp64, pass 1: the smallest squared distance.
template <class Points, int D>
struct NearestDist {
  Points x;
  struct Column {
    ColumnPoint<double, D> p;
    KOKKOS_FORCEINLINE_FUNCTION NearestKey operator()(const index_t a, const index_t) const {
      const double s = p.sq(a);
      return s != s ? ~NearestKey(0) : ordered_bits(s);
    }
    KOKKOS_FORCEINLINE_FUNCTION void both(const index_t a, const index_t b, NearestKey& ka, NearestKey& kb) const {
      ka = kb = (*this)(a, b);
    }
  };
  KOKKOS_FORCEINLINE_FUNCTION Column column(const index_t b) const { return {column_point<D>(x, b)}; }
  KOKKOS_FUNCTION NearestKey operator()(const index_t a, const index_t b) const { return column(b)(a, b); }
  KOKKOS_FUNCTION void both(const index_t a, const index_t b, NearestKey& ka, NearestKey& kb) const {
    column(b).both(a, b, ka, kb);
  }
};

/// fp64, pass 2: the smallest partner at the smallest squared distance.
template <class Points, class Keys, int D>
struct NearestIndex {
  Points x;
  Keys best;  // pass 1's keys
  KOKKOS_FUNCTION NearestKey operator()(const index_t a, const index_t b) const {
    const double s = column_point<D>(x, b).sq(a);
    return s == s && ordered_bits(s) == best(a) ? NearestKey(b) : ~NearestKey(0);
  }
};

}  // namespace detail

/// What keys start as: no neighbour.
KOKKOS_INLINE_FUNCTION constexpr NearestKey nearest_init() { return ~NearestKey(0); }

namespace detail {
template <class Points, class Map, class Counts>
void check_histogram(const Points& points, const Map& map, double rmax, const Counts& counts) {
  using Real = typename Points::non_const_value_type;
  check_points<Real>(points, "tdmaps::edm::pair_histogram");
  check_map(map, points.extent(0), "tdmaps::edm::pair_histogram");
  if (!(rmax > 0) || !std::isfinite(rmax))
    throw std::invalid_argument("tdmaps::edm::pair_histogram: rmax = " + std::to_string(rmax) +
                                " (need a finite value > 0)");
  if (counts.extent(0) < 1 || counts.extent(0) > std::size_t(1) << 24)
    throw std::invalid_argument("tdmaps::edm::pair_histogram: " + std::to_string(counts.extent(0)) +
                                " bins (need 1 .. 2^24)");
}

template <int D, class Points, class Counts>
HistogramKernel<typename Points::non_const_value_type, Points, D> histogram_kernel(const Points& points, double rmax,
                                                                                   const Counts& counts) {
  using Real = typename Points::non_const_value_type;
  const int bins = static_cast<int>(counts.extent(0));
  return {points, static_cast<Real>(rmax), static_cast<Real>(bins) / static_cast<Real>(rmax), bins};
}

template <int D, class Points>
CountKernel<typename Points::non_const_value_type, Points, D> count_kernel(const Points& points, double radius) {
  using Real = typename Points::non_const_value_type;
  return {points, sq_threshold(static_cast<Real>(radius))};
}
}  // namespace detail

/// pair_histogram over the omegas of `range` (the top of this file).
template <class ExecSpace, class Points, class Map, class Counts>
void pair_histogram(const ExecSpace& space, const Points& points, const Map& map, const OmegaRange& range, double rmax,
                    const Counts& counts, const LaunchHints& hints = LaunchHints()) {
  detail::check_histogram(points, map, rmax, counts);
  detail::with_dims(points, [&](auto dims) {
    histogram_pairs(space, map, range, detail::histogram_kernel<decltype(dims)::value>(points, rmax, counts), counts,
                    std::string("tdmaps::edm::histogram::") + Map::name, hints);
  });
}

/// pair_histogram over the whole triangle (any block-space map).
template <class ExecSpace, class Points, class Map, class Counts>
void pair_histogram(const ExecSpace& space, const Points& points, const Map& map, double rmax, const Counts& counts,
                    const LaunchHints& hints = LaunchHints()) {
  detail::check_histogram(points, map, rmax, counts);
  detail::with_dims(points, [&](auto dims) {
    histogram_pairs(space, map, detail::histogram_kernel<decltype(dims)::value>(points, rmax, counts), counts,
                    std::string("tdmaps::edm::histogram::") + Map::name, hints);
  });
}

/// count_within over the omegas of `range`.
template <class ExecSpace, class Points, class Map>
index_t count_within(const ExecSpace& space, const Points& points, const Map& map, const OmegaRange& range,
                     double radius, const LaunchHints& hints = LaunchHints()) {
  using Real = typename Points::non_const_value_type;
  detail::check_points<Real>(points, "tdmaps::edm::count_within");
  detail::check_map(map, points.extent(0), "tdmaps::edm::count_within");
  if (std::isnan(radius)) throw std::invalid_argument("tdmaps::edm::count_within: radius is NaN");
  index_t c = 0;
  detail::with_dims(points, [&](auto dims) {
    reduce_pairs(space, map, range, detail::count_kernel<decltype(dims)::value>(points, radius), Kokkos::Sum<index_t>(c),
                 std::string("tdmaps::edm::count::") + Map::name, hints);
  });
  return c;
}

/// count_within over the whole triangle (any map).
template <class ExecSpace, class Points, class Map>
index_t count_within(const ExecSpace& space, const Points& points, const Map& map, double radius,
                     const LaunchHints& hints = LaunchHints()) {
  using Real = typename Points::non_const_value_type;
  detail::check_points<Real>(points, "tdmaps::edm::count_within");
  detail::check_map(map, points.extent(0), "tdmaps::edm::count_within");
  if (std::isnan(radius)) throw std::invalid_argument("tdmaps::edm::count_within: radius is NaN");
  index_t c = 0;
  detail::with_dims(points, [&](auto dims) {
    reduce_pairs(space, map, detail::count_kernel<decltype(dims)::value>(points, radius), Kokkos::Sum<index_t>(c),
                 std::string("tdmaps::edm::count::") + Map::name, hints);
  });
  return c;
}

/// nearest_neighbour over the omegas of `range` (keys start as nearest_init()).
/// fp64 keys between ranges are pass-1 keys: finish_nearest turns them into
/// final ones (nearest_neighbour over the whole triangle does it itself).
template <class ExecSpace, class Points, class Map, class Keys>
void nearest_neighbour(const ExecSpace& space, const Points& points, const Map& map, const OmegaRange& range,
                       const Keys& keys, const LaunchHints& hints = LaunchHints()) {
  using Real = typename Points::non_const_value_type;
  detail::check_points<Real>(points, "tdmaps::edm::nearest_neighbour");
  detail::check_map(map, points.extent(0), "tdmaps::edm::nearest_neighbour");
  const std::string label = std::string("tdmaps::edm::nearest::") + Map::name;
  detail::with_dims(points, [&](auto dims) {
    constexpr int D = decltype(dims)::value;
    if constexpr (std::is_same<Real, float>::value)
      reduce_rows<RowMin<NearestKey>>(space, map, range, detail::NearestKeyF<Points, D>{points}, keys, label, hints);
    else
      reduce_rows<RowMin<NearestKey>>(space, map, range, detail::NearestDist<Points, D>{points}, keys, label, hints);
  });
}

/// fp64 only: the second pass over `range` of a nearest_neighbour whose first
/// passes (every range) are done: `index` (starts as nearest_init()) gets the
/// smallest partner at the distance of `keys`.
template <class ExecSpace, class Points, class Map, class Keys>
void nearest_index_pass(const ExecSpace& space, const Points& points, const Map& map, const OmegaRange& range,
                        const Keys& keys, const Keys& index, const LaunchHints& hints = LaunchHints()) {
  static_assert(std::is_same<typename Points::non_const_value_type, double>::value,
                "tdmaps::edm::nearest_index_pass: fp64 points only (fp32 keys hold the index)");
  detail::with_dims(points, [&](auto dims) {
    reduce_rows<RowMin<NearestKey>>(space, map, range,
                                    detail::NearestIndex<Points, Keys, decltype(dims)::value>{points, keys}, index,
                                    std::string("tdmaps::edm::nearest_index::") + Map::name, hints);
  });
}

/// nearest_neighbour over the whole triangle (any block-space map): index(i)
/// (-1: none) and dist(i) (+inf: none).
template <class ExecSpace, class Points, class Map, class Index, class Dist>
void nearest_neighbour(const ExecSpace& space, const Points& points, const Map& map, const Index& index,
                       const Dist& dist, const LaunchHints& hints = LaunchHints()) {
  using Real = typename Points::non_const_value_type;
  using mem = typename ExecSpace::memory_space;
  const std::size_t n = points.extent(0);
  Kokkos::View<NearestKey*, mem> keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::edm::nearest_keys"), n);
  detail::check_points<Real>(points, "tdmaps::edm::nearest_neighbour");
  detail::check_map(map, n, "tdmaps::edm::nearest_neighbour");
  Kokkos::deep_copy(space, keys, nearest_init());
  Kokkos::View<NearestKey*, mem> second;
  detail::with_dims(points, [&](auto dims) {
    constexpr int D = decltype(dims)::value;
    if constexpr (std::is_same<Real, float>::value) {
      reduce_rows<RowMin<NearestKey>>(space, map, detail::NearestKeyF<Points, D>{points}, keys,
                                      std::string("tdmaps::edm::nearest::") + Map::name, hints);
    } else {
      reduce_rows<RowMin<NearestKey>>(space, map, detail::NearestDist<Points, D>{points}, keys,
                                      std::string("tdmaps::edm::nearest::") + Map::name, hints);
      second = Kokkos::View<NearestKey*, mem>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::edm::nearest_idx"), n);
      Kokkos::deep_copy(space, second, nearest_init());
      reduce_rows<RowMin<NearestKey>>(space, map, detail::NearestIndex<Points, decltype(keys), D>{points, keys}, second,
                                      std::string("tdmaps::edm::nearest_index::") + Map::name, hints);
    }
  });
  const double inf = std::numeric_limits<double>::infinity();
  Kokkos::parallel_for(
      "tdmaps::edm::nearest_decode", Kokkos::RangePolicy<ExecSpace>(space, 0, n), KOKKOS_LAMBDA(const std::size_t i) {
        const auto& pass2 = second;  // captured here, not first inside the if constexpr (nvcc)
        const NearestKey k = keys(i);
        if (k == nearest_init()) {
          index(i) = -1;
          dist(i) = inf;
          return;
        }
        if constexpr (std::is_same<Real, float>::value) {
          (void)pass2;
          index(i) = static_cast<index_t>(k & 0xffffffffull);
          dist(i) = static_cast<double>(detail::sqrt_real(from_ordered_bits(static_cast<std::uint32_t>(k >> 32))));
        } else {
          index(i) = static_cast<index_t>(pass2(i));
          dist(i) = detail::sqrt_real(from_ordered_bits(k));
        }
      });
}

}  // namespace edm
}  // namespace tdmaps

#endif
