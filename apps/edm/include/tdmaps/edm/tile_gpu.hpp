#ifndef TDMAPS_EDM_TILE_GPU_HPP
#define TDMAPS_EDM_TILE_GPU_HPP

// TileKernel's GPU path (TileKernel::lane_tile: GPU backends, or host teams
// under TDMAPS_FORCE_LANE_TILE so that the tests check its index math), for
// d <= 4: the lane side's points in registers, the broadcast side's read
// from scratch with one vector load; whole 32 x 32 blocks walked by one warp
// with constant scratch offsets and a checked fp32 sqrt.

#include <tdmaps/edm/tile.hpp>

namespace tdmaps {
namespace edm {
namespace detail {

/// GPU tile, d = D <= 4. The full layout: each thread owns one column j
/// of the block (lanes along j, the direction in which the output is
/// contiguous), keeps that point in registers and walks its rows, reading
/// the row point from scratch with one broadcast vector load (gpu_rows).
///
/// Packed and condensed: a block's row (condensed: column) of rho values
/// starts anywhere in a memory sector there, so rho stores aligned to the
/// block would touch rho / 8 + 1 sectors (fp32), two of them shared with
/// the neighbouring blocks (slower than the full layout's aligned rows in
/// the edm/packed_d4_tile cases). Instead the block takes, in each of its
/// rows, the rho outputs of one aligned chunk: row i of block column bj covers
/// columns [bj rho - r_i, bj rho - r_i + rho), r_i = (address of (i, 0)) mod
/// rho, the diagonal block also the next chunk up to the diagonal, so each
/// warp row is one whole aligned run of rho values (gpu_rows_aligned,
/// gpu_columns_aligned). The block's rows of a row still partition it:
/// every element is written by exactly one block. The lane side's points
/// then vary by row: the 2 rho points around the block are staged (a
/// window) and each lane reads its point from scratch.
template <class ExecSpace, class Real>
template <int D, class Member>
KOKKOS_FORCEINLINE_FUNCTION void TileKernel<ExecSpace, Real>::gpu_tile(const Member& team, const Tile& t) const {
  using P = Point<D>;
  static_assert(alignof(P) <= tile_scratch_alignment, "Tile::scratch is not aligned enough for Point<D>");
  P* staged = static_cast<P*>(t.scratch);
  const bool condensed = e.layout == Layout::condensed;
  const bool full = e.layout == Layout::full;
  // staged[0, rho): the broadcast side (rows for packed / full, columns for
  // condensed); staged[rho, 3 rho): packed / condensed, the window of the
  // lane side, from a block side before the block's first column (row).
  const index_t b0 = condensed ? t.j0 : t.i0;
  const index_t w0 = (condensed ? t.i0 : t.j0) - rho;
  const int points = full ? rho : 3 * rho;
  if constexpr (D != 3) {
    // Every staged point inside [0, n) and x vector-aligned (the blocks
    // away from the edges): one vector load and one store per point, no
    // tests (the general loop below tests and converts every index).
    if (x_vector && b0 + rho <= e.n && (full || (w0 >= 0 && w0 + 2 * rho <= e.n))) {
      const P* const xp = reinterpret_cast<const P*>(e.x.data());
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rho), [&](const int p) {
        staged[p] = xp[b0 + p];
        if (!full) {
          staged[rho + p] = xp[w0 + p];
          staged[2 * rho + p] = xp[w0 + rho + p];
        }
      });
      team.team_barrier();
      return walk<D>(team, t, staged);
    }
  }
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, points), [&](const int p) {
    const index_t g = p < rho ? b0 + p : w0 + (p - rho);
    staged[p] = g >= 0 && g < e.n ? load_point<D>(g) : P{};
  });
  team.team_barrier();
  walk<D>(team, t, staged);
}

template <class ExecSpace, class Real>
template <int D, class Member>
KOKKOS_FORCEINLINE_FUNCTION void TileKernel<ExecSpace, Real>::walk(const Member& team, const Tile& t,
                                                              const Point<D>* staged) const {
  if (e.layout == Layout::condensed) gpu_columns_aligned<D>(team, t, staged, staged + rho);
  else if (e.layout == Layout::packed) gpu_rows_aligned<D>(team, t, staged, staged + rho);
  else if (!e.symmetric) gpu_rows<D, false>(team, t, staged);
  else gpu_rows<D, true>(team, t, staged);
}

