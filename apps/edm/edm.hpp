#ifndef TDMAPS_APPS_EDM_EDM_HPP
#define TDMAPS_APPS_EDM_EDM_HPP

// Euclidean distance matrix of n points in d dimensions on a tdmaps map.
//
//   tdmaps::edm::edm(space, points, out, map, layout[, kernel[, symmetric[, hints]]])
//
// points: Kokkos::View<Real**, LayoutRight> n x d (Real = float or double),
// out: Kokkos::View<Real*> of output_size(layout, n) elements,
// map: any tdmaps map over make_domain(n, rho, layout).
//
// Layouts (Layout::...):
//   packed     lower triangle incl. diagonal, (i, j) at T(i) + j, j <= i;
//              T(n) elements (the lambda order).
//   condensed  SciPy's pdist / PyTorch's pdist order: the strict upper
//              triangle row by row, pair (j, i) with j < i at
//              n j - j (j + 1) / 2 + i - j - 1; n (n - 1) / 2 elements; no diagonal.
//   full       n x n row-major; the lower triangle incl. diagonal is written,
//              and the upper one too when symmetric = true (otherwise the
//              upper triangle is left as it was).
//
// Kernels (Kernel::...):
//   element    kernel(i, j) per pair, points read from global memory; runs
//              under every map (UTM included).
//   tile       one team per block: the block's rho row points and rho column
//              points are staged in team scratch (struct-of-arrays), then every
//              element of the block reads scratch only. Block-space maps only.
//              Loop orientation follows the layout so stores are contiguous
//              (lanes along j for packed/full, along i for condensed), and a
//              condensed output takes the blocks in a sheared order so that
//              consecutive blocks continue the same columns (TileKernel::
//              condensed_order; about 4x faster on host than the map's order).
//              On GPU backends with d <= 4 (TileKernel::gpu_tile) only the
//              block's rows (condensed: columns) are staged, as padded points
//              read with one vector load, and each thread keeps its column's
//              (row's) point in registers and walks its rows.
//   gemm       |x|^2 + |y|^2 - 2 X X^T with KokkosBlas::gemm, in row panels
//              (needs Kokkos Kernels: TDMAPS_EDM_HAVE_KOKKOSKERNELS), as
//              accurate as the element kernel. The Gram formula alone is not:
//              its squared distance s = N_i + N_j - 2 G_ij is off by up to
//              about d eps (N_i + N_j), N_i = |x_i|^2, which is everything for
//              points far from the origin or close together. So the points
//              are centred on their mean (fp64), G and N are computed in fp64
//              for fp32 points too, and s has the rigorous bound
//              |error| <= gamma (N_i + N_j), gamma = (4 d + 16) 2^-53 (a
//              safety factor 2 included; derivation at impl::GemmAccuracy).
//              A pair takes sqrt(s) only where s >= K (N_i + N_j), K =
//              gamma / tol_s, i.e. where s is within a relative tol_s (fp32:
//              2^-26, the distance correctly rounded or one float off; fp64:
//              8 (d + 2) 2^-53, within the direct kernels' tolerance, K <=
//              5/6); every other pair (close points, clusters, duplicates,
//              NaN, Inf or overflowing points, tiny distances) and the
//              diagonal are recomputed from the original points with the
//              element kernel's formula (impl::direct_dist, bit-identical).
//              Zero distances are exactly 0. Device memory besides points and
//              out: gemm_workspace_bytes<Real>(n, d) bytes (a centred fp64
//              copy of the points, n norms, d means, a Gram panel of at most
//              64 MiB or one row).
//   linear     packed and condensed layouts: the output in its memory order,
//              4 consecutive values per thread (tdmaps::for_each_run: the
//              lambda formula at element granularity finds a thread's first
//              (i, j), then it steps), one 16-byte store per thread (fp32).
//              Uses the map's domain only, not its blocks. Its stores are
//              whole memory sectors, which a tile's rows of a packed or
//              condensed output are not (a block's row starts anywhere in a
//              sector); measured on the H100 in perf_tests/README.md.
//   automatic  tile on block-space maps whose scratch fits (the fastest
//              measured wherever it fits), else gemm when d >= gemm_min_dims
//              and Kokkos Kernels is there, else element: always exact to
//              the element kernel's tolerance, whichever it takes.
//
// The dimension d = 1..4 runs code specialised at compile time (template
// int D; D = 0 is the run-time-d loop) selected by a kernel-uniform branch
// inside one kernel instantiation, so each (map, Real, kernel) is compiled once.
//
// Non-finite inputs follow SciPy (direct formula, no special cases): a NaN
// coordinate makes every distance of that point NaN (its diagonal entry too:
// NaN - NaN); +-Inf gives Inf against finite points and NaN against a point
// with an Inf of the same sign in the same coordinate (Inf - Inf). Every
// kernel gives exactly that: the gemm path recomputes each pair of a
// non-finite point with the direct formula (its norm is not finite), and
// leaves such points out of the mean.
//
// edm() launches on `space` and returns without fencing (the gemm path fences,
// since Kokkos Kernels 3.4's gemm has no execution-space-instance argument).

#include <tdmaps/tdmaps.hpp>

#include <Kokkos_Core.hpp>

