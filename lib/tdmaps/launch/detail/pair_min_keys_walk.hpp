#ifndef TDMAPS_LAUNCH_DETAIL_PAIR_MIN_KEYS_WALK_HPP
#define TDMAPS_LAUNCH_DETAIL_PAIR_MIN_KEYS_WALK_HPP

// The walk of tdmaps::pair_min_keys and tdmaps::pair_min_k_keys (one team a
// block of rho x rho pairs, 4 x 4 sums a thread, the joins of the keys; the
// rows' atomic insertion sort and the KeyOf traits in min_keys_rows.hpp):
// tdmaps/launch/pair_min_keys.hpp says what it does.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/launch/detail/make_tile.hpp>
#include <tdmaps/launch/detail/min_keys_rows.hpp>
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

/// The micro-tile of a thread: min_keys_rows x min_keys_cols pairs (rows and
/// columns next to each other in the block).
constexpr int min_keys_rows = 4;
constexpr int min_keys_cols = 4;
/// Coordinates a team stages at a time (GPU backends).
constexpr int min_keys_chunk = 16;
/// The staged coordinates' stride (GPU backends): coordinate k of the
/// block's point p is at k * min_keys_stride + p (block sides up to 32; a
/// multiple of 4: every quad aligned).
constexpr int min_keys_stride = 36;
/// The threads of a team on GPU backends: one a micro-tile of the block
/// (block side 16 or 32: a multiple of min_keys_chunk).
KOKKOS_FORCEINLINE_FUNCTION constexpr int min_keys_team(int rho) {
  return (rho / min_keys_rows) * (rho / min_keys_cols);
}

/// Four coordinates of consecutive points of a block, one aligned load (the
/// staged walk reads a micro-tile's rows and columns with vector loads).
template <class Real>
struct alignas(4 * sizeof(Real)) MinKeysQuad {
  Real v[4];
};

/// A count given at run time (int) or at compile time (std::integral_constant).
KOKKOS_FORCEINLINE_FUNCTION constexpr int count_of(const int n) { return n; }
template <int N>
KOKKOS_FORCEINLINE_FUNCTION constexpr int count_of(std::integral_constant<int, N>) {
  return N;
}

/// Teams of at most 64 threads, 16 of them an SM (64 registers a thread on
/// CUDA: the occupancy the walk's barriers and global loads need).
template <class ExecSpace>
using min_keys_policy_t = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<64, 16>, Kokkos::IndexType<int>>;

/// TDMAPS_FORCE_STAGED_MIN_KEYS (tests): host backends take the GPU walk
/// (a team of min_keys_team(rho) threads staging the coordinates, its barriers), so
/// that its index math is checked without a GPU.
#if defined(TDMAPS_FORCE_STAGED_MIN_KEYS)
constexpr bool force_staged_min_keys = true;
#else
constexpr bool force_staged_min_keys = false;
#endif
/// Whether ExecSpace takes the GPU walk.
template <class ExecSpace>
constexpr bool min_keys_staged = is_gpu_space<ExecSpace>::value || force_staged_min_keys;

