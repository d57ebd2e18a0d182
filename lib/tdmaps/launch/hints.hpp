#ifndef TDMAPS_LAUNCH_HINTS_HPP
#define TDMAPS_LAUNCH_HINTS_HPP

// How a launch shapes its teams: LaunchHints (the caller's request) and the
// defaults the launch layer picks when a hint is 0. On GPU backends a team is
// TeamPolicy(league, rows, rho): vector lanes along j so a row of the block
// is contiguous in memory, and `rows` team threads (team_rows()) walk the rho
// rows of the block, so a thread handles rho / rows elements; rows = rho is
// the papers' one element per thread. On host backends a team of one walks
// the whole block.

#include <stdexcept>
#include <string>

namespace tdmaps {

/// How a launch shapes its teams (GPU backends; host teams are one thread).
struct LaunchHints {
  /// Threads per team; 0 picks the default (team_rows below).
  /// rho * rho gives the papers' one thread per element.
  int team_threads = 0;
  /// Blocks each team takes in turn, at most: a league of L teams, L =
  /// ceil(blocks / K), team r taking omegas r, r + L, r + 2L, ...; 0 picks
  /// the default (blocks_per_team below), 1 is the papers' one block per
  /// team. A team that does more than one block pays its launch and its
  /// set-up once per K blocks.
  int blocks_per_team = 0;
};

/// Largest LaunchHints::blocks_per_team accepted.
constexpr int max_blocks_per_team = 1024;

/// What a launch runs per block: an element kernel (kernel(i, j)) or a tile
/// kernel (kernel(team, tile)); their GPU defaults differ (below).
enum class LaunchKind { element, tile };

/// Team rows (threads along i) of a GPU launch with block side rho.
///
/// Element kernels: 8 rows at rho = 32 and 4 rows at rho = 8 and 16. These
/// kernels are instruction-bound, and a thread pays a fixed set-up (league
/// loop, team member, make_tile, the map) before its first element: one
/// element per thread (rows = rho) pays it for every element, a few rows per
/// thread amortise it, and teams of 1024 threads lose to smaller ones at
/// rho = 32. The `launch` group decides it: `tdmaps` against `tdmaps_t1024`,
/// `tdmaps_t128`, `tdmaps_t64` and the plain-CUDA `cuda_t256`, dummy and EDM
/// bodies at block sides 16 and 32.
///
/// Tile kernels: one warp, tile_team_threads threads (rho = 32: one thread
/// per column walking all 32 rows; rho = 8, 16: 32 / rho rows). A tile
/// kernel's block is a chain of latencies (stage the points, barrier, walk
/// the rows) with little work per thread, so what counts is how many blocks
/// an SM holds at once, and small teams win. The `edm/<layout>_d4_tile_t<T>`
/// cases at block side 32 decide it. Apps pick their own shape per output
/// where another one wins (edm::detail::tile_hints, collision's).
constexpr int tile_team_threads = 32;
/// Blocks per team of the GPU tile kernels (LaunchHints::blocks_per_team =
/// 0): a team pays its launch and set-up once per two blocks. The `_k<K>`
/// variants of the `edm` and `collision` tile cases at block side 32 decide it.
constexpr int tile_blocks_per_team = 2;

/// \brief Rows of threads of a GPU team over blocks of side rho (a team of
/// team_rows x rho threads): LaunchHints::team_threads / rho, capped at rho,
/// or the default of `kind` when team_threads is 0; throws
/// std::invalid_argument when team_threads is smaller than rho.
inline int team_rows(const LaunchHints& hints, int rho, LaunchKind kind = LaunchKind::element) {
  if (hints.team_threads == 0) {
    if (kind == LaunchKind::tile) return tile_team_threads / rho > 1 ? tile_team_threads / rho : 1;
    return rho == 32 ? 8 : 4;
  }
  if (hints.team_threads < rho)
    throw std::invalid_argument("tdmaps: LaunchHints::team_threads = " + std::to_string(hints.team_threads) +
                                " is smaller than one row of the block (rho = " + std::to_string(rho) + ")");
  return hints.team_threads / rho < rho ? hints.team_threads / rho : rho;
}

/// Layer phases p of a GPU launch over a tetrahedron with block side rho: a
/// team is rho lanes (columns k) x p rho threads (rows j x p phases of the
/// layers i), each thread walking rho / p layers. LaunchHints::team_threads
/// = 0 picks p = 32 / rho^2 (a warp) at rho = 2 and 4 and p = 1 at rho = 8
/// (two warps, 8 triplets a thread), element and tile kernels alike;
/// team_threads = T asks for p = T / rho^2 (rho^3: one thread per triplet).
inline int team_layers3(const LaunchHints& hints, int rho) {
  if (hints.team_threads == 0) return rho * rho >= 32 ? 1 : (32 / (rho * rho) < rho ? 32 / (rho * rho) : rho);
  if (hints.team_threads < rho * rho)
    throw std::invalid_argument("tdmaps: LaunchHints::team_threads = " + std::to_string(hints.team_threads) +
                                " is smaller than one layer of the 3-D block (rho^2 = " + std::to_string(rho * rho) +
                                ")");
  return hints.team_threads / (rho * rho) < rho ? hints.team_threads / (rho * rho) : rho;
}

/// Blocks per team of a launch (LaunchHints::blocks_per_team; 0: 1 for
/// element kernels and host backends, tile_blocks_per_team for GPU tile kernels).
inline int blocks_per_team(const LaunchHints& hints, LaunchKind kind, bool gpu) {
  if (hints.blocks_per_team < 0 || hints.blocks_per_team > max_blocks_per_team)
    throw std::invalid_argument("tdmaps: LaunchHints::blocks_per_team = " + std::to_string(hints.blocks_per_team) +
                                " is outside 0 .. " + std::to_string(max_blocks_per_team));
  if (hints.blocks_per_team > 0) return hints.blocks_per_team;
  return gpu && kind == LaunchKind::tile ? tile_blocks_per_team : 1;
}

}  // namespace tdmaps

#endif