#if defined(TDMAPS_EDM_HAVE_KOKKOSKERNELS)
#include <KokkosBlas3_gemm.hpp>
#endif

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace edm {

enum class Layout { packed, condensed, full };
enum class Kernel { element, tile, gemm, automatic, linear };

/// Kernel::automatic takes the tile kernel wherever it can (block-space map,
/// scratch fits), else the gemm kernel from d = gemm_min_dims<ExecSpace>()
/// on, else the element kernel. Every one of them is exact to the element
/// kernel's tolerance (the gemm path recomputes the pairs its error bound
/// does not vouch for), so these thresholds are about speed alone. With
/// Kokkos Kernels 3.4's own gemm (no vendor BLAS or cuBLAS TPL) the tile
/// kernel was faster than gemm at every d where its scratch fits, on host
/// and on the H100.
///
/// host_gemm_min_dims: the first d at which the gemm path (an fp64 Gram
/// matrix for both precisions) is faster than the element kernel in both
/// precisions, OpenMP on a 2-core development machine, n = 4096 random
/// points, condensed, lambda map at block side 32 (where the tile's scratch
/// no longer fits): the element kernel is faster up to d = 160, the two are
/// about even at d = 192 (the element kernel, which needs no workspace,
/// keeps it), gemm is ahead from d = 224 on. The fp32 element kernel is not
/// faster than the fp64 one on host (it is not vectorised across pairs), so
/// one threshold serves both. gpu_gemm_min_dims: H100, n = 16384, fp32,
/// block side 16, where the gemm path still computed its Gram matrix in fp32
/// (gemm ahead of the element kernel from d = 32 on); not re-measured with
/// the fp64 Gram matrix, which costs the fp32 case more there.
///
/// with: for d in ...; do for k in element gemm; do
///         tdmaps-edm --random N --dims $d --kernel $k --precision P --repeat 3 --json; done; done
constexpr int host_gemm_min_dims = 224;
constexpr int gpu_gemm_min_dims = 32;

template <class ExecSpace>
constexpr int gemm_min_dims() {
  return is_gpu_space<ExecSpace>::value ? gpu_gemm_min_dims : host_gemm_min_dims;
}

inline bool has_gemm() {
#if defined(TDMAPS_EDM_HAVE_KOKKOSKERNELS)
  return true;
#else
  return false;
#endif
}

inline const char* layout_name(Layout l) {
  return l == Layout::packed ? "packed" : l == Layout::condensed ? "condensed" : "full";
}
inline const char* kernel_name(Kernel k) {
  return k == Kernel::element  ? "element"
         : k == Kernel::tile   ? "tile"
         : k == Kernel::gemm   ? "gemm"
         : k == Kernel::linear ? "linear"
                               : "auto";
}

/// Number of output elements of a layout for n points.
inline index_t output_size(Layout l, index_t n) {
  if (l == Layout::packed) return tri(n);
  if (l == Layout::condensed) return n > 0 ? tri(n - 1) : 0;
  return n * n;
}

/// The triangle a layout needs: condensed skips the diagonal.
inline Triangle layout_triangle(Layout l) { return l == Layout::condensed ? Triangle::strict_lower : Triangle::lower; }

/// The domain of a map for an EDM of n points in this layout.
inline Domain2 make_domain(index_t n, int rho, Layout l) { return Domain2(n, rho, layout_triangle(l)); }

/// Position of pair (i, j), j < i, in the condensed (pdist) layout.
KOKKOS_FORCEINLINE_FUNCTION index_t condensed_index(index_t n, index_t i, index_t j) {
  return n * j - j * (j + 1) / 2 + i - j - 1;
}

namespace impl {

template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Real sqrt_real(Real x) {
  return tdmaps::sqrt_of(x);
}

/// Squared distance of rows i and j of a LayoutRight n x d view; D > 0 fixes d.
template <int D, class Real, class Points>
KOKKOS_FORCEINLINE_FUNCTION Real sq_dist_rows(const Points& x, index_t i, index_t j, int d) {
  const int dd = D > 0 ? D : d;
  Real s = 0;
  for (int k = 0; k < dd; ++k) {
    const Real t = x(i, k) - x(j, k);
    s += t * t;
  }
  return s;
}

/// The element kernel's distance of rows i and j: d = 1..4 specialised at
/// compile time (a branch uniform over the launch). The gemm path recomputes
/// its uncertain pairs with this same function, so those pairs, NaN and Inf
/// included, are bit-identical to the element kernel's.
template <class Real, class Points>
KOKKOS_FORCEINLINE_FUNCTION Real direct_dist(const Points& x, index_t i, index_t j, int d) {
  switch (d) {
    case 1: return sqrt_real(sq_dist_rows<1, Real>(x, i, j, d));
    case 2: return sqrt_real(sq_dist_rows<2, Real>(x, i, j, d));
    case 3: return sqrt_real(sq_dist_rows<3, Real>(x, i, j, d));
    case 4: return sqrt_real(sq_dist_rows<4, Real>(x, i, j, d));
    default: return sqrt_real(sq_dist_rows<0, Real>(x, i, j, d));
  }
}

/// Squared distance of two points staged struct-of-arrays: coordinate k of
/// block-local point t at a[k * stride + t].
template <int D, class Real>
KOKKOS_FORCEINLINE_FUNCTION Real sq_dist_soa(const Real* a, int ta, const Real* b, int tb, int stride, int d) {
  const int dd = D > 0 ? D : d;
  Real s = 0;
  for (int k = 0; k < dd; ++k) {
    const Real t = a[k * stride + ta] - b[k * stride + tb];
    s += t * t;
  }
  return s;
}

template <class Real, class MemorySpace>
struct EdmData {
  Kokkos::View<const Real**, Kokkos::LayoutRight, MemorySpace> x;
  Kokkos::View<Real*, MemorySpace> out;
  index_t n = 0;
  int d = 0;
  Layout layout = Layout::packed;
  bool symmetric = false;

  KOKKOS_FORCEINLINE_FUNCTION void store(index_t i, index_t j, Real v) const {
    if (layout == Layout::packed) out(tri(i) + j) = v;
    else if (layout == Layout::condensed) out(condensed_index(n, i, j)) = v;
    else {
      out(i * n + j) = v;
      if (symmetric && i != j) out(j * n + i) = v;
    }
  }
};

/// Element kernel: one pair, points from global memory.
template <class Real, class MemorySpace>
struct ElementKernel {
  EdmData<Real, MemorySpace> e;

  KOKKOS_FUNCTION void operator()(index_t i, index_t j) const {
    // A condensed output has no diagonal; a map over the full lower
    // triangle may still hand it over.
    if (e.layout == Layout::condensed && i == j) return;
    e.store(i, j, direct_dist<Real>(e.x, i, j, e.d));
  }
};

/// A point of D <= 4 coordinates padded to a power of two and aligned to its
/// size, so one vector load (LDS/LDG.64/128 on CUDA) reads it.
template <class Real, int D>
struct alignas(sizeof(Real) * (D == 3 ? 4 : D)) PaddedPoint {
  Real c[D == 3 ? 4 : D];
};

/// Linear kernel: a run of run_width consecutive outputs of the packed
/// (rows order) or condensed (columns order) layout per thread. The fixed
/// point (row i for packed, column j for condensed) is loaded once and again
/// only where the run crosses into the next row / column; the moving points
/// are consecutive rows of x, read as padded points with one vector load
/// where the layout allows it (d = 1, 2, 4 and x aligned).
template <class Real, class MemorySpace>
struct RunKernel {
  static constexpr int run_width = 4;
  struct alignas(run_width * sizeof(Real)) Values {
    Real v[run_width];
  };

  EdmData<Real, MemorySpace> e;
  RunOrder order = RunOrder::rows;
  Triangle triangle = Triangle::lower;
  bool vector_store = false;  ///< out.data() aligned to sizeof(Values)
  bool vector_load = false;   ///< x.data() aligned to sizeof(PaddedPoint<Real, d>), d in {1, 2, 4}

  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION void load(index_t p, Real (&c)[D]) const {
    if constexpr (D == 1 || D == 2 || D == 4) {
      if (vector_load) {
        const PaddedPoint<Real, D> q = reinterpret_cast<const PaddedPoint<Real, D>*>(e.x.data())[p];
        for (int k = 0; k < D; ++k) c[k] = q.c[k];
        return;
      }
    }
    for (int k = 0; k < D; ++k) c[k] = e.x(p, k);
  }

  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION void run(const Run& r) const {
    const bool columns = order == RunOrder::columns;
    index_t i = r.i, j = r.j;
    index_t fixed = columns ? j : i;
    Real f[D];
    load<D>(fixed, f);
    Values out;
    TDMAPS_UNROLL
    for (int s = 0; s < run_width; ++s) {
      if (s < r.count) {
        const index_t now = columns ? j : i;
        if (now != fixed) {  // the run went on into the next row (column)
          fixed = now;
          load<D>(fixed, f);
        }
        Real m[D];
        load<D>(columns ? i : j, m);
        Real sum = 0;
        for (int k = 0; k < D; ++k) {
          const Real u = m[k] - f[k];
          sum += u * u;
        }
        out.v[s] = sqrt_real(sum);
        run_next(e.n, triangle, order, i, j);
      }
    }
    Real* const at = e.out.data() + r.k0;
    if (r.count == run_width && vector_store) {
      *reinterpret_cast<Values*>(at) = out;
    } else {
      TDMAPS_UNROLL  // constant indices keep `out` in registers
      for (int s = 0; s < run_width; ++s)
        if (s < r.count) at[s] = out.v[s];
    }
  }

  /// Run-time d: coordinates from x as stored.
  KOKKOS_FORCEINLINE_FUNCTION void run_any(const Run& r) const {
    index_t i = r.i, j = r.j;
    for (int s = 0; s < r.count; ++s) {
      e.out(r.k0 + s) = sqrt_real(sq_dist_rows<0, Real>(e.x, i, j, e.d));
      run_next(e.n, triangle, order, i, j);
    }
  }

  KOKKOS_FUNCTION void operator()(const Run& r) const {
    switch (e.d) {  // uniform over the launch
      case 1: return run<1>(r);
      case 2: return run<2>(r);
      case 3: return run<3>(r);
      case 4: return run<4>(r);
      default: return run_any(r);
    }
  }
};

/// Tile kernel: stage the block's row and column points in team scratch,
/// then compute the block from scratch.
template <class ExecSpace, class Real>
struct TileKernel {
  using memory_space = typename ExecSpace::memory_space;
  using scratch_view =
      Kokkos::View<Real*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  EdmData<Real, memory_space> e;
  int rho = 8;
  bool x_vector = false;  ///< x.data() aligned to sizeof(Point<d>), d in {1, 2, 4}: one vector load per point

  // The GPU path (gpu_tile) for d <= 4; TDMAPS_FORCE_LANE_TILE runs it on
  // host teams too, so its index math can be tested without a GPU.
#if defined(TDMAPS_FORCE_LANE_TILE)
  static constexpr bool lane_tile = true;
#else
  static constexpr bool lane_tile = is_gpu_space<ExecSpace>::value;
#endif

  static std::size_t scratch_bytes(int rho, int d) {
    // Host, and GPU d > 4: rho row and rho column points, struct-of-arrays.
    const std::size_t soa = 2 * static_cast<std::size_t>(rho) * static_cast<std::size_t>(d) * sizeof(Real);
    // GPU d <= 4: 3 rho points of 4 padded coordinates (Tile::scratch is
    // aligned): the broadcast side and the lane side's window (gpu_tile).
    const std::size_t aos = 3 * static_cast<std::size_t>(rho) * 4 * sizeof(Real);
    return soa > aos ? soa : aos;
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team, const Tile& mapped) const {
    const Tile t = e.layout == Layout::condensed ? condensed_order(mapped) : mapped;
    if constexpr (lane_tile) {
      switch (e.d) {  // uniform over the launch
        case 1: return gpu_tile<1>(team, t);
        case 2: return gpu_tile<2>(team, t);
        case 3: return gpu_tile<3>(team, t);
        case 4: return gpu_tile<4>(team, t);
        default: break;
      }
    }
    scratch_view rows(static_cast<Real*>(t.scratch), static_cast<std::size_t>(rho) * e.d);
    scratch_view cols(static_cast<Real*>(t.scratch) + static_cast<std::size_t>(rho) * e.d,
                      static_cast<std::size_t>(rho) * e.d);
    // Coalesced loads (consecutive e = (point, k) are consecutive in memory),
    // struct-of-arrays stores (lanes of the compute loop read consecutively).
    const int d = e.d;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, t.rows * d), [&](const int q) {
      const int p = q / d, k = q - p * d;
      rows(k * rho + p) = e.x(t.i0 + p, k);
    });
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, t.cols * d), [&](const int q) {
      const int p = q / d, k = q - p * d;
      cols(k * rho + p) = e.x(t.j0 + p, k);
    });
    team.team_barrier();
    switch (d) {  // uniform over the launch
      case 1: compute<1>(team, t, rows.data(), cols.data()); break;
      case 2: compute<2>(team, t, rows.data(), cols.data()); break;
      case 3: compute<3>(team, t, rows.data(), cols.data()); break;
      case 4: compute<4>(team, t, rows.data(), cols.data()); break;
      default: compute<0>(team, t, rows.data(), cols.data()); break;
    }
  }

  /// A point of D <= 4 coordinates padded to a power of two and aligned to
  /// its size, so one vector load (LDS.64/128) reads it from scratch.
  template <int D>
  using Point = PaddedPoint<Real, D>;

  /// GPU tile, d = D <= 4. The full layout: each thread owns one column j
  /// of the block (lanes along j, the direction in which the output is
  /// contiguous), keeps that point in registers and walks its rows, reading
  /// the row point from scratch with one broadcast vector load (gpu_rows).
  ///
  /// Packed and condensed: a block's row (condensed: column) of rho values
  /// starts anywhere in a memory sector there, so rho stores aligned to the
  /// block would touch rho / 8 + 1 sectors (fp32), two of them shared with
  /// the neighbouring blocks (measured: about 1.45x the time of the aligned
  /// full layout on the H100). Instead the block takes, in each of its rows,
  /// the rho outputs of one aligned chunk: row i of block column bj covers
  /// columns [bj rho - r_i, bj rho - r_i + rho), r_i = (address of (i, 0)) mod
  /// rho, the diagonal block also the next chunk up to the diagonal, so each
  /// warp row is one whole aligned run of rho values (gpu_rows_aligned,
  /// gpu_columns_aligned). The block's rows of a row still partition it:
  /// every element is written by exactly one block. The lane side's points
  /// then vary by row: the 2 rho points around the block are staged (a
  /// window) and each lane reads its point from scratch.
  template <int D, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void gpu_tile(const Member& team, const Tile& t) const {
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
      // tests (the general loop below cost ~100 instructions per block).
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

  template <int D, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void walk(const Member& team, const Tile& t, const Point<D>* staged) const {
    if (e.layout == Layout::condensed) gpu_columns_aligned<D>(team, t, staged, staged + rho);
    else if (e.layout == Layout::packed) gpu_rows_aligned<D>(team, t, staged, staged + rho);
    else if (!e.symmetric) gpu_rows<D, false>(team, t, staged);
    else gpu_rows<D, true>(team, t, staged);
  }

  /// Point g of x as a padded point: one vector load where x allows it.
  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION Point<D> load_point(index_t g) const {
    if constexpr (D != 3) {
      if (x_vector) return reinterpret_cast<const Point<D>*>(e.x.data())[g];
    }
    Point<D> q{};
    for (int k = 0; k < D; ++k) q.c[k] = e.x(g, k);
    return q;
  }

  /// Low bits of the element address of out(0): the chunk grid of
  /// gpu_rows_aligned / gpu_columns_aligned follows memory, not indices.
  KOKKOS_FORCEINLINE_FUNCTION unsigned out_phase() const {
    return static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(e.out.data()) / sizeof(Real));
  }

  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION static Real gpu_sq_dist(const Point<D> a, const Point<D> b) {
    Real s = 0;
    for (int k = 0; k < D; ++k) {
      const Real u = b.c[k] - a.c[k];
      s += u * u;
    }
    return s;
  }
  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION static Real gpu_dist2(const Point<D> a, const Point<D> b) {
    return sqrt_real(gpu_sq_dist<D>(a, b));
  }

  /// The distance of the whole-block walks: Checked, the fp32 sqrt without
  /// its special-case branch, `odd` set where the squared distance needs it
  /// (intrinsics::sqrt_rn_or_flag; coincident points, tiny or non-finite
  /// distances), so the walk tests once per block instead of branching per
  /// value (3 of the ~30 instructions of a row, Nsight Compute SASS); else
  /// (and for double) sqrt_real.
  template <bool Checked>
  KOKKOS_FORCEINLINE_FUNCTION static Real walk_sqrt(Real s, bool& odd) {
    if constexpr (Checked && std::is_same<Real, float>::value) return intrinsics::sqrt_rn_or_flag(s, odd);
    (void)odd;
    return sqrt_real(s);
  }

  /// The whole-block walk of gpu_rows_aligned / gpu_columns_aligned: 32
  /// rows (columns) k, fixed[k] the broadcast point; q the address of the
  /// row's first value before the shift, moving by next, next + dnext, ...
  /// values; mine = window + 32 + lane. A lane whose checked pass met an odd
  /// value walks again with sqrt_real (same addresses: its own stores, in
  /// order).
  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION void walk_chunks(const Point<D>* fixed, const Point<D>* mine, int lane,
                                               std::uintptr_t q, unsigned next, int dnext) const {
    if (walk_chunks_pass<D, true>(fixed, mine, lane, q, next, dnext))
      walk_chunks_pass<D, false>(fixed, mine, lane, q, next, dnext);
  }

  template <int D, bool Checked>
  KOKKOS_FORCEINLINE_FUNCTION bool walk_chunks_pass(const Point<D>* fixed, const Point<D>* mine, int lane,
                                                    std::uintptr_t q, unsigned next, int dnext) const {
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
  template <int D, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void gpu_rows_aligned(const Member& team, const Tile& t, const Point<D>* rows,
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
        // values. Address arithmetic this way is 2 instructions per row
        // where 64-bit index arithmetic took 6 (Nsight Compute SASS).
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
  template <int D, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void gpu_columns_aligned(const Member& team, const Tile& t, const Point<D>* cols,
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
  template <int D, bool Checked = false>
  KOKKOS_FORCEINLINE_FUNCTION static Real gpu_dist(const Real (&mine)[D], const Point<D> o, bool& odd) {
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
  template <int D, bool Mirror, bool Checked>
  KOKKOS_FORCEINLINE_FUNCTION bool walk_rows_pass(const Real (&mine)[D], const Point<D>* staged, Real* row,
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
  template <int D, bool Mirror, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void gpu_rows(const Member& team, const Tile& t, const Point<D>* staged) const {
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

  /// Condensed output is column-major in our lower triangle: column j is
  /// contiguous from i = j + 1 to n - 1. A row-major block order (lambda's,
  /// BB's) would make each block write 32 short runs in 32 distant columns
  /// (a TLB miss per run on host). The shear (bi, bj) -> (r, c) =
  /// (nb - 1 - bi + bj, nb - 1 - bi) is a bijection of the block triangle
  /// onto itself that turns "block row bi, bj = 0, 1, ..." into "block column
  /// c, block rows r = c, c + 1, ...": consecutive omegas then continue the
  /// same rho column streams. Every block is still visited exactly once.
  KOKKOS_FORCEINLINE_FUNCTION Tile condensed_order(const Tile& m) const {
    const int lg = log2_block_side(rho);  // shifts: 64-bit divisions cost ~100 instructions per block on a GPU
    const index_t nb = (e.n + rho - 1) >> lg;
    const index_t bi = m.i0 >> lg, bj = m.j0 >> lg;
    const index_t c = nb - 1 - bi, r = c + bj;
    Tile t = m;
    t.i0 = r << lg;
    t.j0 = c << lg;
    t.rows = static_cast<int>(e.n - t.i0 < rho ? e.n - t.i0 : rho);
    t.cols = static_cast<int>(e.n - t.j0 < rho ? e.n - t.j0 : rho);
    return t;
  }

  template <int D, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void compute(const Member& team, const Tile& t, const Real* r, const Real* c) const {
    const index_t n = e.n;
    if (e.layout == Layout::condensed) {
      // Column j of the condensed matrix is contiguous in i: threads take
      // columns, lanes take rows, so stores are unit-stride (coalesced on GPU,
      // vectorised on host). Strict triangle: i > j, i.e. ti > j - i0.
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, t.cols), [&](const int tj) {
        const index_t j = t.j0 + tj;
        const index_t lo = j - t.i0 + 1;
        const int begin = lo > 0 ? static_cast<int>(lo < t.rows ? lo : t.rows) : 0;
        // (i0 + ti, j) is at base + ti for ti >= begin.
        segment<D>(team, c, tj, r, begin, t.rows, condensed_index(n, t.i0, j), false, 0);
      });
    } else {
      // Rows are contiguous in j for packed and full: threads take rows,
      // lanes take columns. Lower triangle incl. diagonal: j <= i.
      const bool full = e.layout == Layout::full;
      const bool mirror = full && e.symmetric;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, t.rows), [&](const int ti) {
        const index_t i = t.i0 + ti;
        const index_t hi = i - t.j0 + 1;
        const int end = hi < t.cols ? static_cast<int>(hi) : t.cols;
        // The mirror (j0 + tj, i) of a full symmetric matrix is at j0 n + i + tj n;
        // the diagonal is then written twice with the same value.
        segment<D>(team, r, ti, c, 0, end, full ? i * n + t.j0 : tri(i) + t.j0, mirror, t.j0 * n + i);
      });
    }
  }

  /// out[base + v] = |var_v - fixed_f| for v in [begin, end) (staged points);
  /// with `mirror` also out[mirror_base + v n].
  template <int D, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void segment(const Member& team, const Real* fixed, int f, const Real* var, int begin,
                                           int end, index_t base, bool mirror, index_t mirror_base) const {
    const int stride = rho, d = e.d;
    const index_t n = e.n;
    Real* out = e.out.data();
    if constexpr (D == 0 && !is_gpu_space<ExecSpace>::value) {
      // Host, run-time d: coordinates in the outer loop and the lanes inside,
      // so every pass is a unit-stride loop g++ vectorises (with the
      // coordinate loop inside, the lane loop is not vectorised and the tile
      // kernel falls behind the element kernel from d = 16 on). Same
      // operations in the same order as sq_dist_soa: bit-identical results.
      Real acc[32];  // rho <= 32
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, begin, end), [&](const int v) { acc[v] = Real(0); });
      for (int k = 0; k < d; ++k) {
        const Real fk = fixed[k * stride + f];
        const Real* vk = var + k * stride;
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, begin, end), [&](const int v) {
          const Real u = vk[v] - fk;
          acc[v] += u * u;
        });
      }
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, begin, end), [&](const int v) {
        const Real s = sqrt_real(acc[v]);
        out[base + v] = s;
        if (mirror) out[mirror_base + v * n] = s;
      });
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, begin, end), [&](const int v) {
        const Real s = sqrt_real(sq_dist_soa<D, Real>(var, v, fixed, f, stride, d));
        out[base + v] = s;
        if (mirror) out[mirror_base + v * n] = s;
      });
    }
  }
};

