#ifndef TDMAPS_EDM_CHUNK_HPP
#define TDMAPS_EDM_CHUNK_HPP

// One chunk of a distance matrix: the output elements [o0, o0 + m) of the
// packed or condensed layout, for outputs larger than device memory, streamed
// chunk by chunk (tdmaps-edm --max-device-memory), or split over MPI ranks.
//
//   edm_chunk(space, points, map, layout, o0, out)   out(k) = element o0 + k
//
// Any o0 and m: the chunk's edges may cut a row. The launch covers the block
// rows that hold the chunk (an omega range of a lambda or bb map over
// make_domain(n, rho, layout)) and writes only the chunk's elements, so
// every value is bit for bit the element kernel's of the whole matrix. It
// is the element kernel, or on GPU backends from d = 8, block side 16 or
// 32, the dimension-tiled walk (for_each_pair_sums: the element kernel's
// sums; detail::tiled_chunk_walk). Packed rows are block
// rows of the map; a condensed row (pairs (i, j) with j the smaller index)
// is a column of the lower triangle, so condensed chunks run on the
// mirrored triangle: the map's pair (i', j') is the pair (n - 1 - j',
// n - 1 - i') of the points.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/element.hpp>
#include <tdmaps/edm/layout.hpp>
#include <tdmaps/edm/tiled.hpp>
#include <tdmaps/launch/for_each.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/pair_sums.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace edm {

/// First index of the condensed row of points j (pairs (i, j), i > j).
inline index_t condensed_row_start(index_t n, index_t j) { return n * j - j * (j + 1) / 2; }

/// The condensed row (smaller point index) of condensed element c.
inline index_t condensed_row_of(index_t n, index_t c) {
  index_t lo = 0, hi = n - 2;  // largest j with condensed_row_start(j) <= c
  while (lo < hi) {
    const index_t mid = lo + (hi - lo + 1) / 2;
    if (condensed_row_start(n, mid) <= c) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

namespace detail {

template <class Real, class MemorySpace>
struct ChunkKernel {
  Kokkos::View<const Real**, Kokkos::LayoutRight, MemorySpace> x;
  Kokkos::View<Real*, MemorySpace> out;
  index_t n = 0;
  int d = 0;
  index_t o0 = 0, m = 0;
  bool condensed = false;

  KOKKOS_FUNCTION void operator()(index_t i, index_t j) const {
    index_t o;
    if (condensed) {
      const index_t a = n - 1 - j, b = n - 1 - i;  // the mirrored pair, a > b
      o = condensed_index(n, a, b) - o0;
      if (o < 0 || o >= m) return;
      out(o) = direct_dist<Real>(x, a, b, d);
    } else {
      o = tri(i) + j - o0;
      if (o < 0 || o >= m) return;
      out(o) = direct_dist<Real>(x, i, j, d);
    }
  }
};

/// The tiled walk's store of a chunk: the pairs (i, j), i >= j, of the
/// points (the mirrored triangle's, for condensed chunks) whose element lies
/// in [o0, o0 + m).
template <class Real, class MemorySpace>
struct TiledChunkStore {
  Kokkos::View<Real*, MemorySpace> out;
  index_t n = 0;
  index_t o0 = 0, m = 0;
  bool condensed = false;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const Real s, const index_t i, const index_t j) const {
    const index_t o = (condensed ? condensed_index(n, i, j) : tri(i) + j) - o0;
    if (o >= 0 && o < m) out(o) = sqrt_real(s);
  }
};

/// Whether a chunk takes the dimension-tiled walk (on the backends of
/// tiled_walk_v): block side 16 or 32 and d from 8, where chunk_probe
/// measured it the faster for both layouts and precisions (at d = 5 the
/// element kernel is: perf_tests/results/h200/any_d/).
inline bool tiled_chunk_walk(int d, int rho) { return d >= 8 && tdmaps::detail::tiled_block_side(rho); }

template <class Map>
OmegaRange block_rows(const Map& map, index_t b0, index_t b1) {
  if constexpr (std::is_same<Map, BoundingBoxMap>::value)
    return OmegaRange{b0 * map.domain.nb, b1 * map.domain.nb};
  else
    return block_rows_range(map, b0, b1);
}

}  // namespace detail

/// The elements [o0, o0 + out.extent(0)) of the packed or condensed EDM
/// (the top of this file). map: LambdaMap or BoundingBoxMap over
/// make_domain(n, rho, layout).
template <class ExecSpace, class PointsView, class OutView, class Map>
void edm_chunk(const ExecSpace& space, const PointsView& points, const Map& map, Layout layout, index_t o0,
               const OutView& out, const LaunchHints& hints = LaunchHints()) {
  using Real = typename OutView::non_const_value_type;
  using mem = typename ExecSpace::memory_space;
  static_assert(tdmaps::is_lambda_map_v<Map> || std::is_same<Map, BoundingBoxMap>::value,
                "tdmaps::edm::edm_chunk: chunks are block rows of a lambda or bb map");
  static_assert(std::is_same<typename PointsView::non_const_value_type, Real>::value,
                "tdmaps::edm::edm_chunk: points and out must have the same value type");
  const index_t n = static_cast<index_t>(points.extent(0));
  const index_t m = static_cast<index_t>(out.extent(0));
  if (layout == Layout::full)
    throw std::invalid_argument("tdmaps::edm::edm_chunk: chunks are slabs of the packed or condensed layout");
  if (map.domain.n != n || map.domain.triangle != layout_triangle(layout))
    throw std::invalid_argument("tdmaps::edm::edm_chunk: build the map over make_domain(n, rho, layout)");
  if (o0 < 0 || m < 0 || o0 + m > output_size(layout, n))
    throw std::invalid_argument("tdmaps::edm::edm_chunk: elements [" + std::to_string(o0) + ", " +
                                std::to_string(o0 + m) + ") are not inside the " + layout_name(layout) + " output of " +
                                std::to_string(output_size(layout, n)) + " elements");
  if (m == 0) return;
  const index_t rho = map.domain.rho;
  index_t r0, r1;  // rows of the map's triangle that hold the chunk
  if (layout == Layout::packed) {
    r0 = tri_root(o0);
    r1 = tri_root(o0 + m - 1);
  } else {  // mirrored: condensed row j is row n - 1 - j of the map's triangle
    r0 = n - 1 - condensed_row_of(n, o0 + m - 1);
    r1 = n - 1 - condensed_row_of(n, o0);
  }
  const int d = static_cast<int>(points.extent(1));
  const bool condensed = layout == Layout::condensed;
  const OmegaRange rows = detail::block_rows(map, r0 / rho, r1 / rho + 1);
  const std::string label = std::string("tdmaps::edm::chunk::") + Map::name;
  if constexpr (detail::tiled_walk_v<ExecSpace, PointsView, 0>) {
    if (detail::tiled_chunk_walk(d, static_cast<int>(rho))) {
      const Kokkos::View<const Real**, Kokkos::LayoutRight, mem> x = points;
      const detail::TiledChunkStore<Real, mem> f{out, n, o0, m, condensed};
      if (condensed) tdmaps::detail::for_each_pair_sums_mirrored(space, map, rows, x, f, label);
      else for_each_pair_sums(space, map, rows, x, f, label);
      return;
    }
  }
  detail::ChunkKernel<Real, mem> k{points, out, n, d, o0, m, condensed};
  for_each_element(space, map, rows, k, label, hints);
}

}  // namespace edm
}  // namespace tdmaps

#endif
