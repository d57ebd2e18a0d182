#ifndef TDMAPS_LAUNCH_DETAIL_PAIR_MIN_KEYS_WALK_HPP
#define TDMAPS_LAUNCH_DETAIL_PAIR_MIN_KEYS_WALK_HPP

// The walk of tdmaps::pair_min_keys and tdmaps::pair_min_k_keys (one team a
// block of rho x rho pairs, 4 x 4 sums a thread, the joins of the keys, the
// atomic insertion sort): tdmaps/launch/pair_min_keys.hpp says what it does.

#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/detail/make_tile.hpp>
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

/// The micro-tile of a thread: 4 x 4 pairs.
constexpr int min_keys_micro = 4;
/// Coordinates a team stages at a time (GPU backends).
constexpr int min_keys_chunk = 16;

/// A relaxed atomic read of *p (keys other threads change meanwhile).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T load_relaxed(T* p) {
#if KOKKOS_VERSION >= 40000
  return static_cast<T>(Kokkos::atomic_load(native(p)));
#else
  return *static_cast<volatile T*>(p);
#endif
}

/// Inserts `key` into row p of `keys` (n x k, the row sorted ascending), an
/// insertion sort by atomics that any number of threads may run on one row
/// at once. Each slot only ever decreases: slot s keeps the smaller of its
/// key and the carried one (atomic_fetch_min) and the larger is carried on.
/// A key carried to slot s is no smaller than any key of slots 0 .. s - 1
/// (it passed them, and they only decreased since), so each atomic keeps
/// the row sorted, and a key carried past slot k - 1 is dropped with k keys
/// no larger than it in the row. The carry starts at the first slot above
/// `key`, found from the end (a slot read before another thread lowers it
/// only makes the carry start earlier); a row whose last slot is no larger
/// than `key` is left as it is.
template <class Keys>
KOKKOS_FORCEINLINE_FUNCTION void insert_sorted(const Keys& keys, const index_t p, const int k,
                                               typename Keys::non_const_value_type key) {
  using Key = typename Keys::non_const_value_type;
  int s = k;
  while (s > 0 && load_relaxed(&keys(p, s - 1)) > key) --s;
  for (; s < k; ++s) {
    const Key old = static_cast<Key>(Kokkos::atomic_fetch_min(native(&keys(p, s)), native(key)));
    if (old > key) key = old;  // the larger goes on
    if (key == ~Key(0)) return;  // it was an empty slot
  }
}

/// Whether KeyOf declares `static constexpr bool ordered_by_distance = true`:
/// key_of(s, self, partner) orders pairs by s, then by the partner, and is
/// ~0 (none) for a NaN s. pair_min_keys then finds each row's smallest
/// (s, partner) before making one key of it (the same minimum).
template <class KeyOf, class = void>
struct ordered_by_distance : std::false_type {};
template <class KeyOf>
struct ordered_by_distance<KeyOf, std::void_t<decltype(KeyOf::ordered_by_distance)>>
    : std::integral_constant<bool, KeyOf::ordered_by_distance> {};

/// A count given at run time (int) or at compile time (std::integral_constant).
KOKKOS_FORCEINLINE_FUNCTION constexpr int count_of(const int n) { return n; }
template <int N>
KOKKOS_FORCEINLINE_FUNCTION constexpr int count_of(std::integral_constant<int, N>) {
  return N;
}

/// Whether KeyOf, ordered by distance, gives `Real sum_bound(Key) const`
/// (pair_min_k_keys then compares each pair's sum with its row's bound
/// before it makes a key).
template <class KeyOf, class Key, class Real, class = void>
struct has_sum_bound : std::false_type {};
template <class KeyOf, class Key, class Real>
struct has_sum_bound<KeyOf, Key, Real, std::void_t<decltype(std::declval<const KeyOf&>().sum_bound(std::declval<Key>()))>>
    : std::integral_constant<bool, ordered_by_distance<KeyOf>::value &&
                                       std::is_same<decltype(std::declval<const KeyOf&>().sum_bound(std::declval<Key>())),
                                                    Real>::value> {};

template <class ExecSpace>
using min_keys_policy_t = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<64, 8>, Kokkos::IndexType<int>>;