/// Point g of x as a padded point: one vector load where x allows it.
template <class ExecSpace, class Real>
template <int D>
KOKKOS_FORCEINLINE_FUNCTION auto TileKernel<ExecSpace, Real>::load_point(index_t g) const -> Point<D> {
  if constexpr (D != 3) {
    if (x_vector) return reinterpret_cast<const Point<D>*>(e.x.data())[g];
  }
  Point<D> q{};
  for (int k = 0; k < D; ++k) q.c[k] = e.x(g, k);
  return q;
}

/// Low bits of the element address of out(0): the chunk grid of
/// gpu_rows_aligned / gpu_columns_aligned follows memory, not indices.
template <class ExecSpace, class Real>
KOKKOS_FORCEINLINE_FUNCTION unsigned TileKernel<ExecSpace, Real>::out_phase() const {
  return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(e.out.data()) / sizeof(Real));
}

template <class ExecSpace, class Real>
template <int D>
KOKKOS_FORCEINLINE_FUNCTION Real TileKernel<ExecSpace, Real>::gpu_sq_dist(const Point<D> a, const Point<D> b) {
  Real s = 0;
  for (int k = 0; k < D; ++k) {
    const Real u = b.c[k] - a.c[k];
    s += u * u;
  }
  return s;
}

template <class ExecSpace, class Real>
template <int D>
KOKKOS_FORCEINLINE_FUNCTION Real TileKernel<ExecSpace, Real>::gpu_dist2(const Point<D> a, const Point<D> b) {
  return sqrt_real(gpu_sq_dist<D>(a, b));
}

/// The distance of the whole-block walks: Checked, the fp32 sqrt without
/// its special-case branch, `odd` set where the squared distance needs it
/// (intrinsics::sqrt_rn_or_flag; coincident points, tiny or non-finite
/// distances), so the walk tests once per block instead of branching per
/// value (a test per value is a sizeable part of a row's work); else
/// (and for double) sqrt_real.
template <class ExecSpace, class Real>
template <bool Checked>
KOKKOS_FORCEINLINE_FUNCTION Real TileKernel<ExecSpace, Real>::walk_sqrt(Real s, bool& odd) {
  if constexpr (Checked && std::is_same<Real, float>::value) return tdmaps::intrinsics::sqrt_rn_or_flag(s, odd);
  (void)odd;
  return sqrt_real(s);
}

/// The whole-block walk of gpu_rows_aligned / gpu_columns_aligned: 32
/// rows (columns) k, fixed[k] the broadcast point; q the address of the
/// row's first value before the shift, moving by next, next + dnext, ...
/// values; mine = window + 32 + lane. A lane whose checked pass met an odd
/// value walks again with sqrt_real (same addresses: its own stores, in
/// order).
template <class ExecSpace, class Real>
template <int D>
KOKKOS_FORCEINLINE_FUNCTION void TileKernel<ExecSpace, Real>::walk_chunks(const Point<D>* fixed, const Point<D>* mine,
                                                                     int lane, std::uintptr_t q, unsigned next,
                                                                     int dnext) const {
  if (walk_chunks_pass<D, true>(fixed, mine, lane, q, next, dnext))
    walk_chunks_pass<D, false>(fixed, mine, lane, q, next, dnext);
}

template <class ExecSpace, class Real>
template <int D, bool Checked>
KOKKOS_FORCEINLINE_FUNCTION bool TileKernel<ExecSpace, Real>::walk_chunks_pass(const Point<D>* fixed,
                                                                          const Point<D>* mine, int lane,
                                                                          std::uintptr_t q, unsigned next,
                                                                          int dnext) const {
  constexpr std::uintptr_t chunk = 32 * sizeof(Real);
  constexpr unsigned scale = sizeof(Point<D>) / sizeof(Real);  // window bytes per output byte
  const std::uintptr_t lane_bytes = static_cast<std::uintptr_t>(lane) * sizeof(Real);
  const char* const m = reinterpret_cast<const char*>(mine);
  bool odd = false;
TDMAPS_UNROLL_BY(8)
  for (int k = 0; k < 32; ++k) {
    const unsigned rb = static_cast<unsigned>(q) & static_cast<unsigned>(chunk - 1);  // r sizeof(Real)
    const Point<D> c = *reinterpret_cast<const Point<D>*>(m - rb * scale);
    *reinterpret_cast<Real*>((q & ~(chunk - 1)) | lane_bytes) = walk_sqrt<Checked>(gpu_sq_dist<D>(fixed[k], c), odd);
    q += static_cast<std::uintptr_t>(next) * sizeof(Real);
    next += static_cast<unsigned>(dnext);
  }
  return odd;
}

