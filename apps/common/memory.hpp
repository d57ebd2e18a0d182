#ifndef TDMAPS_APPS_COMMON_MEMORY_HPP
#define TDMAPS_APPS_COMMON_MEMORY_HPP

// Free memory of a Kokkos memory space, for the apps' "does the output fit"
// check before allocating (no chunking yet):
//   free_memory_bytes<MemorySpace>()  device: the GPU runtime's free bytes
//                                      (tdmaps::backend::device_free_bytes: CUDA,
//                                      HIP); a device space whose backend does
//                                      not say (SYCL) throws tdmaps::app::Error;
//                                      host spaces: host_available_bytes()
//   check_fits<MemorySpace>(bytes, what)  throws tdmaps::app::Error naming
//                                      the size and what is free

#include "npy.hpp"

#include <tdmaps/kokkos_ext/backend.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace app {

template <class MemorySpace>
std::int64_t free_memory_bytes() {
  const std::int64_t device = backend::device_free_bytes<MemorySpace>();
  if (device >= 0) return device;
  if (backend::is_device_memory<MemorySpace>::value)
    throw Error(std::string("cannot tell how much ") + MemorySpace::name() +
                " memory is free (the GPU runtime did not say); refusing to allocate without that check");
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
