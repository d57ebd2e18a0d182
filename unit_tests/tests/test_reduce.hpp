// Omega ranges and pair reductions (launch/omega_range.hpp, launch/reduce.hpp)
// against host nested loops: ranges cover the league once and are balanced;
// reduce_pairs, histogram_pairs and reduce_rows give the oracle's integer
// results exactly, for every map that takes them, whole and by ranges.
#include "coverage3.hpp"
#include "oracle.hpp"

#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tdmaps_reduce_test {

using tdmaps::index_t;
using tdmaps::Triangle;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;

/// A symmetric integer "distance" of points with integer coordinates:
/// |a - b|^2 over 2 features (exact in every order).
struct Points {
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Mem> x;
  std::vector<std::int64_t> h;  // host copy, n x 2
  index_t n = 0;
  Points(index_t n_, unsigned seed) : x("x", static_cast<std::size_t>(n_), 2), h(static_cast<std::size_t>(2 * n_)), n(n_) {
    std::mt19937_64 g(seed);
    std::uniform_int_distribution<std::int64_t> u(0, 99);
    auto m = Kokkos::create_mirror_view(x);
    for (index_t i = 0; i < n; ++i)
      for (int c = 0; c < 2; ++c) h[std::size_t(2 * i + c)] = m(i, c) = u(g);
    Kokkos::deep_copy(x, m);
  }
  std::int64_t d2(index_t i, index_t j) const {
    const std::int64_t a = h[std::size_t(2 * i)] - h[std::size_t(2 * j)], b = h[std::size_t(2 * i + 1)] - h[std::size_t(2 * j + 1)];
    return a * a + b * b;
  }
};

KOKKOS_FORCEINLINE_FUNCTION std::int64_t dev_d2(const Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Mem>& x,
                                                index_t i, index_t j) {
  const std::int64_t a = x(i, 0) - x(j, 0), b = x(i, 1) - x(j, 1);
  return a * a + b * b;
}

/// Sum of (i + 1) * 3 + d2(i, j) over the domain, and a count of close pairs.
struct SumKernel {
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Mem> x;
  KOKKOS_FUNCTION void operator()(const index_t i, const index_t j, std::int64_t& s) const {
    s += (i + 1) * 3 + dev_d2(x, i, j) + j;
  }
};

/// A user's reducer: the smallest value and, among equal ones, the smallest
/// location (Kokkos::MinLoc keeps whichever comes first).
struct MinLocSmallest {
  using reducer = MinLocSmallest;
  using value_type = Kokkos::ValLocScalar<std::int64_t, index_t>;
  using result_view_type = Kokkos::View<value_type, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  result_view_type value;
  KOKKOS_FUNCTION MinLocSmallest(value_type& v) : value(&v) {}
  KOKKOS_FUNCTION void join(value_type& dest, const value_type& src) const {
    if (src.val < dest.val || (src.val == dest.val && src.loc < dest.loc)) dest = src;
  }
#if KOKKOS_VERSION < 40000  // Kokkos 3 joins through volatile references too
  KOKKOS_FUNCTION void join(volatile value_type& dest, const volatile value_type& src) const {
    if (src.val < dest.val || (src.val == dest.val && src.loc < dest.loc)) {
      dest.val = src.val;
      dest.loc = src.loc;
    }
  }
#endif
  KOKKOS_FUNCTION void init(value_type& v) const {
    v.val = Kokkos::reduction_identity<std::int64_t>::min();
    v.loc = Kokkos::reduction_identity<index_t>::min();
  }
  KOKKOS_FUNCTION value_type& reference() const { return *value.data(); }
  KOKKOS_FUNCTION result_view_type view() const { return value; }
};

/// The pair with the smallest d2 (ties: the smaller packed index).
struct MinKernel {
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Mem> x;
  using value_type = MinLocSmallest::value_type;
  KOKKOS_FUNCTION void operator()(const index_t i, const index_t j, value_type& v) const {
    const std::int64_t d = dev_d2(x, i, j);
    const index_t loc = tdmaps::tri(i) + j;
    if (d < v.val || (d == v.val && loc < v.loc)) {
      v.val = d;
      v.loc = loc;
    }
  }
};