/// Packed (lower triangle incl. diagonal, (i, j) at T(i) + j): lanes along
/// the row, each thread walks rows ti = first, first + step, ...; in row i
/// lane L writes column j = j0 + c rho - r_i + L (chunk c = 0, and c = 1 on
/// the diagonal block), where r_i = (phase + T(i)) mod rho; j < 0 (block
/// column 0) and j > i are the neighbouring rows' and not written.
template <class ExecSpace, class Real>
template <int D, class Member>
KOKKOS_FORCEINLINE_FUNCTION void TileKernel<ExecSpace, Real>::gpu_rows_aligned(const Member& team, const Tile& t,
                                                                          const Point<D>* rows,
                                                                          const Point<D>* window) const {
  Real* const out = e.out.data();
  const unsigned phase = out_phase();
  const int mask = rho - 1;
  for_each_lane(team, log2_block_side(rho), [&](const int lane, const int first, const int step) {
    if (step == 1 && rho == 32 && t.rows == 32 && !t.diagonal() && t.j0 > 0) {
      // A whole off-diagonal block away from column 0, walked by one warp:
      // every lane's column is inside the triangle (no test). q is the
      // address of (i0 + ti, j0) before the shift; the row's chunk starts
      // at q rounded down to 32 values, r = (q mod chunk) / sizeof(Real),
      // and lane L stores at chunk | L sizeof(Real) (an OR: the chunk is
      // aligned). From row i to i + 1, q moves by T(i + 1) - T(i) = i + 1
      // values. Address arithmetic this way is a 32-bit add and an OR per
      // row, where 64-bit index arithmetic needs wide multiplies and adds.
      std::uintptr_t q = reinterpret_cast<std::uintptr_t>(out + (tri(t.i0) + t.j0));
      walk_chunks<D>(rows, window + 32 + lane, lane, q, static_cast<unsigned>(t.i0) + 1u, 1);
      return;
    }
    const int chunks = t.diagonal() ? 2 : 1;
    for (int ti = first; ti < t.rows; ti += step) {
      const index_t i = t.i0 + ti;
      const index_t at = tri(i);
      const int r = static_cast<int>((phase + static_cast<unsigned>(at)) & static_cast<unsigned>(mask));
      for (int c = 0; c < chunks; ++c) {
        const int w = rho + c * rho - r + lane;  // window index: j - (j0 - rho)
        const index_t j = t.j0 - rho + w;
        if (j < 0 || j > i) continue;
        out[at + j] = gpu_dist2<D>(rows[ti], window[w]);
      }
    }
  });
}

/// Condensed (strict lower triangle, column j contiguous: (i, j) at C(j) +
/// i, C(j) = n j - T(j) - j - 1): lanes along the column, each thread walks
/// columns tj = first, first + step, ...; in column j lane L writes row i =
/// i0 + c rho - r_j + L (chunk c = 0, and c = 1 on the last block row, where
/// the column's last chunk passes the block), r_j = (phase + C(j)) mod rho;
/// i <= j and i >= n are not written.
template <class ExecSpace, class Real>
template <int D, class Member>
KOKKOS_FORCEINLINE_FUNCTION void TileKernel<ExecSpace, Real>::gpu_columns_aligned(const Member& team, const Tile& t,
                                                                             const Point<D>* cols,
                                                                             const Point<D>* window) const {
  const index_t n = e.n;
  Real* const out = e.out.data();
  const unsigned phase = out_phase();
  const int mask = rho - 1;
  for_each_lane(team, log2_block_side(rho), [&](const int lane, const int first, const int step) {
    if (step == 1 && rho == 32 && t.cols == 32 && t.i0 >= t.j0 + 64 && t.i0 + 32 < n) {
      // A block two or more block rows below the diagonal, not on the last
      // block row, walked by one warp: every lane's row is inside the
      // triangle (no test); as in gpu_rows_aligned, q is the address of
      // (i0, j0 + tj) before the shift, moving by C(j + 1) - C(j) = n - j - 2.
      std::uintptr_t q = reinterpret_cast<std::uintptr_t>(out + (condensed_index(n, 0, t.j0) + t.i0));
      walk_chunks<D>(cols, window + 32 + lane, lane, q, static_cast<unsigned>(n - t.j0 - 2), -1);
      return;
    }
    const int chunks = t.i0 + rho >= n ? 2 : 1;
    for (int tj = first; tj < t.cols; tj += step) {
      const index_t j = t.j0 + tj;
      const index_t at = condensed_index(n, 0, j);  // C(j): (i, j) is at C(j) + i
      const int r = static_cast<int>((phase + static_cast<unsigned>(at)) & static_cast<unsigned>(mask));
      for (int c = 0; c < chunks; ++c) {
        const int w = rho + c * rho - r + lane;  // window index: i - (i0 - rho)
        const index_t i = t.i0 - rho + w;
        if (i <= j || i >= n) continue;
        out[at + i] = gpu_dist2<D>(cols[tj], window[w]);
      }
    }
  });
}

