#ifndef TDMAPS_LAUNCH_DETAIL_WARP_WALK_HPP
#define TDMAPS_LAUNCH_DETAIL_WARP_WALK_HPP

// Not API (tdmaps::detail): the launch side of the apps' warp walks (a warp
// per 128 x 128 block of pairs, four rows and four columns per lane, the
// columns rotated by warp shuffles: tdmaps::nbody's tile_gpu.hpp,
// tdmaps::edm's nearest_gpu.hpp). The blocks are those of the caller's map
// kind over a domain of 128-blocks; a team is one warp and walks per_team
// consecutive blocks (its rows flushed once per row segment). CUDA only.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/detail/make_tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>

#if defined(KOKKOS_ENABLE_CUDA)

namespace tdmaps {
namespace detail {

/// Rows (and columns) per lane, and the side of a warp's block.
constexpr int warp_walk_rows = 4;
constexpr int warp_walk_block = 32 * warp_walk_rows;

/// The map of 128-blocks of the caller's map kind: Map over Domain2(ceil(n / 4), 32).
template <class Map>
Map warp_walk_map(const Map& map) {
  const index_t n = map.domain.n;
  return Map(Domain2((n + warp_walk_rows - 1) / warp_walk_rows, 32, Triangle::strict_lower));
}

/// Blocks per warp where the caller left it to tdmaps: enough warps to fill
/// the device twice, at most 16 blocks each.
inline int warp_walk_blocks_per_team(index_t blocks, int concurrency) {
  const index_t warps = std::max<index_t>(1, concurrency / 32);
  const index_t k = blocks / (2 * warps);
  return static_cast<int>(std::min<index_t>(16, std::max<index_t>(1, k)));
}

/// The device side of a warp walk f (members map, launch, offset, count,
/// per_team): the team's blocks in order, each as block(i0, j0) with i0, j0
/// the first row and column of its 128-block; a row segment (the blocks
/// of one block row that follow each other) opened once by open(i0) before
/// its first block and flushed once by flush(i0) after its last.
template <class F, class Open, class Block, class Flush>
KOKKOS_FORCEINLINE_FUNCTION void warp_walk_blocks(const F& f, const index_t league_rank, Open&& open, Block&& block,
                                                  Flush&& flush) {
  index_t seg = -1;  // the row segment's first row (-1: none open)
  const index_t first = league_rank * f.per_team;
  const index_t last = first + f.per_team < f.count ? first + f.per_team : f.count;
  for (index_t k = first; k < last; ++k) {
    block_type_t<decltype(f.map)> b;
    if (!detail::block(f.map, f.launch, f.offset + k, b)) continue;
    const Tile t = make_tile(f.map.domain, b);
    const index_t i0 = t.i0 * warp_walk_rows, j0 = t.j0 * warp_walk_rows;
    if (i0 != seg) {
      if (seg >= 0) flush(seg);
      seg = i0;
      open(i0);
    }
    block(i0, j0);
  }
  if (seg >= 0) flush(seg);
}

/// Runs the warp walk f (members offset, count, per_team; its map and launch
/// set) over the omegas [begin, end) of its launch, blocks_per_team blocks
/// per warp (0: warp_walk_blocks_per_team), in leagues of at most 2^30 teams
/// (a CUDA grid's int).
template <class F>
void warp_walk_launch(const Kokkos::Cuda& space, F& f, index_t begin, index_t end, int blocks_per_team,
                      const std::string& label) {
  if (end <= begin) return;
  f.per_team = blocks_per_team > 0 ? blocks_per_team : warp_walk_blocks_per_team(end - begin, space.concurrency());
  const index_t most = (index_t(1) << 30) * f.per_team;
  for (index_t at = begin; at < end; at += most) {
    f.offset = at;
    f.count = std::min(most, end - at);
    const index_t teams = (f.count + f.per_team - 1) / f.per_team;
    Kokkos::TeamPolicy<Kokkos::Cuda, Kokkos::LaunchBounds<32, 16>, Kokkos::IndexType<int>> policy(
        space, static_cast<int>(teams), 1, 32);
    Kokkos::parallel_for(label, policy, f);
  }
}

}  // namespace detail
}  // namespace tdmaps

#endif  // KOKKOS_ENABLE_CUDA

#endif