/// Bin of d2 in bins of width 97 (some results fall outside [0, bins)).
struct BinKernel {
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Mem> x;
  KOKKOS_FUNCTION int operator()(const index_t i, const index_t j) const {
    return static_cast<int>(dev_d2(x, i, j) / 97) - 2;
  }
};

/// Row key: (d2 << 32) | partner: the nearest partner, ties to the smaller index.
struct KeyKernel {
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Mem> x;
  KOKKOS_FUNCTION std::uint64_t operator()(const index_t a, const index_t b) const {
    return (static_cast<std::uint64_t>(dev_d2(x, a, b)) << 32) | static_cast<std::uint64_t>(b);
  }
  /// Both ends at once (reduce_rows takes it over two calls where a kernel has it).
  KOKKOS_FUNCTION void both(const index_t a, const index_t b, std::uint64_t& ka, std::uint64_t& kb) const {
    const std::uint64_t hi = static_cast<std::uint64_t>(dev_d2(x, a, b)) << 32;
    ka = hi | static_cast<std::uint64_t>(b);
    kb = hi | static_cast<std::uint64_t>(a);
  }
};
struct RowSumKernel {
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Mem> x;
  KOKKOS_FUNCTION std::int64_t operator()(const index_t a, const index_t b) const {
    return dev_d2(x, a, b) * 7 + b;  // not symmetric: which end gets what is checked
  }
};

template <class F>
void each_pair(index_t n, Triangle t, const F& f) {
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < (t == Triangle::lower ? i + 1 : i); ++j) f(i, j);
}

struct Oracle {
  std::int64_t sum = 0;
  std::int64_t min_val = 0;
  index_t min_loc = -1;
  std::vector<std::int64_t> hist;
  std::vector<std::uint64_t> row_min;
  std::vector<std::int64_t> row_sum;
  Oracle(const Points& p, Triangle t, int bins) : hist(std::size_t(bins), 0), row_min(std::size_t(p.n), ~std::uint64_t(0)),
                                                  row_sum(std::size_t(p.n), 0) {
    min_val = Kokkos::reduction_identity<std::int64_t>::min();
    each_pair(p.n, t, [&](index_t i, index_t j) {
      const std::int64_t d = p.d2(i, j);
      sum += (i + 1) * 3 + d + j;
      const index_t loc = tdmaps::tri(i) + j;
      if (d < min_val || (d == min_val && loc < min_loc)) {
        min_val = d;
        min_loc = loc;
      }
      const int b = static_cast<int>(d / 97) - 2;
      if (b >= 0 && b < bins) ++hist[std::size_t(b)];
      auto key = [&](index_t a, index_t c) { return (static_cast<std::uint64_t>(p.d2(a, c)) << 32) | std::uint64_t(c); };
      row_min[std::size_t(i)] = std::min(row_min[std::size_t(i)], key(i, j));
      row_sum[std::size_t(i)] += p.d2(i, j) * 7 + j;
      if (i != j) {
        row_min[std::size_t(j)] = std::min(row_min[std::size_t(j)], key(j, i));
        row_sum[std::size_t(j)] += p.d2(j, i) * 7 + i;
      }
    });
  }
};

