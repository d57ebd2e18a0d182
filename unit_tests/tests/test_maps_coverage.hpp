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
  if (tdmaps::is_gpu_space<TEST_EXECSPACE>::value) {
    tdmaps_test::HitCounter<TEST_EXECSPACE> counter(10, Triangle::lower);
    EXPECT_THROW(tdmaps::for_each_element(TEST_EXECSPACE(), tdmaps::LambdaMap<>(10, 32), counter, "x",
                                          tdmaps::LaunchHints{16}),
                 std::invalid_argument);
  }
}
