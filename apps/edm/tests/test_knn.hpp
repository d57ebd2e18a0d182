// k nearest neighbours (edm/knn.hpp: k_nearest_neighbours, k_nearest_walk
// at k = 1 too, and by omega ranges) against a host nested loop that sums
// each pair's squared distance in coordinate order, sorts each point's
// partners by (distance, index) and keeps k: indices and distances exactly,
// fp32 and fp64, d = 1 .. 130, k = 1 .. 64, every block-space map, points
// with equal distances (a small integer grid, duplicates), a NaN point, and
// the refusals.
#include "oracle.hpp"

#include <tdmaps/edm/knn.hpp>
#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tdmaps_knn_test {

using tdmaps::index_t;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;
namespace edm = tdmaps::edm;

/// The k nearest by `parts` omega ranges of a one-launch map (k_nearest_keys,
/// k_nearest_index_pass, k_nearest_decode: every range's rows joined into one
/// set of rows, as ranks' merged rows are), into idx and dist.
template <class Real, class Map>
void by_ranges(const Map& map, const Kokkos::View<const Real**, Kokkos::LayoutRight, Mem>& x, int parts,
               const Kokkos::View<index_t**, Kokkos::LayoutRight, Mem>& idx,
               const Kokkos::View<double**, Kokkos::LayoutRight, Mem>& dist) {
  using Rows = Kokkos::View<edm::NearestKey**, Kokkos::LayoutRight, Mem>;
  Rows keys("keys", idx.extent(0), idx.extent(1)), second;
  Kokkos::deep_copy(keys, edm::nearest_init());
  for (int q = parts - 1; q >= 0; --q) edm::k_nearest_keys(Space(), x, map, tdmaps::omega_range(map, q, parts), keys);
  if constexpr (std::is_same<Real, double>::value) {
    second = Rows("second", idx.extent(0), idx.extent(1));
    Kokkos::deep_copy(second, edm::nearest_init());
    for (int q = 0; q < parts; ++q)
      edm::k_nearest_index_pass(Space(), x, map, tdmaps::omega_range(map, q, parts), keys, second);
  }
  edm::k_nearest_decode<Real>(Space(), keys, second, idx, dist);
}

template <class Real>
void check(const std::string& name, index_t n, int d, int rho, int k, const std::vector<Real>& x, bool walk = false,
           int parts = 0) {
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> xv("x", n, d);
  Kokkos::deep_copy(xv, Kokkos::View<const Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                            x.data(), n, d));
  Kokkos::View<index_t**, Kokkos::LayoutRight, Mem> idx("idx", n, k);
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> dist("dist", n, k);
  tdmaps::MapSpec spec;
  spec.map = name;
  tdmaps::with_map(
      spec, tdmaps::Domain2(n, rho, tdmaps::Triangle::strict_lower),
      [&](auto map) {
        if constexpr (tdmaps::is_block_space_map_v<decltype(map)>) {
          const Kokkos::View<const Real**, Kokkos::LayoutRight, Mem> cx = xv;
          if constexpr (!tdmaps::is_multi_launch_map_v<decltype(map)>) {
            if (parts > 0) {
              by_ranges<Real>(map, cx, parts, idx, dist);
              return;
            }
          }
          if (walk) edm::k_nearest_walk(Space(), cx, map, idx, dist);  // the k-nearest walk at k = 1 too
          else edm::k_nearest_neighbours(Space(), cx, map, idx, dist);
        }
      },
      true);
  const auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), idx);
  const auto hd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dist);
  index_t bad = 0, first = -1;
  std::vector<std::pair<Real, index_t>> row;
  for (index_t i = 0; i < n; ++i) {
    row.clear();
    for (index_t j = 0; j < n; ++j) {
      if (j == i) continue;
      // The pair's sum as the walk forms it: from the larger index's row.
      const Real s = tdmaps_test::pair_sq<Space>(x, d, std::max(i, j), std::min(i, j));
      if (s == s) row.emplace_back(s, j);
    }
    std::sort(row.begin(), row.end());
    for (int c = 0; c < k; ++c) {
      const bool has = c < static_cast<int>(row.size());
      const index_t wi = has ? row[std::size_t(c)].second : -1;
      const double wd = has ? static_cast<double>(std::sqrt(row[std::size_t(c)].first))
                            : std::numeric_limits<double>::infinity();
      if (hi(i, c) != wi || hd(i, c) != wd) {
        if (bad++ == 0) first = i;
        break;
      }
    }
  }
  EXPECT_EQ(bad, 0) << name << " n = " << n << " d = " << d << " rho = " << rho << " k = " << k
                    << (sizeof(Real) == 4 ? " fp32" : " fp64") << (walk ? " k_nearest_walk" : "")
                    << (parts > 0 ? " parts = " + std::to_string(parts) : std::string()) << ": first wrong row " << first;
}

