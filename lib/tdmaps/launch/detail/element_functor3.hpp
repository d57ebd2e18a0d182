#ifndef TDMAPS_LAUNCH_DETAIL_ELEMENT_FUNCTOR3_HPP
#define TDMAPS_LAUNCH_DETAIL_ELEMENT_FUNCTOR3_HPP

// Not API (tdmaps::detail): what for_each_element runs for a 3-D map: per
// team, the blocks of its omegas, and kernel(i, j, k) for every triplet of
// each block that lies in the tetrahedron.

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
struct ElementFunctor3 : ElementFunctorBase<ExecSpace, Map, Kernel> {
  using Base = ElementFunctorBase<ExecSpace, Map, Kernel>;
  using Base::kernel;
  using Base::log2_rho;
  using Base::map;

  ElementFunctor3(const Map& m, const Kernel& k, int l) : Base(m, k, l) {}

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    each_block<ExecSpace, true>(map, this->launch, this->offset, this->count, team,
                                [&](const Tile3& t) { run_block(team, t); });
  }

  /// The walk of block t by the thread of column tk, row tj and layers first,
  /// first + step, ...: it keeps its column k and row j and walks its layers
  /// i; k <= j is one test per thread (only failing on blocks with bj = bk),
  /// j <= i fixes the first layer (only on blocks with bi = bj); elsewhere
  /// every triplet of the block is inside.
  KOKKOS_FORCEINLINE_FUNCTION void walk(const Tile3& t, const int tk, const int tj, const int first,
                                        const int step) const {
    const int strict = t.triangle == Triangle::strict_lower ? 1 : 0;
    if (tk >= t.nk || tj >= t.nj) return;
    const index_t j = t.j0 + tj;
    const index_t k = t.k0 + tk;
    if (k + strict > j) return;
    const int start = first_row_from(first, step, static_cast<int>(j + strict - t.i0));
    index_t i = t.i0 + start;
    for (int ti = start; ti < t.ni; ti += step, i += step) kernel(i, j, k);
  }

  /// CUDA: a block of (rho, p rho) threads, each thread one (tk, tj, first).
  KOKKOS_FORCEINLINE_FUNCTION void walk_thread(const Tile3& t, const int tk) const {
    const int y = intrinsics::thread_y();
    walk(t, tk, y & ((1 << log2_rho) - 1), y >> log2_rho, intrinsics::block_dim_y() >> log2_rho);
  }

  /// Blocks of the tetrahedron per CUDA block of the direct launch (at most;
  /// run_league halves it until the CUDA block fits and sets `group`): 32 /
  /// rho, side by side along x, so a warp's 32 lanes are the columns k of
  /// 32 / rho consecutive omegas: in lambda3's order the neighbouring blocks
  /// (bi, bj, bk), (bi, bj, bk + 1), ... of one block row, whose rows of a
  /// packed output (k fastest) are one contiguous run of 32 values. One
  /// block per warp would write rho-value pieces of rho different rows per
  /// store instead. The `dummy3` cases at block side 8 decide it.
  KOKKOS_FUNCTION int direct_group() const { return 32 >> log2_rho; }

  /// The body of the direct CUDA launch (kokkos_ext/direct_launch.hpp): lane x of
  /// CUDA block B takes column x mod rho of omega B group + x / rho.
  KOKKOS_FUNCTION void run_direct() const {
    const int x = intrinsics::thread_x();
    const index_t w = static_cast<index_t>(intrinsics::block_x()) * this->group + (x >> log2_rho);
    Block3 b;
    if (w < this->count && detail::block(map, this->launch, this->offset + w, b))
      walk_thread(make_tile(map.domain, b), x & ((1 << log2_rho) - 1));
  }

  KOKKOS_FORCEINLINE_FUNCTION void run_block(const team_member_t<ExecSpace>& team, const Tile3& t) const {
    const int strict = t.triangle == Triangle::strict_lower ? 1 : 0;
    if constexpr (Base::lanes) {
      if constexpr (intrinsics::warp_code()) {
        // CUDA: a block of (rho, p rho) threads, each thread one (tk, tj, first).
        walk_thread(t, intrinsics::thread_x());
      } else {
        for_each_lane3(team, log2_rho, [&](const int tk, const int tj, const int first, const int step) {
          walk(t, tk, tj, first, step);
        });
      }
    } else {
      // Host: a team of one walks the block; the inner loop over k vectorises.
      for (int ti = 0; ti < t.ni; ++ti) {
        const index_t i = t.i0 + ti;
        const index_t jmax = i - strict;  // j <= jmax
        const int nj = jmax - t.j0 + 1 < t.nj ? static_cast<int>(jmax - t.j0 + 1) : t.nj;
        for (int tj = 0; tj < nj; ++tj) {
          const index_t j = t.j0 + tj;
          const index_t kmax = j - strict;
          const int nk = kmax - t.k0 + 1 < t.nk ? static_cast<int>(kmax - t.k0 + 1) : t.nk;
          for (int tk = 0; tk < nk; ++tk) kernel(i, j, t.k0 + tk);
        }
      }
    }
  }
};

}  // namespace detail
}  // namespace tdmaps

#endif