/// o by value: the caller's copy from scratch is one vector load.
template <class ExecSpace, class Real>
template <int D, bool Checked>
KOKKOS_FORCEINLINE_FUNCTION Real TileKernel<ExecSpace, Real>::gpu_dist(const Real (&mine)[D], const Point<D> o,
                                                                  bool& odd) {
  Real s = 0;
  for (int k = 0; k < D; ++k) {
    const Real u = mine[k] - o.c[k];
    s += u * u;
  }
  return walk_sqrt<Checked>(s, odd);
}

/// The whole-block walk of gpu_rows: 32 rows from `row`, the lane's column
/// point in `mine`; as walk_chunks, whether an odd value came up. Checked:
/// unrolled (scratch offsets are constants); the rare second pass is a
/// plain loop (unrolled too, it made ptxas spill).
template <class ExecSpace, class Real>
template <int D, bool Mirror, bool Checked>
KOKKOS_FORCEINLINE_FUNCTION bool TileKernel<ExecSpace, Real>::walk_rows_pass(const Real (&mine)[D],
                                                                        const Point<D>* staged, Real* row,
                                                                        Real* mirror, index_t n) const {
  bool odd = false;
  if constexpr (Checked) {
TDMAPS_UNROLL
    for (int ti = 0; ti < 32; ++ti) {
      const Real v = gpu_dist<D, true>(mine, staged[ti], odd);
      *row = v;
      if constexpr (Mirror) mirror[ti] = v;  // (j, i), i != j off the diagonal
      row += n;
    }
  } else {
TDMAPS_UNROLL_BY(1)
    for (int ti = 0; ti < 32; ++ti) {
      const Real v = gpu_dist<D, false>(mine, staged[ti], odd);
      *row = v;
      if constexpr (Mirror) mirror[ti] = v;
      row += n;
    }
  }
  return odd;
}

/// Full (rows of n values, (i, j) at i n + j): lanes along j, each thread
/// walks rows ti = first, first + step, ...
template <class ExecSpace, class Real>
template <int D, bool Mirror, class Member>
KOKKOS_FORCEINLINE_FUNCTION void TileKernel<ExecSpace, Real>::gpu_rows(const Member& team, const Tile& t,
                                                                  const Point<D>* staged) const {
  const index_t n = e.n;
  Real* const out = e.out.data();
  for_each_lane(team, log2_block_side(rho), [&](const int lane, const int first, const int step) {
    if (lane >= t.cols) return;
    const index_t j = t.j0 + lane;
    Real mine[D];
    for (int k = 0; k < D; ++k) mine[k] = e.x(j, k);
    if (step == 1 && t.rows == 32 && !t.diagonal()) {
      // A whole off-diagonal block of side 32 walked by one warp: the loop
      // is unrolled and the scratch offsets are constants, so an element is
      // one broadcast load, D subtractions, D multiply-adds, the sqrt, a
      // pointer add and a store.
      Real* const row = out + (t.i0 * n + j);
      Real* const mirror = Mirror ? out + (j * n + t.i0) : nullptr;
      if (walk_rows_pass<D, Mirror, true>(mine, staged, row, mirror, n))
        walk_rows_pass<D, Mirror, false>(mine, staged, row, mirror, n);
      return;
    }
    // Lower triangle incl. diagonal: on a diagonal block, rows ti >= lane.
    int ti = t.diagonal() ? first_row_from(first, step, lane) : first;
    index_t i = t.i0 + ti;
    Real* at = out + (i * n + j);
    const index_t delta = index_t(step) * n;
    for (; ti < t.rows; ti += step) {
      const Point<D> o = staged[ti];
      bool unused = false;
      const Real v = gpu_dist<D>(mine, o, unused);
      *at = v;
      if constexpr (Mirror) {
        // The mirror (j, i) of a full symmetric matrix; the diagonal once.
        if (i != j) out[j * n + i] = v;
        i += step;
      }
      at += delta;
    }
  });
}

}  // namespace detail
}  // namespace edm
}  // namespace tdmaps

#endif
