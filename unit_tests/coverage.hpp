#ifndef TDMAPS_UNIT_TESTS_COVERAGE_HPP
#define TDMAPS_UNIT_TESTS_COVERAGE_HPP

// The coverage driver shared by the map tests: every (i, j) of the domain hit
// exactly once and nothing else (HitCounter::check, a host nested loop), for
// every n in 0..300 and a set of larger n (odd, even, prime, powers of two,
// 2^k +- 1), for each block side, with element and (block-space maps) tile
// kernels, lower and strict triangles.

#include "oracle.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tdmaps_test {

/// TDMAPS_TEST_FEW_SIDES (the split-league executable, whose launches take at
/// most 7 blocks each) stops at 1024.
inline const std::vector<index_t>& larger_sides() {
#if defined(TDMAPS_TEST_FEW_SIDES)
  static const std::vector<index_t> s{511, 512, 513, 1000, 1021, 1024};
#else
  static const std::vector<index_t> s{511, 512, 513, 1000, 1021, 1024, 2047, 2048, 2049, 3001, 4095, 4096, 4097};
#endif
  return s;
}

template <class ExecSpace, class Map>
std::string element_coverage(index_t n, int rho, tdmaps::Triangle t) {
  const Map map(n, rho, t);
  HitCounter<ExecSpace> counter(n, t);
  tdmaps::for_each_element(ExecSpace(), map, counter, "tdmaps::test::coverage");
  ExecSpace().fence();
  return counter.check();
}

template <class ExecSpace, class Map>
std::string tile_coverage(index_t n, int rho, tdmaps::Triangle t) {
  const Map map(n, rho, t);
  TileHits<ExecSpace> kernel{HitCounter<ExecSpace>(n, t)};
  tdmaps::for_each_tile(ExecSpace(), map, 0, kernel, "tdmaps::test::tile_coverage");
  ExecSpace().fence();
  return kernel.counter.check();
}

template <class ExecSpace, class Map, bool Tiles>
void check_coverage(index_t max_small = 300) {
  using tdmaps::Triangle;
  auto one = [](index_t n, int rho, Triangle t) {
    const std::string e = element_coverage<ExecSpace, Map>(n, rho, t);
    EXPECT_EQ(e, "") << Map::name << " element kernel, n = " << n << ", rho = " << rho
                     << (t == Triangle::lower ? ", lower" : ", strict");
    if constexpr (Tiles) {
      const std::string tl = tile_coverage<ExecSpace, Map>(n, rho, t);
      EXPECT_EQ(tl, "") << Map::name << " tile kernel, n = " << n << ", rho = " << rho
                        << (t == Triangle::lower ? ", lower" : ", strict");
    }
  };
  for (int rho : {8, 16, 32}) {
    for (index_t n = 0; n <= max_small; ++n) one(n, rho, Triangle::lower);
    for (index_t n : larger_sides()) one(n, rho, Triangle::lower);
  }
  // The strict triangle shares all the block logic; one block side suffices.
  for (index_t n = 0; n <= 100; ++n) one(n, 16, Triangle::strict_lower);
  for (index_t n : {511, 512, 513, 1021}) one(n, 8, Triangle::strict_lower);
}

}  // namespace tdmaps_test

#endif
