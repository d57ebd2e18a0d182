#ifndef TDMAPS_NBODY_TILE_GPU_HPP
#define TDMAPS_NBODY_TILE_GPU_HPP

// The CUDA kernel of Forces (accelerations.hpp): one warp per 128 x 128
// block of pairs, the blocks enumerated by the caller's map kind over a
// domain of 128-blocks (the map over Domain2(ceil(n / 4), 32), whose block
// (bi, bj) stands for rows [128 bi, 128 bi + 128) and columns [128 bj, ...)).
//
// Lane t holds four rows, i = 128 bi + t + 32 r (r = 0 .. 3): their
// positions, the law's data and their sums, in registers. It also holds
// four columns, j = 128 bj + (t + s) mod 32 + 32 c at step s, with the
// columns' sums; after each step the columns (data and sums) move one lane
// down by warp shuffles, so that in 32 steps every lane meets every column
// and the columns' sums come home. Each pair is computed once, its two
// results added in registers: no atomic and no shared memory per pair.
// Columns are flushed (atomically) once per block; rows once per row
// segment, while the warp's consecutive blocks share their block row.
//
// Not API (tdmaps::nbody::detail); compiled for the CUDA backend only (a
// team is one warp: intrinsics::warp_lane, warp_shfl).

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/kokkos_ext/warp_math.hpp>
#include <tdmaps/launch/detail/warp_walk.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/pair_both_ends.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/detail/map_traits.hpp>
#include <tdmaps/nbody/forces.hpp>

#include <Kokkos_Core.hpp>

#include <string>

#if defined(KOKKOS_ENABLE_CUDA)

namespace tdmaps {
namespace nbody {
namespace detail {

/// Rows (and columns) per lane, and the side of a warp's block.
constexpr int warp_rows = tdmaps::detail::warp_walk_rows;
constexpr int warp_block = tdmaps::detail::warp_walk_block;

/// The map of 128-blocks of the caller's map kind: Map over Domain2(ceil(n / 4), 32).
template <class Map>
Map warp_block_map(const Map& map) {
  return tdmaps::detail::warp_walk_map(map);
}

template <class Real, class Mem, class LawT, class Map, bool Energy>
struct WarpTile {
  using Accel4 = Accel<Real>;
  using Traits = pair_value_traits<Accel4>;
  static constexpr int R = warp_rows;
  static constexpr int E = LawT::extra;
  static constexpr int S = Energy ? 4 : 3;  ///< sums per body: the acceleration and (Energy) the pair energies
  Map map;                                  ///< over 128-blocks (warp_block_map)
  int launch = 0;
  index_t offset = 0, count = 0;
  int per_team = 1;
  index_t n = 0;
  Kokkos::View<const Real* [3], Kokkos::LayoutRight, Mem> x;
  LawT law;
  Kokkos::View<Accel4*, Mem> out;

  KOKKOS_FORCEINLINE_FUNCTION void load(index_t i, Real* p, Real* e) const {
    if (i < n) {
      p[0] = x(i, 0), p[1] = x(i, 1), p[2] = x(i, 2);
      law.load(i, e);
    } else {
      p[0] = p[1] = p[2] = Real(0);
      for (int k = 0; k < E; ++k) e[k] = Real(0);
    }
  }

