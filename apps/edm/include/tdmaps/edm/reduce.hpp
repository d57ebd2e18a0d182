#ifndef TDMAPS_EDM_REDUCE_HPP
#define TDMAPS_EDM_REDUCE_HPP

// Reductions of the distance matrix that never store it (the pairs i < j of
// n points; the library's pair reductions, launch/reduce.hpp), each over the
// whole triangle or one omega range (chunks, MPI ranks: add the parts up):
//
//   pair_histogram(space, points, map[, range], rmax, counts)
//       counts(b) += #{pairs with edge_b <= |x_i - x_j| < edge_{b+1}}: NumPy's
//       bins, np.histogram(d[d < rmax], B, (0, rmax)) (histogram.hpp has the
//       edges); B = counts.extent(0), 1 .. 2^24; pairs at or beyond rmax are
//       not counted.
//   count_within(space, points, map[, range], radius) -> #{pairs |x_i - x_j| < radius}
//   count_within_part / pair_histogram_part(space, points, map, part, parts, ...)
//       the same over part `part` of `parts` (MPI ranks: add the parts up).
//       On GPU backends, points of 2 to 4 coordinates back to back over a
//       whole triangle or a part take the public reduce form of the pair-law
//       walk (tdmaps::reduce_pair_law, histogram_pair_law: a count per lane
//       in registers, a histogram's bins in team scratch; the same pairs and
//       bins as the element walk, point_law.hpp); points of d >= 5
//       coordinates at block side 16 or 32, whole, a range or a part, take
//       the dimension-tiled walk (tdmaps::reduce_pair_sums,
//       histogram_pair_sums: pair_min_keys' sums, the same pairs and bins);
//       every other case takes reduce_pairs and histogram_pairs.
//   nearest_neighbour(space, points, map[, range], keys)
//       keys(i) = the nearest other point of i, as a NearestKey (decode with
//       nearest_index / nearest_distance); ties go to the smaller index.
//       keys starts as nearest_init(); ranges join into it. On GPU backends,
//       fp32 points of 2 to 4 coordinates back to back over a whole triangle
//       take the public pair-law walk (tdmaps::for_each_pair_law: blocks of
//       lane_width x 4 points under the map's kind, each distance offered to
//       both ends in registers; nearest_law.hpp, the same keys); points of
//       d >= 5 coordinates, whole or an omega range, fp32 and fp64, take
//       the dimension-tiled walk (tdmaps::pair_min_keys: the coordinates
//       staged in team scratch, a 4 x 4 micro-tile of sums per thread; the
//       same sums and keys) at block side 16 or 32; every other case takes
//       reduce_rows.
//   nearest_neighbour_part(space, points, map, part, parts, keys)
//       the same over part `part` of `parts` (MPI ranks), the walk's league
//       split on GPU backends (for_each_pair_law_part).
//
// The distance is the element kernel's (direct_dist), so a histogram or a
// count agrees with the distances tdmaps-edm writes. map: a map over
// Domain2(n, rho, Triangle::strict_lower), bb or lambda for ranges. NaN
// distances are in no bin, not within any radius, and nobody's nearest.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/count.hpp>
#include <tdmaps/edm/element.hpp>
#include <tdmaps/edm/histogram.hpp>
#include <tdmaps/edm/nearest_law.hpp>
#include <tdmaps/edm/pair_column.hpp>
#include <tdmaps/edm/point_law.hpp>
#include <tdmaps/edm/tiled.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/kokkos_ext/lanes.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/pair_law.hpp>
#include <tdmaps/launch/pair_min_keys.hpp>
#include <tdmaps/launch/pair_reduce_law.hpp>
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