/// Rows of the gemm path's Gram panel: the panel (fp64) stays at most
/// 64 MiB, or one row of n values where that is more, and never more than
/// the n x n matrix.
inline index_t gemm_panel_rows(index_t n) {
  const index_t budget = (index_t(64) << 20) / static_cast<index_t>(sizeof(double));
  index_t panel = n > 0 ? budget / n : 1;
  if (panel < 1) panel = 1;
  if (panel > n) panel = n;
  return panel;
}

/// When the gemm path may take s = N_i + N_j - 2 G_ij for the pair (i, j)
/// rather than recompute it with direct_dist: where s >= k (N_i + N_j),
/// s >= s_min and N_i + N_j <= n_max (comparisons that NaN fails).
///
/// The bound, with u = 2^-53, everything fp64, c_i the stored centred points,
/// N' = |c_i|^2 + |c_j|^2 exactly and gamma_m = m u / (1 - m u):
///   - Gram: whatever the order of the sums (the blocking of gemm included),
///     |G_ij - c_i.c_j| <= gamma_d sum_k |c_ik c_jk| <= gamma_d |c_i| |c_j|
///     <= gamma_d N' / 2; the factor -2 is exact: gamma_d N' in s;
///   - norms: |N_i - |c_i|^2| <= gamma_d |c_i|^2, together gamma_d N';
///   - the two additions of s: u N' and u |s| <= 2 u N' (|s| <= 2 N' by
///     Cauchy-Schwarz, to first order);
///   - centring: c_ik = fl(x_ik - mu_k) is off by at most u |c_ik|, so
///     |c_i - c_j| is within u (|c_i| + |c_j|) <= u sqrt(2 N') of
///     |x_i - x_j|, and its square within 4 u N' (first order); mu itself
///     may be anything (a shift changes no distance), only its rounding
///     counts.
/// So |s - |x_i - x_j|^2| <= (2 d + 7) u N' + O(d^2 u^2 N'); d u <= 2^-33
/// (d <= 2^20), so (2 d + 8) u N covers the second-order terms and N' <=
/// (1 + gamma_d) N; with a safety factor 2, gamma = (4 d + 16) u. A pair
/// with s >= K N, K = gamma / tol_s, then has |error of s| <= gamma N <=
/// tol_s s: s within a relative tol_s, the distance within tol_s / 2 before
/// the fp64 sqrt's rounding (u) and the rounding to Real.
///   fp32: tol_s = 2^-26. The distance is within 2^-27 + 2^-53 before its
///     rounding to float: the correctly rounded float or a neighbour, inside
///     the element kernel's own float error ((d + 2) 2^-24 for its squared
///     distance). K = (4 d + 16) 2^-27: only pairs much closer than their
///     norms (dist^2 < K N) are recomputed.
///   fp64: tol_s = 8 (d + 2) u, the distance within 4 (d + 2) u + u, half
///     of the 4 (d + 2) eps the direct kernels are tested to (their own
///     worst case is (d + 2) u for s). Matching that worst case is out of
///     reach: tol_s = (d + 2) u makes K > 2, and s <= 2 N for every pair.
///     This tol_s is the smallest power-of-two multiple of it that keeps
///     K = (4 d + 16) / (8 d + 16) <= 5/6 below 1: the centred points of a
///     high-dimensional cloud are nearly orthogonal (s ~ N), so their pairs
///     take the gemm value, and pairs with dist^2 < K N (close points,
///     clusters, duplicates) are recomputed.
/// s_min = max(Real's smallest normal, 2^-969): below 2^-969 the fp64
/// products' underflow (at most 2^-1075 each, 3 d of them) is no longer
/// negligible against s; float pairs closer than 2^-63, whose squared
/// coordinate differences underflow in the element kernel's float
/// arithmetic, come from its formula too.
/// n_max: fp64 2^1020, so no norm, product or s overflows; fp32 2^125, so
/// s < 2^127 and the element kernel's float sum does not overflow either:
/// Inf from finite points comes from the element kernel's formula only.
/// Non-finite points have a non-finite N (or N > n_max) and are recomputed,
/// as is the diagonal (0, or NaN for a NaN/Inf point).
struct GemmAccuracy {
  double k = 0;
  double s_min = 0;
  double n_max = 0;
};

