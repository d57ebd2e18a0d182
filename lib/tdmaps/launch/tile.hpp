#ifndef TDMAPS_LAUNCH_TILE_HPP
#define TDMAPS_LAUNCH_TILE_HPP

// A block of the domain as a tile kernel sees it (Tile), and the loops a
// tile kernel runs over it: for_each_in_tile (every element, nested team
// ranges) and for_each_lane (the GPU walk: a lane per column, rows stepped
// per thread).

#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace tdmaps {

/// Alignment of Tile::scratch in bytes.
constexpr std::size_t tile_scratch_alignment = 64;

/// A block of the domain as a tile kernel sees it.
struct Tile {
  index_t i0 = 0;  ///< first row of the block
  index_t j0 = 0;  ///< first column of the block
  int rows = 0;    ///< rows of the block inside the domain (rho, fewer on the last block row)
  int cols = 0;    ///< columns of the block inside [0, n)
  Triangle triangle = Triangle::lower;  ///< the domain's triangle
  /// Tile kernels: the team's scratch_bytes of level-0 scratch for this block,
  /// aligned to tile_scratch_alignment (null for element kernels). The same
  /// memory serves each block a team takes (LaunchHints::blocks_per_team),
  /// with a team barrier between blocks; take scratch from here, not from
  /// team.team_scratch(0), whose allocations are not returned between blocks.
  void* scratch = nullptr;

  /// Whether block-local element (ti, tj) lies in the domain; ti < rows and tj < cols given.
  KOKKOS_FORCEINLINE_FUNCTION bool contains(int ti, int tj) const {
    return triangle == Triangle::lower ? j0 + tj <= i0 + ti : j0 + tj < i0 + ti;
  }
  /// Whether the block lies on the diagonal (bi = bj), where contains() can fail.
  KOKKOS_FORCEINLINE_FUNCTION bool diagonal() const { return i0 == j0; }
};

/// A block of the tetrahedral domain as a 3-D tile kernel sees it: layers
/// [i0, i0 + ni), rows [j0, j0 + nj), columns [k0, k0 + nk), each clipped to
/// [0, n); the triplets of the domain among them are those contains() accepts.
struct Tile3 {
  index_t i0 = 0;  ///< first layer (i) of the block
  index_t j0 = 0;  ///< first row (j)
  index_t k0 = 0;  ///< first column (k)
  int ni = 0;      ///< layers inside [0, n)
  int nj = 0;      ///< rows inside [0, n)
  int nk = 0;      ///< columns inside [0, n)
  Triangle triangle = Triangle::lower;  ///< lower: k <= j <= i; strict_lower: k < j < i
  /// Tile kernels: as Tile::scratch.
  void* scratch = nullptr;

  /// Whether block-local triplet (ti, tj, tk) lies in the domain; ti < ni, tj < nj, tk < nk given.
  KOKKOS_FORCEINLINE_FUNCTION bool contains(int ti, int tj, int tk) const {
    const index_t i = i0 + ti, j = j0 + tj, k = k0 + tk;
    return triangle == Triangle::lower ? (k <= j && j <= i) : (k < j && j < i);
  }
};

/// Inside a tile kernel: f(ti, tj) for every block-local element of the tile
/// that lies in the domain (rows over team threads, columns over vector lanes).
template <class Member, class F>
KOKKOS_FORCEINLINE_FUNCTION void for_each_in_tile(const Member& team, const Tile& t, const F& f) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, t.rows), [&](const int ti) {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, t.cols), [&](const int tj) {
      if (t.contains(ti, tj)) f(ti, tj);
    });
  });
}

#if defined(TDMAPS_FORCE_LANE_TILE)
namespace detail {
/// Tests only (TDMAPS_FORCE_LANE_TILE, host builds): the GPU team size that a
/// one-thread host team's lane walks stand for (for_each_lane, for_each_lane3,
/// the ATM tile's phases). A run-time value, so that one test executable
/// checks the row stepping at several sizes: unit_tests/main.cpp sets it from
/// its --tdmaps-lane-step=R argument.
inline int& forced_lane_step() {
  static int step = 1;
  return step;
}
}  // namespace detail
#endif

