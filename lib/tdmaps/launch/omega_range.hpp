#ifndef TDMAPS_LAUNCH_OMEGA_RANGE_HPP
#define TDMAPS_LAUNCH_OMEGA_RANGE_HPP

// Omega ranges: [begin, end) of a map's league, the unit of chunking,
// streaming and MPI ranks. Every launch of the launch layer (for_each_element,
// for_each_tile, the reductions) takes one and runs the blocks of those
// omegas only; the whole league is full_range(map).
//
//   OmegaRange r = omega_range(map, part, parts);   // part in [0, parts)
//
// gives `parts` contiguous ranges that cover the league exactly once. For the
// 2-D maps whose league runs block row by block row (lambda, bb) and the 3-D
// ones whose league runs block layer by block layer (lambda3, bb3) each part
// holds the same number of elements (pairs; triplets in 3-D) of the domain to
// within one block's elements (elements_before() below, the 3-D count in
// launch/omega_range3.hpp); for any other one-launch map the parts hold
// equal numbers of omegas. Under lambda a range that starts and ends on
// block-row boundaries (block_rows_range) is a contiguous slab of the packed
// order: rows [b0 rho, b1 rho).

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/omega_range3.hpp>
#include <tdmaps/maps/bounding_box.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/lambda.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {

/// The omegas [begin, end) of a map's league.
struct OmegaRange {
  index_t begin = 0;  ///< first omega
  index_t end = 0;    ///< one past the last omega
  /// Omegas in the range.
  index_t size() const { return end - begin; }
  /// Whether the range holds no omega.
  bool empty() const { return end <= begin; }
};

namespace detail {

/// Whether elements_before() has a closed form for Map (a 2-D league that
/// runs block row by block row).
template <class Map>
struct has_row_order : std::integral_constant<bool, is_lambda_map_v<Map> || std::is_same<Map, BoundingBoxMap>::value> {
};

/// Whether elements_before() has a closed form for Map (2-D or 3-D), so
/// omega_range() balances by elements.
template <class Map>
struct has_elements_before : std::integral_constant<bool, has_row_order<Map>::value || has_layer_order3<Map>::value> {};

/// Elements of a triangle's rows [0, r): T(r) (lower) or T(r - 1) (strict).
inline index_t rows_elements(index_t r, Triangle t) { return t == Triangle::lower ? tri(r) : (r > 0 ? tri(r - 1) : 0); }

/// Elements of block row bi of d in its blocks bj' < bj (bj <= bi; every one
/// of them off the diagonal, so full columns) plus, when diag, its diagonal block.
inline index_t row_prefix2(const Domain2& d, index_t bi, index_t bj, bool diag) {
  const index_t i0 = bi * d.rho;
  const index_t h = d.n - i0 < d.rho ? d.n - i0 : d.rho;
  index_t e = bj * h * d.rho;
  if (diag) e += rows_elements(i0 + h, d.triangle) - rows_elements(i0, d.triangle) - bi * h * d.rho;
  return e;
}

}  // namespace detail

/// Number of elements of map.domain (triplets of a 3-D map's tetrahedron) in
/// the blocks of omegas [0, omega) (lambda, bb, lambda3, bb3); O(1), exact in
/// int64 up to the largest side. The league's end gives elements().
template <class Map>
index_t elements_before(const Map& map, index_t omega) {
  static_assert(detail::has_elements_before<Map>::value,
                "tdmaps::elements_before: needs a map whose league runs block row by block row (lambda, bb) or "
                "block layer by block layer (lambda3, bb3)");
  const auto& d = map.domain;
  if (omega <= 0) return 0;
  if (omega >= map.league_size()) return d.elements();
  if constexpr (detail::has_layer_order3<Map>::value) {
    return detail::elements_before3(map, omega);
  } else if constexpr (is_lambda_map_v<Map>) {
    const index_t bi = tri_root(omega);
    const index_t bj = omega - tri(bi);
    return detail::rows_elements(bi * d.rho, d.triangle) + detail::row_prefix2(d, bi, bj, false);
  } else {
    const index_t bi = omega / d.nb;
    const index_t bj = omega - bi * d.nb;
    return detail::rows_elements(bi * d.rho, d.triangle) + detail::row_prefix2(d, bi, bj <= bi ? bj : bi, bj > bi);
  }
}

