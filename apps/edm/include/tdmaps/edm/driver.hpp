#ifndef TDMAPS_EDM_DRIVER_HPP
#define TDMAPS_EDM_DRIVER_HPP

// edm(): checks the arguments, resolves Kernel::automatic and launches the
// chosen kernel on the caller's execution space instance.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/element.hpp>
#include <tdmaps/edm/gemm.hpp>
#include <tdmaps/edm/layout.hpp>
#include <tdmaps/edm/linear.hpp>
#include <tdmaps/edm/tile.hpp>
#include <tdmaps/launch/for_each.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace edm {

/// Which kernel computes the distances (tdmaps/edm.hpp lists them;
/// automatic: resolve_kernel).
enum class Kernel { element, tile, gemm, automatic, linear };

/// The kernel's name on the command line and in labels ("auto" for automatic).
inline const char* kernel_name(Kernel k) {
  return k == Kernel::element  ? "element"
         : k == Kernel::tile   ? "tile"
         : k == Kernel::gemm   ? "gemm"
         : k == Kernel::linear ? "linear"
                               : "auto";
}

/// Kernel::automatic resolved for a backend, map, precision, d and block
/// side: the tile kernel where the map and the scratch allow it, else the
/// element kernel. Both compute the direct formula sqrt(sum_k (x_ik -
/// x_jk)^2) in order, so on host builds fp64 equals SciPy's pdist bit for
/// bit at every d. Never gemm: its Gram values, though bounded
/// (detail::GemmAccuracy), are not bit-identical to the direct sum (a few
/// ulp at d in the hundreds), so a caller who wants its speed asks for
/// Kernel::gemm explicitly (gemm_min_dims: where it starts to pay).
template <class ExecSpace, class Map, class Real>
Kernel resolve_kernel(Kernel k, int d, int rho) {
  if (k != Kernel::automatic) return k;
  if (tdmaps::is_block_space_map_v<Map> && tile_fits<ExecSpace, Real>(rho, d)) return Kernel::tile;
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

  detail::EdmData<Real, memory_space> e;
  e.x = points;
  e.out = out;
  e.n = n;
  e.d = static_cast<int>(d);
  e.layout = layout;
  e.symmetric = symmetric;

  switch (resolve_kernel<ExecSpace, Map, Real>(kind, e.d, map.domain.rho)) {
    case Kernel::element:
      for_each_element(space, map, detail::ElementKernel<Real, memory_space>{e},
                       std::string("tdmaps::edm::element::") + Map::name, hints);
      break;
    case Kernel::tile: detail::run_tile(space, map, e, hints); break;
    case Kernel::linear: detail::run_linear(space, e, std::string("tdmaps::edm::linear")); break;
    case Kernel::gemm:
#if defined(TDMAPS_EDM_HAVE_KOKKOSKERNELS)
      detail::edm_gemm(space, e);
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
