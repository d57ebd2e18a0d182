#ifndef TDMAPS_LAUNCH_PAIR_MIN_KEYS_HPP
#define TDMAPS_LAUNCH_PAIR_MIN_KEYS_HPP

// tdmaps::pair_min_keys(space, map[, range], points, keys, key_of[, label])
// tdmaps::pair_min_k_keys(space, map[, range], points, keys, key_of[, label])
//
// Points of any dimension d: each pair j < i of the map's triangle (or of
// the blocks of an omega range of a one-launch map) once, its squared
// distance s = sum_k (x(i, k) - x(j, k))^2 summed in k order from s = 0 (the
// element kernel's sum, edm/element.hpp, bit for bit), and for each point
// the smallest key of its pairs, both ends:
//   keys(i) = min(keys(i), min over its pairs (i, j) of key_of(s, i, j)),
//   keys(j) = min(keys(j), min over its pairs (i, j) of key_of(s, j, i)).
// key_of(s, self, partner) is a 64-bit key (a nearest neighbour: the ordered
// bits of s, then the partner; ~0 for none). keys keep their values where
// nothing is smaller, so ranges and maps join into them. A KeyOf that
// declares `static constexpr bool ordered_by_distance = true` promises that
// its keys order a point's pairs by s, then by the partner's index, and that
// a NaN s has none (~0): pair_min_keys then picks each row's smallest
// (s, partner) of a micro-tile in the sums' own type and makes one key of
// it, instead of a key per pair (the same minimum, fewer instructions).
//
// pair_min_k_keys keeps the k smallest instead: keys is n x k, each row
// sorted ascending on entry (~0: an empty slot), and each row ends as the k
// smallest of its entries and of the point's keys, sorted (a multiset:
// equal keys are kept as often as they come). k nearest neighbours are this
// with the nearest neighbour's key. A KeyOf ordered by distance that also
// gives `Real sum_bound(std::uint64_t key) const`, a sum that no pair with a
// key below `key` exceeds (+inf for ~0), has pair_min_k_keys skip the keys
// of the pairs whose sum is above their row's bound or NaN: one comparison
// in the sums' type a pair and end instead of a key (the same rows).
//
// The dimensions are walked as a GEMM walks its k loop, with the exact
// difference form instead of a product: a team takes a block of rho x rho
// pairs, and each of its threads keeps a micro-tile of sums in registers
// (detail::tiled_rows x tiled_cols pairs: rows and columns next to
// each other in the block). On GPU backends the team stages the block's
// rows and columns 16 coordinates at a time in team scratch, and each
// thread reads a step's coordinates of its rows and of its columns as
// aligned quads (a warp's reads are a few consecutive words, broadcast);
// on host backends the team's one thread walks the micro-tiles in turn and
// reads the points in place. pair_min_keys keeps each micro-tile's
// smallest key of each of its rows and columns apart in team scratch (no
// atomics there); when the block ends, each row's and column's smallest of
// them goes to `keys` by one atomic.
// pair_min_k_keys reads each row's largest key (its last slot) once per
// block; a key below it is inserted into the row by an atomic insertion
// sort (detail::insert_sorted). Its teams take the blocks spread over the
// triangle (SpreadOrder): the blocks of one block row taken at once would
// all find the row's keys empty and insert every key.

#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/detail/pair_min_keys_walk.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {

/// The block sides pair_min_keys takes (a team of detail::tiled_team(rho) threads on GPU backends).
inline bool pair_min_keys_block_side(int rho) { return detail::tiled_block_side(rho); }

