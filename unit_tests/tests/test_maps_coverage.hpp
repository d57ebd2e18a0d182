// Coverage: every map hits each (i, j) of its domain exactly once and nothing
// else, for every n in 0..300 and a set of larger n (odd, even, prime, powers
// of two, 2^k +- 1), for each block side, with element and tile kernels.
// The oracle is HitCounter::check, a host nested loop.
#include "coverage.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using tdmaps::index_t;

using tdmaps::Triangle;

}  // namespace

TEST(TEST_CATEGORY, map_bb_covers_triangle) { tdmaps_test::check_coverage<TEST_EXECSPACE, tdmaps::BoundingBoxMap, true>(); }
TEST(TEST_CATEGORY, map_lambda_sqrt_covers_triangle) {
  tdmaps_test::check_coverage<TEST_EXECSPACE, tdmaps::LambdaMap<tdmaps::SqrtIEEE, tdmaps::Exact>, true>();
}
TEST(TEST_CATEGORY, map_lambda_newton_covers_triangle) {
  tdmaps_test::check_coverage<TEST_EXECSPACE, tdmaps::LambdaMap<tdmaps::SqrtNewton, tdmaps::Exact>, true>();
}
TEST(TEST_CATEGORY, map_lambda_rsqrt_covers_triangle) {
  tdmaps_test::check_coverage<TEST_EXECSPACE, tdmaps::LambdaMap<tdmaps::SqrtRsqrt, tdmaps::Exact>, true>();
}
TEST(TEST_CATEGORY, map_lambda_fp64_covers_triangle) {
  tdmaps_test::check_coverage<TEST_EXECSPACE, tdmaps::LambdaMap<tdmaps::SqrtDouble, tdmaps::Exact>, true>();
}
// The papers' epsilon form is right in this small range (it fails from
// ~2,000 block rows on; test_lambda_exactness records where).
TEST(TEST_CATEGORY, map_lambda_rsqrt_epsilon_covers_small_triangles) {
  tdmaps_test::check_coverage<TEST_EXECSPACE, tdmaps::LambdaMap<tdmaps::SqrtRsqrt, tdmaps::Epsilon>, true>();
}
TEST(TEST_CATEGORY, map_rb_covers_triangle) { tdmaps_test::check_coverage<TEST_EXECSPACE, tdmaps::RectangularBoxMap, true>(); }
TEST(TEST_CATEGORY, map_rec_covers_triangle) { tdmaps_test::check_coverage<TEST_EXECSPACE, tdmaps::RecursiveMap, true>(); }
TEST(TEST_CATEGORY, map_utm_covers_triangle) { tdmaps_test::check_coverage<TEST_EXECSPACE, tdmaps::UpperTriangularMap, false>(); }

// Team shapes: one thread per element (the papers' rho x rho teams), one row
// of threads walking the whole block, and the default.
TEST(TEST_CATEGORY, map_coverage_holds_for_every_team_shape) {
  for (int rho : {8, 16, 32}) {
    for (int threads : {rho, 4 * rho, rho * rho}) {
      for (index_t n : {1, 31, 100, 513}) {
        const tdmaps::LaunchHints hints{threads};
        const tdmaps::LambdaMap<> map(n, rho);
        tdmaps_test::HitCounter<TEST_EXECSPACE> counter(n, Triangle::lower);
        tdmaps::for_each_element(TEST_EXECSPACE(), map, counter, "tdmaps::test::shape", hints);
        tdmaps_test::TileHits<TEST_EXECSPACE> tiles{tdmaps_test::HitCounter<TEST_EXECSPACE>(n, Triangle::lower)};
        tdmaps::for_each_tile(TEST_EXECSPACE(), tdmaps::RecursiveMap(n, rho), 0, tiles, "tdmaps::test::shape", hints);
        TEST_EXECSPACE().fence();
        EXPECT_EQ(counter.check(), "") << "n = " << n << ", rho = " << rho << ", team_threads = " << threads;
        EXPECT_EQ(tiles.counter.check(), "") << "n = " << n << ", rho = " << rho << ", team_threads = " << threads;
      }
    }
  }
  // Fewer threads than a block row: refused on every backend (host teams
  // ignore the team size, but the same call must not pass there and fail on a GPU).
  tdmaps_test::HitCounter<TEST_EXECSPACE> counter(10, Triangle::lower);
  EXPECT_THROW(tdmaps::for_each_element(TEST_EXECSPACE(), tdmaps::LambdaMap<>(10, 32), counter, "x",
                                        tdmaps::LaunchHints{16}),
               std::invalid_argument);
  tdmaps_test::TileHits<TEST_EXECSPACE> tiles{tdmaps_test::HitCounter<TEST_EXECSPACE>(10, Triangle::lower)};
  EXPECT_THROW(tdmaps::for_each_tile(TEST_EXECSPACE(), tdmaps::LambdaMap<>(10, 32), 0, tiles, "x",
                                     tdmaps::LaunchHints{16}),
               std::invalid_argument);
}

