// Proves the per-backend harness: a parallel_reduce over the triangle, on
// random values with a fixed seed, against a host nested loop.
#include "oracle.hpp"

#include <gtest/gtest.h>

#include <random>

namespace {

using tdmaps::index_t;

struct WeightedPairSum {
  Kokkos::View<const double*, TEST_EXECSPACE::memory_space> w;
  index_t n;
  KOKKOS_FUNCTION void operator()(const tdmaps::team_member_t<TEST_EXECSPACE>& team, double& sum) const {
    const index_t i = team.league_rank();
    double row = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, static_cast<int>(i + 1)),
        [&](const int j, double& acc) { acc += w(i) * w(j) + static_cast<double>(j); }, row);
    Kokkos::single(Kokkos::PerTeam(team), [&]() { sum += row; });
  }
};

double device_triangle_sum(const std::vector<double>& host_w) {
  const index_t n = static_cast<index_t>(host_w.size());
  Kokkos::View<double*, TEST_EXECSPACE::memory_space> w("w", host_w.size());
  Kokkos::deep_copy(w, Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(host_w.data(), host_w.size()));
  double sum = 0;
  tdmaps::team_policy_t<TEST_EXECSPACE> policy(TEST_EXECSPACE(), static_cast<int>(n), Kokkos::AUTO);
  Kokkos::parallel_reduce("tdmaps::test::triangle_sum", policy, WeightedPairSum{w, n}, sum);
  return sum;
}

}  // namespace

TEST(TEST_CATEGORY, harness_triangle_reduce_matches_host_loop) {
  const unsigned seed = 20261122u;
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (index_t n : {1, 2, 7, 64, 333}) {
    std::vector<double> w(static_cast<std::size_t>(n));
    for (auto& x : w) x = dist(gen);
    double expect = 0;
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j <= i; ++j) expect += w[i] * w[j] + static_cast<double>(j);
    EXPECT_NEAR(device_triangle_sum(w), expect, 1e-9 * (1 + std::abs(expect))) << "n = " << n << ", seed = " << seed;
  }
}
