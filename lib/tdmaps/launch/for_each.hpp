#ifndef TDMAPS_LAUNCH_FOR_EACH_HPP
#define TDMAPS_LAUNCH_FOR_EACH_HPP

// The launch layer: the only place that builds Kokkos policies for a map.
//
//   for_each_element(space, map, kernel[, label[, hints]])
//       kernel(i, j) once for every element of the map's domain; any map.
//       3-D maps (Domain3): kernel(i, j, k) once for every triplet.
//   for_each_tile(space, map, scratch_bytes, kernel[, label[, hints]])
//       kernel(team, tile) once per block of the domain, with scratch_bytes of
//       level-0 team scratch; block-space maps only. 3-D maps: a Tile3.
//
// A block-space map's league rank (plus an offset when a league is split into
// launches of at most max_league_per_launch teams) is omega; with
// LaunchHints::blocks_per_team = K > 1 a league of L = ceil(blocks / K) teams
// takes omega = rank, rank + L, ... (the GPU tile kernels' default). Team
// shapes: launch/hints.hpp. What a map provides: maps/map_concept.hpp.
//
//   for_each_element(space, map, range, kernel[, label[, hints]])
//   for_each_tile(space, map, range, scratch_bytes, kernel[, label[, hints]])
//       the same over the blocks of the omegas of `range` only (an
//       OmegaRange of a one-launch block-space map: launch/omega_range.hpp).

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/detail/element_functor.hpp>
#include <tdmaps/launch/detail/element_functor3.hpp>
#include <tdmaps/launch/detail/run_league.hpp>
#include <tdmaps/launch/detail/thread_functor.hpp>
#include <tdmaps/launch/detail/tile_functor.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>

namespace tdmaps {

/// kernel(i, j) for every element (i, j) of map.domain, exactly once;
/// kernel(i, j, k) for every triplet of a 3-D map's tetrahedron.
template <class ExecSpace, class Map, class Kernel>
void for_each_element(const ExecSpace& space, const Map& map, const Kernel& kernel,
                      const std::string& label = std::string("tdmaps::for_each_element::") + Map::name,
                      const LaunchHints& hints = LaunchHints()) {
  static_assert(check_map<Map>(), "tdmaps: Map breaks the map contract (tdmaps/maps/map_concept.hpp)");
  if constexpr (is_thread_space_map_v<Map>) {
    const index_t total = map.elements();
    for (index_t begin = 0; begin < total; begin += max_league_per_launch) {
      const index_t end = total - begin < max_league_per_launch ? total : begin + max_league_per_launch;
      Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, begin, end),
                           detail::ThreadFunctor<Map, Kernel>{map, kernel});
    }
  } else if constexpr (detail::is_3d<Map>::value) {
    detail::run_league(space, label, map.domain, hints, LaunchKind::element, 0, map.league_size(), 0,
                       detail::ElementFunctor3<ExecSpace, Map, Kernel>(map, kernel, 0));
  } else if constexpr (is_block_space_map_v<Map>) {
    for (int l = 0; l < detail::launches(map); ++l) {
      detail::run_league(space, label, map.domain, hints, LaunchKind::element, 0, detail::league_size(map, l), 0,
                         detail::ElementFunctor<ExecSpace, Map, Kernel>(map, kernel, l));
    }
  }
}

/// kernel(team, tile) for every block of map.domain, exactly once, with
/// scratch_bytes of level-0 team scratch per block. A kernel that declares a
/// type `team_state` (default-constructible) is called as kernel(team, tile,
/// state) instead, with one state per thread that lives across the blocks
/// its team takes (LaunchHints::blocks_per_team), and kernel.team_end(team,
/// state) once per team after its last block (also when it took none): e.g.
/// hits summed over a team's blocks and added with one atomic per team.
/// A kernel that declares `bool enabled() const` (a gate) is asked once per
/// team before its first block; a team that gets false takes no block and
/// calls no team_end. With the condition computed on the device by an
/// earlier launch on the same execution space instance, a launch can be
/// cancelled without a host wait in between (collision's input check).
template <class ExecSpace, class Map, class Kernel>
void for_each_tile(const ExecSpace& space, const Map& map, std::size_t scratch_bytes, const Kernel& kernel,
                   const std::string& label = std::string("tdmaps::for_each_tile::") + Map::name,
                   const LaunchHints& hints = LaunchHints()) {
  static_assert(check_map<Map>(), "tdmaps: Map breaks the map contract (tdmaps/maps/map_concept.hpp)");
  static_assert(!is_thread_space_map_v<Map>,
                "tdmaps::for_each_tile: a tile kernel needs a block-space map (bb, lambda, rb, rec, hadouken); "
                "a thread-space map (utm) serves element kernels only (for_each_element)");
  if constexpr (is_block_space_map_v<Map>) {
    for (int l = 0; l < detail::launches(map); ++l) {
      detail::run_league(space, label, map.domain, hints, LaunchKind::tile, 0, detail::league_size(map, l),
                         scratch_bytes,
                         detail::TileFunctor<ExecSpace, Map, Kernel>(map, kernel, l, scratch_bytes));
    }
  }
}

/// for_each_element over the blocks of the omegas of `range` only.
template <class ExecSpace, class Map, class Kernel>
void for_each_element(const ExecSpace& space, const Map& map, const OmegaRange& range, const Kernel& kernel,
                      const std::string& label = std::string("tdmaps::for_each_element::") + Map::name,
                      const LaunchHints& hints = LaunchHints()) {
  static_assert(check_map<Map>(), "tdmaps: Map breaks the map contract (tdmaps/maps/map_concept.hpp)");
  check_omega_range(map, range, "tdmaps::for_each_element");
  if constexpr (detail::is_3d<Map>::value) {
    detail::run_league(space, label, map.domain, hints, LaunchKind::element, range.begin, range.end, 0,
                       detail::ElementFunctor3<ExecSpace, Map, Kernel>(map, kernel, 0));
  } else {
    detail::run_league(space, label, map.domain, hints, LaunchKind::element, range.begin, range.end, 0,
                       detail::ElementFunctor<ExecSpace, Map, Kernel>(map, kernel, 0));
  }
}

/// for_each_tile over the blocks of the omegas of `range` only.
template <class ExecSpace, class Map, class Kernel>
void for_each_tile(const ExecSpace& space, const Map& map, const OmegaRange& range, std::size_t scratch_bytes,
                   const Kernel& kernel, const std::string& label = std::string("tdmaps::for_each_tile::") + Map::name,
                   const LaunchHints& hints = LaunchHints()) {
  static_assert(check_map<Map>(), "tdmaps: Map breaks the map contract (tdmaps/maps/map_concept.hpp)");
  check_omega_range(map, range, "tdmaps::for_each_tile");
  detail::run_league(space, label, map.domain, hints, LaunchKind::tile, range.begin, range.end, scratch_bytes,
                     detail::TileFunctor<ExecSpace, Map, Kernel>(map, kernel, 0, scratch_bytes));
}

}  // namespace tdmaps

#endif
