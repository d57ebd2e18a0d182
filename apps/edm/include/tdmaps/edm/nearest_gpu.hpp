#ifndef TDMAPS_EDM_NEAREST_GPU_HPP
#define TDMAPS_EDM_NEAREST_GPU_HPP

// The CUDA kernel of nearest_neighbour (reduce.hpp) for fp32 points of 2, 3
// or 4 coordinates stored back to back: the walk of tdmaps::nbody's warp
// kernel (tile_gpu.hpp). One warp per 128 x 128 block of pairs, the blocks
// enumerated by the caller's map kind over a domain of 128-blocks (the map
// over Domain2(ceil(n / 4), 32)). Lane t holds four rows, i = 128 bi + t +
// 32 r, and four columns, j = 128 bj + (t + s) mod 32 + 32 c at step s, each
// with its best key so far; after each step the columns (points and keys)
// move one lane down by warp shuffles, so that in 32 steps every lane meets
// every column and the columns' keys come home. Each distance is computed
// once and offered to both ends in registers. Keys are reduce_rows' fp32
// keys, (ordered bits of the squared distance << 32) | partner: while the
// warp walks they hold the raw bits of the squared distance (>= +0, so the
// same order) with NaN as 0xffffffff, and turn into the ordered bits when
// flushed (atomic min) once per block for columns and once per row segment
// for rows; a key that saw only NaN distances is not flushed (nobody's
// nearest). The squared distance is ColumnPoint::sq's, bit for bit.
//
// Not API (tdmaps::edm::detail); compiled for the CUDA backend only (a team
// is one warp).

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/kokkos_ext/warp_math.hpp>
#include <tdmaps/launch/detail/warp_walk.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/reduce.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/detail/map_traits.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

#if defined(KOKKOS_ENABLE_CUDA)

namespace tdmaps {
namespace edm {
namespace detail {

/// Rows (and columns) per lane, and the side of a warp's block.
constexpr int nearest_rows = tdmaps::detail::warp_walk_rows;
constexpr int nearest_block = tdmaps::detail::warp_walk_block;

template <int D, class Map, class Keys>
struct NearestWarp {
  using Key = unsigned long long;  // CUDA's native 64-bit atomics and shuffles
  static constexpr int R = nearest_rows;
  static constexpr Key none = ~Key(0);
  Map map;  ///< over 128-blocks (nearest_block_map)
  int launch = 0;
  index_t offset = 0, count = 0;
  int per_team = 1;
  index_t n = 0;
  const float* x = nullptr;  ///< n x D, back to back
  Keys keys;

  KOKKOS_FORCEINLINE_FUNCTION void load(index_t i, float* p) const {
    for (int k = 0; k < D; ++k) p[k] = i < n ? x[i * D + k] : 0.0f;
  }

  /// The walk's key of a squared distance s and a partner.
  KOKKOS_FORCEINLINE_FUNCTION static Key walk_key(float s, index_t partner) {
    const Key hi = s == s ? Key(intrinsics::float_bits(s)) : Key(0xffffffffu);
    return (hi << 32) | Key(static_cast<std::uint32_t>(partner));
  }

  template <bool Edge>
  KOKKOS_FORCEINLINE_FUNCTION void block_pairs(int lane, index_t i0, index_t j0, bool diag, const float (&rp)[R][D],
                                               Key (&rk)[R], float (&cp)[R][D], Key (&ck)[R]) const {
    for (int s = 0; s < 32; ++s) {
      const index_t jl = j0 + ((lane + s) & 31);
TDMAPS_UNROLL
      for (int r = 0; r < R; ++r) {
        const index_t i = i0 + lane + 32 * r;
TDMAPS_UNROLL
        for (int c = 0; c < R; ++c) {
          const index_t j = jl + 32 * c;
          if (Edge && !(i < n && j < n && (!diag || i > j))) continue;
          float sq = 0;  // ColumnPoint::sq: row minus column, summed in order
TDMAPS_UNROLL
          for (int k = 0; k < D; ++k) {
            const float t = rp[r][k] - cp[c][k];
            sq += t * t;
          }
          const Key to_row = walk_key(sq, j), to_col = walk_key(sq, i);
          rk[r] = to_row < rk[r] ? to_row : rk[r];
          ck[c] = to_col < ck[c] ? to_col : ck[c];
        }
      }
      const int from = (lane + 1) & 31;
TDMAPS_UNROLL
      for (int c = 0; c < R; ++c) {
TDMAPS_UNROLL
        for (int k = 0; k < D; ++k) cp[c][k] = intrinsics::warp_shfl(cp[c][k], from);
        ck[c] = intrinsics::warp_shfl(ck[c], from);
      }
    }
  }