namespace detail {
/// The largest k pair_min_k_keys takes.
constexpr int max_min_k = 1 << 20;

template <class Map, class Points, class Keys>
void check_min_keys(const Map& map, const Points& points, const Keys& keys, const char* what) {
  static_assert(Kokkos::is_view<Keys>::value && std::is_same<typename Keys::value_type, std::uint64_t>::value,
                "tdmaps::pair_min_keys: keys is a writable View of std::uint64_t");
  check_tiled(map, points, what);
  const std::string w(what);
  if (static_cast<index_t>(keys.extent(0)) != map.domain.n)
    throw std::invalid_argument(w + ": " + std::to_string(keys.extent(0)) + " rows of keys for a domain of " +
                                std::to_string(map.domain.n));
  if constexpr (Keys::rank == 2)
    if (keys.extent(1) < 1 || keys.extent(1) > static_cast<std::size_t>(max_min_k))
      throw std::invalid_argument(w + ": k = " + std::to_string(keys.extent(1)) + " keys a point (need 1 .. " +
                                  std::to_string(max_min_k) + ")");
}

/// The walk over omegas [begin, end) of launch l.
template <class ExecSpace, class Map, class Points, class Keys, class KeyOf>
void min_keys_launch(const ExecSpace& space, const Map& map, int l, index_t begin, index_t end, const Points& points,
                     const Keys& keys, const KeyOf& key_of, const std::string& label) {
  using F = PairMinKeysWalk<ExecSpace, Map, Points, Keys, KeyOf>;
  const int rho = map.domain.rho;
  F f{map, points, keys, key_of, static_cast<int>(points.extent(1)), l, 0, 0, SpreadOrder()};
  const int team_size = tiled_team_size<ExecSpace>(rho);
  for (index_t b = begin; b < end; b += max_league_per_launch) {
    f.offset = b;
    f.count = end - b < max_league_per_launch ? end - b : max_league_per_launch;
    if constexpr (F::many) f.order = SpreadOrder(f.count);
    tiled_policy_t<ExecSpace> policy(space, static_cast<int>(f.count), team_size, 1);
    policy.set_scratch_size(0, Kokkos::PerTeam(F::scratch_bytes(rho) + tile_scratch_alignment));  // + alignment slack
    Kokkos::parallel_for(label, policy, f);
  }
}
}  // namespace detail

/// keys(p) = min(keys(p), key_of(s, p, partner)) over each pair j < i of
/// `map`'s triangle, both ends, s the pair's squared distance summed in
/// coordinate order (the top of this file).
/// \tparam Map a block-space map (bb, lambda, rb, rec, hadouken) of block side 16 or 32
/// \param space the execution space instance the walk runs on (not fenced)
/// \param map the map over Domain2(n, rho, triangle) whose blocks are walked
/// \param points n x d, LayoutRight, in ExecSpace's memory (any d >= 1)
/// \param keys n keys (std::uint64_t), in ExecSpace's memory
/// \param key_of `KOKKOS_FUNCTION std::uint64_t operator()(Real s, index_t self, index_t partner) const`;
///        optionally `static constexpr bool ordered_by_distance = true` (the top of this file)
/// \param label the launches' label (Kokkos tools)
/// \throws std::invalid_argument on a block side, points or keys of the wrong shape
template <class ExecSpace, class Map, class Points, class Keys, class KeyOf>
void pair_min_keys(const ExecSpace& space, const Map& map, const Points& points, const Keys& keys, const KeyOf& key_of,
                   const std::string& label = std::string("tdmaps::pair_min_keys::") + Map::name) {
  static_assert(Keys::rank == 1, "tdmaps::pair_min_keys: keys is a 1-D View (pair_min_k_keys: n x k)");
  detail::check_min_keys(map, points, keys, "tdmaps::pair_min_keys");
  for (int l = 0; l < detail::launches(map); ++l)
    detail::min_keys_launch(space, map, l, 0, detail::league_size(map, l), points, keys, key_of, label);
}

