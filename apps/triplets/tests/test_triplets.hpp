// The triplets app (<tdmaps/triplets.hpp>, apps/triplets/include) against an
// independent oracle: a host fp64 nested loop over k < j < i < n that takes
// the angles from the law of cosines on the distances (the kernel uses dot
// products of the edge vectors). The ATM total and the per-particle shares
// for n = 0 .. 257, block sides 2, 4, 8, bb3 and lambda3, fp64 and fp32, the
// cutoffs, a permuted input, and the argument checks. Inputs: fixed seeds
// (named in every failure message).
#include <tdmaps/tdmaps.hpp>
#include <tdmaps/triplets.hpp>

#include "atm_oracle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace tt = tdmaps::triplets;
using tdmaps::index_t;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;
using tdmaps_triplets_test::Expected;
using tdmaps_triplets_test::oracle;

/// n particles uniform in [0, n^(1/3))^3 (unit density), fp64 values exact in fp32.
std::vector<double> points(index_t n, std::uint64_t seed) {
  std::vector<double> x = tt::random_points_host(n, seed);
  for (double& v : x) v = static_cast<double>(static_cast<float>(v));
  return x;
}

template <class Real>
double tolerance() {
  return std::is_same<Real, double>::value ? 1e-12 : 1e-5;
}

/// The total (and shares) of one run of atm_energy<Real> against the oracle;
/// "" when they agree. The shares are poisoned first.
template <class Real, class Map>
std::string run_and_compare(const Map& map, const std::vector<double>& x, const tt::AtmParams& p, const Expected& e,
                            bool shares, const tdmaps::LaunchHints& hints = tdmaps::LaunchHints()) {
  const index_t n = static_cast<index_t>(x.size() / 3);
  const auto xd = tt::to_device<Real>(Space(), x);
  Kokkos::View<double*, Mem> pp;
  if (shares) {
    pp = Kokkos::View<double*, Mem>("pp", static_cast<std::size_t>(n));
    Kokkos::deep_copy(pp, std::numeric_limits<double>::quiet_NaN());
  }
  const double got = tt::atm_energy<Real>(Space(), map, typename decltype(xd)::const_type(xd), p, pp, hints);
  const double tol = tolerance<Real>();
  std::string err;
  // fp64: relative to the total itself. fp32: relative to the sum of the
  // |terms|, the scale of the terms' own rounding: the terms of a close pair
  // and a far particle (1 - 3 cos^2 over the orientations) cancel, so the
  // total of random particles is a small fraction of that sum.
  const double scale = std::is_same<Real, double>::value ? std::fabs(e.total) : e.abs_total;
  if (!(std::fabs(got - e.total) <= tol * scale + e.edge))
    err += "total " + std::to_string(got) + " != " + std::to_string(e.total) + " (rel " +
           std::to_string(std::fabs(got - e.total) / std::fabs(e.total)) + "); ";
  if (shares) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pp);
    double sum = 0;
    int bad = 0;
    for (index_t m = 0; m < n; ++m) {
      const std::size_t s = static_cast<std::size_t>(m);
      sum += h(s);
      if (!(std::fabs(h(s) - e.share[s]) <= tol * e.abs_share[s] + e.edge_share[s]) && bad++ < 3)
        err += "share " + std::to_string(m) + " = " + std::to_string(h(s)) + " != " + std::to_string(e.share[s]) + "; ";
    }
    // The shares sum to the returned total up to the rounding of the sums.
    if (!(std::fabs(sum - got) <= 1e-12 * e.abs_total))
      err += "shares sum to " + std::to_string(sum) + ", total " + std::to_string(got) + "; ";
  }
  return err;
}