/// The whole league of a one-launch block-space map.
template <class Map>
OmegaRange full_range(const Map& map) {
  static_assert(is_block_space_map_v<Map> && !detail::has_multi_launch<Map>::value,
                "tdmaps::full_range: omega ranges need a one-launch block-space map (bb, lambda, bb3, lambda3; "
                "not rb / rec / hadouken, whose leagues are several launches, nor utm)");
  return OmegaRange{0, map.league_size()};
}

/// Part `part` of `parts` contiguous ranges covering map's league (the top
/// of this file): balanced by elements for lambda / bb (2-D) and by
/// triplets for lambda3 / bb3, by omegas for any other one-launch map. Each
/// part holds total / parts elements to within one block's elements (rho^2,
/// rho^3 in 3-D); O(log league) calls of elements_before.
template <class Map>
OmegaRange omega_range(const Map& map, index_t part, index_t parts) {
  const OmegaRange all = full_range(map);
  if (parts < 1) throw std::invalid_argument("tdmaps::omega_range: parts = " + std::to_string(parts) + " (need >= 1)");
  if (part < 0 || part >= parts)
    throw std::invalid_argument("tdmaps::omega_range: part = " + std::to_string(part) + " is outside [0, " +
                                std::to_string(parts) + ")");
  // Boundary p: the first omega whose elements_before reaches p / parts of the domain.
  auto boundary = [&](index_t p) -> index_t {
    if (p <= 0) return all.begin;
    if (p >= parts) return all.end;
    if constexpr (detail::has_elements_before<Map>::value) {
      const index_t total = map.domain.elements();
      // target = ceil(total p / parts) without overflowing total p
      const index_t q = total / parts, r = total % parts;
      const index_t target = q * p + (r * p + parts - 1) / parts;
      index_t lo = all.begin, hi = all.end;  // smallest omega with elements_before >= target
      while (lo < hi) {
        const index_t mid = lo + (hi - lo) / 2;
        if (elements_before(map, mid) >= target) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    } else {
      const index_t q = all.end / parts, r = all.end % parts;
      return q * p + (r * p) / parts;
    }
  };
  return OmegaRange{boundary(part), boundary(part + 1)};
}

/// The omegas of block rows [b0, b1) of a lambda map (a slab of the packed
/// order: rows [b0 rho, min(b1 rho, n))).
template <class Map>
OmegaRange block_rows_range(const Map& map, index_t b0, index_t b1) {
  static_assert(is_lambda_map_v<Map>, "tdmaps::block_rows_range: needs a lambda map");
  const index_t nb = map.domain.nb;
  if (b0 < 0 || b1 < b0 || b1 > nb)
    throw std::invalid_argument("tdmaps::block_rows_range: block rows [" + std::to_string(b0) + ", " +
                                std::to_string(b1) + ") are not inside [0, " + std::to_string(nb) + ")");
  return OmegaRange{tri(b0), tri(b1)};
}

/// \brief Throws std::invalid_argument unless r lies inside map's league
/// (full_range(map)); `who` names the caller in the message.
template <class Map>
void check_omega_range(const Map& map, const OmegaRange& r, const char* who) {
  const OmegaRange all = full_range(map);
  if (r.begin < all.begin || r.end > all.end || r.begin > r.end)
    throw std::invalid_argument(std::string(who) + ": omega range [" + std::to_string(r.begin) + ", " +
                                std::to_string(r.end) + ") is not inside the league [0, " + std::to_string(all.end) +
                                ") of map '" + Map::name + "'");
}

}  // namespace tdmaps

#endif
