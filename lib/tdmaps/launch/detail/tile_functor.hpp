#ifndef TDMAPS_LAUNCH_DETAIL_TILE_FUNCTOR_HPP
#define TDMAPS_LAUNCH_DETAIL_TILE_FUNCTOR_HPP

// Not API (tdmaps::detail): what for_each_tile runs: per team, the blocks of
// its omegas, kernel(team, tile) for each with the team's scratch, and the
// optional parts of a tile kernel (team_state / team_end, the enabled() gate;
// see for_each_tile).

#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/detail/make_tile.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/detail/map_traits.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace tdmaps {
namespace detail {

/// Whether a tile kernel keeps per-thread state across its team's blocks
/// (it declares `team_state`; see for_each_tile).
template <class Kernel, class = void>
struct has_team_state : std::false_type {};
template <class Kernel>
struct has_team_state<Kernel, std::void_t<typename Kernel::team_state>> : std::true_type {};

/// Whether a tile kernel declares a gate (`bool enabled() const`; see for_each_tile).
template <class Kernel, class = void>
struct has_gate : std::false_type {};
template <class Kernel>
struct has_gate<Kernel, std::void_t<decltype(bool(std::declval<const Kernel&>().enabled()))>> : std::true_type {};

template <class ExecSpace, class Map, class Kernel>
struct TileFunctor {
  Map map;
  Kernel kernel;
  int launch;
  index_t offset = 0;  ///< first omega of this Kokkos launch
  index_t count = 0;   ///< omegas of this Kokkos launch: [offset, offset + count)
  std::size_t scratch_bytes = 0;

  TileFunctor(const Map& m, const Kernel& k, int l, std::size_t bytes)
      : map(m), kernel(k), launch(l), scratch_bytes(bytes) {}

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    if constexpr (has_gate<Kernel>::value) {
      if (!kernel.enabled()) return;  // once per team, before its first block
    }
    if constexpr (has_team_state<Kernel>::value) {
      typename Kernel::team_state state{};
      each_block(team, [&](const auto& t) { kernel(team, t, state); });
      kernel.team_end(team, state);
    } else {
      each_block(team, [&](const auto& t) { kernel(team, t); });
    }
  }

  /// f(tile) for each block the team takes (a Tile, or a Tile3 for a 3-D map), a team barrier between blocks.
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION void each_block(const team_member_t<ExecSpace>& team, const F& f) const {
    // One allocation per team, handed to every block it takes.
    void* const scratch =
        scratch_bytes > 0 ? team.team_scratch(0).get_shmem_aligned(scratch_bytes, tile_scratch_alignment) : nullptr;
    bool busy = false;  // the scratch holds the previous block's data
    // Team r takes omegas r, r + L, r + 2L, ... (L teams): the teams running
    // at any moment take neighbouring blocks, as with one block per team, so
    // the pieces of a memory sector that neighbouring blocks write arrive
    // together. A team taking K consecutive omegas instead runs a block's
    // neighbour only after the block itself, so the memory sectors the two
    // share in a packed output (a block's rows start anywhere in a sector)
    // stay half-written long enough to be evicted and are read back to be
    // completed. The `edm/packed_d4_tile_t<T>_k<K>` cases at block side 32
    // decide it.
    const index_t teams = team.league_size();
    for (index_t k = team.league_rank(); k < count; k += teams) {
      block_type_t<Map> b;
      if (!detail::block(map, launch, offset + k, b)) continue;  // uniform over the team (same omega)
      if (busy) team.team_barrier();                             // every thread is done with the scratch
      busy = true;
      auto t = make_tile(map.domain, b);  // Tile, or Tile3 for a 3-D map
      t.scratch = scratch;
      f(t);
    }
  }
};

}  // namespace detail
}  // namespace tdmaps

#endif
