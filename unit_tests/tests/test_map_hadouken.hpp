// The Hadouken map (H): element and tile coverage against the HitCounter
// oracle, like test_maps_coverage.hpp does for the other maps, and host
// checks of the launch decomposition: launch count, league, wasted blocks
// against the formula documented in maps/hadouken.hpp, every block of the
// block triangle hit once, and large nb checked through an independent
// inverse (from the highest differing bit of bi ^ bj).
#include "coverage.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using tdmaps::Block2;
using tdmaps::HadoukenMap;
using tdmaps::index_t;
using tdmaps::Triangle;

// ---- the documented decomposition ---------------------------------------
int popcount(index_t x) {
  int c = 0;
  for (; x > 0; x >>= 1) c += static_cast<int>(x & 1);
  return c;
}
int trailing_ones(index_t x) {
  int j = 0;
  for (; x & 1; x >>= 1) ++j;
  return j;
}
/// Documented wasted blocks: 2^j when nb ends in j >= 2 one bits, else 0.
index_t documented_waste(index_t nb) {
  const int j = trailing_ones(nb);
  return j >= 2 ? index_t(1) << j : 0;
}
/// Documented launches: 2t - 1, t = popcount(nb) - (j - 1) when padded.
int documented_launches(index_t nb) {
  if (nb == 0) return 0;
  const int j = trailing_ones(nb);
  const int t = popcount(nb) - (j >= 2 ? j - 1 : 0);
  return 2 * t - 1;
}
int bit_length(index_t x) {
  int b = 0;
  for (; x > 0; x >>= 1) ++b;
  return b;
}
index_t total_league(const HadoukenMap& m) {
  index_t s = 0;
  for (int l = 0; l < m.launches(); ++l) s += m.league_size(l);
  return s;
}

/// Host walk of every launch: each block of the nb-row triangle once, and
/// the blocks block() rejects counted. Empty string when right.
std::string host_block_walk(index_t nb, index_t& rejected) {
  const HadoukenMap map(nb * 8, 8);  // exactly nb block rows
  std::vector<int> hits(static_cast<std::size_t>(tdmaps::tri(nb)), 0);
  rejected = 0;
  for (int l = 0; l < map.launches(); ++l) {
    for (index_t omega = 0; omega < map.league_size(l); ++omega) {
      Block2 b{-1, -1};
      if (!map.block(l, omega, b)) {
        ++rejected;
        continue;
      }
      if (b.bj < 0 || b.bj > b.bi || b.bi >= nb)
        return "launch " + std::to_string(l) + " omega " + std::to_string(omega) + " gives block (" +
               std::to_string(b.bi) + "," + std::to_string(b.bj) + ") outside the triangle";
      ++hits[static_cast<std::size_t>(tdmaps::tri(b.bi) + b.bj)];
    }
  }
  for (index_t i = 0; i < nb; ++i)
    for (index_t j = 0; j <= i; ++j)
      if (hits[static_cast<std::size_t>(tdmaps::tri(i) + j)] != 1)
        return "block (" + std::to_string(i) + "," + std::to_string(j) + ") hit " +
               std::to_string(hits[static_cast<std::size_t>(tdmaps::tri(i) + j)]) + " times";
  return "";
}

/// Independent inverse of one H-triangle of side 2^k (local coordinates):
/// j < i lie in REC square S(h, m), h = bit_length(i ^ j), which is grid
/// rows [s - 1, 2s - 1) x columns [s m, s m + s) of the W = 2^(k-1) wide grid.
index_t h_triangle_inverse(int k, index_t i, index_t j) {
  const index_t side = index_t(1) << k;
  if (i == j) return i;
  const int h = bit_length(i ^ j);
  const index_t s = index_t(1) << (h - 1);
  const index_t m = i >> h;
  const index_t by = s - 1 + (i & (s - 1));
  const index_t bx = s * m + (j & (s - 1));
  return side + by * (side / 2) + bx;
}

}  // namespace

// Coverage as for the other maps (coverage.hpp): lower triangle for n = 0..300
// and the larger sides at rho 8/16/32, strict triangle, element and tile kernels.
TEST(TEST_CATEGORY, map_h_covers_triangle) { tdmaps_test::check_coverage<TEST_EXECSPACE, HadoukenMap, true>(); }

TEST(TEST_CATEGORY, map_h_power_of_two_is_one_exact_launch) {
  for (int k = 0; k <= 28; ++k) {
    const index_t nb = index_t(1) << k;
    const HadoukenMap map(nb * 8, 8);
    ASSERT_EQ(map.domain.nb, nb);
    EXPECT_EQ(map.launches(), 1) << "nb = 2^" << k;
    EXPECT_EQ(total_league(map), tdmaps::tri(nb) + documented_waste(nb)) << "nb = 2^" << k;
    EXPECT_EQ(map.wasted_blocks(), 0) << "nb = 2^" << k;
  }
}