template <class Real>
GemmAccuracy gemm_accuracy(int d) {
  constexpr double u = 0x1p-53;
  const double gamma = (4.0 * d + 16.0) * u;
  const double tol_s = std::is_same<Real, float>::value ? 0x1p-26 : 8.0 * (d + 2.0) * u;
  GemmAccuracy a;
  a.k = gamma / tol_s;
  a.s_min = std::is_same<Real, float>::value ? 0x1p-126 : 0x1p-969;
  a.n_max = std::is_same<Real, float>::value ? 0x1p125 : 0x1p1020;
  return a;
}

#if defined(TDMAPS_EDM_HAVE_KOKKOSKERNELS)
/// Mean of each coordinate over the finite values (a team per coordinate),
/// in fp64; 0 where there is none or the mean is not finite. Any centre
/// gives the same distances; the mean makes the norms, and so the Gram
/// formula's error, as small as they get.
template <class ExecSpace, class Real>
struct ColumnMeans {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<const Real**, Kokkos::LayoutRight, memory_space> x;
  Kokkos::View<double*, memory_space> mean;
  index_t n = 0;

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    const int k = team.league_rank();
    double sum = 0, count = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, n),
        [&](const index_t i, double& s) {
          const double v = static_cast<double>(x(i, k));
          if (tdmaps::isfinite_of(v)) s += v;
        },
        sum);
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, n),
        [&](const index_t i, double& c) {
          if (tdmaps::isfinite_of(static_cast<double>(x(i, k)))) c += 1;
        },
        count);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      const double m = count > 0 ? sum / count : 0.0;
      mean(k) = tdmaps::isfinite_of(m) ? m : 0.0;
    });
  }
};

