#ifndef TDMAPS_LAUNCH_DETAIL_PAIR_MIN_KEYS_WALK_HPP
#define TDMAPS_LAUNCH_DETAIL_PAIR_MIN_KEYS_WALK_HPP

// The walk of tdmaps::pair_min_keys and tdmaps::pair_min_k_keys (one team a
// block of rho x rho pairs, its sums by tiled_block_sums.hpp, the joins of
// the keys; the rows' atomic insertion sort and the KeyOf traits in
// min_keys_rows.hpp):
// tdmaps/launch/pair_min_keys.hpp says what it does.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/launch/detail/make_tile.hpp>
#include <tdmaps/launch/detail/min_keys_rows.hpp>
#include <tdmaps/launch/detail/tiled_block_sums.hpp>
#include <tdmaps/launch/reduce.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace tdmaps {

namespace detail {

template <class ExecSpace, class Map, class Points, class Keys, class KeyOf>
struct PairMinKeysWalk {
  using Real = typename Points::non_const_value_type;
  using Key = typename Keys::non_const_value_type;
  static constexpr int MR = tiled_rows;
  static constexpr int MC = tiled_cols;
  static constexpr bool staged = tiled_staged<ExecSpace>;
  /// pair_min_k_keys: an n x k row of keys per point; pair_min_keys: one key.
  static constexpr bool many = Keys::rank == 2;

  Map map;
  Points x;
  Keys keys;
  KeyOf key_of;
  int d = 0;
  int launch = 0;
  index_t offset = 0;
  index_t count = 0;
  /// pair_min_k_keys takes the blocks spread over the triangle: a row's
  /// blocks taken at once would all find it empty and insert every key.
  SpreadOrder order;

  /// The keys a team keeps in scratch. pair_min_k_keys: the largest key of
  /// each of the block's rows, then of its columns, at the block's start
  /// (2 rho). pair_min_keys: each micro-tile's smallest key of each of its
  /// rows (rho rows of rho / MC + 1, one a micro-tile and a pad), then of
  /// its columns (rho of rho / MR + 1): written apart, no atomics, and
  /// joined row by row when the block ends.
  KOKKOS_INLINE_FUNCTION static int key_slots(int rho) {
    return many ? 2 * rho : rho * (rho / MC + 1) + rho * (rho / MR + 1);
  }

  /// Team scratch taken (aligned to tile_scratch_alignment; the launch
  /// reserves that much more): the keys (key_slots); on GPU backends the
  /// staged coordinates too (tiled_staging_bytes).
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int rho) {
    std::size_t b = sizeof(Key) * static_cast<std::size_t>(key_slots(rho));
    if (staged) b += tiled_staging_bytes<Real>();
    return b;
  }

