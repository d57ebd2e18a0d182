#ifndef TDMAPS_APPS_COMMON_MEMORY_HPP
#define TDMAPS_APPS_COMMON_MEMORY_HPP

// Free memory of a Kokkos memory space, for the apps' "does the output fit"
// check before allocating (no chunking yet):
//   free_memory_bytes<MemorySpace>()  device: cudaMemGetInfo's free bytes;
//                                      host spaces: host_available_bytes()
//   check_fits<MemorySpace>(bytes, what)  throws tdmaps::app::Error naming
//                                      the size and what is free

#include "npy.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace app {

template <class MemorySpace>
std::int64_t free_memory_bytes() {
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<MemorySpace, Kokkos::CudaSpace>::value || std::is_same<MemorySpace, Kokkos::CudaUVMSpace>::value) {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) throw Error("cudaMemGetInfo failed");
    return static_cast<std::int64_t>(free_b);
  }
#endif
  return host_available_bytes();
}

/// Throws when `bytes` (already computed in int64 by the caller) exceed the
/// free memory of MemorySpace.
template <class MemorySpace>
void check_fits(std::int64_t bytes, const std::string& what) {
  const std::int64_t free_b = free_memory_bytes<MemorySpace>();
  if (bytes > free_b)
    throw Error(what + " needs " + format_bytes(bytes) + " but only " + format_bytes(free_b) + " of " +
                MemorySpace::name() + " memory is free (chunked runs are not implemented yet)");
}

}  // namespace app
}  // namespace tdmaps

#endif