  template <bool Edge>
  KOKKOS_FORCEINLINE_FUNCTION void block_pairs(int lane, index_t i0, index_t j0, bool diag, const Real (&rp)[R][3],
                                               const Real (&re)[R][E], Real (&ra)[R][4], Real (&cp)[R][3],
                                               Real (&ce)[R][E], Real (&ca)[R][4]) const {
    for (int s = 0; s < 32; ++s) {
TDMAPS_UNROLL
      for (int r = 0; r < R; ++r) {
TDMAPS_UNROLL
        for (int c = 0; c < R; ++c) {
          if (Edge) {
            const index_t i = i0 + lane + 32 * r, j = j0 + ((lane + s) & 31) + 32 * c;
            if (!(i < n && j < n && (!diag || i > j))) continue;
          }
          const Real dx = cp[c][0] - rp[r][0], dy = cp[c][1] - rp[r][1], dz = cp[c][2] - rp[r][2];
          const Real r2 = dx * dx + dy * dy + dz * dz;
          Real si, sj, u;
          law.pair(re[r], ce[c], r2, si, sj, u);
          ra[r][0] += si * dx, ra[r][1] += si * dy, ra[r][2] += si * dz;
          ca[c][0] -= sj * dx, ca[c][1] -= sj * dy, ca[c][2] -= sj * dz;
          if (Energy) ra[r][3] += u, ca[c][3] += u;
        }
      }
      const int from = (lane + 1) & 31;
TDMAPS_UNROLL
      for (int c = 0; c < R; ++c) {
TDMAPS_UNROLL
        for (int k = 0; k < 3; ++k) cp[c][k] = intrinsics::warp_shfl(cp[c][k], from);
TDMAPS_UNROLL
        for (int k = 0; k < E; ++k) ce[c][k] = intrinsics::warp_shfl(ce[c][k], from);
TDMAPS_UNROLL
        for (int k = 0; k < S; ++k) ca[c][k] = intrinsics::warp_shfl(ca[c][k], from);
      }
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION void add_out(index_t i, const Real* a) const {
    // The energy sums hold whole pair energies; each end's share is half.
    Traits::atomic_add(&out(i), Accel4{a[0], a[1], a[2], Energy ? Real(0.5) * a[3] : Real(0)});
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int lane = intrinsics::warp_lane();
    Real rp[R][3], re[R][E], ra[R][4];
    tdmaps::detail::warp_walk_blocks(
        *this, team.league_rank(),
        [&](const index_t i0) {
TDMAPS_UNROLL
          for (int r = 0; r < R; ++r) {
            load(i0 + lane + 32 * r, rp[r], re[r]);
            for (int q = 0; q < 4; ++q) ra[r][q] = Real(0);
          }
        },
        [&](const index_t i0, const index_t j0) {
          Real cp[R][3], ce[R][E], ca[R][4];
TDMAPS_UNROLL
          for (int c = 0; c < R; ++c) {
            load(j0 + lane + 32 * c, cp[c], ce[c]);
            for (int q = 0; q < 4; ++q) ca[c][q] = Real(0);
          }
          const bool diag = i0 == j0;
          if (diag || i0 + warp_block > n)
            block_pairs<true>(lane, i0, j0, diag, rp, re, ra, cp, ce, ca);
          else
            block_pairs<false>(lane, i0, j0, diag, rp, re, ra, cp, ce, ca);
TDMAPS_UNROLL
          for (int c = 0; c < R; ++c) {
            const index_t j = j0 + lane + 32 * c;
            if (j < n) add_out(j, ca[c]);
          }
        },
        [&](const index_t i0) {
TDMAPS_UNROLL
          for (int r = 0; r < R; ++r) {
            const index_t i = i0 + lane + 32 * r;
            if (i < n) add_out(i, ra[r]);
          }
        });
  }
};

/// out += the pairs of the omegas [begin, end) of launch l of the 128-block map `macro`.
/// Energy: the energy shares too (else out's e is left as it is).
template <class Real, bool Energy, class Map, class LawT>
void warp_tile_launch(const Kokkos::Cuda& space, const Map& macro, int l, index_t begin, index_t end, index_t n,
                      const Kokkos::View<const Real* [3], Kokkos::LayoutRight, Kokkos::CudaSpace>& x, const LawT& law,
                      const Kokkos::View<Accel<Real>*, Kokkos::CudaSpace>& out, int blocks_per_team,
                      const std::string& label) {
  WarpTile<Real, Kokkos::CudaSpace, LawT, Map, Energy> f;
  f.map = macro;
  f.launch = l;
  f.n = n;
  f.x = x;
  f.law = law;
  f.out = out;
  tdmaps::detail::warp_walk_launch(space, f, begin, end, blocks_per_team, label);
}

}  // namespace detail
}  // namespace nbody
}  // namespace tdmaps

#endif  // KOKKOS_ENABLE_CUDA

#endif
