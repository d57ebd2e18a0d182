#ifndef TDMAPS_NBODY_INITIAL_HPP
#define TDMAPS_NBODY_INITIAL_HPP

// Initial conditions (host side, fp64, seeded std::mt19937_64), as rows of
// seven values x, y, z, m, vx, vy, vz (n x 7, row-major: the CLI's --input
// layout):
//
//   plummer_host(n, seed)   a Plummer sphere in Henon units (G = M = 1,
//                           E = -1/4): Aarseth, Henon and Wielen (1974),
//                           equal masses 1/n, radii cut at 99.9 % of the mass,
//                           the centre of mass at rest at the origin
//   random_host(n, seed, m) uniform in [0, n^(1/3))^3 (unit density), masses
//                           m, at rest

#include <tdmaps/core/detail/number_text.hpp>
#include <tdmaps/core/types.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace tdmaps {
namespace nbody {

/// \brief Values per body of the initial conditions' rows: x, y, z, m, vx, vy, vz.
constexpr int body_columns = 7;

namespace detail {
/// A uniform double in [0, 1) from 53 bits of g.
inline double uniform01(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1p-53; }

/// A vector of length r in a uniformly random direction.
inline void isotropic(std::mt19937_64& g, double r, double* out) {
  const double z = (1.0 - 2.0 * uniform01(g)) * r;
  const double phi = 2.0 * 3.14159265358979323846 * uniform01(g);
  const double rho = std::sqrt(std::max(0.0, r * r - z * z));
  out[0] = rho * std::cos(phi);
  out[1] = rho * std::sin(phi);
  out[2] = z;
}

inline void check_n(index_t n, const char* what) {
  if (n < 0) throw std::invalid_argument(std::string("tdmaps::nbody::") + what + ": n = " + std::to_string(n) + " is negative");
}
}  // namespace detail

/// \brief A Plummer sphere of n bodies in Henon units (the top of this file), n x 7.
inline std::vector<double> plummer_host(index_t n, std::uint64_t seed) {
  detail::check_n(n, "plummer_host");
  std::mt19937_64 g(seed);
  std::vector<double> b(static_cast<std::size_t>(n) * body_columns);
  const double length = 3.0 * 3.14159265358979323846 / 16.0;  // Plummer scale -> Henon units
  const double speed = 1.0 / std::sqrt(length);
  double cm[6] = {0, 0, 0, 0, 0, 0};
  for (index_t i = 0; i < n; ++i) {
    double* row = &b[static_cast<std::size_t>(i) * body_columns];
    double x1;
    do x1 = detail::uniform01(g);
    while (x1 == 0.0 || x1 > 0.999);
    const double r = 1.0 / std::sqrt(std::pow(x1, -2.0 / 3.0) - 1.0);
    detail::isotropic(g, r * length, row);
    row[3] = 1.0 / static_cast<double>(n);
    double x4, x5;
    do {
      x4 = detail::uniform01(g);
      x5 = detail::uniform01(g);
    } while (0.1 * x5 >= x4 * x4 * std::pow(1.0 - x4 * x4, 3.5));
    const double v = x4 * std::sqrt(2.0) * std::pow(1.0 + r * r, -0.25);
    detail::isotropic(g, v * speed, row + 4);
    for (int c = 0; c < 3; ++c) {
      cm[c] += row[c];
      cm[3 + c] += row[4 + c];
    }
  }
  for (index_t i = 0; i < n; ++i) {
    double* row = &b[static_cast<std::size_t>(i) * body_columns];
    for (int c = 0; c < 3; ++c) {
      row[c] -= cm[c] / static_cast<double>(n);
      row[4 + c] -= cm[3 + c] / static_cast<double>(n);
    }
  }
  return b;
}

/// \brief n bodies uniform in [0, n^(1/3))^3, each of mass `mass`, at rest; n x 7.
inline std::vector<double> random_host(index_t n, std::uint64_t seed, double mass) {
  detail::check_n(n, "random_host");
  if (!(std::isfinite(mass) && mass > 0))
    throw std::invalid_argument("tdmaps::nbody::random_host: mass " + tdmaps::detail::number_text(mass) +
                                " must be finite and > 0");
  std::mt19937_64 g(seed);
  const double side = n > 0 ? std::cbrt(static_cast<double>(n)) : 1.0;
  std::vector<double> b(static_cast<std::size_t>(n) * body_columns, 0.0);
  for (index_t i = 0; i < n; ++i) {
    double* row = &b[static_cast<std::size_t>(i) * body_columns];
    for (int c = 0; c < 3; ++c) row[c] = detail::uniform01(g) * side;
    row[3] = mass;
  }
  return b;
}

}  // namespace nbody
}  // namespace tdmaps

#endif
