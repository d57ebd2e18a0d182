#ifndef TDMAPS_EDM_TILED_HPP
#define TDMAPS_EDM_TILED_HPP

// Not API (tdmaps::edm::detail): when the EDM reductions take the library's
// dimension-tiled walks (tdmaps::pair_min_keys, reduce_pair_sums,
// histogram_pair_sums: the coordinates staged in team scratch, a 4 x 4
// micro-tile of sums per thread; the element kernel's sums bit for bit):
// on GPU backends, LayoutRight points without a fixed dimension (D = 0:
// the generic sum) (tiled_walk_v), of d >= 5 coordinates, block side 16 or
// 32 (tiled_walk). Points of 2 to 4 coordinates take the pair-law walks.
// The distance matrix's tile kernel takes it where tiled_matrix says.
// TDMAPS_FORCE_LANE_TILE (tests) makes host backends take them too.

#include <tdmaps/edm/layout.hpp>
#include <tdmaps/kokkos_ext/lanes.hpp>
#include <tdmaps/launch/detail/tiled_block_sums.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace tdmaps {
namespace edm {
namespace detail {

#if defined(TDMAPS_FORCE_LANE_TILE)
constexpr bool force_tiled_walk = true;
#else
constexpr bool force_tiled_walk = false;
#endif
template <class ExecSpace, class Points, int D>
constexpr bool tiled_walk_v = (intrinsics::lane_width<ExecSpace>::value > 1 || force_tiled_walk) && D == 0 &&
                              std::is_same<typename Points::array_layout, Kokkos::LayoutRight>::value;
template <class Points, class Map>
bool tiled_walk(const Points& points, const Map& map) {
  return points.extent(1) >= 5 && tdmaps::detail::tiled_block_side(map.domain.rho);
}
/// Whether the distance matrix's tile kernel takes the dimension-tiled walk
/// (on the backends of tiled_walk_v): block side 16 or 32 and d >= 5, where
/// the tile's points do not fit its scratch (soa_fits false: any such d),
/// else from the d at which the walk is the faster of the two for the
/// layout and precision (tiled_matrix_probe decides them, perf_tests/README.md:
/// the walk's micro-tiles store 4 apart in a row, which costs the condensed
/// layout, contiguous along the other index, most).
template <class Real>
bool tiled_matrix(int d, int rho, Layout layout, bool soa_fits) {
  if (d < 5 || !tdmaps::detail::tiled_block_side(rho)) return false;
  const int from = sizeof(Real) == 8 ? 32 : layout == Layout::full ? 5 : layout == Layout::packed ? 8 : 32;
  return !soa_fits || d >= from;
}

}  // namespace detail
}  // namespace edm
}  // namespace tdmaps

#endif