/// Inside a tile kernel on a GPU team of R threads x rho lanes (the launch
/// layer's shape): f(lane, first, step) once per thread, with lane in
/// [0, rho) and the thread's rows first, first + step, ... (step = R). A
/// kernel keeps its lane's column data in registers and walks its rows,
/// which is what the tile kernels of the apps do on GPU backends:
///
///   for_each_lane(team, log2_block_side(rho), [&](int tj, int first, int step) {
///     if (tj >= t.cols) return;
///     const auto cj = load(t.j0 + tj);  // once per thread
///     for (int ti = first; ti < t.rows; ti += step) f(ti, tj, cj);
///   });
///
/// Every (lane, first) pair is visited once whatever the team shape; with the
/// launch layer's shape (vector length rho) a warp's lanes are consecutive
/// columns, so row stores coalesce. On a host team (1 x 1) it is one call per
/// lane with first = 0, step = 1.
/// Under TDMAPS_FORCE_LANE_TILE (tests only) a one-thread host team calls f
/// as a GPU team of R = detail::forced_lane_step() threads would, so kernels'
/// row stepping is tested on host.
template <class Member, class F>
KOKKOS_FORCEINLINE_FUNCTION void for_each_lane(const Member& team, int log2_rho, const F& f) {
#if defined(TDMAPS_FORCE_LANE_TILE)
  const int step = team.team_size() == 1 ? detail::forced_lane_step() : team.team_size();
#else
  const int step = team.team_size();
#endif
  const int mask = (1 << log2_rho) - 1;
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, step << log2_rho),
                       [&](const int k) { f(k & mask, k >> log2_rho, step); });
}

/// Inside a 3-D tile kernel on a GPU team of R threads x rho lanes (the
/// launch layer's 3-D shape, R = p rho): f(tk, tj, first, step) once per
/// thread, with lane tk in [0, rho) a column, tj in [0, rho) a row, and the
/// thread's layers first, first + step, ... (step = p). A kernel keeps the
/// data of its column and row in registers and walks its layers. On a host
/// team (1 x 1) it is one call per (tk, tj) with first = 0, step = 1.
/// Under TDMAPS_FORCE_LANE_TILE (tests only) a one-thread host team calls f
/// as a GPU team of p rho threads would, p = detail::forced_lane_step().
template <class Member, class F>
KOKKOS_FORCEINLINE_FUNCTION void for_each_lane3(const Member& team, int log2_rho, const F& f) {
  const int rho = 1 << log2_rho;
#if defined(TDMAPS_FORCE_LANE_TILE)
  const int threads = team.team_size() == 1 ? detail::forced_lane_step() * rho : team.team_size();
#else
  const int threads = team.team_size() == 1 ? rho : team.team_size();
#endif
  const int mask = rho - 1;
  const int step = threads >> log2_rho;
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, threads << log2_rho), [&](const int w) {
    const int y = w >> log2_rho;
    f(w & mask, y & mask, y >> log2_rho, step);
  });
}

/// The first of a thread's rows first, first + step, ... that is >= lowest
/// (on a diagonal block: the first row inside the triangle).
KOKKOS_FORCEINLINE_FUNCTION int first_row_from(int first, int step, int lowest) {
  return lowest > first ? first + (lowest - first + step - 1) / step * step : first;
}

/// log2 of a block side (2, 4, 8, 16 or 32).
KOKKOS_FORCEINLINE_FUNCTION int log2_block_side(int rho) {
  return rho == 2 ? 1 : rho == 4 ? 2 : rho == 8 ? 3 : rho == 16 ? 4 : 5;
}

}  // namespace tdmaps

#endif
