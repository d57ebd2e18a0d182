#ifndef TDMAPS_COLLISION_SPHERES_HPP
#define TDMAPS_COLLISION_SPHERES_HPP

// The input: an (n x 4) View of float, LayoutRight, one row (x, y, z, r) per
// sphere; intervals (1-D) use the same layout with y = z = 0, so both share
// every kernel. A block stages its spheres with one contiguous read per side
// and the element kernel touches one 16-byte sector per sphere, and the
// layout is the file layout ((n, 4) float32, C order).
//
// Random spheres: std::mt19937_64(seed), for each sphere in order D centre
// coordinates then one radius. A coordinate is (g() >> 40) 2^-24: uniform on
// the 2^-24 grid of [0, 1). A radius is uniform on the 2^-24 grid points of
// [r_min, r_max] (k = lo + g() % (hi - lo + 1), lo / hi the grid points at /
// inside the range; the modulo bias is below 2^-40), 0 <= r_min <= r_max <=
// 1. Only the engine's output is used (no std:: distribution, whose
// algorithm is implementation-defined), so a seed gives the same spheres
// everywhere. The presets (default_radii): "dense" is the papers' regime,
// where the kernel rather than the output dominates a pair list; "sparse"
// keeps the list about 100 times shorter.

#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace tdmaps {
namespace collision {

/// Radius presets (default_radii).
enum class Density { dense, sparse };

/// The density's name on the command line.
inline const char* name(Density d) { return d == Density::dense ? "dense" : "sparse"; }

/// (n x 4) spheres: x, y, z, r per row (y = z = 0 for intervals).
template <class MemorySpace>
using Spheres = Kokkos::View<float* [4], Kokkos::LayoutRight, MemorySpace>;
/// Read-only (n x 4) spheres, what collide() takes.
template <class MemorySpace>
using ConstSpheres = Kokkos::View<const float* [4], Kokkos::LayoutRight, MemorySpace>;

/// The range radii are drawn from: [r_min, r_max].
struct RadiusRange {
  double r_min = 0;  ///< smallest radius
  double r_max = 0;  ///< largest radius
};

/// The radius presets: 3-D dense [0.05, 0.15], sparse [0.01, 0.03]; 1-D dense
/// [0.005, 0.015], sparse [0.00005, 0.00015].
inline RadiusRange default_radii(int dims, Density density) {
  if (dims == 3) return density == Density::dense ? RadiusRange{0.05, 0.15} : RadiusRange{0.01, 0.03};
  if (dims == 1) return density == Density::dense ? RadiusRange{0.005, 0.015} : RadiusRange{0.00005, 0.00015};
  throw std::invalid_argument("tdmaps::collision: dims = " + std::to_string(dims) + " (supported: 1, 3)");
}

/// Host row-major (n x 4) spheres drawn as described at the top of this file.
inline std::vector<float> random_spheres_host(index_t n, int dims, RadiusRange radii, std::uint64_t seed) {
  if (n < 0) throw std::invalid_argument("tdmaps::collision: n = " + std::to_string(n) + " spheres is negative");
  if (dims != 1 && dims != 3)
    throw std::invalid_argument("tdmaps::collision: dims = " + std::to_string(dims) + " (supported: 1, 3)");
  if (!(radii.r_min >= 0 && radii.r_min <= radii.r_max && radii.r_max <= 1))
    throw std::invalid_argument("tdmaps::collision: radius range [" + std::to_string(radii.r_min) + ", " +
                                std::to_string(radii.r_max) + "] must satisfy 0 <= r_min <= r_max <= 1");
  constexpr double grid = 16777216.0;  // 2^24
  std::int64_t lo = static_cast<std::int64_t>(std::ceil(radii.r_min * grid));
  std::int64_t hi = static_cast<std::int64_t>(std::floor(radii.r_max * grid));
  if (hi < lo) lo = hi = static_cast<std::int64_t>(std::llround(radii.r_min * grid));  // no grid point inside
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
  std::mt19937_64 g(seed);
  std::vector<float> s(static_cast<std::size_t>(n) * 4, 0.0f);
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    for (int d = 0; d < dims; ++d) s[4 * i + d] = static_cast<float>(static_cast<double>(g() >> 40) / grid);
    s[4 * i + 3] = static_cast<float>(static_cast<double>(lo + static_cast<std::int64_t>(g() % span)) / grid);
  }
  return s;
}

/// Copies host row-major (n x 4) spheres into a new View of ExecSpace's memory.
template <class ExecSpace>
Spheres<typename ExecSpace::memory_space> to_device(const ExecSpace& space, const std::vector<float>& host) {
  if (host.size() % 4 != 0)
    throw std::invalid_argument("tdmaps::collision: " + std::to_string(host.size()) +
                                " floats are not whole (x, y, z, r) rows");
  Spheres<typename ExecSpace::memory_space> s(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collision::spheres"), host.size() / 4);
  Kokkos::View<const float* [4], Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(host.data(),
                                                                                                   host.size() / 4);
  Kokkos::deep_copy(space, s, h);
  space.fence();  // h is the caller's memory: done with it before returning
  return s;
}

/// random_spheres_host, on the device.
template <class ExecSpace>
Spheres<typename ExecSpace::memory_space> random_spheres(const ExecSpace& space, index_t n, int dims, RadiusRange radii,
                                                         std::uint64_t seed) {
  return to_device(space, random_spheres_host(n, dims, radii, seed));
}

/// Empty string when row `row` (x, y, z, r) is valid, else what is wrong.
inline std::string check_sphere(const float* xyzr) {
  static const char* const what[4] = {"x", "y", "z", "radius"};
  for (int c = 0; c < 4; ++c)
    if (!std::isfinite(xyzr[c])) return std::string(what[c]) + " is " + std::to_string(xyzr[c]) + " (not finite)";
  if (xyzr[3] < 0) return "radius " + std::to_string(xyzr[3]) + " is negative";
  return {};
}

}  // namespace collision
}  // namespace tdmaps

#endif
