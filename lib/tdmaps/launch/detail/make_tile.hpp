#ifndef TDMAPS_LAUNCH_DETAIL_MAKE_TILE_HPP
#define TDMAPS_LAUNCH_DETAIL_MAKE_TILE_HPP

// Not API (tdmaps::detail): the Tile of block (bi, bj) of a domain, clipped
// to [0, n); the same for block (bi, bj, bk) of a tetrahedron; and the
// blocks a team takes from one Kokkos launch of a map's league.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/detail/map_traits.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace detail {

KOKKOS_FORCEINLINE_FUNCTION Tile make_tile(const Domain2& d, const Block2& b) {
  Tile t;
  t.i0 = b.bi * d.rho;
  t.j0 = b.bj * d.rho;
  t.rows = static_cast<int>(d.n - t.i0 < d.rho ? d.n - t.i0 : d.rho);
  t.cols = static_cast<int>(d.n - t.j0 < d.rho ? d.n - t.j0 : d.rho);
  t.triangle = d.triangle;
  return t;
}

KOKKOS_FORCEINLINE_FUNCTION Tile3 make_tile(const Domain3& d, const Block3& b) {
  Tile3 t;
  t.i0 = b.bi * d.rho;
  t.j0 = b.bj * d.rho;
  t.k0 = b.bk * d.rho;
  t.ni = static_cast<int>(d.n - t.i0 < d.rho ? d.n - t.i0 : d.rho);
  t.nj = static_cast<int>(d.n - t.j0 < d.rho ? d.n - t.j0 : d.rho);
  t.nk = static_cast<int>(d.n - t.k0 < d.rho ? d.n - t.k0 : d.rho);
  t.triangle = d.triangle;
  return t;
}

/// f(tile) for each block a team takes from the omegas [offset, offset +
/// count) of launch `launch` of map's league: team r of L takes omegas
/// offset + r, + L, + 2L, ... (the teams running at any moment take
/// neighbouring blocks, as with one block per team), skipping those whose
/// block() is false; the tile is a Tile, or a Tile3 for a 3-D map.
/// OneBlockPath (the element functors, whose default is one block per team)
/// adds a path without the loop for count <= L, whose 64-bit step and test
/// every launched warp would pay; it inlines f twice.
template <class ExecSpace, bool OneBlockPath = false, class Map, class F>
KOKKOS_FORCEINLINE_FUNCTION void each_block(const Map& map, int launch, index_t offset, index_t count,
                                            const team_member_t<ExecSpace>& team, const F& f) {
  const index_t teams = team.league_size();
  if constexpr (OneBlockPath) {
    if (count <= teams) {
      const index_t k = team.league_rank();
      block_type_t<Map> b;
      if (k < count && detail::block(map, launch, offset + k, b)) f(make_tile(map.domain, b));
      return;
    }
  }
  for (index_t k = team.league_rank(); k < count; k += teams) {
    block_type_t<Map> b;
    if (detail::block(map, launch, offset + k, b)) f(make_tile(map.domain, b));
  }
}

}  // namespace detail
}  // namespace tdmaps

#endif