TEST(TEST_CATEGORY, map_h_launches_and_waste_within_bound) {
  EXPECT_EQ(HadoukenMap(0, 8).launches(), 0);
  for (index_t nb = 1; nb <= 5000; ++nb) {
    const HadoukenMap map(nb * 8, 8);
    const index_t waste = total_league(map) - tdmaps::tri(nb);
    EXPECT_EQ(waste, documented_waste(nb)) << "nb = " << nb;
    EXPECT_EQ(map.wasted_blocks(), waste) << "nb = " << nb;
    EXPECT_LE(waste, nb + 1) << "nb = " << nb << ": over the documented bound of one block row";
    EXPECT_EQ(map.launches(), documented_launches(nb)) << "nb = " << nb;
    EXPECT_LE(map.launches(), 2 * bit_length(nb) - 1) << "nb = " << nb;
  }
  // The largest domain: nb = 2^28 and 2^28 - 1 (one padded triangle), and
  // the most set bits below 2^28.
  const index_t max_nb = tdmaps::max_side / 8;
  for (index_t nb : {max_nb, max_nb - 1, max_nb - 2, (max_nb - 1) ^ 1, index_t(0x0AAAAAAA), index_t(0x0DB6DB6D)}) {
    const HadoukenMap map(nb * 8, 8);
    EXPECT_EQ(total_league(map) - tdmaps::tri(nb), documented_waste(nb)) << "nb = " << nb;
    EXPECT_EQ(map.launches(), documented_launches(nb)) << "nb = " << nb;
    EXPECT_LE(map.launches(), 55) << "nb = " << nb;
  }
}

TEST(TEST_CATEGORY, map_h_host_walk_hits_every_block_once) {
  std::vector<index_t> sides;
  for (index_t nb = 0; nb <= 300; ++nb) sides.push_back(nb);
  for (index_t nb : {511, 512, 513, 1023, 1024, 1025, 2047, 4095}) sides.push_back(nb);
  for (index_t nb : sides) {
    index_t rejected = 0;
    EXPECT_EQ(host_block_walk(nb, rejected), "") << "nb = " << nb;
    EXPECT_EQ(rejected, documented_waste(nb)) << "nb = " << nb << ": rejected blocks are the wasted ones";
  }
}

// Far past anything a coverage run can reach: random omegas of every launch
// land inside that launch's piece and come back through the inverse.
TEST(TEST_CATEGORY, map_h_large_sides_invert) {
  const unsigned seed = 20230521u;
  std::mt19937_64 rng(seed);
  const index_t max_nb = tdmaps::max_side / 8;
  for (index_t nb : {max_nb, max_nb - 1, index_t(0x0DB6DB6D), index_t(0x0AAAAAAA), index_t(123456789)}) {
    const HadoukenMap map(nb * 8, 8);
    for (int l = 0; l < map.launches(); ++l) {
      const int p = l / 2;
      const int k = map.log2_side[p];
      const index_t o = map.offset[p], side = index_t(1) << k, league = map.league_size(l);
      std::uniform_int_distribution<index_t> pick(0, league - 1);
      std::vector<index_t> omegas{0, league - 1, side - 1, side, side + 1};
      for (int r = 0; r < 2000; ++r) omegas.push_back(pick(rng));
      for (index_t omega : omegas) {
        if (omega < 0 || omega >= league) continue;
        Block2 b{-1, -1};
        const bool in = map.block(l, omega, b);
        const std::string where = "seed " + std::to_string(seed) + ", nb = " + std::to_string(nb) + ", launch " +
                                  std::to_string(l) + ", omega = " + std::to_string(omega);
        if (l % 2 == 1) {
          ASSERT_TRUE(in) << where;
          ASSERT_TRUE(b.bi >= o + side && b.bi < nb && b.bj >= o && b.bj < o + side) << where;
          ASSERT_EQ((b.bi - o - side) * side + (b.bj - o), omega) << where;
        } else {
          ASSERT_TRUE(b.bj >= o && b.bj <= b.bi && b.bi < o + side) << where;
          ASSERT_EQ(in, b.bi < nb) << where;
          ASSERT_EQ(h_triangle_inverse(k, b.bi - o, b.bj - o), omega) << where;
        }
      }
    }
  }
}

// Dispatch by name: "hadouken" and its alias "h" both give HadoukenMap, and
// the label says hadouken either way.
TEST(TEST_CATEGORY, map_h_dispatch_by_name) {
  for (const std::string name : {"hadouken", "h"}) {
    const tdmaps::MapSpec spec{name, "rsqrt", "exact"};
    bool called = false;
    tdmaps::with_map(spec, tdmaps::Domain2(100, 16), [&](auto map) {
      called = std::is_same<decltype(map), tdmaps::HadoukenMap>::value && std::string(decltype(map)::name) == "hadouken";
    });
    EXPECT_TRUE(called) << name;
    EXPECT_EQ(spec.label(), "hadouken") << name;
  }
  const auto& names = tdmaps::map_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "hadouken"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "h"), names.end()) << "map_names() lists names, not aliases";
  const auto& accepted = tdmaps::accepted_map_names();
  EXPECT_NE(std::find(accepted.begin(), accepted.end(), "h"), accepted.end());
  EXPECT_NE(std::find(accepted.begin(), accepted.end(), "hadouken"), accepted.end());
  EXPECT_THROW(tdmaps::with_map(tdmaps::MapSpec{"hadoken", "rsqrt", "exact"}, tdmaps::Domain2(100, 16), [](auto) {}),
               std::invalid_argument);
}