/// Runs every reduction of map (whole, or over `parts` omega ranges when
/// parts > 0) and compares with the oracle.
template <class Map>
void check_reductions(const Map& map, const Points& p, int parts, const tdmaps::LaunchHints& hints = {}) {
  const Triangle t = map.domain.triangle;
  const int bins = 37;
  const Oracle o(p, t, bins);
  std::int64_t sum = 0;
  MinLocSmallest::value_type best;
  best.val = Kokkos::reduction_identity<std::int64_t>::min();
  best.loc = -1;
  Kokkos::View<std::int64_t*, Mem> hist("hist", bins);
  Kokkos::View<std::uint64_t*, Mem> rmin("rmin", static_cast<std::size_t>(p.n));
  Kokkos::View<std::int64_t*, Mem> rsum("rsum", static_cast<std::size_t>(p.n));
  Kokkos::deep_copy(rmin, tdmaps::RowMin<std::uint64_t>::identity());
  const std::string what = std::string(Map::name) + " n = " + std::to_string(p.n) + " rho = " +
                           std::to_string(map.domain.rho) + (t == Triangle::lower ? " lower" : " strict") +
                           " parts = " + std::to_string(parts);
  if constexpr (tdmaps::is_block_space_map_v<Map> && !tdmaps::detail::has_multi_launch<Map>::value) {
    if (parts > 0) {
      index_t covered = 0;
      for (int k = 0; k < parts; ++k) {
        const tdmaps::OmegaRange r = tdmaps::omega_range(map, k, parts);
        EXPECT_EQ(r.begin, covered) << what;
        covered = r.end;
        std::int64_t s = 0;
        tdmaps::reduce_pairs(Space(), map, r, SumKernel{p.x}, Kokkos::Sum<std::int64_t>(s), "t", hints);
        sum += s;
        MinLocSmallest::value_type b;
        tdmaps::reduce_pairs(Space(), map, r, MinKernel{p.x}, MinLocSmallest(b), "t", hints);
        if (b.val < best.val || (b.val == best.val && b.loc < best.loc)) best = b;
        tdmaps::histogram_pairs(Space(), map, r, BinKernel{p.x}, hist, "t", hints);
        tdmaps::reduce_rows<tdmaps::RowMin<std::uint64_t>>(Space(), map, r, KeyKernel{p.x}, rmin, "t", hints);
        tdmaps::reduce_rows<tdmaps::RowSum<std::int64_t>>(Space(), map, r, RowSumKernel{p.x}, rsum, "t", hints);
      }
      EXPECT_EQ(covered, map.league_size()) << what;
    }
  }
  if (parts == 0) {
    tdmaps::reduce_pairs(Space(), map, SumKernel{p.x}, Kokkos::Sum<std::int64_t>(sum), "t", hints);
    tdmaps::reduce_pairs(Space(), map, MinKernel{p.x}, MinLocSmallest(best), "t", hints);
    if constexpr (tdmaps::is_block_space_map_v<Map>) {
      tdmaps::histogram_pairs(Space(), map, BinKernel{p.x}, hist, "t", hints);
      tdmaps::reduce_rows<tdmaps::RowMin<std::uint64_t>>(Space(), map, KeyKernel{p.x}, rmin, "t", hints);
      tdmaps::reduce_rows<tdmaps::RowSum<std::int64_t>>(Space(), map, RowSumKernel{p.x}, rsum, "t", hints);
    }
  }
  Space().fence();
  EXPECT_EQ(sum, o.sum) << what;
  if (o.min_loc >= 0) {
    EXPECT_EQ(best.val, o.min_val) << what;
    EXPECT_EQ(best.loc, o.min_loc) << what;
  }
  if constexpr (!tdmaps::is_block_space_map_v<Map>) return;
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hist);
  auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rmin);
  auto s = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rsum);
  int bad = 0;
  for (int b = 0; b < bins && bad < 3; ++b)
    if (h(b) != o.hist[std::size_t(b)]) {
      ++bad;
      ADD_FAILURE() << what << ": bin " << b << " = " << h(b) << ", oracle " << o.hist[std::size_t(b)];
    }
  for (index_t i = 0; i < p.n && bad < 3; ++i) {
    if (m(i) != o.row_min[std::size_t(i)]) {
      ++bad;
      ADD_FAILURE() << what << ": row_min(" << i << ") = " << m(i) << ", oracle " << o.row_min[std::size_t(i)];
    }
    if (s(i) != o.row_sum[std::size_t(i)]) {
      ++bad;
      ADD_FAILURE() << what << ": row_sum(" << i << ") = " << s(i) << ", oracle " << o.row_sum[std::size_t(i)];
    }
  }
}

}  // namespace tdmaps_reduce_test