/// c(i, k) = x(i, k) - mean(k) in fp64 (for fp32 points also the upcast).
template <class ExecSpace, class Real>
struct CentrePoints {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<const Real**, Kokkos::LayoutRight, memory_space> x;
  Kokkos::View<const double*, memory_space> mean;
  Kokkos::View<double**, Kokkos::LayoutRight, memory_space> c;
  int d = 0;

  KOKKOS_FUNCTION void operator()(const index_t q) const {
    const index_t i = q / d;
    const int k = static_cast<int>(q - i * d);
    c(i, k) = static_cast<double>(x(i, k)) - mean(k);
  }
};

template <class ExecSpace>
struct SquaredNorms {
  Kokkos::View<const double**, Kokkos::LayoutRight, typename ExecSpace::memory_space> c;
  Kokkos::View<double*, typename ExecSpace::memory_space> norms;
  int d;
  KOKKOS_FUNCTION void operator()(const index_t i) const {
    double s = 0;
    for (int k = 0; k < d; ++k) s += c(i, k) * c(i, k);
    norms(i) = s;
  }
};

/// Turns a panel of g = -2 C_panel C^T into distances of the layout: sqrt(s)
/// where GemmAccuracy says s is accurate, else the element kernel's formula
/// on the original points.
/// Packed / full: team per panel row i, lanes over j <= i (contiguous stores).
/// Condensed: team per column j, lanes over the panel's rows i > j
/// (contiguous stores, strided reads of g).
template <class ExecSpace, class Real>
struct GemmToLayout {
  using memory_space = typename ExecSpace::memory_space;
  EdmData<Real, memory_space> e;
  Kokkos::View<const double*, memory_space> norms;
  Kokkos::View<const double**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> g;
  GemmAccuracy accuracy;
  index_t r0 = 0, r1 = 0;  ///< panel rows [r0, r1); g is (r1 - r0) x r1

