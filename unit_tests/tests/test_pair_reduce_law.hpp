// The reduce form of the pair-law walk (launch/pair_reduce_law.hpp) against
// host nested loops: an exact integer reduce law that tells i, j and the
// diagonal apart, a user's closest pair (identity and join: a minimum), an
// exact integer histogram law, a fp32 count within a radius, for every
// block-space map, whole and by parts; the lane walks themselves run on the
// host (one lane; 1, 3 and 4 rows), and a histogram's three ways of counting
// (lane columns, team bins, atomics) at the backend's own lane width.
#include "oracle.hpp"

#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace tdmaps_reduce_law_test {

using tdmaps::index_t;
using tdmaps::PairDiagonal;
using tdmaps::Triangle;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;

/// Exact sums over the pairs: how many, and an index-weighted sum.
struct Tally {
  std::int64_t calls, sum;
};

}  // namespace tdmaps_reduce_law_test

template <>
struct tdmaps::pair_value_traits<tdmaps_reduce_law_test::Tally>
    : tdmaps::pair_value_reals<tdmaps_reduce_law_test::Tally, std::int64_t> {};

namespace tdmaps_reduce_law_test {

/// The integer reduce law: a point is its index (checked against the index given).
struct IntSum {
  struct point_type {
    std::int64_t i;
  };
  using value_type = Tally;
  KOKKOS_FUNCTION point_type load(index_t i) const { return {i}; }
  KOKKOS_FUNCTION void operator()(index_t i, const point_type& a, index_t j, const point_type& b, Tally& acc) const {
    acc.calls += 1;
    acc.sum += 1000003 * a.i + 7 * b.i + 1 + (a.i == i && b.i == j ? 0 : 1000000007);
  }
};

Tally int_oracle(index_t n, bool diag) {
  Tally t{0, 0};
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < (diag ? i + 1 : i); ++j) {
      t.calls += 1;
      t.sum += 1000003 * i + 7 * j + 1;
    }
  return t;
}

/// The integer histogram law: bin (3 i + 5 j) mod 11 - 1 (-1: no bin) of 10 bins.
struct IntBin {
  struct point_type {
    std::int64_t i;
  };
  KOKKOS_FUNCTION point_type load(index_t i) const { return {i}; }
  KOKKOS_FUNCTION int operator()(const point_type& a, const point_type& b) const {
    return static_cast<int>((3 * a.i + 5 * b.i) % 11) - 1;
  }
};

std::vector<std::int64_t> bin_oracle(index_t n, bool diag, int bins) {
  std::vector<std::int64_t> c(static_cast<std::size_t>(bins), 0);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < (diag ? i + 1 : i); ++j) {
      const int b = static_cast<int>((3 * i + 5 * j) % 11) - 1;
      if (b >= 0 && b < bins) ++c[std::size_t(b)];
    }
  return c;
}

bool with_diagonal(Triangle t, PairDiagonal d) { return t == Triangle::lower && d == PairDiagonal::include; }

using Counts = Kokkos::View<std::int64_t*, Mem>;

void expect_counts(const Counts& got, const std::vector<std::int64_t>& want, const std::string& what) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
  ASSERT_EQ(h.extent(0), want.size()) << what;
  for (std::size_t b = 0; b < want.size(); ++b) EXPECT_EQ(h(b), want[b]) << what << ": bin " << b;
}

template <class Map>
void check_int_laws(index_t n, Triangle t, PairDiagonal d) {
  const Map map(n, 16, t);
  const bool diag = with_diagonal(t, d);
  const std::string what = std::string(Map::name) + " n " + std::to_string(n) + (diag ? " diagonal" : "");
  const Tally want = int_oracle(n, diag);
  const Tally got = tdmaps::reduce_pair_law(Space(), map, IntSum{}, d);
  EXPECT_EQ(got.calls, want.calls) << what;
  EXPECT_EQ(got.sum, want.sum) << what;
  for (const int bins : {1, 10, 7}) {
    Counts counts("counts", static_cast<std::size_t>(bins));
    tdmaps::histogram_pair_law(Space(), map, IntBin{}, counts, d);
    expect_counts(counts, bin_oracle(n, diag, bins), what + " bins " + std::to_string(bins));
  }
  if constexpr (!tdmaps::detail::has_multi_launch<Map>::value) {
    Tally sum{0, 0};
    Counts counts("counts", 10);
    for (int p = 0; p < 3; ++p) {
      const Tally part = tdmaps::reduce_pair_law_part(Space(), map, p, 3, IntSum{}, d);
      sum.calls += part.calls;
      sum.sum += part.sum;
      tdmaps::histogram_pair_law_part(Space(), map, p, 3, IntBin{}, counts, d);
    }
    EXPECT_EQ(sum.calls, want.calls) << what << " 3 parts";
    EXPECT_EQ(sum.sum, want.sum) << what << " 3 parts";
    expect_counts(counts, bin_oracle(n, diag, 10), what + " 3 parts");
  }
}