using namespace tdmaps_reduce_test;

TEST(TEST_CATEGORY, reductions_match_the_oracle_for_every_map) {
  for (index_t n : {1, 2, 7, 31, 32, 33, 100, 257}) {
    const Points p(n, 17u + static_cast<unsigned>(n));
    for (int rho : {8, 16, 32}) {
      for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
        check_reductions(tdmaps::BoundingBoxMap(n, rho, t), p, 0);
        check_reductions(tdmaps::LambdaMap<>(n, rho, t), p, 0);
        check_reductions(tdmaps::LambdaMap<tdmaps::SqrtDouble>(n, rho, t), p, 0);
        check_reductions(tdmaps::RectangularBoxMap(n, rho, t), p, 0);
        check_reductions(tdmaps::RecursiveMap(n, rho, t), p, 0);
        check_reductions(tdmaps::HadoukenMap(n, rho, t), p, 0);
        check_reductions(tdmaps::UpperTriangularMap(n, rho, t), p, 0);
      }
    }
  }
}

TEST(TEST_CATEGORY, reductions_by_omega_ranges_equal_the_whole) {
  for (index_t n : {1, 45, 130, 301}) {
    const Points p(n, 5u + static_cast<unsigned>(n));
    for (int rho : {8, 32}) {
      for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
        for (int parts : {1, 2, 3, 7, 40}) {
          check_reductions(tdmaps::BoundingBoxMap(n, rho, t), p, parts);
          check_reductions(tdmaps::LambdaMap<>(n, rho, t), p, parts);
        }
      }
    }
  }
}

TEST(TEST_CATEGORY, reductions_hold_for_team_shapes_and_blocks_per_team) {
  const Points p(197, 99u);
  for (int rho : {8, 16, 32}) {
    for (int threads : {rho, 4 * rho, rho * rho}) {
      for (int k : {1, 3, 64}) {
        const tdmaps::LaunchHints hints{threads, k};
        check_reductions(tdmaps::LambdaMap<>(197, rho, Triangle::strict_lower), p, 0, hints);
        check_reductions(tdmaps::BoundingBoxMap(197, rho, Triangle::lower), p, 3, hints);
      }
    }
  }
}

namespace tdmaps_reduce_test {
/// Elements of the blocks of omegas [0, w), counted block by block on the host.
template <class Map>
index_t count_before(const Map& map, index_t w) {
  index_t c = 0;
  for (index_t o = 0; o < w; ++o) {
    tdmaps::Block2 b;
    if (!map.block(o, b)) continue;
    const auto t = tdmaps::detail::make_tile(map.domain, b);
    for (int ti = 0; ti < t.rows; ++ti)
      for (int tj = 0; tj < t.cols; ++tj) c += t.contains(ti, tj) ? 1 : 0;
  }
  return c;
}
}  // namespace tdmaps_reduce_test