  KOKKOS_FORCEINLINE_FUNCTION Real value(index_t i, index_t j) const {
    if (i != j) {
      const double nsum = norms(i) + norms(j);
      const double s = nsum + g(i - r0, j);
      // NaN fails every comparison: such pairs are recomputed.
      if (s >= accuracy.k * nsum && s >= accuracy.s_min && nsum <= accuracy.n_max)
        return static_cast<Real>(sqrt_real(s));
    }
    return direct_dist<Real>(e.x, i, j, e.d);
  }
  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    const index_t q = team.league_rank();
    if (e.layout == Layout::condensed) {
      const index_t j = q;  // columns 0 .. r1 - 2
      const index_t begin = r0 > j + 1 ? r0 : j + 1;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, static_cast<int>(r1 - begin)), [&](const int k) {
        const index_t i = begin + k;
        e.out(condensed_index(e.n, i, j)) = value(i, j);
      });
    } else {
      const index_t i = r0 + q;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, static_cast<int>(i + 1)),
                           [&](const int j) { e.store(i, j, value(i, j)); });
    }
  }
};

template <class ExecSpace, class Real>
void edm_gemm(const ExecSpace& space, const EdmData<Real, typename ExecSpace::memory_space>& e) {
  using memory_space = typename ExecSpace::memory_space;
  using device = Kokkos::Device<ExecSpace, memory_space>;
  using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  const index_t n = e.n;
  const int d = e.d;

  // Centre in fp64 (gemm_workspace_bytes counts these buffers).
  Kokkos::View<double*, memory_space> mean(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::edm::gemm::mean"), static_cast<std::size_t>(d));
  Kokkos::parallel_for("tdmaps::edm::gemm::mean", team_policy_t<ExecSpace>(space, d, Kokkos::AUTO),
                       ColumnMeans<ExecSpace, Real>{e.x, mean, n});
  Kokkos::View<double**, Kokkos::LayoutRight, memory_space> centred(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::edm::gemm::centred"), static_cast<std::size_t>(n),
      static_cast<std::size_t>(d));
  Kokkos::parallel_for(
      "tdmaps::edm::gemm::centre",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, n * static_cast<index_t>(d)),
      CentrePoints<ExecSpace, Real>{e.x, mean, centred, d});
  Kokkos::View<double*, memory_space> norms(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::edm::gemm::norms"), static_cast<std::size_t>(n));
  Kokkos::parallel_for("tdmaps::edm::gemm::norms",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, n),
                       SquaredNorms<ExecSpace>{centred, norms, d});

  // Panel p holds rows [r0, r1) against columns [0, r1).
  const index_t panel = gemm_panel_rows(n);
  Kokkos::View<double*, memory_space> buffer(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::edm::gemm::panel"),
      static_cast<std::size_t>(panel * n));
  const GemmAccuracy accuracy = gemm_accuracy<Real>(d);
  // Kokkos Kernels 3.4's gemm runs on the default instance of ExecSpace.
  space.fence();
  for (index_t r0 = 0; r0 < n; r0 += panel) {
    const index_t r1 = r0 + panel < n ? r0 + panel : n;
    Kokkos::View<const double**, Kokkos::LayoutRight, device, unmanaged> a(centred.data() + r0 * d, r1 - r0, d);
    Kokkos::View<const double**, Kokkos::LayoutRight, device, unmanaged> b(centred.data(), r1, d);
    Kokkos::View<double**, Kokkos::LayoutRight, device, unmanaged> c(buffer.data(), r1 - r0, r1);
    KokkosBlas::gemm("N", "T", -2.0, a, b, 0.0, c);
    ExecSpace().fence();
    GemmToLayout<ExecSpace, Real> f{e, norms, c, accuracy, r0, r1};
    const index_t league = e.layout == Layout::condensed ? r1 - 1 : r1 - r0;
    if (league > 0)
      Kokkos::parallel_for("tdmaps::edm::gemm::to_layout",
                           team_policy_t<ExecSpace>(space, static_cast<int>(league), Kokkos::AUTO), f);
    space.fence();  // the next panel overwrites the buffer
  }
}
#endif

