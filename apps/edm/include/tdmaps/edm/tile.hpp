#ifndef TDMAPS_EDM_TILE_HPP
#define TDMAPS_EDM_TILE_HPP

// The tile kernel: one team per block of a block-space map. The block's rho
// row points and rho column points are staged in team scratch, then every
// distance of the block reads scratch only. Loops follow the layout so that
// stores are contiguous (lanes along j for packed and full, along i for
// condensed), and a condensed output takes the blocks in a sheared order in
// which consecutive blocks continue the same columns (condensed_order). On
// GPU backends with d <= 4 (lane_tile) only the block's rows (condensed:
// columns) are staged, as padded points read with one vector load, and each
// thread keeps its column's (row's) point in registers and walks its rows:
// tdmaps/edm/tile_gpu.hpp. On GPU backends at d >= 5 (block side 16 or
// 32), where detail::tiled_matrix says, the tile kernel is the
// dimension-tiled walk (tdmaps::for_each_pair_sums: 16 coordinates staged
// at a time, a 4 x 4 micro-tile of sums per thread; the same distances),
// which fits at any d.

#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/element.hpp>
#include <tdmaps/edm/layout.hpp>
#include <tdmaps/edm/tiled.hpp>
#include <tdmaps/launch/for_each.hpp>
#include <tdmaps/launch/pair_sums.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace edm {
namespace detail {

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

  // The GPU path (lane_tile, d <= 4), defined in tdmaps/edm/tile_gpu.hpp:
  // gpu_tile stages the block, walk picks the layout's walk.
  template <int D, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void gpu_tile(const Member& team, const Tile& t) const;
  template <int D, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void walk(const Member& team, const Tile& t, const Point<D>* staged) const;
  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION Point<D> load_point(index_t g) const;
  KOKKOS_FORCEINLINE_FUNCTION unsigned out_phase() const;
  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION static Real gpu_sq_dist(const Point<D> a, const Point<D> b);
  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION static Real gpu_dist2(const Point<D> a, const Point<D> b);
  template <bool Checked>
  KOKKOS_FORCEINLINE_FUNCTION static Real walk_sqrt(Real s, bool& odd);
  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION void walk_chunks(const Point<D>* fixed, const Point<D>* mine, int lane,
                                               std::uintptr_t q, unsigned next, int dnext) const;
  template <int D, bool Checked>
  KOKKOS_FORCEINLINE_FUNCTION bool walk_chunks_pass(const Point<D>* fixed, const Point<D>* mine, int lane,
                                                    std::uintptr_t q, unsigned next, int dnext) const;
  template <int D, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void gpu_rows_aligned(const Member& team, const Tile& t, const Point<D>* rows,
                                                    const Point<D>* window) const;
  template <int D, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void gpu_columns_aligned(const Member& team, const Tile& t, const Point<D>* cols,
                                                       const Point<D>* window) const;
  template <int D, bool Checked = false>
  KOKKOS_FORCEINLINE_FUNCTION static Real gpu_dist(const Real (&mine)[D], const Point<D> o, bool& odd);
  template <int D, bool Mirror, bool Checked>
  KOKKOS_FORCEINLINE_FUNCTION bool walk_rows_pass(const Real (&mine)[D], const Point<D>* staged, Real* row,
                                                  Real* mirror, index_t n) const;
  template <int D, bool Mirror, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void gpu_rows(const Member& team, const Tile& t, const Point<D>* staged) const;

  // The host path, and the GPU one for d > 4: the block's points staged
  // struct-of-arrays.

