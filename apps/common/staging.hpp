#ifndef TDMAPS_APPS_COMMON_STAGING_HPP
#define TDMAPS_APPS_COMMON_STAGING_HPP

// Host memory a device copies into and out of at full speed (target
// tdmaps::app_common): pinned host memory on CUDA and HIP, the host space
// itself on host backends (where nothing is copied).

#include <tdmaps/kokkos_ext/backend.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace app {

/// staging_space<ExecSpace>::type: where results of ExecSpace are staged on
/// the host (tdmaps::backend::staging_space_t: pinned on CUDA and HIP, SYCL's
/// host USM; the host backends' own memory).
template <class ExecSpace>
struct staging_space {
  using type = backend::staging_space_t<ExecSpace>;  ///< the staging memory space
};

}  // namespace app
}  // namespace tdmaps

#endif
