#ifndef TDMAPS_COLLISION_CHECK_HPP
#define TDMAPS_COLLISION_CHECK_HPP

// The input check: NaN or infinite coordinates or radii and negative radii
// are rejected with std::invalid_argument naming the first bad row. Either
// with one device wait ahead of the kernels (check_spheres), or without one
// (CheckSpheres writes the first bad row into Output::counters, where the
// tile kernels read it before their first block: for_each_tile's gate).

#include <tdmaps/collision/buffers.hpp>
#include <tdmaps/collision/spheres.hpp>
#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace tdmaps {
namespace collision {
namespace detail {

KOKKOS_FORCEINLINE_FUNCTION bool finite(float x) { return x - x == 0.0f; }  // NaN and inf give NaN

KOKKOS_FORCEINLINE_FUNCTION bool sphere_ok(float x, float y, float z, float r) {
  return finite(x) && finite(y) && finite(z) && finite(r) && r >= 0.0f;
}

template <class MemorySpace>
struct FirstBadSphere {
  ConstSpheres<MemorySpace> s;
  KOKKOS_FUNCTION void operator()(const index_t i, index_t& first) const {
    if (!sphere_ok(s(i, 0), s(i, 1), s(i, 2), s(i, 3)) && i < first) first = i;
  }
};

/// The input check on the device, no reduction: a bad row k lowers the
/// first-bad entry with an atomic min (it holds ~0 between calls: the
/// allocation sets it, FinishCount resets it).
template <class MemorySpace>
struct CheckSpheres {
  ConstSpheres<MemorySpace> s;
  Kokkos::View<counter_t*, MemorySpace> counters;
  KOKKOS_FUNCTION void operator()(const index_t k) const {
    if (!sphere_ok(s(k, 0), s(k, 1), s(k, 2), s(k, 3)))
      Kokkos::atomic_fetch_min(&counters(index_t(first_bad_entry)), static_cast<counter_t>(k));
  }
};

/// Throws std::invalid_argument naming sphere row `first` and what is wrong with it.
template <class ExecSpace>
[[noreturn]] void reject_sphere(const ExecSpace& space, const ConstSpheres<typename ExecSpace::memory_space>& s,
                                index_t first) {
  float row[4];
  Kokkos::View<float[4], Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(row);
  Kokkos::deep_copy(space, h, Kokkos::subview(s, first, Kokkos::ALL));
  space.fence();
  throw std::invalid_argument("tdmaps::collision: sphere row " + std::to_string(first) + ": " + check_sphere(row));
}

/// The input check with one device wait: throws (reject_sphere) on the first bad row.
template <class ExecSpace>
void check_spheres(const ExecSpace& space, const ConstSpheres<typename ExecSpace::memory_space>& s) {
  using mem = typename ExecSpace::memory_space;
  const index_t n = static_cast<index_t>(s.extent(0));
  if (n == 0) return;
  index_t first = n;
  Kokkos::parallel_reduce("tdmaps::collision::check_spheres", range_t<ExecSpace>(space, 0, n), FirstBadSphere<mem>{s},
                          Kokkos::Min<index_t>(first));
  if (first < n) reject_sphere(space, s, first);
}

}  // namespace detail
}  // namespace collision
}  // namespace tdmaps

#endif