// Blocks per team: L = ceil(blocks / K) teams, team r taking omegas r, r + L,
// ... (some teams one fewer); every element is still hit once, for leagues
// that are and are not multiples of K, with maps that skip blocks (BB) and
// maps of several launches (H).
TEST(TEST_CATEGORY, map_coverage_holds_for_every_blocks_per_team) {
  for (int k : {1, 2, 3, 7, 64}) {
    for (int rho : {8, 32}) {
      for (index_t n : {1, 31, 100, 513}) {
        tdmaps::LaunchHints hints;
        hints.blocks_per_team = k;
        const std::string what = "n = " + std::to_string(n) + ", rho = " + std::to_string(rho) +
                                 ", blocks_per_team = " + std::to_string(k);
        tdmaps_test::HitCounter<TEST_EXECSPACE> elements(n, Triangle::lower);
        tdmaps::for_each_element(TEST_EXECSPACE(), tdmaps::BoundingBoxMap(n, rho), elements, "tdmaps::test::k", hints);
        tdmaps_test::TileHits<TEST_EXECSPACE> bb{tdmaps_test::HitCounter<TEST_EXECSPACE>(n, Triangle::lower)};
        tdmaps::for_each_tile(TEST_EXECSPACE(), tdmaps::BoundingBoxMap(n, rho), 0, bb, "tdmaps::test::k", hints);
        tdmaps_test::TileHits<TEST_EXECSPACE> h{tdmaps_test::HitCounter<TEST_EXECSPACE>(n, Triangle::strict_lower)};
        tdmaps::for_each_tile(TEST_EXECSPACE(), tdmaps::HadoukenMap(n, rho, Triangle::strict_lower), 0, h,
                              "tdmaps::test::k", hints);
        tdmaps_test::TileHits<TEST_EXECSPACE> lambda{tdmaps_test::HitCounter<TEST_EXECSPACE>(n, Triangle::lower)};
        tdmaps::for_each_tile(TEST_EXECSPACE(), tdmaps::LambdaMap<>(n, rho), 0, lambda, "tdmaps::test::k", hints);
        TEST_EXECSPACE().fence();
        EXPECT_EQ(elements.check(), "") << "element, BB, " << what;
        EXPECT_EQ(bb.counter.check(), "") << "tile, BB, " << what;
        EXPECT_EQ(h.counter.check(), "") << "tile, H, " << what;
        EXPECT_EQ(lambda.counter.check(), "") << "tile, lambda, " << what;
      }
    }
  }
  tdmaps_test::HitCounter<TEST_EXECSPACE> counter(10, Triangle::lower);
  for (int bad : {-1, tdmaps::max_blocks_per_team + 1}) {
    tdmaps::LaunchHints hints;
    hints.blocks_per_team = bad;
    EXPECT_THROW(tdmaps::for_each_element(TEST_EXECSPACE(), tdmaps::LambdaMap<>(10, 8), counter, "x", hints),
                 std::invalid_argument)
        << "blocks_per_team = " << bad;
  }
}
