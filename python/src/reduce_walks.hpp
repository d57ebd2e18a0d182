// The walks of python/src/reduce.cpp's reductions over one map: which
// launches a one-launch map's league takes, in pieces that Ctrl-C stops
// between (check_cancel): on GPU backends sub-parts of the part
// (for_each_sub_part: the edm _part forms, the pair-law walks' league
// split), on host ones chunks of the part's omega range (for_each_chunk);
// rec and hadouken (several launches) and utm (no blocks) run whole.
// Included by reduce.cpp only.
#ifndef TDMAPS_PYTHON_REDUCE_WALKS_HPP
#define TDMAPS_PYTHON_REDUCE_WALKS_HPP

#include "common.hpp"

#include <tdmaps/edm/reduce.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tdmaps {
namespace python {

template <class Map>
constexpr bool one_launch_v = is_block_space_map_v<Map> && !is_multi_launch_map_v<Map>;

/// GPU backends: the pair-law walks split their own league (the _part forms).
constexpr bool lane_walks = tdmaps::intrinsics::lane_width<ExecSpace>::value > 1;

template <class Map, class Real>
void hist_part(const ExecSpace& space, const Map& map, const PointsView<Real>& x, index_t part, index_t parts,
               double rmax, const Kokkos::View<std::int64_t*, MemSpace>& counts) {
  if constexpr (lane_walks)
    for_each_sub_part(map.domain.elements(), part, parts, [&](index_t p, index_t P) {
      edm::pair_histogram_part(space, x, map, static_cast<int>(p), static_cast<int>(P), rmax, counts);
    });
  else
    for_each_chunk(space, omega_range(map, part, parts),
                   [&](const OmegaRange& c) { edm::pair_histogram(space, x, map, c, rmax, counts); });
}

template <class Map, class Real>
index_t count_part(const ExecSpace& space, const Map& map, const PointsView<Real>& x, index_t part, index_t parts,
                   double radius) {
  index_t count = 0;
  if constexpr (lane_walks)
    for_each_sub_part(map.domain.elements(), part, parts, [&](index_t p, index_t P) {
      count += edm::count_within_part(space, x, map, static_cast<int>(p), static_cast<int>(P), radius);
    });
  else
    for_each_chunk(space, omega_range(map, part, parts),
                   [&](const OmegaRange& c) { count += edm::count_within(space, x, map, c, radius); });
  return count;
}

template <class Map, class Real>
void hist_map(const ExecSpace& space, const Map& map, const PointsView<Real>& x, double rmax,
              const Kokkos::View<std::int64_t*, MemSpace>& counts) {
  if constexpr (one_launch_v<Map>)
    hist_part(space, map, x, 0, 1, rmax, counts);
  else if constexpr (is_block_space_map_v<Map>)
    edm::pair_histogram(space, x, map, rmax, counts);  // utm: refused before
}

template <class Map, class Real>
void nn_map(const ExecSpace& space, const Map& map, const PointsView<Real>& x, const Kokkos::View<index_t*, MemSpace>& index,
            const Kokkos::View<Real*, MemSpace>& dist) {
  if constexpr (is_block_space_map_v<Map>) edm::nearest_neighbour(space, x, map, index, dist);  // utm: refused before
}

template <class Map, class Real>
index_t count_map(const ExecSpace& space, const Map& map, const PointsView<Real>& x, double radius) {
  if constexpr (one_launch_v<Map>)
    return count_part(space, map, x, 0, 1, radius);
  else
    return edm::count_within(space, x, map, radius);  // any map, utm included
}

}  // namespace python
}  // namespace tdmaps

#endif