  /// keys(i) = min(keys(i), the walk's key k as reduce_rows' key), unless k saw no distance but NaN.
  KOKKOS_FORCEINLINE_FUNCTION void flush(index_t i, Key k) const {
    const std::uint32_t hi = static_cast<std::uint32_t>(k >> 32);
    if (i >= n || hi == 0xffffffffu) return;
    const float sq = intrinsics::int_as_float(static_cast<std::int32_t>(hi));
    const std::uint64_t key = (std::uint64_t(tdmaps::ordered_bits(sq)) << 32) | std::uint64_t(k & 0xffffffffull);
    tdmaps::RowMin<std::uint64_t>::atomic_join(&keys(i), key);
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int lane = intrinsics::warp_lane();
    float rp[R][D];
    Key rk[R];
    tdmaps::detail::warp_walk_blocks(
        *this, team.league_rank(),
        [&](const index_t i0) {
TDMAPS_UNROLL
          for (int r = 0; r < R; ++r) {
            load(i0 + lane + 32 * r, rp[r]);
            rk[r] = none;
          }
        },
        [&](const index_t i0, const index_t j0) {
          float cp[R][D];
          Key ck[R];
TDMAPS_UNROLL
          for (int c = 0; c < R; ++c) {
            load(j0 + lane + 32 * c, cp[c]);
            ck[c] = none;
          }
          const bool diag = i0 == j0;
          if (diag || i0 + nearest_block > n)
            block_pairs<true>(lane, i0, j0, diag, rp, rk, cp, ck);
          else
            block_pairs<false>(lane, i0, j0, diag, rp, rk, cp, ck);
TDMAPS_UNROLL
          for (int c = 0; c < R; ++c) flush(j0 + lane + 32 * c, ck[c]);
        },
        [&](const index_t i0) {
TDMAPS_UNROLL
          for (int r = 0; r < R; ++r) flush(i0 + lane + 32 * r, rk[r]);
        });
  }
};

/// keys joined with the nearest partners of the pairs of part `part` of
/// `parts` of the league of 128-blocks of `map`'s domain (fp32 points, D =
/// 2, 3, 4 back to back; parts > 1: a one-launch map); blocks_per_team 0:
/// warp_walk_blocks_per_team.
template <int D, class Map, class Keys>
void nearest_warp(const Kokkos::Cuda& space, const Map& map, const float* x, const Keys& keys, int blocks_per_team,
                  const std::string& label, int part, int parts) {
  const index_t n = map.domain.n;
  if (n < 2) return;
  const Map macro = tdmaps::detail::warp_walk_map(map);
  for (int l = 0; l < tdmaps::detail::launches(macro); ++l) {
    OmegaRange r{0, tdmaps::detail::league_size(macro, l)};
    if constexpr (!is_multi_launch_map_v<Map>)
      if (parts > 1) r = omega_range(macro, part, parts);
    NearestWarp<D, Map, Keys> f;
    f.map = macro;
    f.launch = l;
    f.n = n;
    f.x = x;
    f.keys = keys;
    tdmaps::detail::warp_walk_launch(space, f, r.begin, r.end, blocks_per_team, label);
  }
}

}  // namespace detail
}  // namespace edm
}  // namespace tdmaps

#endif  // KOKKOS_ENABLE_CUDA

#endif
