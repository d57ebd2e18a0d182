#ifndef TDMAPS_LAUNCH_DETAIL_ELEMENT_FUNCTOR_BASE_HPP
#define TDMAPS_LAUNCH_DETAIL_ELEMENT_FUNCTOR_BASE_HPP

// Not API (tdmaps::detail): what the 2-D and 3-D element functors
// (element_functor.hpp, element_functor3.hpp) both hold: the map, the
// kernel, the launch and its omega range, rho's exponent, and whether teams
// walk blocks by lanes.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/launch/team_policy.hpp>

#include <cstdint>

namespace tdmaps {
namespace detail {

template <class ExecSpace, class Map, class Kernel>
struct ElementFunctorBase {
  Map map;
  Kernel kernel;
  int launch;
  index_t offset = 0;  ///< first omega of this Kokkos launch
  index_t count = 0;   ///< omegas of this Kokkos launch: [offset, offset + count)
  int log2_rho;        ///< rho = 2^log2_rho
  int group = 1;       ///< blocks per CUDA block of the direct launch (set by run_league)

  ElementFunctorBase(const Map& m, const Kernel& k, int l)
      : map(m), kernel(k), launch(l), log2_rho(intrinsics::bit_length(static_cast<std::uint64_t>(m.domain.rho)) - 1) {}

  // GPU teams walk a block as the plain-CUDA kernel does (for_each_lane);
  // TDMAPS_FORCE_LANE_TILE (tests) makes host teams do so too.
#if defined(TDMAPS_FORCE_LANE_TILE)
  static constexpr bool lanes = true;
#else
  static constexpr bool lanes = is_gpu_space<ExecSpace>::value;
#endif
};

}  // namespace detail
}  // namespace tdmaps

#endif
