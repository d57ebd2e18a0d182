#ifndef TDMAPS_APPS_COMMON_RANK_DEVICE_HPP
#define TDMAPS_APPS_COMMON_RANK_DEVICE_HPP

// One GPU per MPI rank: the node-local rank's device (local_rank modulo the
// node's device count), added to the Kokkos options unless the user named a
// device (--kokkos-device-id / --kokkos-num-devices). Host backends and one
// rank: the options unchanged. Every CLI calls it before Kokkos starts.

#include "ranks.hpp"

#include <tdmaps/kokkos_ext/backend.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace tdmaps {
namespace app {

inline std::vector<std::string> rank_device_args(const Ranks& ranks, std::vector<std::string> kokkos) {
  const bool named = std::any_of(kokkos.begin(), kokkos.end(), [](const std::string& a) {
    return a.rfind("--kokkos-device-id", 0) == 0 || a.rfind("--kokkos-num-devices", 0) == 0;
  });
  if (ranks.size() > 1 && !named) {
    const int count = backend::device_count();  // CUDA, HIP; 0 on host builds
    if (count > 0) kokkos.push_back("--kokkos-device-id=" + std::to_string(ranks.local_rank() % count));
  }
  return kokkos;
}

}  // namespace app
}  // namespace tdmaps

#endif
