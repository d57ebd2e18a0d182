// The triplets app over omega ranges (MPI ranks, chunks): atm_energy() of
// the parts of omega_range() partitions of a 3-D league against a host fp64
// nested loop over the triplets k < j < i: the parts' energies and
// per-particle shares sum to the oracle's total and shares, for lambda3 and
// bb3, block sides 2, 4, 8, ragged sides and 1..9 parts (empty parts
// included). Inputs: fixed seeds (named in every failure message).
#include <tdmaps/tdmaps.hpp>
#include <tdmaps/triplets.hpp>

#include "atm_oracle.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

namespace tt = tdmaps::triplets;
using tdmaps::index_t;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;

std::vector<double> range_points(index_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> x(static_cast<std::size_t>(3 * n));
  for (double& v : x) v = u(g);
  return x;
}

template <class Map>
std::string parts_sum_to_whole(const Map& map, const std::vector<double>& x, index_t parts) {
  const index_t n = map.domain.n;
  const tdmaps_triplets_test::Expected e = tdmaps_triplets_test::oracle(x, tt::AtmParams());
  const double total = e.total, abs_total = e.abs_total;
  const std::vector<double>& share = e.share;
  const auto xd = tt::to_device<double>(Space(), x);
  const typename decltype(xd)::const_type xc(xd);
  Kokkos::View<double*, Mem> pp("pp", static_cast<std::size_t>(n));
  std::vector<double> sum_share(static_cast<std::size_t>(n), 0.0);
  double sum = 0;
  for (index_t p = 0; p < parts; ++p) {
    const tdmaps::OmegaRange r = tdmaps::omega_range(map, p, parts);
    Kokkos::deep_copy(pp, std::nan(""));  // poisoned: every part writes every share
    sum += tt::atm_energy<double>(Space(), map, r, xc, tt::AtmParams(), pp);
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pp);
    for (index_t m = 0; m < n; ++m) sum_share[static_cast<std::size_t>(m)] += h(static_cast<std::size_t>(m));
  }
  std::string err;
  if (!(std::fabs(sum - total) <= 1e-12 * abs_total))
    err += "total " + std::to_string(sum) + " != " + std::to_string(total) + "; ";
  int bad = 0;
  for (index_t m = 0; m < n; ++m) {
    const std::size_t s = static_cast<std::size_t>(m);
    if (!(std::fabs(sum_share[s] - share[s]) <= 1e-12 * abs_total) && bad++ < 3)
      err += "share " + std::to_string(m) + " = " + std::to_string(sum_share[s]) + " != " + std::to_string(share[s]) + "; ";
  }
  return err;
}

TEST(TEST_CATEGORY, triplets_atm_omega_ranges_sum_to_whole) {
  for (index_t n : {3, 17, 40, 67}) {
    const std::uint64_t seed = 9100 + static_cast<std::uint64_t>(n);
    const std::vector<double> x = range_points(n, seed);
    for (int rho : {2, 4, 8}) {
      const tdmaps::Domain3 d(n, rho, tdmaps::Triangle::strict_lower);
      for (index_t parts : {1, 2, 3, 9}) {
        const std::string where =
            "n " + std::to_string(n) + ", rho " + std::to_string(rho) + ", parts " + std::to_string(parts) +
            ", seed " + std::to_string(seed);
        EXPECT_EQ(parts_sum_to_whole(tdmaps::Lambda3Map<>(d), x, parts), "") << "lambda3, " << where;
        EXPECT_EQ(parts_sum_to_whole(tdmaps::BoundingBox3Map(d), x, parts), "") << "bb3, " << where;
      }
    }
  }
}

TEST(TEST_CATEGORY, triplets_atm_range_outside_league_throws) {
  const tdmaps::Domain3 d(20, 4, tdmaps::Triangle::strict_lower);
  const tdmaps::Lambda3Map<> map(d);
  const auto xd = tt::to_device<double>(Space(), range_points(20, 1));
  const typename decltype(xd)::const_type xc(xd);
  EXPECT_THROW(tt::atm_energy<double>(Space(), map, tdmaps::OmegaRange{0, map.league_size() + 1}, xc, tt::AtmParams()),
               std::invalid_argument);
}

}  // namespace