/// TDMAPS_FORCE_STAGED_MIN_KEYS (tests): host backends take the GPU walk
/// (a team of (rho / 4)^2 threads staging the coordinates, its barriers), so
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
  static constexpr int M = min_keys_micro;
  static constexpr int K = min_keys_chunk;
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

  /// Team scratch: the block's row and column keys; on GPU backends the
  /// staged coordinates too (stride rho + 1 between coordinates).
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int rho) {
    std::size_t b = 2 * sizeof(Key) * static_cast<std::size_t>(rho);
    if (staged) b += 2 * sizeof(Real) * static_cast<std::size_t>(K) * static_cast<std::size_t>(rho + 1);
    return b + 2 * tile_scratch_alignment;
  }

  /// Micro-tile v's sums (rows r + R a, columns c + R b of the block, R =
  /// rho / M), from coordinates [k0, k0 + kn): row(q, k) and col(q, k) give
  /// coordinate k of the block's row / column q.
  template <class Row, class Col>
  KOKKOS_FORCEINLINE_FUNCTION static void accumulate(Real (&s)[M][M], int r, int c, int R, int kn, const Row& row,
                                                     const Col& col) {
    for (int k = 0; k < kn; ++k) {
      Real a[M], b[M];
      for (int u = 0; u < M; ++u) a[u] = row(r + R * u, k);
      for (int u = 0; u < M; ++u) b[u] = col(c + R * u, k);
      for (int u = 0; u < M; ++u)
        for (int w = 0; w < M; ++w) {
          const Real t = a[u] - b[w];
          s[u][w] += t * t;
        }
    }
  }

  /// The keys of micro-tile (r, c) joined into the block's row and column
  /// keys (pair_min_keys); into the points' rows of keys where below the
  /// row's largest at the block's start, krow / kcol (pair_min_k_keys).
  KOKKOS_FORCEINLINE_FUNCTION void join(const Tile& t, const Real (&s)[M][M], int r, int c, int R, Key* krow,
                                        Key* kcol) const {
    const bool diag = t.diagonal();
    if constexpr (many && has_sum_bound<KeyOf, Key, Real>::value) {
      // A pair's key is made only where its sum is within the row's bound
      // (a NaN never is: it has no key).
      const int k = static_cast<int>(keys.extent(1));
      Real bc[M];
      for (int w = 0; w < M; ++w) {
        const int tj = c + R * w;
        bc[w] = tj < t.cols ? key_of.sum_bound(kcol[tj]) : Real(0);
      }
      for (int u = 0; u < M; ++u) {
        const int ti = r + R * u;
        if (ti >= t.rows) continue;
        const index_t i = t.i0 + ti;
        const Real br = key_of.sum_bound(krow[ti]);
        for (int w = 0; w < M; ++w) {
          const int tj = c + R * w;
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
      for (int u = 0; u < M; ++u) {
        const int ti = r + R * u;
        if (ti >= t.rows) continue;
        const index_t i = t.i0 + ti;
        for (int w = 0; w < M; ++w) {
          const int tj = c + R * w;
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
      Real cs[M];
      int cu[M];
      for (int w = 0; w < M; ++w) cs[w] = Real(0), cu[w] = -1;
      for (int u = 0; u < M; ++u) {
        const int ti = r + R * u;
        if (ti >= t.rows) continue;
        Real bs = Real(0);
        int bw = -1;
        for (int w = 0; w < M; ++w) {
          const int tj = c + R * w;
          if (tj >= t.cols || (diag && tj >= ti)) continue;  // the pairs j < i
          const Real v = s[u][w];
          if (bw < 0 || v < bs || bs != bs) bs = v, bw = w;
          if (cu[w] < 0 || v < cs[w] || cs[w] != cs[w]) cs[w] = v, cu[w] = u;
        }
        if (bw >= 0) {
          const Key a = key_of(bs, t.i0 + ti, t.j0 + c + R * bw);
          if (a != ~Key(0)) RowMin<Key>::atomic_join(&krow[ti], a);
        }
      }
      for (int w = 0; w < M; ++w)
        if (cu[w] >= 0) {
          const Key b = key_of(cs[w], t.j0 + c + R * w, t.i0 + r + R * cu[w]);
          if (b != ~Key(0)) RowMin<Key>::atomic_join(&kcol[c + R * w], b);
        }
    } else {
      Key kc[M];
      for (int w = 0; w < M; ++w) kc[w] = ~Key(0);
      for (int u = 0; u < M; ++u) {
        const int ti = r + R * u;
        if (ti >= t.rows) continue;
        const index_t i = t.i0 + ti;
        Key kr = ~Key(0);
        for (int w = 0; w < M; ++w) {
          const int tj = c + R * w;
          if (tj >= t.cols || (diag && tj >= ti)) continue;  // the pairs j < i
          const index_t j = t.j0 + tj;
          const Key a = key_of(s[u][w], i, j), b = key_of(s[u][w], j, i);
          kr = a < kr ? a : kr;
          kc[w] = b < kc[w] ? b : kc[w];
        }
        if (kr != ~Key(0)) RowMin<Key>::atomic_join(&krow[ti], kr);
      }
      for (int w = 0; w < M; ++w)
        if (kc[w] != ~Key(0)) RowMin<Key>::atomic_join(&kcol[c + R * w], kc[w]);
    }
  }

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    const int rho = map.domain.rho;
    const int R = rho / M;
    char* base = static_cast<char*>(team.team_scratch(0).get_shmem_aligned(scratch_bytes(rho), tile_scratch_alignment));
    Key* const krow = reinterpret_cast<Key*>(base);
    Key* const kcol = krow + rho;
    Real* const srow = reinterpret_cast<Real*>(base + 2 * sizeof(Key) * static_cast<std::size_t>(rho));
    Real* const scol = srow + K * (rho + 1);
    bool busy = false;
    const auto walk = [&](const Tile& t) {
      if (busy) team.team_barrier();  // the previous block's flush has read the keys
      busy = true;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * rho), [&](const int q) {
        if constexpr (many) {  // the largest key of the row (its last slot)
          const int p = q < rho ? q : q - rho;
          krow[q] = p < (q < rho ? t.rows : t.cols)
                        ? load_relaxed(&keys(q < rho ? t.i0 + p : t.j0 + p, static_cast<int>(keys.extent(1)) - 1))
                        : Key(0);
        } else {
          krow[q] = ~Key(0);
        }
      });
      team.team_barrier();
      if constexpr (staged) {
        // One micro-tile per thread, its sums in registers across the chunks.
        const int v = team.team_rank();
        const int r = v / R, c = v % R;
        Real s[M][M] = {};
        // Chunk [k0, k0 + kn): staged (its kn coordinates only), then summed.
        // The whole chunks take kn = K at compile time, the last one kn's value.
        const auto chunk = [&](const int k0, const auto size) {
          constexpr bool whole = !std::is_same<decltype(size), const int>::value;
          const int kn = count_of(size);
          if (k0 > 0) team.team_barrier();  // the previous chunk is read
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, rho * kn), [&](const int q) {
            const int p = whole ? q / K : q / kn, k = whole ? q % K : q % kn;
            srow[k * (rho + 1) + p] = p < t.rows ? x(t.i0 + p, k0 + k) : Real(0);
            scol[k * (rho + 1) + p] = p < t.cols ? x(t.j0 + p, k0 + k) : Real(0);
          });
          team.team_barrier();
          if (v < R * R)
            accumulate(
                s, r, c, R, whole ? K : kn, [&](int p, int k) { return srow[k * (rho + 1) + p]; },
                [&](int p, int k) { return scol[k * (rho + 1) + p]; });
        };
        const int full = d - d % K;
        for (int k0 = 0; k0 < full; k0 += K) chunk(k0, std::integral_constant<int, K>());
        if (full < d) chunk(full, d - full);
        if (v < R * R) join(t, s, r, c, R, krow, kcol);
      } else {
        // One thread: every micro-tile in turn, the points read in place
        // (rows past the block's edge read its last row; join skips them).
        const std::size_t stride = static_cast<std::size_t>(x.stride(0));
        const Real* const x0 = x.data();
        for (int v = 0; v < R * R; ++v) {
          const int r = v / R, c = v % R;
          const Real* a[M];
          const Real* b[M];
          for (int u = 0; u < M; ++u) {
            const int pr = r + R * u < t.rows ? r + R * u : t.rows - 1;
            const int pc = c + R * u < t.cols ? c + R * u : t.cols - 1;
            a[u] = x0 + static_cast<std::size_t>(t.i0 + pr) * stride;
            b[u] = x0 + static_cast<std::size_t>(t.j0 + pc) * stride;
          }
          Real s[M][M] = {};
          accumulate(
              s, 0, 0, 1, d, [&](int u, int k) { return a[u][k]; }, [&](int u, int k) { return b[u][k]; });
          join(t, s, r, c, R, krow, kcol);
        }
      }
      if constexpr (!many) {
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * rho), [&](const int q) {
          const Key k = krow[q];
          if (k == ~Key(0)) return;
          const index_t p = q < rho ? t.i0 + q : t.j0 + (q - rho);
          RowMin<Key>::atomic_join(&keys(p), k);
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