template <class ExecSpace, class Map, class Points, class Keys, class KeyOf>
struct PairMinKeysWalk {
  using Real = typename Points::non_const_value_type;
  using Key = typename Keys::non_const_value_type;
  using Quad = MinKeysQuad<Real>;
  static constexpr int MR = min_keys_rows;
  static constexpr int MC = min_keys_cols;
  static constexpr int K = min_keys_chunk;
  static_assert(MR % 4 == 0 && MC % 4 == 0, "tdmaps: a micro-tile's sides are whole quads");
  static constexpr bool staged = min_keys_staged<ExecSpace>;
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
  /// staged coordinates too (K coordinates of the rows, then of the columns).
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int rho) {
    std::size_t b = sizeof(Key) * static_cast<std::size_t>(key_slots(rho));
    if (staged) b += 2 * sizeof(Real) * static_cast<std::size_t>(K) * static_cast<std::size_t>(min_keys_stride);
    return b;
  }

  /// A micro-tile's sums over coordinates [0, kn) of what load(k, a, b)
  /// gives: coordinate k of its MR rows (a) and MC columns (b). pair_min_keys
  /// unrolls the loop by 4 (a whole chunk's kn is known at compile time);
  /// pair_min_k_keys does not: its insertions need the registers.
  template <class Load>
  KOKKOS_FORCEINLINE_FUNCTION static void accumulate(Real (&s)[MR][MC], const int kn, const Load& load) {
    const auto step = [&](const int k) {
      Real a[MR], b[MC];
      load(k, a, b);
      for (int u = 0; u < MR; ++u)
        for (int w = 0; w < MC; ++w) {
          const Real t = a[u] - b[w];
          s[u][w] += t * t;
        }
    };
    if constexpr (many) {
      for (int k = 0; k < kn; ++k) step(k);
    } else {
      TDMAPS_UNROLL_BY(4)
      for (int k = 0; k < kn; ++k) step(k);
    }
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
    const int tiles = (rho / MR) * RC;
    char* base = static_cast<char*>(team.team_scratch(0).get_shmem_aligned(scratch_bytes(rho), tile_scratch_alignment));
    Key* const krow = reinterpret_cast<Key*>(base);
    Key* const kcol = krow + (many ? rho : rho * (RC + 1));
    constexpr int S = min_keys_stride;
    Real* const srow = reinterpret_cast<Real*>(base + sizeof(Key) * static_cast<std::size_t>(key_slots(rho)));
    Real* const scol = srow + K * S;
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
      if constexpr (staged) {
        // One micro-tile per thread, its sums in registers across the chunks;
        // its rows' and columns' coordinates read as quads (pair_min_k_keys:
        // one by one, fewer registers for its insertions).
        const int v = team.team_rank();
        const int r = v / RC, c = v % RC;
        Real s[MR][MC] = {};
        const Quad* const qrow = reinterpret_cast<const Quad*>(srow + MR * r);
        const Quad* const qcol = reinterpret_cast<const Quad*>(scol + MC * c);
        const auto load = [&](const int k, Real(&a)[MR], Real(&b)[MC]) {
          if constexpr (many) {
            for (int u = 0; u < MR; ++u) a[u] = srow[k * S + MR * r + u];
            for (int w = 0; w < MC; ++w) b[w] = scol[k * S + MC * c + w];
          } else {
            for (int g = 0; g < MR / 4; ++g) {
              const Quad q = qrow[k * (S / 4) + g];
              for (int e = 0; e < 4; ++e) a[4 * g + e] = q.v[e];
            }
            for (int g = 0; g < MC / 4; ++g) {
              const Quad q = qcol[k * (S / 4) + g];
              for (int e = 0; e < 4; ++e) b[4 * g + e] = q.v[e];
            }
          }
        };
        // Staging. A whole chunk: thread v stages coordinate k0 + v % K of the
        // block's points v / K + dp i, i < rho / dp (dp = tiles / K, the team's
        // threads a multiple of K): a warp reads K consecutive coordinates of
        // a point. The last, partial chunk (kn < K coordinates): thread v
        // stages coordinates k0 + v / rho + (tiles / rho) i < k0 + kn of the
        // block's point v % rho: a warp reads one coordinate of consecutive
        // points.
        const std::size_t stride = static_cast<std::size_t>(x.stride(0));
        const Real* const xr = x.data() + static_cast<std::size_t>(t.i0) * stride;  // the block's first row
        const Real* const xc = x.data() + static_cast<std::size_t>(t.j0) * stride;  // and column
        const int ks = v % K, pv = v / K, dp = tiles / K, steps = rho / dp;
        const std::size_t advance = static_cast<std::size_t>(dp) * stride;
        const std::size_t first = static_cast<std::size_t>(pv) * stride + static_cast<std::size_t>(ks);
        // Chunk [k0, k0 + kn): staged (its kn coordinates only), then summed.
        // The whole chunks take kn = K at compile time, the last one kn's value.
        const auto chunk = [&](const int k0, const auto size) {
          constexpr bool whole = !std::is_same<decltype(size), const int>::value;
          if (k0 > 0) team.team_barrier();  // the previous chunk is read
          if (v < tiles) {
            if constexpr (whole) {
              std::size_t o = first + static_cast<std::size_t>(k0);
              for (int i = 0, p = pv; i < steps; ++i, p += dp, o += advance) {
                srow[ks * S + p] = p < t.rows ? xr[o] : Real(0);
                scol[ks * S + p] = p < t.cols ? xc[o] : Real(0);
              }
            } else {
              const int kn = count_of(size), p = v % rho;
              const std::size_t o = static_cast<std::size_t>(p) * stride + static_cast<std::size_t>(k0);
              for (int k = v / rho; k < kn; k += tiles / rho) {
                srow[k * S + p] = p < t.rows ? xr[o + static_cast<std::size_t>(k)] : Real(0);
                scol[k * S + p] = p < t.cols ? xc[o + static_cast<std::size_t>(k)] : Real(0);
              }
            }
          }
          team.team_barrier();
          if (v < tiles) accumulate(s, count_of(size), load);
        };
        const int full = d - d % K;
        for (int k0 = 0; k0 < full; k0 += K) chunk(k0, std::integral_constant<int, K>());
        if (full < d) chunk(full, d - full);
        if (v < tiles) join(t, s, r, c, krow, kcol);
      } else {
        // One thread: every micro-tile in turn, the points read in place
        // (rows past the block's edge read its last row; join skips them).
        const std::size_t stride = static_cast<std::size_t>(x.stride(0));
        const Real* const x0 = x.data();
        for (int v = 0; v < tiles; ++v) {
          const int r = v / RC, c = v % RC;
          const Real* a[MR];
          const Real* b[MC];
          for (int u = 0; u < MR; ++u) {
            const int p = MR * r + u < t.rows ? MR * r + u : t.rows - 1;
            a[u] = x0 + static_cast<std::size_t>(t.i0 + p) * stride;
          }
          for (int w = 0; w < MC; ++w) {
            const int p = MC * c + w < t.cols ? MC * c + w : t.cols - 1;
            b[w] = x0 + static_cast<std::size_t>(t.j0 + p) * stride;
          }
          Real s[MR][MC] = {};
          accumulate(s, d, [&](const int k, Real(&av)[MR], Real(&bv)[MC]) {
            for (int u = 0; u < MR; ++u) av[u] = a[u][k];
            for (int w = 0; w < MC; ++w) bv[w] = b[w][k];
          });
          join(t, s, r, c, krow, kcol);
        }
      }
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