template <class Map>
void check_int_law_sizes() {
  for (const index_t n : {0, 1, 2, 3, 37, 130, 300})
    for (const Triangle t : {Triangle::strict_lower, Triangle::lower})
      for (const PairDiagonal d : {PairDiagonal::exclude, PairDiagonal::include}) check_int_laws<Map>(n, t, d);
}

/// The lane walks of W lanes and R rows themselves (the GPU path), in `parts` pieces.
template <int W, int R, class Map>
void check_lanes(index_t n, Triangle t, PairDiagonal d, int parts) {
  const Map map(n, 16, t);
  const Map macro = tdmaps::detail::warp_walk_map(map, W * R);
  const bool diag = with_diagonal(t, d);
  Tally got{0, 0};
  Counts scratch("scratch", 10), global("global", 10);
  for (int l = 0; l < tdmaps::detail::launches(macro); ++l) {
    const index_t size = tdmaps::detail::league_size(macro, l);
    for (int p = 0; p < parts; ++p) {
      const index_t b = size * p / parts, e = size * (p + 1) / parts;
      tdmaps::detail::reduce_law_lanes<W, R>(Space(), macro, l, b, e, n, diag, IntSum{}, got, tdmaps::LaunchHints(),
                                             "lanes");
      tdmaps::detail::bin_law_lanes<W, R, 1, tdmaps::detail::BinMode::lanes>(Space(), macro, l, b, e, n, diag, IntBin{},
                                                                             scratch, tdmaps::LaunchHints(), "lanes");
      tdmaps::detail::bin_law_lanes<W, R, 1, tdmaps::detail::BinMode::global>(
          Space(), macro, l, b, e, n, diag, IntBin{}, global, tdmaps::LaunchHints(), "lanes");
    }
  }
  const std::string what = std::string("lanes ") + Map::name + " R " + std::to_string(R) + " n " + std::to_string(n);
  const Tally want = int_oracle(n, diag);
  EXPECT_EQ(got.calls, want.calls) << what;
  EXPECT_EQ(got.sum, want.sum) << what;
  expect_counts(scratch, bin_oracle(n, diag, 10), what + " lane columns");
  expect_counts(global, bin_oracle(n, diag, 10), what + " atomic bins");
}

/// A histogram law's walk as each BinMode counts, at this backend's lane
/// width (teams of bin_walk_warps walkers on GPUs), whole and in 3 parts.
template <tdmaps::detail::BinMode Mode>
void check_bin_mode(index_t n, int bins) {
  constexpr int W = tdmaps::intrinsics::lane_width<Space>::value;
  constexpr int T = W > 1 ? tdmaps::detail::bin_walk_warps : 1;
  const tdmaps::LambdaMap<> map(n, 32, Triangle::strict_lower);
  const auto macro = tdmaps::detail::warp_walk_map(map, W * 4);
  const index_t size = tdmaps::detail::league_size(macro, 0);
  Counts whole("whole", static_cast<std::size_t>(bins)), parts("parts", static_cast<std::size_t>(bins));
  tdmaps::detail::bin_law_lanes<W, 4, T, Mode>(Space(), macro, 0, 0, size, n, false, IntBin{}, whole,
                                               tdmaps::LaunchHints(), "modes");
  for (int p = 0; p < 3; ++p)
    tdmaps::detail::bin_law_lanes<W, 4, T, Mode>(Space(), macro, 0, size * p / 3, size * (p + 1) / 3, n, false,
                                                 IntBin{}, parts, tdmaps::LaunchHints(), "modes");
  const std::string what = "mode " + std::to_string(static_cast<int>(Mode)) + " n " + std::to_string(n);
  expect_counts(whole, bin_oracle(n, false, bins), what);
  expect_counts(parts, bin_oracle(n, false, bins), what + " 3 parts");
}