template <class Real>
void check_sizes_and_maps(std::uint64_t seed) {
  for (index_t n : {0, 1, 2, 3, 17, 64, 100, 257}) {
    const std::vector<double> x = points(n, seed + static_cast<std::uint64_t>(n));
    const Expected e = oracle(x, tt::AtmParams());
    for (int rho : {2, 4, 8}) {
      if (n > 100 && rho == 2) continue;  // keeps the runtime modest: the small blocks are covered below 100
      const tdmaps::Domain3 d(n, rho, tdmaps::Triangle::strict_lower);
      const std::string where = "n = " + std::to_string(n) + ", rho = " + std::to_string(rho) +
                                ", seed = " + std::to_string(seed + static_cast<std::uint64_t>(n));
      EXPECT_EQ(run_and_compare<Real>(tdmaps::BoundingBox3Map(d), x, tt::AtmParams(), e, false), "") << "bb3, " << where;
      EXPECT_EQ(run_and_compare<Real>(tdmaps::Lambda3Map<>(d), x, tt::AtmParams(), e, true), "")
          << "lambda3, shares, " << where;
      if (n < 3) continue;
      EXPECT_EQ(run_and_compare<Real>(tdmaps::BoundingBox3Map(d), x, tt::AtmParams(), e, true), "")
          << "bb3, shares, " << where;
      EXPECT_EQ(run_and_compare<Real>(tdmaps::Lambda3Map<tdmaps::CbrtDouble, tdmaps::SqrtDouble>(d), x, tt::AtmParams(),
                                      e, false),
                "")
          << "lambda3 fp64, " << where;
    }
  }
}

TEST(TEST_CATEGORY, triplets_atm_fp64_matches_oracle) { check_sizes_and_maps<double>(7100); }
TEST(TEST_CATEGORY, triplets_atm_fp32_matches_oracle) { check_sizes_and_maps<float>(7200); }

TEST(TEST_CATEGORY, triplets_atm_team_shapes) {
  // GPU team shapes other than the default (more layer phases, several blocks
  // per team); host backends take the hints' checks only.
  const std::vector<double> x = points(70, 7300);
  tt::AtmParams p;
  p.c9 = 2.5;
  const Expected e = oracle(x, p);
  for (int rho : {2, 4, 8})
    for (int threads : {rho * rho, 2 * rho * rho, rho * rho * rho})
      for (int per_team : {1, 3}) {
        tdmaps::LaunchHints h;
        h.team_threads = threads;
        h.blocks_per_team = per_team;
        const tdmaps::Domain3 d(70, rho, tdmaps::Triangle::strict_lower);
        EXPECT_EQ(run_and_compare<double>(tdmaps::Lambda3Map<>(d), x, p, e, true, h), "")
            << "rho = " << rho << ", team_threads = " << threads << ", blocks_per_team = " << per_team;
      }
}

TEST(TEST_CATEGORY, triplets_atm_cutoffs) {
  const index_t n = 120;
  const std::vector<double> x = points(n, 7400);
  const tdmaps::Domain3 d(n, 4, tdmaps::Triangle::strict_lower);
  struct Case {
    double cutoff, triple;
  };
  for (const Case c : {Case{1.5, std::numeric_limits<double>::infinity()},
                       Case{std::numeric_limits<double>::infinity(), 1.2}, Case{2.0, 1.4}, Case{0.0, 1.0}}) {
    tt::AtmParams p;
    p.cutoff = c.cutoff;
    p.cutoff_triple = c.triple;
    const Expected e = oracle(x, p);
    // fp32 decides a, c, q against the cutoffs in fp32: triplets within a
    // few fp32 roundings of a cutoff may go either way.
    const Expected e32 = oracle(x, p, 1e-6);
    const std::string where = "cutoff " + std::to_string(c.cutoff) + ", cutoff_triple " + std::to_string(c.triple);
    if (c.cutoff == 0.0) {
      // Nothing inside: exactly 0, and every share 0.
      const auto xd = tt::to_device<double>(Space(), x);
      Kokkos::View<double*, Mem> pp("pp", static_cast<std::size_t>(n));
      EXPECT_EQ(tt::atm_energy<double>(Space(), tdmaps::BoundingBox3Map(d), typename decltype(xd)::const_type(xd), p, pp),
                0.0);
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pp);
      for (index_t m = 0; m < n; ++m) EXPECT_EQ(h(static_cast<std::size_t>(m)), 0.0) << m;
      continue;
    }
    EXPECT_GT(e.abs_total, 0.0) << where;
    EXPECT_EQ(run_and_compare<double>(tdmaps::Lambda3Map<>(d), x, p, e, true), "") << where;
    EXPECT_EQ(run_and_compare<double>(tdmaps::BoundingBox3Map(d), x, p, e, false), "") << where;
    EXPECT_EQ(run_and_compare<float>(tdmaps::Lambda3Map<>(d), x, p, e32, true), "") << "fp32, " << where;
  }
}