TEST(TEST_CATEGORY, omega_ranges_are_balanced_by_elements) {
  for (index_t n : {0, 1, 9, 64, 65, 200, 1000}) {
    for (int rho : {8, 32}) {
      for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
        const tdmaps::LambdaMap<> lam(n, rho, t);
        const tdmaps::BoundingBoxMap bb(n, rho, t);
        for (index_t w = 0; w <= lam.league_size(); w += 1 + lam.league_size() / 50)
          EXPECT_EQ(tdmaps::elements_before(lam, w), count_before(lam, w)) << "lambda n = " << n << " w = " << w;
        for (index_t w = 0; w <= bb.league_size(); w += 1 + bb.league_size() / 50)
          EXPECT_EQ(tdmaps::elements_before(bb, w), count_before(bb, w)) << "bb n = " << n << " w = " << w;
        const index_t block = index_t(rho) * rho;
        for (int parts : {1, 2, 5, 16}) {
          const index_t total = lam.domain.elements();
          for (int k = 0; k < parts; ++k) {
            const auto r = tdmaps::omega_range(lam, k, parts);
            const index_t e = count_before(lam, r.end) - count_before(lam, r.begin);
            const index_t ideal = total / parts;
            EXPECT_LE(e, ideal + 2 * block) << "n = " << n << " part " << k << "/" << parts;
            EXPECT_GE(e + 2 * block, ideal) << "n = " << n << " part " << k << "/" << parts;
          }
        }
      }
    }
  }
  // Large leagues: the boundaries stay exact past 2^31 and 2^32 elements.
  for (index_t n : {index_t(65536) + 7, index_t(92682), index_t(92683), index_t(131072)}) {
    const tdmaps::LambdaMap<> lam(n, 32);
    const index_t total = lam.domain.elements();
    EXPECT_EQ(tdmaps::elements_before(lam, lam.league_size()), total);
    index_t prev = 0;
    for (int k = 0; k < 3; ++k) {
      const auto r = tdmaps::omega_range(lam, k, 3);
      EXPECT_EQ(r.begin, prev);
      prev = r.end;
      const index_t e = tdmaps::elements_before(lam, r.end) - tdmaps::elements_before(lam, r.begin);
      EXPECT_LE(std::llabs(e - total / 3), 2 * 1024) << "n = " << n;
    }
    EXPECT_EQ(prev, lam.league_size());
  }
}

namespace tdmaps_reduce_test {
/// Bins spread over ~10^5 values (d2 * 5 + i % 5 - 7; some outside [0, bins)).
struct SpreadKernel {
  Kokkos::View<std::int64_t**, Kokkos::LayoutRight, Mem> x;
  KOKKOS_FUNCTION int operator()(const index_t i, const index_t j) const {
    return static_cast<int>(dev_d2(x, i, j) * 5 + i % 5) - 7;
  }
};

template <class Map>
void check_many_bins(const Map& map, const Points& p, int bins, int parts) {
  std::vector<std::int64_t> want(static_cast<std::size_t>(bins), 0);
  each_pair(p.n, map.domain.triangle, [&](index_t i, index_t j) {
    const std::int64_t b = p.d2(i, j) * 5 + i % 5 - 7;
    if (b >= 0 && b < bins) ++want[std::size_t(b)];
  });
  Kokkos::View<std::int64_t*, Mem> hist("hist", static_cast<std::size_t>(bins));
  if constexpr (!tdmaps::detail::has_multi_launch<Map>::value) {
    for (int k = 0; k < parts; ++k)
      tdmaps::histogram_pairs(Space(), map, tdmaps::omega_range(map, k, parts), SpreadKernel{p.x}, hist);
  }
  if (parts == 0) tdmaps::histogram_pairs(Space(), map, SpreadKernel{p.x}, hist);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hist);
  int bad = 0;
  for (int b = 0; b < bins && bad < 3; ++b)
    if (h(b) != want[std::size_t(b)]) {
      ++bad;
      ADD_FAILURE() << Map::name << " bins " << bins << " parts " << parts << ": bin " << b << " = " << h(b)
                    << ", oracle " << want[std::size_t(b)];
    }
}
}  // namespace tdmaps_reduce_test

TEST(TEST_CATEGORY, histograms_past_team_scratch_count_in_global_memory) {
  // The most bins a team's scratch holds, one more (global memory), and many more.
  const int fit = static_cast<int>((static_cast<std::size_t>(tdmaps::team_policy_t<Space>::scratch_size_max(0)) -
                                    tdmaps::tile_scratch_alignment) / sizeof(std::uint32_t));
  const Points p(233, 41u);
  for (const int bins : {fit, fit + 1, 3 * fit + 5, 1 << 17}) {
    for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
      check_many_bins(tdmaps::LambdaMap<>(233, 16, t), p, bins, 0);
      check_many_bins(tdmaps::BoundingBoxMap(233, 32, t), p, bins, 3);
      check_many_bins(tdmaps::RecursiveMap(233, 8, t), p, bins, 0);
      check_many_bins(tdmaps::HadoukenMap(233, 32, t), p, bins, 0);
      check_many_bins(tdmaps::RectangularBoxMap(233, 32, t), p, bins, 0);
    }
  }
}