/// Points in the unit cube, fp32, fixed seed.
struct Cloud {
  Kokkos::View<float* [3], Kokkos::LayoutRight, Mem> x;
  std::vector<float> h;
  explicit Cloud(index_t n) : x("x", static_cast<std::size_t>(n)), h(static_cast<std::size_t>(3 * n)) {
    std::mt19937_64 g(20261128u);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    auto hm = Kokkos::create_mirror_view(x);
    for (index_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) h[std::size_t(3 * i + c)] = hm(i, c) = u(g);
    Kokkos::deep_copy(x, hm);
  }
  float sq(index_t i, index_t j) const {  // as the laws below compute it (nvcc contracts to fused multiply-adds)
    float s = 0;
    for (int c = 0; c < 3; ++c) {
      const float t = h[std::size_t(3 * i + c)] - h[std::size_t(3 * j + c)];
      if (tdmaps::is_gpu_space<Space>::value)
        s = std::fma(t, t, s);
      else
        s += t * t;
    }
    return s;
  }
};

/// A user's count of the pairs closer than r (squared distance below r2).
struct Within {
  using point_type = Kokkos::Array<float, 3>;
  using value_type = index_t;
  const float* x;
  float r2;
  KOKKOS_FUNCTION point_type load(index_t i) const { return {{x[3 * i], x[3 * i + 1], x[3 * i + 2]}}; }
  KOKKOS_FUNCTION void operator()(const point_type& a, const point_type& b, index_t& acc) const {
    float s = 0;
    for (int c = 0; c < 3; ++c) {
      const float t = a[c] - b[c];
      s += t * t;
    }
    acc += s < r2 ? 1 : 0;
  }
};

/// A user's closest pair: the smallest (squared distance bits << 32 | i << 16 | j), a minimum with its own identity and
/// join.
struct Closest {
  using point_type = Within::point_type;
  using value_type = std::uint64_t;
  const float* x;
  KOKKOS_FUNCTION point_type load(index_t i) const { return {{x[3 * i], x[3 * i + 1], x[3 * i + 2]}}; }
  KOKKOS_FUNCTION value_type identity() const { return ~value_type(0); }
  KOKKOS_FUNCTION void join(value_type& dst, const value_type& src) const { dst = src < dst ? src : dst; }
  KOKKOS_FUNCTION void operator()(index_t i, const point_type& a, index_t j, const point_type& b,
                                  value_type& acc) const {
    float s = 0;
    for (int c = 0; c < 3; ++c) {
      const float t = a[c] - b[c];
      s += t * t;
    }
    const value_type k = (value_type(tdmaps::intrinsics::float_bits(s)) << 32) | (value_type(i) << 16) | value_type(j);
    acc = k < acc ? k : acc;
  }
};

}  // namespace tdmaps_reduce_law_test

TEST(TEST_CATEGORY, pair_reduce_law_integer_sums_and_bins_match_the_nested_loop_for_every_map) {
  using namespace tdmaps_reduce_law_test;
  check_int_law_sizes<tdmaps::LambdaMap<>>();
  check_int_law_sizes<tdmaps::BoundingBoxMap>();
  check_int_law_sizes<tdmaps::RectangularBoxMap>();
  check_int_law_sizes<tdmaps::RecursiveMap>();
  check_int_law_sizes<tdmaps::HadoukenMap>();
}

TEST(TEST_CATEGORY, pair_reduce_law_lane_walks_on_one_lane_match_the_nested_loop) {
  using namespace tdmaps_reduce_law_test;
  for (const index_t n : {1, 2, 5, 37, 130})
    for (const Triangle t : {Triangle::strict_lower, Triangle::lower})
      for (const PairDiagonal d : {PairDiagonal::exclude, PairDiagonal::include}) {
        check_lanes<1, 1, tdmaps::LambdaMap<>>(n, t, d, 1);
        check_lanes<1, 3, tdmaps::LambdaMap<>>(n, t, d, 4);
        check_lanes<1, 4, tdmaps::BoundingBoxMap>(n, t, d, 2);
        check_lanes<1, 4, tdmaps::RecursiveMap>(n, t, d, 1);
        check_lanes<1, 3, tdmaps::HadoukenMap>(n, t, d, 1);
      }
}