/// The keys above for the dimension-tiled walk (tdmaps::pair_min_keys), the
/// same values: fp32 in one pass, fp64 pass 1 and pass 2.
/// TiledNearestF's sum_bound: the sum of a key (+inf for none), above which
/// no pair's key is below it (pair_min_k_keys skips those pairs' keys).
/// TiledNearestDist gives none: fp64's k nearest ran slower with it.
struct TiledNearestF {
  static constexpr bool ordered_by_distance = true;  // (s, partner), none for NaN
  KOKKOS_FUNCTION NearestKey operator()(const float s, const index_t, const index_t p) const {
    return s != s ? ~NearestKey(0) : (NearestKey(ordered_bits(s)) << 32) | NearestKey(p);
  }
  KOKKOS_FUNCTION float sum_bound(const NearestKey key) const {
    return from_ordered_bits(key == ~NearestKey(0) ? 0xff800000u : static_cast<std::uint32_t>(key >> 32));  // ~0: +inf
  }
};
struct TiledNearestDist {
  static constexpr bool ordered_by_distance = true;  // s alone, none for NaN
  KOKKOS_FUNCTION NearestKey operator()(const double s, const index_t, const index_t) const {
    return s != s ? ~NearestKey(0) : ordered_bits(s);
  }
};
template <class Keys>
struct TiledNearestIndex {
  Keys best;  // pass 1's keys
  KOKKOS_FUNCTION NearestKey operator()(const double s, const index_t self, const index_t p) const {
    return s == s && ordered_bits(s) == best(self) ? NearestKey(p) : ~NearestKey(0);
  }
};

/// pair_min_keys over `range`: a one-launch map's (true); rec and hadouken
/// keep reduce_rows for ranges (false).
template <class ExecSpace, class Points, class Map, class Keys, class KeyOf>
bool tiled_keys(const ExecSpace& space, const Points& points, const Map& map, const OmegaRange& range, const Keys& keys,
                const KeyOf& key_of, const std::string& label) {
  if constexpr (!is_multi_launch_map_v<Map>) {
    pair_min_keys(space, map, range, points, keys, key_of, label);
    return true;
  }
  (void)space, (void)points, (void)map, (void)range, (void)keys, (void)key_of, (void)label;
  return false;
}

}  // namespace detail

namespace detail {
/// On GPU backends, fp32 points of D = 2, 3, 4 coordinates back to back:
/// the pair law of nearest_law.hpp through the public lane walk over part
/// `part` of `parts` of its league, and true; otherwise (a host backend,
/// fp64, another shape) false, and the caller runs reduce_rows.
template <class ExecSpace, class Points, class Map, class Keys, int D>
bool nearest_warp_if(const ExecSpace& space, const Points& points, const Map& map, int part, int parts,
                     const Keys& keys, const LaunchHints& hints, const std::string& label,
                     std::integral_constant<int, D>) {
  if constexpr (intrinsics::lane_width<ExecSpace>::value > 1 && D >= 2 &&
                std::is_same<typename Points::non_const_value_type, float>::value) {
    if (map.domain.n < 2) return true;
    const NearestLaw<D, Keys> law{points.data()};
    if constexpr (!is_multi_launch_map_v<Map>) {
      if (parts > 1) {
        for_each_pair_law_part(space, map, part, parts, law, keys, PairDiagonal::exclude, label, hints);
        return true;
      }
    }
    for_each_pair_law(space, map, law, keys, PairDiagonal::exclude, label, hints);
    return true;
  }
  (void)space, (void)points, (void)map, (void)part, (void)parts, (void)keys, (void)hints, (void)label;
  return false;
}
}  // namespace detail

/// What keys start as: no neighbour.
KOKKOS_INLINE_FUNCTION constexpr NearestKey nearest_init() { return ~NearestKey(0); }

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
    if constexpr (std::is_same<Real, float>::value) {
      if (range.begin == 0 && range.end == tdmaps::detail::league_size(map, 0) &&
          detail::nearest_warp_if(space, points, map, 0, 1, keys, hints, label, dims))
        return;
      if constexpr (detail::tiled_walk_v<ExecSpace, Points, D>)
        if (detail::tiled_walk(points, map) &&
            detail::tiled_keys(space, points, map, range, keys, detail::TiledNearestF(), label))
          return;
      reduce_rows<RowMin<NearestKey>>(space, map, range, detail::NearestKeyF<Points, D>{points}, keys, label, hints);
    } else {
      if constexpr (detail::tiled_walk_v<ExecSpace, Points, D>)
        if (detail::tiled_walk(points, map) &&
            detail::tiled_keys(space, points, map, range, keys, detail::TiledNearestDist(), label))
          return;
      reduce_rows<RowMin<NearestKey>>(space, map, range, detail::NearestDist<Points, D>{points}, keys, label, hints);
    }
  });
}

