#ifndef TDMAPS_LAUNCH_DETAIL_WARP_WALK_HPP
#define TDMAPS_LAUNCH_DETAIL_WARP_WALK_HPP

// Not API (tdmaps::detail): the launch side of the lane walks (a team of W
// lanes per block of side = W R pairs, R rows and R columns per lane, the
// columns rotated across the lanes: launch/detail/pair_law_functor.hpp, the
// public pair-law walk, and tdmaps::edm's nearest_gpu.hpp). The blocks are
// those of the caller's map kind over a domain of side-blocks; a team is one
// thread of W vector lanes and walks per_team consecutive blocks (its rows
// flushed once per row segment).

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/backend.hpp>
#include <tdmaps/launch/detail/make_tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>

namespace tdmaps {
namespace detail {

/// The CUDA walks' rows (and columns) per lane, and their block side.
constexpr int warp_walk_rows = 4;
constexpr int warp_walk_block = 32 * warp_walk_rows;

/// The map of side-blocks of the caller's map kind: Map over a domain of
/// ceil(n / side) blocks of 32, whose block (bi, bj) stands for rows
/// [side bi, side bi + side) and columns [side bj, side bj + side).
template <class Map>
Map warp_walk_map(const Map& map, const int side = warp_walk_block) {
  const index_t blocks = (map.domain.n + side - 1) / side;
  return map_over(map, Domain2(blocks * 32, 32, Triangle::strict_lower));
}

/// Blocks per team where the caller left it to tdmaps: enough teams of
/// `lanes` to fill the device twice, at most 16 blocks each.
inline int warp_walk_blocks_per_team(index_t blocks, int concurrency, int lanes = 32) {
  const index_t teams = std::max<index_t>(1, concurrency / lanes);
  const index_t k = blocks / (2 * teams);
  return static_cast<int>(std::min<index_t>(16, std::max<index_t>(1, k)));
}

/// The device side of a lane walk f (members map, launch, offset, count,
/// per_team) of blocks of side Side: the team's blocks in order, each as
/// block(i0, j0) with i0, j0 its first row and column; a row segment (the
/// blocks of one block row that follow each other) opened once by open(i0)
/// before its first block and flushed once by flush(i0) after its last.
template <int Side = warp_walk_block, class F, class Open, class Block, class Flush>
KOKKOS_FORCEINLINE_FUNCTION void warp_walk_blocks(const F& f, const index_t league_rank, Open&& open, Block&& block,
                                                  Flush&& flush) {
  index_t seg = -1;  // the row segment's first row (-1: none open)
  const index_t first = league_rank * f.per_team;
  const index_t last = first + f.per_team < f.count ? first + f.per_team : f.count;
  for (index_t k = first; k < last; ++k) {
    block_type_t<decltype(f.map)> b;
    if (!detail::block(f.map, f.launch, f.offset + k, b)) continue;
    const Tile t = make_tile(f.map.domain, b);
    const index_t i0 = (t.i0 / 32) * Side, j0 = (t.j0 / 32) * Side;
    if (i0 != seg) {
      if (seg >= 0) flush(seg);
      seg = i0;
      open(i0);
    }
    block(i0, j0);
  }
  if (seg >= 0) flush(seg);
}

/// Runs the lane walk f (members offset, count, per_team; its map and launch
/// set) over the omegas [begin, end) of its launch in teams of one thread of
/// W lanes, blocks_per_team blocks per team (0: warp_walk_blocks_per_team),
/// in leagues of at most 2^30 teams (a CUDA grid's int). MinBlocks: the
/// launch bounds' resident teams a multiprocessor must fit (16: at most 128
/// registers a lane on CUDA; 8: 255).
template <int W = 32, int MinBlocks = 16, class ExecSpace, class F>
void warp_walk_launch(const ExecSpace& space, F& f, index_t begin, index_t end, int blocks_per_team,
                      const std::string& label) {
  if (end <= begin) return;
  f.per_team = blocks_per_team > 0 ? blocks_per_team : warp_walk_blocks_per_team(end - begin, space.concurrency(), W);
  const index_t most = (index_t(1) << 30) * f.per_team;
  for (index_t at = begin; at < end; at += most) {
    f.offset = at;
    f.count = std::min(most, end - at);
    const index_t teams = (f.count + f.per_team - 1) / f.per_team;
    Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<W, MinBlocks>, Kokkos::IndexType<int>> policy(
        space, static_cast<int>(teams), 1, W);
    backend::check_vector_length(policy, W, label.c_str());
    Kokkos::parallel_for(label, policy, f);
  }
}

}  // namespace detail
}  // namespace tdmaps

#endif