template <class ExecSpace, class Real>
void run_linear(const ExecSpace& space, const EdmData<Real, typename ExecSpace::memory_space>& e,
                const std::string& label) {
  if (e.layout == Layout::full)
    throw std::invalid_argument(
        "tdmaps::edm: the linear kernel writes the packed and condensed layouts (in their memory order); "
        "the full layout takes the tile or element kernel");
  RunKernel<Real, typename ExecSpace::memory_space> k;
  k.e = e;
  k.order = e.layout == Layout::packed ? RunOrder::rows : RunOrder::columns;
  k.triangle = layout_triangle(e.layout);
  using Values = typename RunKernel<Real, typename ExecSpace::memory_space>::Values;
  k.vector_store = reinterpret_cast<std::uintptr_t>(e.out.data()) % sizeof(Values) == 0;
  const std::size_t point = e.d == 1 || e.d == 2 || e.d == 4 ? static_cast<std::size_t>(e.d) * sizeof(Real) : 0;
  k.vector_load = point > 0 && reinterpret_cast<std::uintptr_t>(e.x.data()) % point == 0;
  for_each_run<RunKernel<Real, typename ExecSpace::memory_space>::run_width>(space, e.n, k.triangle, k.order, k, label);
}

/// The tile kernel's GPU launch shape where the caller left it to tdmaps
/// (0 in LaunchHints), at block side 32, measured on the H100 at n = 30720,
/// d = 2 and 4, lambda (perf_tests/README.md, team threads x blocks per
/// team; results/h100/own_columns/): one warp per block (the 32-row walk of
/// whole blocks); full: 1 block per team (0.635-0.650 ms against 0.649-0.659
/// with 2, the default before the checked sqrt made the walk shorter);
/// packed and condensed, whose rows are written in aligned chunks
/// (gpu_rows_aligned): condensed 4 blocks per team (0.657-0.659 ms; 2
/// blocks 0.662-0.666, 1 block 0.68); packed 2 (n = 30720 0.632-0.638 ms,
/// n = 65536 2.84-2.94 ms; 4 blocks 0.631-0.640 / 2.95-2.96, 1 block 0.644
/// / 2.87-2.89; three rounds, results/h100/tileflags/edm_k/); 64-thread
/// teams, whose rows take the general walk, 1.3-1.8 ms in a first version.
inline LaunchHints tile_hints(LaunchHints h, Layout layout, int rho) {
  if (rho != 32) return h;
  if (h.team_threads == 0) h.team_threads = 32;
  if (h.blocks_per_team == 0) h.blocks_per_team = layout == Layout::full ? 1 : layout == Layout::packed ? 2 : 4;
  return h;
}

template <class ExecSpace, class Map, class Real>
void run_tile(const ExecSpace& space, const Map& map, const EdmData<Real, typename ExecSpace::memory_space>& e,
              const LaunchHints& hints) {
  if constexpr (tdmaps::impl::is_block_space<Map>) {
    TileKernel<ExecSpace, Real> k{e, map.domain.rho};
    const std::size_t point = e.d == 1 || e.d == 2 || e.d == 4 ? static_cast<std::size_t>(e.d) * sizeof(Real) : 0;
    k.x_vector = point > 0 && static_cast<index_t>(e.x.stride(0)) == e.d &&
                 reinterpret_cast<std::uintptr_t>(e.x.data()) % point == 0;
    for_each_tile(space, map, TileKernel<ExecSpace, Real>::scratch_bytes(map.domain.rho, e.d), k,
                  std::string("tdmaps::edm::tile::") + Map::name, tile_hints(hints, e.layout, map.domain.rho));
  } else {
    (void)space;
    (void)e;
    (void)hints;
    throw std::invalid_argument(std::string("tdmaps::edm: the tile kernel needs a block-space map; '") + Map::name +
                                "' is a thread-space map (use the element kernel)");
  }
}

}  // namespace impl

/// Device memory the gemm kernel allocates besides points and out, in bytes,
/// for n points of d coordinates: the centred fp64 copy of the points (n d),
/// their squared norms (n), the mean (d) and the Gram panel
/// (impl::gemm_panel_rows(n) rows of n), all fp64 whatever Real is (Real
/// names the points' precision, for callers that size by it).
template <class Real>
index_t gemm_workspace_bytes(index_t n, index_t d) {
  static_assert(std::is_same<Real, float>::value || std::is_same<Real, double>::value,
                "tdmaps::edm: Real is float or double");
  const index_t doubles = n * d + n + d + impl::gemm_panel_rows(n) * n;
  return doubles * static_cast<index_t>(sizeof(double));
}