TEST(TEST_CATEGORY, triplets_atm_permutation_invariant) {
  const index_t n = 90;
  const std::vector<double> x = points(n, 7500);
  std::vector<index_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), index_t(0));
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7501));
  std::vector<double> y(x.size());
  for (index_t m = 0; m < n; ++m)
    for (int c = 0; c < 3; ++c)
      y[static_cast<std::size_t>(3 * m + c)] = x[static_cast<std::size_t>(3 * order[static_cast<std::size_t>(m)] + c)];
  const tdmaps::Domain3 d(n, 8, tdmaps::Triangle::strict_lower);
  const auto xd = tt::to_device<double>(Space(), x);
  const auto yd = tt::to_device<double>(Space(), y);
  const double a = tt::atm_energy<double>(Space(), tdmaps::Lambda3Map<>(d), typename decltype(xd)::const_type(xd),
                                          tt::AtmParams());
  const double b = tt::atm_energy<double>(Space(), tdmaps::Lambda3Map<>(d), typename decltype(yd)::const_type(yd),
                                          tt::AtmParams());
  EXPECT_NEAR(a, b, 1e-12 * std::fabs(a)) << "seed 7500, permutation seed 7501";
}

TEST(TEST_CATEGORY, triplets_atm_coincident_particles_give_nan) {
  std::vector<double> x = points(20, 7600);
  for (int c = 0; c < 3; ++c) x[static_cast<std::size_t>(3 * 11 + c)] = x[static_cast<std::size_t>(3 * 4 + c)];
  const tdmaps::Domain3 d(20, 4, tdmaps::Triangle::strict_lower);
  const auto xd = tt::to_device<double>(Space(), x);
  EXPECT_TRUE(std::isnan(
      tt::atm_energy<double>(Space(), tdmaps::Lambda3Map<>(d), typename decltype(xd)::const_type(xd), tt::AtmParams())));
}

TEST(TEST_CATEGORY, triplets_atm_bad_arguments_throw) {
  const std::vector<double> x = points(10, 7700);
  const auto xd = tt::to_device<double>(Space(), x);
  const typename decltype(xd)::const_type cx(xd);
  const auto expect_throw = [&](const auto& map, const tt::AtmParams& p, const Kokkos::View<double*, Mem>& pp,
                                const std::string& words) {
    try {
      tt::atm_energy<double>(Space(), map, cx, p, pp);
      ADD_FAILURE() << "no exception; expected one mentioning '" << words << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  const tdmaps::Domain3 strict(10, 4, tdmaps::Triangle::strict_lower);
  const tdmaps::Lambda3Map<> map(strict);
  expect_throw(tdmaps::Lambda3Map<>(10, 4, tdmaps::Triangle::lower), tt::AtmParams(), {}, "strict_lower");
  expect_throw(tdmaps::BoundingBox3Map(11, 4, tdmaps::Triangle::strict_lower), tt::AtmParams(), {}, "10 rows");
  expect_throw(map, tt::AtmParams(), Kokkos::View<double*, Mem>("pp", 9), "per_particle has 9");
  tt::AtmParams p;
  p.c9 = std::numeric_limits<double>::quiet_NaN();
  expect_throw(map, p, {}, "c9");
  p = tt::AtmParams();
  p.c9 = -1;
  expect_throw(map, p, {}, "c9");
  p = tt::AtmParams();
  p.cutoff = -0.5;
  expect_throw(map, p, {}, "cutoff");
  p = tt::AtmParams();
  p.cutoff_triple = std::numeric_limits<double>::quiet_NaN();
  expect_throw(map, p, {}, "cutoff_triple");
}

TEST(TEST_CATEGORY, triplets_count) {
  EXPECT_EQ(tt::triplet_count(0), 0);
  EXPECT_EQ(tt::triplet_count(2), 0);
  EXPECT_EQ(tt::triplet_count(3), 1);
  EXPECT_EQ(tt::triplet_count(4096), index_t(4096) * 4095 * 4094 / 6);
  const index_t big = index_t(1) << 21;  // max_side3: (n / 2) (n - 1) ((n - 2) / 3) without overflow
  EXPECT_EQ(tt::triplet_count(big), big / 2 * (big - 1) * ((big - 2) / 3));
}

}  // namespace
