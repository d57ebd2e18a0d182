#ifndef TDMAPS_TRIPLETS_POINTS_HPP
#define TDMAPS_TRIPLETS_POINTS_HPP

// Inputs for the triplet kernels: seeded random particles (the CLI's
// --random) and the copy of host (n x 3) coordinates into a View.

#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace tdmaps {
namespace triplets {

/// The side of the box random_points_host fills: n^(1/3), so that the
/// particles have unit number density whatever n (the energy per particle
/// then does not depend on n, and fp32 stays in range).
inline double random_box_side(index_t n) { return n > 0 ? std::cbrt(static_cast<double>(n)) : 1.0; }

/// n particles uniform in [0, L)^3, L = random_box_side(n), row-major (n x 3)
/// fp64: std::mt19937_64(seed), each coordinate (g() >> 11) 2^-53 L.
inline std::vector<double> random_points_host(index_t n, std::uint64_t seed) {
  if (n < 0) throw std::invalid_argument("tdmaps::triplets: n = " + std::to_string(n) + " particles is negative");
  const double side = random_box_side(n);
  std::mt19937_64 g(seed);
  std::vector<double> x(static_cast<std::size_t>(n) * 3);
  for (double& v : x) v = static_cast<double>(g() >> 11) * 0x1p-53 * side;
  return x;
}

/// Copies host row-major (n x 3) coordinates into a new View of ExecSpace's
/// memory, converted to Real.
template <class Real, class ExecSpace, class T>
Kokkos::View<Real* [3], Kokkos::LayoutRight, typename ExecSpace::memory_space> to_device(const ExecSpace& space,
                                                                                        const std::vector<T>& host) {
  if (host.size() % 3 != 0)
    throw std::invalid_argument("tdmaps::triplets::to_device: " + std::to_string(host.size()) +
                                " values are not (n x 3) coordinates");
  const std::size_t n = host.size() / 3;
  Kokkos::View<Real* [3], Kokkos::LayoutRight, typename ExecSpace::memory_space> x(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::triplets::x"), n);
  auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), x);
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) h(i, c) = static_cast<Real>(host[3 * i + static_cast<std::size_t>(c)]);
  Kokkos::deep_copy(space, x, h);
  space.fence();  // h dies here
  return x;
}

}  // namespace triplets
}  // namespace tdmaps

#endif
