#ifndef TDMAPS_MAPS_DETAIL_MAP_ACCESS_HPP
#define TDMAPS_MAPS_DETAIL_MAP_ACCESS_HPP

// Not API (tdmaps::detail): one view of the one-launch and the several-launch
// forms of a block-space map (maps/map_concept.hpp), so the launch layer
// loops over launches l = 0 .. launches(map) - 1 either way; a one-launch map
// is launch 0 of 1. launches() and league_size() run on the host (the
// contract asks no more of a map), block() on the device.

#include <tdmaps/core/types.hpp>
#include <tdmaps/maps/detail/map_traits.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace detail {

template <class Map>
int launches(const Map& map) {
  if constexpr (has_multi_launch<Map>::value)
    return map.launches();
  else
    return 1;
}

template <class Map>
index_t league_size(const Map& map, int l) {
  if constexpr (has_multi_launch<Map>::value) {
    return map.league_size(l);
  } else {
    (void)l;
    return map.league_size();
  }
}

template <class Map, class Block>
KOKKOS_FORCEINLINE_FUNCTION bool block(const Map& map, int l, index_t omega, Block& b) {
  if constexpr (has_multi_launch<Map>::value) {
    return map.block(l, omega, b);
  } else {
    (void)l;
    return map.block(omega, b);
  }
}

}  // namespace detail
}  // namespace tdmaps

#endif
