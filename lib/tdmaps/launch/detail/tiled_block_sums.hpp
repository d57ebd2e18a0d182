#ifndef TDMAPS_LAUNCH_DETAIL_TILED_BLOCK_SUMS_HPP
#define TDMAPS_LAUNCH_DETAIL_TILED_BLOCK_SUMS_HPP

// Not API (tdmaps::detail): the dimension-tiled sums of one block of rho x
// rho pairs, s = sum_k (x(i, k) - x(j, k))^2 summed in k order from s = 0
// (the element kernel's sum, edm/element.hpp, bit for bit), as a GEMM walks
// its k loop with the exact difference form instead of a product. Each
// thread of a team keeps a micro-tile of tiled_rows x tiled_cols sums in
// registers (rows and columns next to each other in the block). On GPU
// backends the team stages the block's rows and columns tiled_chunk
// coordinates at a time in team scratch and each thread reads a step's
// coordinates of its rows and columns as aligned quads; on host backends
// the team's one thread walks the micro-tiles in turn and reads the points
// in place. The walks that take these sums (pair_min_keys, pair_min_k_keys,
// reduce_pair_sums, histogram_pair_sums) differ only in what they do with a
// micro-tile's sums.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {

namespace detail {

/// The micro-tile of a thread: tiled_rows x tiled_cols pairs (rows and
/// columns next to each other in the block).
constexpr int tiled_rows = 4;
constexpr int tiled_cols = 4;
/// Coordinates a team stages at a time (GPU backends).
constexpr int tiled_chunk = 16;
/// The staged coordinates' stride (GPU backends): coordinate k of the
/// block's point p is at k * tiled_stride + p (block sides up to 32; a
/// multiple of 4: every quad aligned).
constexpr int tiled_stride = 36;
/// The threads of a team on GPU backends: one a micro-tile of the block
/// (block side 16 or 32: a multiple of tiled_chunk).
KOKKOS_FORCEINLINE_FUNCTION constexpr int tiled_team(int rho) { return (rho / tiled_rows) * (rho / tiled_cols); }
/// The block sides the dimension-tiled walks take.
KOKKOS_FORCEINLINE_FUNCTION constexpr bool tiled_block_side(int rho) { return rho == 16 || rho == 32; }

/// The checks of every dimension-tiled walk: a block-space map of block
/// side 16 or 32 over as many points as `points` has rows, n x d
/// LayoutRight points with 1 <= d <= 2^30 (std::invalid_argument naming `what`).
template <class Map, class Points>
void check_tiled(const Map& map, const Points& points, const char* what) {
  static_assert(is_block_space_map_v<Map>, "tdmaps: the dimension-tiled walks take a block-space map (bb, lambda, rb, rec, hadouken)");
  static_assert(Kokkos::is_view<Points>::value && Points::rank == 2 &&
                    std::is_same<typename Points::array_layout, Kokkos::LayoutRight>::value,
                "tdmaps: the dimension-tiled walks take points as an n x d LayoutRight View");
  const std::string w(what);
  const int rho = map.domain.rho;
  if (!tiled_block_side(rho)) throw std::invalid_argument(w + ": block side " + std::to_string(rho) + " (need 16 or 32)");
  if (static_cast<index_t>(points.extent(0)) != map.domain.n)
    throw std::invalid_argument(w + ": " + std::to_string(points.extent(0)) + " points for a domain of " +
                                std::to_string(map.domain.n));
  if (points.extent(1) < 1 || points.extent(1) > static_cast<std::size_t>(1) << 30)
    throw std::invalid_argument(w + ": d = " + std::to_string(points.extent(1)) + " (need 1 .. 2^30)");
}

/// Four coordinates of consecutive points of a block, one aligned load (the
/// staged walk reads a micro-tile's rows and columns with vector loads).
template <class Real>
struct alignas(4 * sizeof(Real)) TiledQuad {
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
using tiled_policy_t = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<64, 16>, Kokkos::IndexType<int>>;

/// TDMAPS_FORCE_STAGED_MIN_KEYS (tests): host backends take the GPU walk
/// (a team of tiled_team(rho) threads staging the coordinates, its
/// barriers), so that its index math is checked without a GPU.
#if defined(TDMAPS_FORCE_STAGED_MIN_KEYS)
constexpr bool force_staged_tiled = true;
#else
constexpr bool force_staged_tiled = false;
#endif
/// Whether ExecSpace takes the GPU walk.
template <class ExecSpace>
constexpr bool tiled_staged = is_gpu_space<ExecSpace>::value || force_staged_tiled;

/// The team size of the dimension-tiled walks on ExecSpace: tiled_team(rho)
/// on the GPU walk, 1 on host backends.
template <class ExecSpace>
int tiled_team_size(int rho) {
  return tiled_staged<ExecSpace> ? tiled_team(rho) : 1;
}

/// Team scratch of the staged coordinates (GPU walk): tiled_chunk
/// coordinates of the block's rows, then of its columns.
template <class Real>
KOKKOS_INLINE_FUNCTION constexpr std::size_t tiled_staging_bytes() {
  return 2 * sizeof(Real) * static_cast<std::size_t>(tiled_chunk) * static_cast<std::size_t>(tiled_stride);
}

/// A micro-tile's sums over coordinates [0, kn) of what load(k, a, b)
/// gives: coordinate k of its rows (a) and columns (b). Unrolled by 4 (a
/// whole chunk's kn is known at compile time) unless Lean: a walk that
/// needs the registers for what it does with the sums (pair_min_k_keys'
/// insertions) keeps the loop rolled.
template <bool Lean, class Real, class Load>
KOKKOS_FORCEINLINE_FUNCTION void tiled_accumulate(Real (&s)[tiled_rows][tiled_cols], const int kn, const Load& load) {
  constexpr int MR = tiled_rows, MC = tiled_cols;
  const auto step = [&](const int k) {
    Real a[MR], b[MC];
    load(k, a, b);
    for (int u = 0; u < MR; ++u)
      for (int w = 0; w < MC; ++w) {
        const Real t = a[u] - b[w];
        s[u][w] += t * t;
      }
  };
  if constexpr (Lean) {
    for (int k = 0; k < kn; ++k) step(k);
  } else {
    TDMAPS_UNROLL_BY(4)
    for (int k = 0; k < kn; ++k) step(k);
  }
}

/// The sums of block t of `rho` x `rho` pairs of the points x (d
/// coordinates, rows `stride` apart), micro-tile by micro-tile:
/// on_tile(s, r, c) with the sums s of micro-tile (r, c) (rows
/// tiled_rows r + u, columns tiled_cols c + w of the block; those past the
/// block's rows or columns hold sums of its last row or column, or of zeros:
/// on_tile skips them, and the pairs j >= i of a diagonal block).
/// Staged (GPU walk): every thread of the team calls it (its team barriers),
/// thread v < tiled_team(rho) gets micro-tile (v / (rho / tiled_cols),
/// v % (rho / tiled_cols)); srow and scol are tiled_staging_bytes() of team
/// scratch. A team that walks several blocks puts a team barrier between
/// them (the staging of the next overwrites what the last chunk reads).
/// Not staged: the team's one thread gets every micro-tile in turn.
/// Lean: the coordinates read one by one, the chunk loop rolled (tiled_accumulate).
template <bool Staged, bool Lean, class Member, class Real, class OnTile>
KOKKOS_FORCEINLINE_FUNCTION void tiled_block_sums(const Member& team, const Tile& t, const Real* const x0,
                                                  const std::size_t stride, const int d, const int rho,
                                                  Real* const srow, Real* const scol, const OnTile& on_tile) {
  constexpr int MR = tiled_rows, MC = tiled_cols, K = tiled_chunk, S = tiled_stride;
  static_assert(MR % 4 == 0 && MC % 4 == 0, "tdmaps: a micro-tile's sides are whole quads");
  using Quad = TiledQuad<Real>;
  const int RC = rho / MC;  // micro-tiles along a row of the block
  const int tiles = (rho / MR) * RC;
  if constexpr (Staged) {
    // One micro-tile per thread, its sums in registers across the chunks;
    // its rows' and columns' coordinates read as quads (Lean: one by one).
    const int v = team.team_rank();
    const int r = v / RC, c = v % RC;
    Real s[MR][MC] = {};
    const Quad* const qrow = reinterpret_cast<const Quad*>(srow + MR * r);
    const Quad* const qcol = reinterpret_cast<const Quad*>(scol + MC * c);
    const auto load = [&](const int k, Real(&a)[MR], Real(&b)[MC]) {
      if constexpr (Lean) {
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
    const Real* const xr = x0 + static_cast<std::size_t>(t.i0) * stride;  // the block's first row
    const Real* const xc = x0 + static_cast<std::size_t>(t.j0) * stride;  // and column
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
      if (v < tiles) tiled_accumulate<Lean>(s, count_of(size), load);
    };
    const int full = d - d % K;
    for (int k0 = 0; k0 < full; k0 += K) chunk(k0, std::integral_constant<int, K>());
    if (full < d) chunk(full, d - full);
    if (v < tiles) on_tile(s, r, c);
  } else {
    // One thread: every micro-tile in turn, the points read in place
    // (rows past the block's edge read its last row; on_tile skips them).
    (void)team, (void)srow, (void)scol;
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
      tiled_accumulate<Lean>(s, d, [&](const int k, Real(&av)[MR], Real(&bv)[MC]) {
        for (int u = 0; u < MR; ++u) av[u] = a[u][k];
        for (int w = 0; w < MC; ++w) bv[w] = b[w][k];
      });
      on_tile(s, r, c);
    }
  }
}

}  // namespace detail

}  // namespace tdmaps

#endif
