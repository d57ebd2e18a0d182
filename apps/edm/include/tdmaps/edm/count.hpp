#ifndef TDMAPS_EDM_COUNT_HPP
#define TDMAPS_EDM_COUNT_HPP

// count_within (reduce.hpp lists the reductions): #{pairs |x_i - x_j| <
// radius}, as a comparison of the squared distance with sq_threshold(radius)
// (no square root per pair; the same pairs as direct_dist(...) < radius).

#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/element.hpp>
#include <tdmaps/edm/pair_column.hpp>
#include <tdmaps/edm/point_law.hpp>
#include <tdmaps/edm/tiled.hpp>
#include <tdmaps/kokkos_ext/lanes.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/pair_reduce_law.hpp>
#include <tdmaps/launch/pair_sums.hpp>
#include <tdmaps/launch/reduce.hpp>
#include <tdmaps/maps/map_concept.hpp>

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

namespace detail {

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
    if (sqrt_real(value(mid)) >= r)
      hi = mid;
    else
      lo = mid;
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

}  // namespace detail

namespace detail {
template <int D, class Points>
CountKernel<typename Points::non_const_value_type, Points, D> count_kernel(const Points& points, double radius) {
  using Real = typename Points::non_const_value_type;
  return {points, sq_threshold(static_cast<Real>(radius))};
}
}  // namespace detail

namespace detail {
/// count_within's pair law (reduce_pair_law) for points of D = 2 .. 4
/// coordinates back to back: CountKernel's comparison of the squared
/// distance (point_law.hpp: the same one) with sq_threshold(radius).
template <class Real, int D>
struct CountLaw : PointLaw<Real, D> {
  using typename PointLaw<Real, D>::point_type;
  using value_type = index_t;
  Real threshold = 0;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const point_type& a, const point_type& b, index_t& c) const {
    c += PointLaw<Real, D>::sq(a, b) < threshold ? 1 : 0;
  }
};

/// count_within's law for the dimension-tiled walk (reduce_pair_sums): the
/// pair's squared distance below sq_threshold(radius), as CountKernel's.
template <class Real>
struct CountSums {
  Real threshold;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const Real s, const index_t, const index_t, index_t& c) const {
    c += s < threshold ? 1 : 0;
  }
};

/// The checks and the dims dispatch of the count_within overloads: on GPU
/// backends (lane_width > 1), points of D = 2 .. 4 back to back and `whole`
/// (the pairs of part `part` of `parts`: a whole triangle or a part of a
/// one-launch map) take CountLaw through reduce_pair_law; points of d >= 5
/// (tiled_walk) take CountSums through reduce_pair_sums over the whole
/// triangle (range null) or `*range` (a one-launch map's); otherwise
/// `launch` runs reduce_pairs with the kernel, the reducer and the label.
template <class ExecSpace, class Points, class Map, class Launch>
index_t count_within_with(const ExecSpace& space, const Points& points, const Map& map, double radius, bool whole,
                          const OmegaRange* range, index_t part, index_t parts, const LaunchHints& hints,
                          const char* who, const Launch& launch) {
  using Real = typename Points::non_const_value_type;
  check_points<Real>(points, who);
  check_map(map, points.extent(0), who);
  if (std::isnan(radius)) throw std::invalid_argument(std::string(who) + ": radius is NaN");
  index_t c = 0;
  const std::string label = std::string("tdmaps::edm::count::") + Map::name;
  with_dims(points, [&](auto dims) {
    constexpr int D = decltype(dims)::value;
    if constexpr (intrinsics::lane_width<ExecSpace>::value > 1 && D >= 2 && is_block_space_map_v<Map>) {
      if (whole) {
        CountLaw<Real, D> law;
        law.x = points.data();
        law.threshold = sq_threshold(static_cast<Real>(radius));
        if (map.domain.n < 2) return;
        if constexpr (!is_multi_launch_map_v<Map>) {
          if (parts > 1) {
            c = reduce_pair_law_part(space, map, part, parts, law, PairDiagonal::exclude, label, hints);
            return;
          }
        }
        c = reduce_pair_law(space, map, law, PairDiagonal::exclude, label, hints);
        return;
      }
    }
    if constexpr (tiled_walk_v<ExecSpace, Points, D> && is_block_space_map_v<Map>) {
      if (tiled_walk(points, map) && (range == nullptr || !is_multi_launch_map_v<Map>)) {
        const CountSums<Real> law{sq_threshold(static_cast<Real>(radius))};
        if constexpr (!is_multi_launch_map_v<Map>)
          if (range != nullptr) {
            reduce_pair_sums(space, map, *range, points, law, Kokkos::Sum<index_t>(c), label);
            return;
          }
        reduce_pair_sums(space, map, points, law, Kokkos::Sum<index_t>(c), label);
        return;
      }
    }
    (void)space, (void)whole, (void)range, (void)part, (void)parts;
    launch(count_kernel<D>(points, radius), Kokkos::Sum<index_t>(c), label);
  });
  return c;
}
}  // namespace detail

/// \brief count_within over the omegas of `range`.
template <class ExecSpace, class Points, class Map>
index_t count_within(const ExecSpace& space, const Points& points, const Map& map, const OmegaRange& range,
                     double radius, const LaunchHints& hints = LaunchHints()) {
  const bool whole = range.begin == 0 && range.end == tdmaps::detail::league_size(map, 0);
  return detail::count_within_with(space, points, map, radius, whole, &range, 0, 1, hints, "tdmaps::edm::count_within",
                                   [&](const auto& kernel, const auto& sum, const std::string& label) {
                                     reduce_pairs(space, map, range, kernel, sum, label, hints);
                                   });
}

/// \brief count_within over the whole triangle (any map).
template <class ExecSpace, class Points, class Map>
index_t count_within(const ExecSpace& space, const Points& points, const Map& map, double radius,
                     const LaunchHints& hints = LaunchHints()) {
  return detail::count_within_with(space, points, map, radius, is_block_space_map_v<Map>, nullptr, 0, 1, hints,
                                   "tdmaps::edm::count_within",
                                   [&](const auto& kernel, const auto& sum, const std::string& label) {
                                     reduce_pairs(space, map, kernel, sum, label, hints);
                                   });
}

/// \brief count_within over part `part` of `parts` of the triangle of a
/// one-launch map (bb, lambda): the parts' counts add up to the whole
/// triangle's (MPI ranks). On GPU backends, points of 2 to 4 coordinates back
/// to back split the reduce walk's league (reduce_pair_law_part); elsewhere
/// the part is omega_range(map, part, parts).
template <class ExecSpace, class Points, class Map>
index_t count_within_part(const ExecSpace& space, const Points& points, const Map& map, int part, int parts,
                          double radius, const LaunchHints& hints = LaunchHints()) {
  static_assert(!is_multi_launch_map_v<Map>, "tdmaps::edm::count_within_part: a one-launch map (bb, lambda)");
  if (parts < 1 || part < 0 || part >= parts)
    throw std::invalid_argument("tdmaps::edm::count_within_part: part " + std::to_string(part) + " of " +
                                std::to_string(parts) + " (need parts >= 1 and 0 <= part < parts)");
  const OmegaRange mine = omega_range(map, part, parts);
  return detail::count_within_with(space, points, map, radius, true, &mine, part, parts, hints,
                                   "tdmaps::edm::count_within_part",
                                   [&](const auto& kernel, const auto& sum, const std::string& label) {
                                     reduce_pairs(space, map, mine, kernel, sum, label, hints);
                                   });
}

}  // namespace edm
}  // namespace tdmaps

#endif