/// \brief nearest_neighbour over part `part` of `parts` of the triangle of a
/// one-launch map (bb, lambda), keys joined as by the range overload: the
/// parts p = 0 .. parts - 1 (MPI ranks, each its own, then the keys' minimum
/// over the ranks) give the whole triangle's keys. On GPU backends, fp32
/// points of 2 to 4 coordinates back to back split the pair-law walk's league
/// (for_each_pair_law_part); elsewhere the part is omega_range(map, part, parts) (fp64: the range that
/// nearest_index_pass takes too).
template <class ExecSpace, class Points, class Map, class Keys>
void nearest_neighbour_part(const ExecSpace& space, const Points& points, const Map& map, int part, int parts,
                            const Keys& keys, const LaunchHints& hints = LaunchHints()) {
  static_assert(!is_multi_launch_map_v<Map>, "tdmaps::edm::nearest_neighbour_part: a one-launch map (bb, lambda)");
  if (parts < 1 || part < 0 || part >= parts)
    throw std::invalid_argument("tdmaps::edm::nearest_neighbour_part: part " + std::to_string(part) + " of " +
                                std::to_string(parts) + " (need parts >= 1 and 0 <= part < parts)");
  detail::check_points<typename Points::non_const_value_type>(points, "tdmaps::edm::nearest_neighbour_part");
  detail::check_map(map, points.extent(0), "tdmaps::edm::nearest_neighbour_part");
  bool done = false;
  detail::with_dims(points, [&](auto dims) {
    done = detail::nearest_warp_if(space, points, map, part, parts, keys, hints,
                                   std::string("tdmaps::edm::nearest::") + Map::name, dims);
  });
  if (!done) nearest_neighbour(space, points, map, omega_range(map, part, parts), keys, hints);
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
    constexpr int D = decltype(dims)::value;
    const std::string label = std::string("tdmaps::edm::nearest_index::") + Map::name;
    if constexpr (detail::tiled_walk_v<ExecSpace, Points, D>)
      if (detail::tiled_walk(points, map) &&
          detail::tiled_keys(space, points, map, range, index, detail::TiledNearestIndex<Keys>{keys}, label))
        return;
    reduce_rows<RowMin<NearestKey>>(space, map, range, detail::NearestIndex<Points, Keys, D>{points, keys}, index, label,
                                    hints);
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
    const std::string label = std::string("tdmaps::edm::nearest::") + Map::name;
    // The first pass (fp64: the distance; fp32: the whole key), by the tiled walk when it takes it (true).
    const auto tiled = [&](const auto& key_of, const auto& out) {
      if constexpr (detail::tiled_walk_v<ExecSpace, Points, D>) {
        if (!detail::tiled_walk(points, map)) return false;
        pair_min_keys(space, map, points, out, key_of, label);
        return true;
      }
      (void)key_of, (void)out;
      return false;
    };
    if constexpr (std::is_same<Real, float>::value) {
      if (detail::nearest_warp_if(space, points, map, 0, 1, keys, hints, label, dims)) return;
      if (!tiled(detail::TiledNearestF(), keys))
        reduce_rows<RowMin<NearestKey>>(space, map, detail::NearestKeyF<Points, D>{points}, keys, label, hints);
    } else {
      if (!tiled(detail::TiledNearestDist(), keys))
        reduce_rows<RowMin<NearestKey>>(space, map, detail::NearestDist<Points, D>{points}, keys, label, hints);
      second = Kokkos::View<NearestKey*, mem>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::edm::nearest_idx"), n);
      Kokkos::deep_copy(space, second, nearest_init());
      if (!tiled(detail::TiledNearestIndex<decltype(keys)>{keys}, second))
        reduce_rows<RowMin<NearestKey>>(space, map, detail::NearestIndex<Points, decltype(keys), D>{points, keys},
                                        second, std::string("tdmaps::edm::nearest_index::") + Map::name, hints);
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
