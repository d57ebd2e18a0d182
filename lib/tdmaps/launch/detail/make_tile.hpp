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

/// The order in which each_block's teams take the omegas: as they come.
struct InOrder {
  KOKKOS_FORCEINLINE_FUNCTION index_t operator()(const index_t k) const { return k; }
};

/// The omegas [0, count) spread over the league: the k-th taken is
/// (k * step) mod count, step coprime with count and near count / phi, so
/// that the teams running at any moment take blocks far apart in every
/// block row and column (walks whose work per block falls as the results
/// of earlier blocks build up: pair_min_k_keys).
struct SpreadOrder {
  index_t count = 1, step = 1;
  SpreadOrder() = default;
  explicit SpreadOrder(const index_t c) : count(c < 1 ? 1 : c), step(1) {
    index_t s = static_cast<index_t>(0.6180339887 * static_cast<double>(count));
    if (s < 1) s = 1;
    const auto gcd = [](index_t a, index_t b) {
      while (b != 0) {
        const index_t t = a % b;
        a = b;
        b = t;
      }
      return a;
    };
    while (gcd(s, count) != 1) ++s;
    step = s % count == 0 ? 1 : s;
  }
  /// k in [0, count) -> its omega offset (count < 2^31: the product fits in 64 bits).
  KOKKOS_FORCEINLINE_FUNCTION index_t operator()(const index_t k) const { return (k * step) % count; }
};

/// f(tile) for each block a team takes from the omegas [offset, offset +
/// count) of launch `launch` of map's league: team r of L takes omegas
/// offset + order(r), + order(r + L), ... (InOrder: the teams running at any
/// moment take neighbouring blocks, as with one block per team), skipping
/// those whose block() is false; the tile is a Tile, or a Tile3 for a 3-D map.
/// OneBlockPath (the element functors, whose default is one block per team)
/// adds a path without the loop for count <= L, whose 64-bit step and test
/// every launched warp would pay; it inlines f twice.
template <class ExecSpace, bool OneBlockPath = false, class Map, class F, class Order = InOrder>
KOKKOS_FORCEINLINE_FUNCTION void each_block(const Map& map, int launch, index_t offset, index_t count,
                                            const team_member_t<ExecSpace>& team, const F& f,
                                            const Order& order = Order()) {
  const index_t teams = team.league_size();
  if constexpr (OneBlockPath) {
    if (count <= teams) {
      const index_t k = team.league_rank();
      block_type_t<Map> b;
      if (k < count && detail::block(map, launch, offset + order(k), b)) f(make_tile(map.domain, b));
      return;
    }
  }
  for (index_t k = team.league_rank(); k < count; k += teams) {
    block_type_t<Map> b;
    if (detail::block(map, launch, offset + order(k), b)) f(make_tile(map.domain, b));
  }
}

}  // namespace detail
}  // namespace tdmaps

#endif
