#ifndef TDMAPS_APPS_COMMON_STAGING_HPP
#define TDMAPS_APPS_COMMON_STAGING_HPP

// Host memory a device copies into and out of at full speed (target
// tdmaps::app_common): pinned host memory on CUDA, the host space itself on
// host backends (where nothing is copied).

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace app {

/// staging_space<ExecSpace>::type: where results of ExecSpace are staged on the host.
template <class ExecSpace>
struct staging_space {
  using type = Kokkos::HostSpace;  ///< host backends
};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct staging_space<Kokkos::Cuda> {
  using type = Kokkos::CudaHostPinnedSpace;  ///< CUDA: pinned
};
#endif

}  // namespace app
}  // namespace tdmaps

#endif