template <class Real>
std::vector<Real> uniform(index_t n, int d, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Real> x(std::size_t(n * d));
  for (auto& v : x) v = static_cast<Real>(u(g));
  return x;
}

/// 300 points of a 3-level integer grid in 5-D (duplicates, equal distances everywhere).
template <class Real>
std::vector<Real> grid_points() {
  std::mt19937_64 g(23);
  std::vector<Real> grid(std::size_t(300 * 5));
  for (auto& v : grid) v = static_cast<Real>(g() % 3);
  return grid;
}

template <class Real>
void sweep() {
  unsigned seed = 7;
  for (const int d : {1, 3, 5, 17, 130})
    for (const int k : {1, 2, 7, 16, 64}) {
      const index_t n = k == 64 ? 150 : 90;
      check<Real>("lambda", n, d, 32, k, uniform<Real>(n, d, ++seed));
    }
  for (const char* name : {"bb", "rb", "rec", "hadouken"})
    check<Real>(name, 120, 9, 16, 10, uniform<Real>(120, 9, ++seed));
  // k_nearest_walk: the walk at k = 1 as well.
  for (const int k : {1, 5}) check<Real>("lambda", 100, 9, 32, k, uniform<Real>(100, 9, ++seed), true);
  check<Real>("rec", 70, 3, 16, 1, uniform<Real>(70, 3, ++seed), true);
  // By omega ranges (MPI ranks' passes, rows joined between them).
  for (const char* name : {"lambda", "bb", "rb"})
    for (const int parts : {1, 2, 5}) check<Real>(name, 130, 7, 32, 9, uniform<Real>(130, 7, ++seed), false, parts);
  check<Real>("lambda", 300, 5, 32, 33, grid_points<Real>(), false, 3);
  // k = n - 1: every other point, in order.
  check<Real>("lambda", 40, 6, 16, 39, uniform<Real>(40, 6, ++seed));
  check<Real>("bb", 2, 6, 16, 1, uniform<Real>(2, 6, ++seed));
  // Equal distances everywhere: a 3-level integer grid with duplicate points.
  for (const int k : {1, 5, 33}) check<Real>("lambda", 300, 5, 32, k, grid_points<Real>());
  // A NaN coordinate: point 20 is nobody's neighbour and has none (-1, inf).
  auto x = uniform<Real>(60, 8, ++seed);
  x[std::size_t(20 * 8 + 4)] = std::numeric_limits<Real>::quiet_NaN();
  check<Real>("lambda", 60, 8, 16, 12, x);
}

}  // namespace tdmaps_knn_test

TEST(TEST_CATEGORY, knn_match_the_nested_loop_fp32) { tdmaps_knn_test::sweep<float>(); }

TEST(TEST_CATEGORY, knn_match_the_nested_loop_fp64) { tdmaps_knn_test::sweep<double>(); }

TEST(TEST_CATEGORY, knn_rejects_bad_arguments) {
  using namespace tdmaps_knn_test;
  using tdmaps::Triangle;
  const Kokkos::View<const float**, Kokkos::LayoutRight, Mem> x(Kokkos::View<float**, Kokkos::LayoutRight, Mem>("x", 10, 3));
  const tdmaps::LambdaMap<> map(tdmaps::Domain2(10, 16, Triangle::strict_lower));
  const auto call = [&](const auto& m, index_t rows, index_t k, index_t drows, index_t dk) {
    Kokkos::View<index_t**, Kokkos::LayoutRight, Mem> idx("idx", rows, k);
    Kokkos::View<double**, Kokkos::LayoutRight, Mem> dist("dist", drows, dk);
    edm::k_nearest_neighbours(Space(), x, m, idx, dist);
  };
  EXPECT_NO_THROW(call(map, 10, 9, 10, 9));
  EXPECT_THROW(call(map, 10, 10, 10, 10), std::invalid_argument);  // k > n - 1
  EXPECT_THROW(call(map, 10, 0, 10, 0), std::invalid_argument);    // k = 0
  EXPECT_THROW(call(map, 9, 3, 9, 3), std::invalid_argument);      // rows
  EXPECT_THROW(call(map, 10, 3, 10, 4), std::invalid_argument);    // dist's k
  EXPECT_THROW(call(tdmaps::LambdaMap<>(tdmaps::Domain2(10, 8, Triangle::strict_lower)), 10, 3, 10, 3),
               std::invalid_argument);  // block side
  EXPECT_THROW(call(tdmaps::LambdaMap<>(tdmaps::Domain2(11, 16, Triangle::strict_lower)), 10, 3, 10, 3),
               std::invalid_argument);  // the map's n
}
