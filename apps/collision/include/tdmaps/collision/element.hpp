#ifndef TDMAPS_COLLISION_ELEMENT_HPP
#define TDMAPS_COLLISION_ELEMENT_HPP

// The element kernel: kernel(i, j) per pair, both spheres read from global
// memory; it runs under every map (thread-space maps such as UTM included).

#include <tdmaps/collision/buffers.hpp>
#include <tdmaps/collision/result.hpp>
#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace collision {
namespace detail {

/// Element kernel: any map, both spheres from global memory.
template <class MemorySpace>
struct ElementKernel {
  Buffers<MemorySpace> b;
  KOKKOS_FUNCTION void operator()(const index_t i, const index_t j) const { b.apply(i, j, pair_index(i, j), b.hit(i, j)); }
};

/// The element kernel's count: a term of the library's pair reduction
/// (tdmaps::reduce_pairs), a team-level sum with no atomic per hit.
template <class MemorySpace>
struct HitCount {
  Buffers<MemorySpace> b;
  KOKKOS_FUNCTION void operator()(const index_t i, const index_t j, index_t& c) const { c += b.hit(i, j) ? 1 : 0; }
};

}  // namespace detail
}  // namespace collision
}  // namespace tdmaps

#endif
