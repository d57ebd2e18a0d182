#ifndef TDMAPS_LAUNCH_DETAIL_ELEMENT_FUNCTOR_HPP
#define TDMAPS_LAUNCH_DETAIL_ELEMENT_FUNCTOR_HPP

// Not API (tdmaps::detail): what for_each_element runs for a block-space
// map: per team, the blocks of its omegas, and kernel(i, j) for every
// element of each block that lies in the domain.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/launch/detail/element_functor_base.hpp>
#include <tdmaps/launch/detail/make_tile.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tdmaps {
namespace detail {

template <class ExecSpace, class Map, class Kernel>
struct ElementFunctor : ElementFunctorBase<ExecSpace, Map, Kernel> {
  using Base = ElementFunctorBase<ExecSpace, Map, Kernel>;
  using Base::kernel;
  using Base::log2_rho;
  using Base::map;

  ElementFunctor(const Map& m, const Kernel& k, int l) : Base(m, k, l) {}

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    each_block<ExecSpace, true>(map, this->launch, this->offset, this->count, team,
                                [&](const Tile& t) { run_block(team, t); });
  }

  /// The lane walk of block t by the thread of lane tj and rows first, first + step, ...
  KOKKOS_FORCEINLINE_FUNCTION void walk(const Tile& t, const int tj, const int first, const int step) const {
    const int strict = t.triangle == Triangle::strict_lower ? 1 : 0;
    if (tj >= t.cols) return;
    const index_t j = t.j0 + tj;
    const int start = t.diagonal() ? first_row_from(first, step, tj + strict) : first;
    index_t i = t.i0 + start;
    for (int ti = start; ti < t.rows; ti += step, i += step) kernel(i, j);
  }

  /// Blocks of the triangle per CUDA block of the direct launch: one.
  KOKKOS_FUNCTION int direct_group() const { return 1; }

  /// The body of the direct CUDA launch (kokkos_ext/direct_launch.hpp): the
  /// block of this launch's omegas at the launch's block index
  /// (intrinsics::block_x), walked as on a Kokkos team.
  KOKKOS_FUNCTION void run_direct() const {
    const index_t k = intrinsics::block_x();
    Block2 b;
    if (k < this->count && detail::block(map, this->launch, this->offset + k, b))
      walk(make_tile(map.domain, b), intrinsics::thread_x(), intrinsics::thread_y(), intrinsics::block_dim_y());
  }

  KOKKOS_FORCEINLINE_FUNCTION void run_block(const team_member_t<ExecSpace>& team, const Tile& t) const {
    // Every element of an off-diagonal block lies in the domain (j <= j0 +
    // rho - 1 < i0 <= i): only diagonal blocks start a lane's rows at its
    // first row inside the triangle (tj + strict <= ti).
    if constexpr (Base::lanes) {
      // Each thread keeps its column (lane) and walks its rows first, first
      // + step, ...: the column and its address are loop-invariant, one test
      // per block for the last block column, one per row for the last block
      // row. A flat TeamVectorRange over rows x rho would recompute per
      // element what this walk keeps fixed (ti and tj by shift and mask, the
      // column test, the column's address), and nested TeamThreadRange /
      // ThreadVectorRange loops cost Kokkos 3.4 a lane-mask division after
      // every vector loop. The `launch` group decides it: `tdmaps` against
      // `team_flat` and the plain-CUDA `cuda_t256`, `edm_packed_d2` under BB
      // at block side 32.
      if constexpr (intrinsics::warp_code()) {
        // CUDA: the team is a block of (rho, R) threads, each thread exactly
        // one (lane, first) pair: no loop around it (for_each_lane's
        // TeamVectorRange costs its bounds and loop test per block).
        walk(t, intrinsics::thread_x(), intrinsics::thread_y(), intrinsics::block_dim_y());
      } else {
        for_each_lane(team, log2_rho, [&](const int tj, const int first, const int step) { walk(t, tj, first, step); });
      }
    } else {
      // Host: a team of one walks the block; the inner loop vectorises.
      if (!t.diagonal()) {
        for (int ti = 0; ti < t.rows; ++ti)
          for (int tj = 0; tj < t.cols; ++tj) kernel(t.i0 + ti, t.j0 + tj);
      } else {
        const int strict = t.triangle == Triangle::strict_lower ? 1 : 0;
        for (int ti = 0; ti < t.rows; ++ti)
          for (int tj = 0; tj + strict <= ti && tj < t.cols; ++tj) kernel(t.i0 + ti, t.j0 + tj);
      }
    }
  }
};

}  // namespace detail
}  // namespace tdmaps

#endif