  /// Condensed output is column-major in our lower triangle: column j is
  /// contiguous from i = j + 1 to n - 1. A row-major block order (lambda's,
  /// BB's) would make each block write 32 short runs in 32 distant columns
  /// (a TLB miss per run on host). The shear (bi, bj) -> (r, c) =
  /// (nb - 1 - bi + bj, nb - 1 - bi) is a bijection of the block triangle
  /// onto itself that turns "block row bi, bj = 0, 1, ..." into "block column
  /// c, block rows r = c, c + 1, ...": consecutive omegas then continue the
  /// same rho column streams. Every block is still visited exactly once.
  KOKKOS_FORCEINLINE_FUNCTION Tile condensed_order(const Tile& m) const {
    const int lg = log2_block_side(rho);  // shifts: a 64-bit division is a long instruction sequence on a GPU
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
      // kernel falls behind the element kernel as d grows). Same
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

/// The tile kernel's GPU launch shape where the caller left it to tdmaps (0
/// in LaunchHints), at block side 32: one warp per block (the 32-row walk of
/// whole blocks; wider teams take the general walk), and blocks per team by
/// layout: 1 for full; 2 for packed and 4 for condensed, whose rows are
/// written in aligned chunks (gpu_rows_aligned). The GPU cases
/// edm/<layout>_d{2,4}_tile_t32_k{1,2,4}/lambda_rsqrt/r32 at n = 30720 (and
/// n = 65536 for packed) decide them.
inline LaunchHints tile_hints(LaunchHints h, Layout layout, int rho) {
  if (rho != 32) return h;
  if (h.team_threads == 0) h.team_threads = 32;
  if (h.blocks_per_team == 0) h.blocks_per_team = layout == Layout::full ? 1 : layout == Layout::packed ? 2 : 4;
  return h;
}

/// The tile kernel's dimension-tiled form (for_each_pair_sums): each pair's
/// distance, the square root of its sum (the element kernel's, bit for
/// bit), stored by the layout.
template <class Real, class MemorySpace>
struct TiledStore {
  EdmData<Real, MemorySpace> e;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const Real s, const index_t i, const index_t j) const {
    e.store(i, j, sqrt_real(s));
  }
};

/// Whether the tile kernel's points (TileKernel::scratch_bytes) fit a team's scratch.
template <class ExecSpace, class Real>
bool soa_tile_fits(int rho, int d) {
  return TileKernel<ExecSpace, Real>::scratch_bytes(rho, d) + tile_scratch_alignment <=
         static_cast<std::size_t>(team_policy_t<ExecSpace>::scratch_size_max(0));
}

template <class ExecSpace, class Map, class Real>
void run_tile(const ExecSpace& space, const Map& map, const EdmData<Real, typename ExecSpace::memory_space>& e,
              const LaunchHints& hints) {
  if constexpr (tdmaps::is_block_space_map_v<Map>) {
    if constexpr (tiled_walk_v<ExecSpace, decltype(e.x), 0>) {
      if (tiled_matrix<Real>(e.d, map.domain.rho, e.layout, soa_tile_fits<ExecSpace, Real>(map.domain.rho, e.d))) {
        for_each_pair_sums(space, map, e.x, TiledStore<Real, typename ExecSpace::memory_space>{e},
                           std::string("tdmaps::edm::tile::") + Map::name);
        return;
      }
    }
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

}  // namespace detail

/// Bytes of level-0 team scratch the tile kernel needs: rho row points and
/// rho column points of d coordinates.
template <class ExecSpace, class Real>
std::size_t tile_scratch_bytes(int rho, int d) {
  return detail::TileKernel<ExecSpace, Real>::scratch_bytes(rho, d);
}

/// Whether the tile kernel's scratch fits the backend (host: 32 KiB per team,
/// so d <= 63 for fp64 at rho = 32; CUDA: 40 KiB, Kokkos 3.4's level-0 limit);
/// its dimension-tiled form (detail::tiled_matrix: GPU backends, block side
/// 16 or 32) stages 16 coordinates at a time and fits at any d.
template <class ExecSpace, class Real>
bool tile_fits(int rho, int d) {
  if (detail::tiled_walk_v<ExecSpace, Kokkos::View<const Real**, Kokkos::LayoutRight>, 0> &&
      detail::tiled_matrix<Real>(d, rho, Layout::packed, false))
    return true;
  return detail::soa_tile_fits<ExecSpace, Real>(rho, d);
}

}  // namespace edm
}  // namespace tdmaps

// TileKernel's GPU path: the member definitions declared above.
#include <tdmaps/edm/tile_gpu.hpp>

#endif