  /// The keys of micro-tile (r, c) (rows MR r + u, columns MC c + w of the
  /// block): its smallest of each row and column into its slots of krow and
  /// kcol (pair_min_keys: key_slots); into the points' rows of keys where
  /// below the row's largest at the block's start, krow / kcol
  /// (pair_min_k_keys).
  KOKKOS_FORCEINLINE_FUNCTION void join(const Tile& t, const Real (&s)[MR][MC], int r, int c, Key* krow,
                                        Key* kcol) const {
    const bool diag = t.diagonal();
    const int RC = map.domain.rho / MC, RR = map.domain.rho / MR;  // micro-tiles along a row, a column
    if constexpr (many && has_sum_bound<KeyOf, Key, Real>::value) {
      // A pair's key is made only where its sum is within the row's bound
      // (a NaN never is: it has no key).
      const int k = static_cast<int>(keys.extent(1));
      Real bc[MC];
      for (int w = 0; w < MC; ++w) {
        const int tj = MC * c + w;
        bc[w] = tj < t.cols ? key_of.sum_bound(kcol[tj]) : Real(0);
      }
      for (int u = 0; u < MR; ++u) {
        const int ti = MR * r + u;
        if (ti >= t.rows) continue;
        const index_t i = t.i0 + ti;
        const Real br = key_of.sum_bound(krow[ti]);
        for (int w = 0; w < MC; ++w) {
          const int tj = MC * c + w;
          if (tj >= t.cols || (diag && tj >= ti)) continue;  // the pairs j < i
          const Real v = s[u][w];
          if (v <= br) {
            const Key a = key_of(v, i, t.j0 + tj);
            if (a < krow[ti]) insert_sorted(keys, i, k, a);
          }
          if (v <= bc[w]) {
            const Key b = key_of(v, t.j0 + tj, i);
            if (b < kcol[tj]) insert_sorted(keys, t.j0 + tj, k, b);
          }
        }
      }
    } else if constexpr (many) {
      const int k = static_cast<int>(keys.extent(1));
      for (int u = 0; u < MR; ++u) {
        const int ti = MR * r + u;
        if (ti >= t.rows) continue;
        const index_t i = t.i0 + ti;
        for (int w = 0; w < MC; ++w) {
          const int tj = MC * c + w;
          if (tj >= t.cols || (diag && tj >= ti)) continue;  // the pairs j < i
          const index_t j = t.j0 + tj;
          const Key a = key_of(s[u][w], i, j), b = key_of(s[u][w], j, i);
          if (a < krow[ti]) insert_sorted(keys, i, k, a);
          if (b < kcol[tj]) insert_sorted(keys, j, k, b);
        }
      }
    } else if constexpr (ordered_by_distance<KeyOf>::value) {
      // Each row's and column's smallest (s, partner) first, one key each:
      // the partners grow with w (rows) and u (columns), so a strict < keeps
      // the smaller partner of equal sums; a NaN sum is taken only first or
      // while the best is NaN (its key is none).
      Real cs[MC];
      int cu[MC];
      for (int w = 0; w < MC; ++w) cs[w] = Real(0), cu[w] = -1;
      for (int u = 0; u < MR; ++u) {
        const int ti = MR * r + u;
        if (ti >= t.rows) continue;
        Real bs = Real(0);
        int bw = -1;
        for (int w = 0; w < MC; ++w) {
          const int tj = MC * c + w;
          if (tj >= t.cols || (diag && tj >= ti)) continue;  // the pairs j < i
          const Real v = s[u][w];
          if (bw < 0 || v < bs || bs != bs) bs = v, bw = w;
          if (cu[w] < 0 || v < cs[w] || cs[w] != cs[w]) cs[w] = v, cu[w] = u;
        }
        krow[ti * (RC + 1) + c] = bw >= 0 ? key_of(bs, t.i0 + ti, t.j0 + MC * c + bw) : ~Key(0);
      }
      for (int w = 0; w < MC; ++w) {
        const int tj = MC * c + w;
        if (tj < t.cols)
          kcol[tj * (RR + 1) + r] = cu[w] >= 0 ? key_of(cs[w], t.j0 + tj, t.i0 + MR * r + cu[w]) : ~Key(0);
      }
    } else {
      Key kc[MC];
      for (int w = 0; w < MC; ++w) kc[w] = ~Key(0);
      for (int u = 0; u < MR; ++u) {
        const int ti = MR * r + u;
        if (ti >= t.rows) continue;
        const index_t i = t.i0 + ti;
        Key kr = ~Key(0);
        for (int w = 0; w < MC; ++w) {
          const int tj = MC * c + w;
          if (tj >= t.cols || (diag && tj >= ti)) continue;  // the pairs j < i
          const index_t j = t.j0 + tj;
          const Key a = key_of(s[u][w], i, j), b = key_of(s[u][w], j, i);
          kr = a < kr ? a : kr;
          kc[w] = b < kc[w] ? b : kc[w];
        }
        krow[ti * (RC + 1) + c] = kr;
      }
      for (int w = 0; w < MC; ++w)
        if (MC * c + w < t.cols) kcol[(MC * c + w) * (RR + 1) + r] = kc[w];
    }
  }

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    const int rho = map.domain.rho;
    const int RC = rho / MC;  // micro-tiles along a row of the block
    char* base = static_cast<char*>(team.team_scratch(0).get_shmem_aligned(scratch_bytes(rho), tile_scratch_alignment));
    Key* const krow = reinterpret_cast<Key*>(base);
    Key* const kcol = krow + (many ? rho : rho * (RC + 1));
    Real* const srow = reinterpret_cast<Real*>(base + sizeof(Key) * static_cast<std::size_t>(key_slots(rho)));
    Real* const scol = srow + tiled_chunk * tiled_stride;
    bool busy = false;
    const auto walk = [&](const Tile& t) {
      if (busy) team.team_barrier();  // the previous block's flush has read the keys
      busy = true;
      if constexpr (many) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * rho), [&](const int q) {
          // The largest key of the row (its last slot).
          const int p = q < rho ? q : q - rho;
          krow[q] = p < (q < rho ? t.rows : t.cols)
                        ? load_relaxed(&keys(q < rho ? t.i0 + p : t.j0 + p, static_cast<int>(keys.extent(1)) - 1))
                        : Key(0);
        });
        team.team_barrier();
      }
      // pair_min_k_keys reads the coordinates one by one (Lean): fewer
      // registers for its insertions.
      tiled_block_sums<staged, many>(team, t, x.data(), static_cast<std::size_t>(x.stride(0)), d, rho, srow, scol,
                                     [&](const Real(&s)[MR][MC], const int r, const int c) {
                                       join(t, s, r, c, krow, kcol);
                                     });
      if constexpr (!many) {
        team.team_barrier();
        // Each row's and column's smallest of its micro-tiles' keys, one
        // atomic to `keys` where there is one.
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * rho), [&](const int q) {
          const bool col = q >= rho;
          const int p = col ? q - rho : q;
          if (p >= (col ? t.cols : t.rows)) return;
          const int parts = col ? rho / MR : RC;
          const Key* const part = col ? kcol + p * (rho / MR + 1) : krow + p * (RC + 1);
          Key k = part[0];
          for (int e = 1; e < parts; ++e) k = part[e] < k ? part[e] : k;
          if (k != ~Key(0)) RowMin<Key>::atomic_join(&keys(col ? t.j0 + p : t.i0 + p), k);
        });
      }
    };
    if constexpr (many) each_block<ExecSpace>(map, launch, offset, count, team, walk, order);
    else each_block<ExecSpace>(map, launch, offset, count, team, walk);
  }
};

}  // namespace detail

}  // namespace tdmaps

#endif