/// pair_min_keys over the blocks of the omegas of `range` of a one-launch
/// map (bb, lambda, rb): the ranges of a partition (MPI ranks, chunks) join
/// into the whole's keys.
/// \param space the execution space instance the walk runs on (not fenced)
/// \param map a one-launch map over Domain2(n, rho, triangle)
/// \param range omegas [begin, end) of the map's league (omega_range)
/// \param points n x d, LayoutRight, in ExecSpace's memory (any d >= 1)
/// \param keys n keys (std::uint64_t), in ExecSpace's memory
/// \param key_of as above
/// \param label the launches' label (Kokkos tools)
/// \throws std::invalid_argument as above, and on a range outside the league
template <class ExecSpace, class Map, class Points, class Keys, class KeyOf>
void pair_min_keys(const ExecSpace& space, const Map& map, const OmegaRange& range, const Points& points,
                   const Keys& keys, const KeyOf& key_of,
                   const std::string& label = std::string("tdmaps::pair_min_keys::") + Map::name) {
  static_assert(!is_multi_launch_map_v<Map>, "tdmaps::pair_min_keys: omega ranges of a one-launch map (bb, lambda, rb)");
  static_assert(Keys::rank == 1, "tdmaps::pair_min_keys: keys is a 1-D View (pair_min_k_keys: n x k)");
  detail::check_min_keys(map, points, keys, "tdmaps::pair_min_keys");
  check_omega_range(map, range, "tdmaps::pair_min_keys");
  detail::min_keys_launch(space, map, 0, range.begin, range.end, points, keys, key_of, label);
}

/// The k smallest keys of each point's pairs: row p of `keys` (sorted
/// ascending on entry; ~0 an empty slot) ends as the k smallest of its
/// entries and of key_of(s, p, partner) over p's pairs j < i of `map`'s
/// triangle, both ends, sorted ascending (the top of this file).
/// \tparam Map a block-space map (bb, lambda, rb, rec, hadouken) of block side 16 or 32
/// \param space the execution space instance the walk runs on (not fenced)
/// \param map the map over Domain2(n, rho, triangle) whose blocks are walked
/// \param points n x d, LayoutRight, in ExecSpace's memory (any d >= 1)
/// \param keys n x k keys (std::uint64_t, LayoutRight, 1 <= k <= 2^20), in ExecSpace's memory
/// \param key_of `KOKKOS_FUNCTION std::uint64_t operator()(Real s, index_t self, index_t partner) const`;
///        optionally `ordered_by_distance` with `KOKKOS_FUNCTION Real sum_bound(std::uint64_t key) const`
///        (the top of this file)
/// \param label the launches' label (Kokkos tools)
/// \throws std::invalid_argument on a block side, points or keys of the wrong shape
template <class ExecSpace, class Map, class Points, class Keys, class KeyOf>
void pair_min_k_keys(const ExecSpace& space, const Map& map, const Points& points, const Keys& keys,
                     const KeyOf& key_of,
                     const std::string& label = std::string("tdmaps::pair_min_k_keys::") + Map::name) {
  static_assert(Keys::rank == 2 && std::is_same<typename Keys::array_layout, Kokkos::LayoutRight>::value,
                "tdmaps::pair_min_k_keys: keys is an n x k LayoutRight View");
  detail::check_min_keys(map, points, keys, "tdmaps::pair_min_k_keys");
  for (int l = 0; l < detail::launches(map); ++l)
    detail::min_keys_launch(space, map, l, 0, detail::league_size(map, l), points, keys, key_of, label);
}

/// pair_min_k_keys over the blocks of the omegas of `range` of a one-launch
/// map (bb, lambda, rb): the ranges of a partition join into the whole's rows.
/// \throws std::invalid_argument as above, and on a range outside the league
template <class ExecSpace, class Map, class Points, class Keys, class KeyOf>
void pair_min_k_keys(const ExecSpace& space, const Map& map, const OmegaRange& range, const Points& points,
                     const Keys& keys, const KeyOf& key_of,
                     const std::string& label = std::string("tdmaps::pair_min_k_keys::") + Map::name) {
  static_assert(!is_multi_launch_map_v<Map>,
                "tdmaps::pair_min_k_keys: omega ranges of a one-launch map (bb, lambda, rb)");
  static_assert(Keys::rank == 2 && std::is_same<typename Keys::array_layout, Kokkos::LayoutRight>::value,
                "tdmaps::pair_min_k_keys: keys is an n x k LayoutRight View");
  detail::check_min_keys(map, points, keys, "tdmaps::pair_min_k_keys");
  check_omega_range(map, range, "tdmaps::pair_min_k_keys");
  detail::min_keys_launch(space, map, 0, range.begin, range.end, points, keys, key_of, label);
}

}  // namespace tdmaps

#endif