TEST(TEST_CATEGORY, omega_ranges_reject_bad_arguments) {
  const tdmaps::LambdaMap<> lam(100, 8);
  EXPECT_THROW(tdmaps::omega_range(lam, 0, 0), std::invalid_argument);
  EXPECT_THROW(tdmaps::omega_range(lam, 3, 3), std::invalid_argument);
  EXPECT_THROW(tdmaps::omega_range(lam, -1, 3), std::invalid_argument);
  tdmaps_test::HitCounter<Space> c(100, Triangle::lower);
  EXPECT_THROW(tdmaps::for_each_element(Space(), lam, tdmaps::OmegaRange{0, lam.league_size() + 1}, c),
               std::invalid_argument);
  EXPECT_THROW(tdmaps::for_each_element(Space(), lam, tdmaps::OmegaRange{5, 4}, c), std::invalid_argument);
  EXPECT_THROW(tdmaps::block_rows_range(lam, 0, lam.domain.nb + 1), std::invalid_argument);
  Kokkos::View<std::int64_t*, Mem> none("none", 0);
  const Points p(100, 1u);
  EXPECT_THROW(tdmaps::histogram_pairs(Space(), lam, BinKernel{p.x}, none), std::invalid_argument);
  Kokkos::View<std::uint64_t*, Mem> short_rows("short", 99);
  EXPECT_THROW(tdmaps::reduce_rows<tdmaps::RowMin<std::uint64_t>>(Space(), lam, KeyKernel{p.x}, short_rows),
               std::invalid_argument);
}

TEST(TEST_CATEGORY, for_each_by_omega_ranges_covers_every_element_once) {
  for (index_t n : {1, 50, 129}) {
    for (int rho : {8, 16, 32}) {
      for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
        for (int parts : {1, 4, 9}) {
          const tdmaps::LambdaMap<> lam(n, rho, t);
          const tdmaps::BoundingBoxMap bb(n, rho, t);
          tdmaps_test::HitCounter<Space> a(n, t), b(n, t);
          tdmaps_test::TileHits<Space> tiles{tdmaps_test::HitCounter<Space>(n, t)};
          for (int k = 0; k < parts; ++k) {
            tdmaps::for_each_element(Space(), lam, tdmaps::omega_range(lam, k, parts), a);
            tdmaps::for_each_element(Space(), bb, tdmaps::omega_range(bb, k, parts), b);
            tdmaps::for_each_tile(Space(), lam, tdmaps::omega_range(lam, k, parts), 0, tiles);
          }
          Space().fence();
          EXPECT_EQ(a.check(), "") << "lambda n = " << n << " parts " << parts;
          EXPECT_EQ(b.check(), "") << "bb n = " << n << " parts " << parts;
          EXPECT_EQ(tiles.counter.check(), "") << "tiles n = " << n << " parts " << parts;
        }
      }
    }
  }
  // 3-D: ranges of the league by omegas.
  for (index_t n : {1, 13, 40}) {
    for (int parts : {1, 3, 8}) {
      const tdmaps::Lambda3Map<> m(n, 4, Triangle::strict_lower);
      tdmaps_test::HitCounter3<Space> c(n, Triangle::strict_lower);
      for (int k = 0; k < parts; ++k) tdmaps::for_each_element(Space(), m, tdmaps::omega_range(m, k, parts), c);
      Space().fence();
      EXPECT_EQ(c.check(), "") << "lambda3 n = " << n << " parts " << parts;
    }
  }
}
