#ifndef TDMAPS_COLLISION_LAUNCH_HPP
#define TDMAPS_COLLISION_LAUNCH_HPP

// The kernels by kind (Kernel) and the one launch of a result mode: the
// kernel label tdmaps::collision::<result>::<kernel>::<map>.

#include <tdmaps/collision/buffers.hpp>
#include <tdmaps/collision/element.hpp>
#include <tdmaps/collision/linear.hpp>
#include <tdmaps/collision/result.hpp>
#include <tdmaps/collision/tile.hpp>
#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/for_each.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/maps/map_concept.hpp>
#include <tdmaps/launch/for_each_run.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tdmaps {
namespace collision {

/// Which kernel tests the pairs: tile (block-space maps, team scratch),
/// element (any map), linear (the pairs in packed order).
enum class Kernel { tile, element, linear };

/// The kernel's name on the command line and in labels.
inline const char* name(Kernel k) { return k == Kernel::tile ? "tile" : k == Kernel::element ? "element" : "linear"; }

namespace detail {

/// The tile kernel's GPU launch shape where the caller left it to tdmaps
/// (0 in LaunchHints), at block side 32: one warp per block (the 32-row
/// walks of whole blocks; wider teams take the general walk), int flags 4
/// blocks per team, the results without a store per pair (bit flags,
/// count, the pair list's passes) 8. The GPU cases
/// collision/3d_<result>_tile_t32_k{1,4,8}/lambda_rsqrt/r32/n30720 decide.
inline LaunchHints tile_hints(LaunchHints h, Mode mode, int rho) {
  if (rho != 32) return h;
  if (h.team_threads == 0) h.team_threads = 32;
  if (h.blocks_per_team == 0) h.blocks_per_team = mode == Mode::intflags ? 4 : 8;
  return h;
}

template <class ExecSpace, class Map>
void launch(const ExecSpace& space, const Map& map, Kernel kernel, const Buffers<typename ExecSpace::memory_space>& b,
            const char* what, const LaunchHints& hints, const OmegaRange* range = nullptr) {
  const std::string label = std::string("tdmaps::collision::") + what + "::" + name(kernel) + "::" + Map::name;
  constexpr bool rangeable = tdmaps::is_block_space_map_v<Map> && !tdmaps::is_multi_launch_map_v<Map>;
  if (range && (!rangeable || kernel == Kernel::linear))
    throw std::invalid_argument(std::string("tdmaps::collision: omega ranges need a one-launch block-space map "
                                            "(bb, lambda, rb) and the tile or element kernel; got map '") +
                                Map::name + "', kernel '" + name(kernel) + "'");
  if (kernel == Kernel::element) {
    if constexpr (rangeable) {
      if (range) {
        for_each_element(space, map, *range, ElementKernel<typename ExecSpace::memory_space>{b}, label, hints);
        return;
      }
    }
    for_each_element(space, map, ElementKernel<typename ExecSpace::memory_space>{b}, label, hints);
    return;
  }
  if (kernel == Kernel::linear) {
    using mem = typename ExecSpace::memory_space;
    LinearKernel<mem> k{b};
    k.vector_load = reinterpret_cast<std::uintptr_t>(b.s.data()) % alignof(Sphere4) == 0;
    k.vector_store = reinterpret_cast<std::uintptr_t>(b.ints.data()) % 16 == 0;
    const index_t n = map.domain.n;
    const auto t = Triangle::strict_lower;
    const auto rows = RunOrder::rows;
    switch (b.mode) {
      case Mode::flags: for_each_run<32>(space, n, t, rows, LinearRun<mem, Mode::flags, 32>{k}, label); break;
      case Mode::intflags: for_each_run<4>(space, n, t, rows, LinearRun<mem, Mode::intflags, 4>{k}, label); break;
      case Mode::count: for_each_run<4>(space, n, t, rows, LinearRun<mem, Mode::count, 4>{k}, label); break;
      case Mode::row_count: for_each_run<4>(space, n, t, rows, LinearRun<mem, Mode::row_count, 4>{k}, label); break;
      case Mode::append: for_each_run<4>(space, n, t, rows, LinearRun<mem, Mode::append, 4>{k}, label); break;
      case Mode::rowflags:
        Kokkos::parallel_for(label, range_t<ExecSpace>(space, 0, row_flag_words(n)), RowWordKernel<mem>{k});
        break;
      case Mode::tileflags:
        Kokkos::parallel_for(label, range_t<ExecSpace>(space, 0, tile_flag_words(n)), TileWordKernel<mem>{k});
        break;
    }
    return;
  }
  if constexpr (tdmaps::is_block_space_map_v<Map>) {
    const int rho = map.domain.rho;
    const TileKernel<ExecSpace> k(b, rho);
    const std::size_t bytes = TileKernel<ExecSpace>::scratch_bytes(rho);
    const LaunchHints h = tile_hints(hints, b.mode, rho);
    const auto tile = [&](const auto& kern) {
      if constexpr (rangeable) {
        if (range) {
          for_each_tile(space, map, *range, bytes, kern, label, h);
          return;
        }
      }
      for_each_tile(space, map, bytes, kern, label, h);
    };
    switch (b.mode) {
      case Mode::count: tile(TileKernelOf<ExecSpace, Mode::count>{k}); break;
      case Mode::flags: tile(TileKernelOf<ExecSpace, Mode::flags>{k}); break;
      case Mode::intflags: tile(TileKernelOf<ExecSpace, Mode::intflags>{k}); break;
      case Mode::row_count: tile(TileKernelOf<ExecSpace, Mode::row_count>{k}); break;
      case Mode::append: tile(TileKernelOf<ExecSpace, Mode::append>{k}); break;
      case Mode::rowflags: tile(TileKernelOf<ExecSpace, Mode::rowflags>{k}); break;
      case Mode::tileflags: tile(TileKernelOf<ExecSpace, Mode::tileflags>{k}); break;
    }
  } else {
    throw std::invalid_argument(std::string("tdmaps::collision: the tile kernel needs a block-space map; '") +
                                Map::name + "' is a thread-space map (use the element kernel)");
  }
}

}  // namespace detail
}  // namespace collision
}  // namespace tdmaps

#endif