/// Bytes of level-0 team scratch the tile kernel needs: rho row points and
/// rho column points of d coordinates.
template <class ExecSpace, class Real>
std::size_t tile_scratch_bytes(int rho, int d) {
  return impl::TileKernel<ExecSpace, Real>::scratch_bytes(rho, d);
}

/// Whether the tile kernel's scratch fits the backend (host: 32 KiB per team,
/// so d <= 63 for fp64 at rho = 32; CUDA: 40 KiB, Kokkos 3.4's level-0 limit).
template <class ExecSpace, class Real>
bool tile_fits(int rho, int d) {
  return tile_scratch_bytes<ExecSpace, Real>(rho, d) + tile_scratch_alignment <=
         static_cast<std::size_t>(team_policy_t<ExecSpace>::scratch_size_max(0));
}

/// Kernel::automatic resolved for a backend, map, precision, d and block
/// side: the tile kernel where the map and the scratch allow it, else gemm
/// from gemm_min_dims<ExecSpace>() on (with Kokkos Kernels), else the
/// element kernel (the benchmark cases that decide: at host_gemm_min_dims).
/// All three give the element kernel's accuracy: the gemm path takes the
/// Gram formula's value only where its rigorous error bound is below a
/// relative 2^-26 (fp32) or 8 (d + 2) 2^-53 (fp64) of the squared distance
/// and recomputes every other pair with the element kernel's formula
/// (impl::GemmAccuracy), so the choice is about speed and memory
/// (gemm_workspace_bytes) only.
template <class ExecSpace, class Map, class Real>
Kernel resolve_kernel(Kernel k, int d, int rho) {
  if (k != Kernel::automatic) return k;
  if (tdmaps::impl::is_block_space<Map> && tile_fits<ExecSpace, Real>(rho, d)) return Kernel::tile;
  if (has_gemm() && d >= gemm_min_dims<ExecSpace>()) return Kernel::gemm;
  return Kernel::element;
}

/// Distance matrix of `points` (n x d, LayoutRight) into `out` in `layout`,
/// over the blocks of `map`. Throws std::invalid_argument on mismatched
/// sizes, n = 0, d = 0, a map of the wrong domain, or an unavailable kernel.
/// `hints` shape the GPU teams of the element and tile kernels (launch layer).
template <class ExecSpace, class PointsView, class OutView, class Map>
void edm(const ExecSpace& space, const PointsView& points, const OutView& out, const Map& map, Layout layout,
         Kernel kind = Kernel::element, bool symmetric = false, const LaunchHints& hints = LaunchHints()) {
  static_assert(Kokkos::is_view<PointsView>::value && PointsView::rank == 2, "tdmaps::edm: points must be a 2-D View");
  static_assert(Kokkos::is_view<OutView>::value && OutView::rank == 1, "tdmaps::edm: out must be a 1-D View");
  static_assert(std::is_same<typename PointsView::array_layout, Kokkos::LayoutRight>::value,
                "tdmaps::edm: points must be LayoutRight (n x d, coordinates of a point contiguous)");
  using Real = typename OutView::non_const_value_type;
  static_assert(std::is_same<Real, float>::value || std::is_same<Real, double>::value,
                "tdmaps::edm: Real is float or double");
  static_assert(std::is_same<typename PointsView::non_const_value_type, Real>::value,
                "tdmaps::edm: points and out must have the same value type");
  static_assert(std::is_same<typename OutView::value_type, Real>::value, "tdmaps::edm: out must be writable");
  using memory_space = typename ExecSpace::memory_space;
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename PointsView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename OutView::memory_space>::accessible,
                "tdmaps::edm: points and out must be accessible from the execution space");

  const index_t n = static_cast<index_t>(points.extent(0));
  const index_t d = static_cast<index_t>(points.extent(1));
  if (n == 0) throw std::invalid_argument("tdmaps::edm: no points (n = 0)");
  if (d < 1) throw std::invalid_argument("tdmaps::edm: points have d = 0 dimensions");
  if (d > (index_t(1) << 20)) throw std::invalid_argument("tdmaps::edm: d = " + std::to_string(d) + " is too large");
  const index_t want = output_size(layout, n);
  if (static_cast<index_t>(out.extent(0)) != want)
    throw std::invalid_argument(std::string("tdmaps::edm: the ") + layout_name(layout) + " output of n = " +
                                std::to_string(n) + " points has " + std::to_string(want) + " elements, out has " +
                                std::to_string(out.extent(0)));
  if (map.domain.n != n)
    throw std::invalid_argument("tdmaps::edm: the map covers n = " + std::to_string(map.domain.n) + ", points have n = " +
                                std::to_string(n));
  if (layout != Layout::condensed && map.domain.triangle != Triangle::lower)
    throw std::invalid_argument(std::string("tdmaps::edm: the ") + layout_name(layout) +
                                " layout includes the diagonal; build the map over make_domain(n, rho, layout)");
  if (symmetric && layout != Layout::full)
    throw std::invalid_argument(std::string("tdmaps::edm: symmetric applies to the full layout only, not ") +
                                layout_name(layout));

  impl::EdmData<Real, memory_space> e;
  e.x = points;
  e.out = out;
  e.n = n;
  e.d = static_cast<int>(d);
  e.layout = layout;
  e.symmetric = symmetric;

  switch (resolve_kernel<ExecSpace, Map, Real>(kind, e.d, map.domain.rho)) {
    case Kernel::element:
      for_each_element(space, map, impl::ElementKernel<Real, memory_space>{e},
                       std::string("tdmaps::edm::element::") + Map::name, hints);
      break;
    case Kernel::tile: impl::run_tile(space, map, e, hints); break;
    case Kernel::linear: impl::run_linear(space, e, std::string("tdmaps::edm::linear")); break;
    case Kernel::gemm:
#if defined(TDMAPS_EDM_HAVE_KOKKOSKERNELS)
      impl::edm_gemm(space, e);
      break;
#else
      throw std::invalid_argument("tdmaps::edm: the gemm kernel needs Kokkos Kernels, which this build did not find");
#endif
    case Kernel::automatic: break;  // resolved above
  }
}

}  // namespace edm
}  // namespace tdmaps

#endif
