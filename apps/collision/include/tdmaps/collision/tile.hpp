#ifndef TDMAPS_COLLISION_TILE_HPP
#define TDMAPS_COLLISION_TILE_HPP

// The tile kernel (block-space maps): the block's rho row spheres and rho
// column spheres are staged in team scratch with one coalesced read each,
// then its pairs are tested from scratch (the papers' shared-memory test);
// on the host the block is transposed to struct-of-arrays in scratch, so the
// lanes of a row read consecutive words. On GPU backends (lane_tile) the row
// spheres and a window of 2 rho column spheres are staged (16-byte aligned,
// one vector load each): int flags take, in each row, the rho pairs of one
// chunk aligned to the output (whole 128-byte stores); the other results,
// on a whole off-diagonal block, keep each lane's row sphere in registers
// and walk the block's columns (own_rows). Count and the flags add their
// hits per thread over the team's blocks, one atomic per team and warp.

#include <tdmaps/collision/buffers.hpp>
#include <tdmaps/collision/pair_test.hpp>
#include <tdmaps/collision/result.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/launch/for_each.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace tdmaps {
namespace collision {
namespace detail {

/// Tile kernel: block-space maps; the block's spheres are staged in team scratch.
template <class ExecSpace>
struct TileKernel {
  using memory_space = typename ExecSpace::memory_space;
  using Scratch =
      Kokkos::View<float**, Kokkos::LayoutRight, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  Buffers<memory_space> b;
  int rho;
  int rho_log2;  ///< rho = 2^rho_log2: the staging index math uses shifts, not divisions

  bool s_vector;  ///< spheres 16-byte aligned (rows of 4 floats): one vector load per sphere

  TileKernel(const Buffers<memory_space>& b_, int rho_)
      : b(b_),
        rho(rho_),
        rho_log2(log2_block_side(rho_)),
        s_vector(reinterpret_cast<std::uintptr_t>(b_.s.data()) % 16 == 0) {}

  // The GPU path (lane_tile_body); TDMAPS_FORCE_LANE_TILE runs it on host
  // teams too, so its index math can be tested without a GPU.
#if defined(TDMAPS_FORCE_LANE_TILE)
  static constexpr bool lane_tile = true;
#else
  static constexpr bool lane_tile = is_gpu_space<ExecSpace>::value;
#endif

  /// A sphere (x, y, z, r), aligned so that one 16-byte load reads it.
  struct alignas(16) Sphere {
    float c[4];
  };

  /// Host: rows 0-3 x, y, z, r of the block's row spheres, rows 4-7 of its
  /// column spheres. GPU: rho row spheres, then the window of 2 rho column
  /// spheres from j0 - rho (lane_rows). (Tile::scratch is aligned.)
  static std::size_t scratch_bytes(int rho_) {
    const std::size_t soa = sizeof(float) * 8 * static_cast<std::size_t>(rho_);
    const std::size_t aos = sizeof(Sphere) * 3 * static_cast<std::size_t>(rho_);
    return soa > aos ? soa : aos;
  }

  KOKKOS_FORCEINLINE_FUNCTION Sphere sphere(index_t g) const {
    if (s_vector) return reinterpret_cast<const Sphere*>(b.s.data())[g];
    return Sphere{{b.s(g, 0), b.s(g, 1), b.s(g, 2), b.s(g, 3)}};
  }

  /// What a thread carries across its team's blocks (TileKernelOf::team_state).
  struct Carry {
    int hits = 0;  ///< count, int flags, bit flags: the thread's hits so far
  };

  /// Whether block t takes the one-warp own-rows path (CUDA, block side 32,
  /// a team of one warp, a whole off-diagonal block, aligned spheres).
  KOKKOS_FORCEINLINE_FUNCTION bool one_warp_block(const Tile& t) const {
    return rho == 32 && s_vector && intrinsics::block_dim_y() == 1 && t.rows == 32 && !t.diagonal();
  }

  // The GPU path (lane_tile), defined in tile_gpu.hpp.
  /// Stages block t (its row spheres, the window of column spheres) and walks it: lane_rows, or own_rows for a whole
  /// block of one warp.
  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void lane_tile_body(const team_member_t<ExecSpace>& team, const Tile& t,
                                                  Carry& carry) const;
  /// Adds a thread's hits over its team's blocks to a spread counter (count, int flags, bit flags), once per team and
  /// warp.
  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void add_hits(const team_member_t<ExecSpace>& team, int hits) const;
  /// The lanes along the block's row, each thread walking its rows: the int flags' aligned chunks, or the block's own
  /// pairs.
  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void lane_rows(const team_member_t<ExecSpace>& team, const Tile& t, const Sphere* rows,
                                             const Sphere* window, int& total) const;
  /// A whole off-diagonal block at rho 32 walked by one warp: lane L keeps row sphere i0 + L in registers.
  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void own_rows(const Tile& t, const Sphere* cols, const Sphere mine, const float col_max,
                                            const int lane, int& hits) const;
  /// Pair (i, j), packed index p, tested by `lane` on lane_rows' general path: writes the result of mode M.
  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void record(index_t i, index_t j, index_t p, int lane, bool h, bool valid, bool warp,
                                          int& hits) const;

  /// One block, result mode M (a kernel per mode: no run-time switch per
  /// block); `total` sums the thread's hits over its team's blocks (lane
  /// path, count / int flags / bit flags).
  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void run(const team_member_t<ExecSpace>& team, const Tile& t, Carry& carry) const {
    if constexpr (lane_tile) {
      lane_tile_body<M>(team, t, carry);
      return;
    } else {
      (void)carry;
    }
    const Scratch sh(static_cast<float*>(t.scratch), 8, rho);
    // Coalesced: consecutive q read consecutive floats of the (n x 4) rows.
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, 8 * rho), [&](const int q) {
      const int side = q >> (rho_log2 + 2), k = (q >> 2) & (rho - 1), c = q & 3;
      const int len = side == 0 ? t.rows : t.cols;
      const index_t base = side == 0 ? t.i0 : t.j0;
      sh(4 * side + c, k) = k < len ? b.s(base + k, c) : 0.0f;
    });
    team.team_barrier();
    for_each_in_tile(team, t, [&](const int ti, const int tj) {
      const index_t i = t.i0 + ti, j = t.j0 + tj;
      b.template apply<M>(
          i, j, pair_index(i, j),
          collides(sh(0, ti), sh(1, ti), sh(2, ti), sh(3, ti), sh(4, tj), sh(5, tj), sh(6, tj), sh(7, tj)));
    });
  }
};

/// The tile kernel of one result mode, as for_each_tile calls it.
template <class ExecSpace, Mode M>
struct TileKernelOf {
  TileKernel<ExecSpace> k;
  /// A thread's hits over its team's blocks (for_each_tile's team state).
  using team_state = typename TileKernel<ExecSpace>::Carry;
  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team, const Tile& t, team_state& st) const {
    k.template run<M>(team, t, st);
  }
  KOKKOS_FUNCTION void team_end(const team_member_t<ExecSpace>& team, const team_state& st) const {
    k.template add_hits<M>(team, st.hits);
  }
  /// for_each_tile's gate, read once per team: false when the input check
  /// that ran on the device ahead of this launch found a bad sphere.
  KOKKOS_FUNCTION bool enabled() const { return k.b.gate == nullptr || *k.b.gate == ~counter_t(0); }
};

}  // namespace detail
}  // namespace collision
}  // namespace tdmaps

// TileKernel's GPU path: the member definitions declared above.
#include <tdmaps/collision/tile_gpu.hpp>

#endif