TEST(TEST_CATEGORY, pair_reduce_law_histogram_modes_match_the_nested_loop) {
  using namespace tdmaps_reduce_law_test;
  using tdmaps::detail::BinMode;
  for (const index_t n : {2, 129, 1000})
    for (const int bins : {1, 10}) {
      check_bin_mode<BinMode::lanes>(n, bins);
      check_bin_mode<BinMode::shared>(n, bins);
      check_bin_mode<BinMode::global>(n, bins);
    }
}

TEST(TEST_CATEGORY, pair_reduce_law_user_count_and_closest_pair_match_the_nested_loop) {
  using namespace tdmaps_reduce_law_test;
  for (const index_t n : {2, 129, 700}) {
    const Cloud c(n);
    const float r2 = 0.04f;
    index_t want = 0;
    std::uint64_t best = ~std::uint64_t(0);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < i; ++j) {
        const float s = c.sq(i, j);
        want += s < r2 ? 1 : 0;
        std::uint32_t bits;
        std::memcpy(&bits, &s, sizeof bits);
        const std::uint64_t k = (std::uint64_t(bits) << 32) | (std::uint64_t(i) << 16) | std::uint64_t(j);
        best = k < best ? k : best;
      }
    const auto run = [&](const auto& map) {
      const std::string what = std::string(map.name) + " n " + std::to_string(n);
      EXPECT_EQ(tdmaps::reduce_pair_law(Space(), map, Within{c.x.data(), r2}), want) << what;
      EXPECT_EQ(tdmaps::reduce_pair_law(Space(), map, Closest{c.x.data()}), best) << what;
    };
    run(tdmaps::LambdaMap<>(n, 32, Triangle::strict_lower));
    run(tdmaps::BoundingBoxMap(n, 16, Triangle::strict_lower));
    run(tdmaps::RecursiveMap(n, 8, Triangle::strict_lower));
    run(tdmaps::HadoukenMap(n, 32, Triangle::lower));  // the diagonal excluded by default
    const tdmaps::LambdaMap<> map(n, 16, Triangle::strict_lower);
    index_t parts = 0;
    for (int p = 0; p < 5; ++p) parts += tdmaps::reduce_pair_law_part(Space(), map, p, 5, Within{c.x.data(), r2});
    EXPECT_EQ(parts, want) << "5 parts, n " << n;
  }
}

TEST(TEST_CATEGORY, pair_reduce_law_rejects_bad_arguments) {
  using namespace tdmaps_reduce_law_test;
  const tdmaps::LambdaMap<> map(10, 16);
  EXPECT_THROW(tdmaps::reduce_pair_law_part(Space(), map, 3, 3, IntSum{}), std::invalid_argument);
  EXPECT_THROW(tdmaps::reduce_pair_law_part(Space(), map, -1, 3, IntSum{}), std::invalid_argument);
  EXPECT_THROW(tdmaps::reduce_pair_law_part(Space(), map, 0, 0, IntSum{}), std::invalid_argument);
  Counts none("none", 0), counts("counts", 4);
  EXPECT_THROW(tdmaps::histogram_pair_law(Space(), map, IntBin{}, none), std::invalid_argument);
  EXPECT_THROW(tdmaps::histogram_pair_law_part(Space(), map, 2, 2, IntBin{}, counts), std::invalid_argument);
  tdmaps::LaunchHints bad;
  bad.blocks_per_team = -1;
  EXPECT_THROW(tdmaps::reduce_pair_law(Space(), map, IntSum{}, PairDiagonal::exclude, "x", bad), std::invalid_argument);
  EXPECT_THROW(tdmaps::histogram_pair_law(Space(), map, IntBin{}, counts, PairDiagonal::exclude, "x", bad),
               std::invalid_argument);
}
