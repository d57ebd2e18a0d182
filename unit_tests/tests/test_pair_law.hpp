// The pair-law walk (launch/pair_law.hpp) against host nested loops: an
// exact integer law that tells the two ends and the diagonal apart, a user's
// fp32 softened gravity (the README's law) against fp64, a law with its own
// flush (a conversion into another output type), for every block-space map,
// whole and by parts; the lane walk itself run on the host (one lane, 1, 3
// and 4 rows) and its index math simulated at widths 32 and 64.
#include "oracle.hpp"

#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tdmaps_pair_law_test {

using tdmaps::index_t;
using tdmaps::PairDiagonal;
using tdmaps::Triangle;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;

/// Exact and asymmetric sums: a count and an index-weighted sum per point.
struct Tally {
  std::int64_t calls, sum;
};

}  // namespace tdmaps_pair_law_test

template <>
struct tdmaps::pair_value_traits<tdmaps_pair_law_test::Tally>
    : tdmaps::pair_value_reals<tdmaps_pair_law_test::Tally, std::int64_t> {};

namespace tdmaps_pair_law_test {

/// The integer law: a point is its index; what a (the larger index) and b get differ.
struct IntLaw {
  struct point_type {
    std::int64_t i;
  };
  using value_type = Tally;
  KOKKOS_FUNCTION point_type load(index_t i) const { return {i}; }
  KOKKOS_FUNCTION void operator()(const point_type& a, const point_type& b, Tally& to_a, Tally& to_b) const {
    to_a.calls += 1;
    to_a.sum += 1000003 * a.i + b.i + 1;
    to_b.calls += 1;
    to_b.sum += 7 * b.i + 3 * a.i + 5;
  }
};

/// A user's softened gravity in fp32, as the README writes it.
using XM = Kokkos::View<float* [4], Kokkos::LayoutRight, Mem>;
struct Gravity {
  using point_type = Kokkos::Array<float, 4>;  // x, y, z, m
  using value_type = Kokkos::Array<float, 3>;  // acceleration
  XM xm;
  float eps2 = 1e-2f;
  KOKKOS_FUNCTION point_type load(index_t i) const { return {{xm(i, 0), xm(i, 1), xm(i, 2), xm(i, 3)}}; }
  KOKKOS_FUNCTION void operator()(const point_type& a, const point_type& b, value_type& to_a, value_type& to_b) const {
    const float dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
    const float r2 = dx * dx + dy * dy + dz * dz + eps2;
    const float inv = 1.0f / tdmaps::intrinsics::sqrt_rn(r2);
    const float s = inv * inv * inv;
    to_a[0] += b[3] * s * dx, to_a[1] += b[3] * s * dy, to_a[2] += b[3] * s * dz;
    to_b[0] -= a[3] * s * dx, to_b[1] -= a[3] * s * dy, to_b[2] -= a[3] * s * dz;
  }
};

/// Gravity whose sums go into an fp64 (n x 3) View, scaled by G, through its own flush.
using Out3 = Kokkos::View<double* [3], Kokkos::LayoutRight, Mem>;
struct ScaledGravity : Gravity {
  static constexpr int rows = 2;
  double G = 3.0;
  KOKKOS_FUNCTION void flush(const Out3& out, index_t i, const value_type& v) const {
    for (int c = 0; c < 3; ++c) Kokkos::atomic_add(&out(i, c), G * static_cast<double>(v[c]));
  }
};

bool with_diagonal(Triangle t, PairDiagonal d) { return t == Triangle::lower && d == PairDiagonal::include; }

/// IntLaw's sums by a nested loop.
std::vector<Tally> int_oracle(index_t n, bool diag) {
  std::vector<Tally> w(static_cast<std::size_t>(n), Tally{0, 0});
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < (diag ? i + 1 : i); ++j) {
      w[std::size_t(i)].calls += 1;
      w[std::size_t(i)].sum += 1000003 * i + j + 1;
      w[std::size_t(j)].calls += 1;
      w[std::size_t(j)].sum += 7 * j + 3 * i + 5;
    }
  return w;
}

using Tallies = Kokkos::View<Tally*, Mem>;

void expect_tallies(const Tallies& got, index_t n, bool diag, const std::string& what) {
  const auto want = int_oracle(n, diag);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
  int bad = 0;
  for (index_t i = 0; i < n && bad < 3; ++i)
    if (h(i).calls != want[std::size_t(i)].calls || h(i).sum != want[std::size_t(i)].sum) {
      ++bad;
      ADD_FAILURE() << what << " n " << n << ": point " << i << " got (" << h(i).calls << ", " << h(i).sum
                    << "), nested loop (" << want[std::size_t(i)].calls << ", " << want[std::size_t(i)].sum << ")";
    }
}

template <class Map>
void check_int_law(index_t n, Triangle t, PairDiagonal d) {
  const Map map(n, 16, t);
  Tallies out("out", static_cast<std::size_t>(n));
  tdmaps::for_each_pair_law(Space(), map, IntLaw{}, out, d);
  expect_tallies(out, n, with_diagonal(t, d), std::string(Map::name) + " whole");
  if constexpr (!tdmaps::detail::has_multi_launch<Map>::value) {
    Tallies parts("parts", static_cast<std::size_t>(n));
    for (int p = 0; p < 3; ++p) tdmaps::for_each_pair_law_part(Space(), map, p, 3, IntLaw{}, parts, d);
    expect_tallies(parts, n, with_diagonal(t, d), std::string(Map::name) + " 3 parts");
  }
}

template <class Map>
void check_int_law_sizes() {
  for (const index_t n : {0, 1, 2, 3, 37, 130, 300})
    for (const Triangle t : {Triangle::strict_lower, Triangle::lower})
      for (const PairDiagonal d : {PairDiagonal::exclude, PairDiagonal::include}) check_int_law<Map>(n, t, d);
}

/// The lane walk of W lanes and R rows itself (the GPU path), over Map's kind.
template <int W, int R, class Map>
void check_lanes(index_t n, Triangle t, PairDiagonal d, int parts) {
  const Map map(n, 16, t);
  const Map macro = tdmaps::detail::warp_walk_map(map, W * R);
  Tallies out("out", static_cast<std::size_t>(n));
  const bool diag = with_diagonal(t, d);
  for (int l = 0; l < tdmaps::detail::launches(macro); ++l) {
    const index_t size = tdmaps::detail::league_size(macro, l);
    for (int p = 0; p < parts; ++p) {
      const index_t b = size * p / parts, e = size * (p + 1) / parts;
      tdmaps::detail::pair_law_lanes<W, R>(Space(), macro, l, b, e, n, diag, IntLaw{}, out, tdmaps::LaunchHints(),
                                           "lanes");
    }
  }
  expect_tallies(out, n, diag, std::string("lanes ") + Map::name + " R " + std::to_string(R));
}

}  // namespace tdmaps_pair_law_test


TEST(TEST_CATEGORY, pair_law_integer_sums_match_the_nested_loop_for_every_map) {
  using namespace tdmaps_pair_law_test;
  check_int_law_sizes<tdmaps::LambdaMap<>>();
  check_int_law_sizes<tdmaps::BoundingBoxMap>();
  check_int_law_sizes<tdmaps::RectangularBoxMap>();
  check_int_law_sizes<tdmaps::RecursiveMap>();
  check_int_law_sizes<tdmaps::HadoukenMap>();
}

TEST(TEST_CATEGORY, pair_law_lane_walk_on_one_lane_matches_the_nested_loop) {
  using namespace tdmaps_pair_law_test;
  // The GPU walk's blocks, edges, diagonal rule and row segments with the
  // rotation of one lane: side R blocks over every map kind, in pieces.
  for (const index_t n : {1, 2, 5, 37, 130})
    for (const Triangle t : {Triangle::strict_lower, Triangle::lower})
      for (const PairDiagonal d : {PairDiagonal::exclude, PairDiagonal::include}) {
        check_lanes<1, 1, tdmaps::LambdaMap<>>(n, t, d, 1);
        check_lanes<1, 3, tdmaps::LambdaMap<>>(n, t, d, 4);
        check_lanes<1, 4, tdmaps::BoundingBoxMap>(n, t, d, 2);
        check_lanes<1, 4, tdmaps::RecursiveMap>(n, t, d, 1);
        check_lanes<1, 3, tdmaps::HadoukenMap>(n, t, d, 1);
        check_lanes<1, 4, tdmaps::RectangularBoxMap>(n, t, d, 1);
      }
}

namespace tdmaps_pair_law_test {
/// The lane walk's index math simulated: W lanes, each holding R column
/// labels, rotated as the walk rotates them.
template <int W, int R>
void simulate_lanes(index_t n, bool diag_block) {
  using I = tdmaps::detail::LaneWalkIndex<W, R>;
  const index_t i0 = diag_block ? 0 : I::side, j0 = 0;
  std::vector<index_t> held(static_cast<std::size_t>(W * R));  // lane t, slot c: the column it holds
  for (int t = 0; t < W; ++t)
    for (int c = 0; c < R; ++c) held[std::size_t(t * R + c)] = I::col(j0, t, 0, c);
  std::vector<int> seen(static_cast<std::size_t>(I::side * I::side), 0);
  for (int s = 0; s < W; ++s) {
    for (int t = 0; t < W; ++t)
      for (int c = 0; c < R; ++c) {
        ASSERT_EQ(held[std::size_t(t * R + c)], I::col(j0, t, s, c)) << "W " << W << " R " << R << " step " << s;
        for (int r = 0; r < R; ++r) {
          const index_t i = I::row(i0, t, r), j = held[std::size_t(t * R + c)];
          if (I::takes(i, j, n, diag_block, false)) ++seen[std::size_t((i - i0) * I::side + (j - j0))];
        }
      }
    std::vector<index_t> next(held.size());
    for (int t = 0; t < W; ++t)
      for (int c = 0; c < R; ++c) next[std::size_t(t * R + c)] = held[std::size_t(I::next_from(t) * R + c)];
    held = next;
  }
  // Home again: each column's sum ends on the lane that loaded it.
  for (int t = 0; t < W; ++t)
    for (int c = 0; c < R; ++c) EXPECT_EQ(held[std::size_t(t * R + c)], I::col(j0, t, 0, c));
  // Every pair of the block in the domain once (i > j on the diagonal block), nothing else.
  for (index_t a = 0; a < I::side; ++a)
    for (index_t b = 0; b < I::side; ++b) {
      const index_t i = i0 + a, j = j0 + b;
      const int want = (i < n && j < n && (!diag_block || i > j)) ? 1 : 0;
      EXPECT_EQ(seen[std::size_t(a * I::side + b)], want) << "W " << W << " R " << R << " pair " << i << ", " << j;
    }
}
}  // namespace tdmaps_pair_law_test

TEST(TEST_CATEGORY, pair_law_lane_index_math_covers_each_block_once_at_widths_32_and_64) {
  using namespace tdmaps_pair_law_test;
  simulate_lanes<32, 1>(1000, true);
  simulate_lanes<32, 4>(1000, true);
  simulate_lanes<32, 4>(1000, false);
  simulate_lanes<32, 4>(100, true);  // an edge block
  simulate_lanes<32, 8>(1000, false);
  simulate_lanes<64, 1>(1000, true);
  simulate_lanes<64, 4>(1000, true);
  simulate_lanes<64, 4>(300, false);  // an edge block off the diagonal
  simulate_lanes<64, 8>(1000, true);
}

namespace tdmaps_pair_law_test {
struct LawBodies {
  XM xm;
  std::vector<double> h;  // n x 4
  explicit LawBodies(index_t n) : xm("xm", static_cast<std::size_t>(n)), h(static_cast<std::size_t>(4 * n)) {
    std::mt19937_64 g(20261128u);
    std::uniform_real_distribution<double> u(-1.0, 1.0), m(0.5, 2.0);
    auto hm = Kokkos::create_mirror_view(xm);
    for (index_t i = 0; i < n; ++i) {
      for (int c = 0; c < 4; ++c) {
        hm(i, c) = static_cast<float>(c < 3 ? u(g) : m(g));
        h[std::size_t(4 * i + c)] = static_cast<double>(hm(i, c));
      }
    }
    Kokkos::deep_copy(xm, hm);
  }
  /// The accelerations in fp64 (eps2 1e-2 in float, as the law has it), and the magnitudes' sums.
  void oracle(double G, std::vector<double>& want, std::vector<double>& mag) const {
    const index_t n = static_cast<index_t>(h.size() / 4);
    want.assign(std::size_t(3 * n), 0.0);
    mag.assign(std::size_t(3 * n), 0.0);
    const double eps2 = static_cast<double>(1e-2f);
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j < i; ++j) {
        const double* a = &h[std::size_t(4 * i)];
        const double* b = &h[std::size_t(4 * j)];
        const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
        const double s = 1.0 / (r2 * std::sqrt(r2));
        for (int c = 0; c < 3; ++c) {
          want[std::size_t(3 * i + c)] += G * b[3] * s * d[c];
          want[std::size_t(3 * j + c)] -= G * a[3] * s * d[c];
          mag[std::size_t(3 * i + c)] += std::fabs(G * b[3] * s * d[c]);
          mag[std::size_t(3 * j + c)] += std::fabs(G * a[3] * s * d[c]);
        }
      }
  }
};

using Accs = Kokkos::View<Gravity::value_type*, Kokkos::LayoutRight, Mem>;
struct AccsOut {
  Accs acc;
  Kokkos::View<float* [3], Kokkos::LayoutRight, Mem> a3;
  KOKKOS_FUNCTION void operator()(const index_t i) const {
    for (int c = 0; c < 3; ++c) a3(i, c) = acc(i)[c];
  }
};

template <class Get>
void expect_close(const std::vector<double>& want, const std::vector<double>& mag, const Get& got,
                  const std::string& what) {
  int bad = 0;
  for (std::size_t k = 0; k < want.size() && bad < 3; ++k) {
    const double g = got(k);
    if (!(std::fabs(g - want[k]) <= 1e-4 * mag[k] + 1e-30)) {
      ++bad;
      ADD_FAILURE() << what << ": component " << k << " got " << g << ", fp64 " << want[k] << " (terms " << mag[k]
                    << ")";
    }
  }
}
}  // namespace tdmaps_pair_law_test

TEST(TEST_CATEGORY, pair_law_user_gravity_matches_fp64_for_every_map) {
  using namespace tdmaps_pair_law_test;
  for (const index_t n : {2, 129, 700}) {
    const LawBodies b(n);
    std::vector<double> want, mag;
    b.oracle(1.0, want, mag);
    const auto run = [&](const auto& map) {
      Accs acc("acc", static_cast<std::size_t>(n));
      tdmaps::for_each_pair_law(Space(), map, Gravity{b.xm}, acc);
      // Kokkos 3 keeps a View of Kokkos::Array member by member: read it through a plain View.
      Kokkos::View<float* [3], Kokkos::LayoutRight, Mem> a3("a3", static_cast<std::size_t>(n));
      Kokkos::parallel_for(Kokkos::RangePolicy<Space>(0, n), AccsOut{acc, a3});
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a3);
      expect_close(want, mag, [&](std::size_t k) { return static_cast<double>(h.data()[k]); },
                   std::string(map.name) + " n " + std::to_string(n));
    };
    run(tdmaps::LambdaMap<>(n, 32, Triangle::strict_lower));
    run(tdmaps::BoundingBoxMap(n, 16, Triangle::strict_lower));
    run(tdmaps::RecursiveMap(n, 8, Triangle::strict_lower));
    run(tdmaps::HadoukenMap(n, 32, Triangle::lower));  // the diagonal excluded by default
  }
}

TEST(TEST_CATEGORY, pair_law_flush_converts_into_the_callers_output) {
  using namespace tdmaps_pair_law_test;
  const index_t n = 300;
  const LawBodies b(n);
  std::vector<double> want, mag;
  b.oracle(3.0, want, mag);
  const tdmaps::LambdaMap<> map(n, 16, Triangle::strict_lower);
  Out3 out("out", static_cast<std::size_t>(n));
  ScaledGravity law;
  law.xm = b.xm;
  for (int p = 0; p < 4; ++p) tdmaps::for_each_pair_law_part(Space(), map, p, 4, law, out);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  expect_close(want, mag, [&](std::size_t k) { return h.data()[k]; }, "flush, 4 parts");
}

TEST(TEST_CATEGORY, pair_law_rejects_bad_arguments) {
  using namespace tdmaps_pair_law_test;
  const tdmaps::LambdaMap<> map(10, 16);
  Tallies small("small", 9);
  EXPECT_THROW(tdmaps::for_each_pair_law(Space(), map, IntLaw{}, small), std::invalid_argument);
  Tallies out("out", 10);
  EXPECT_THROW(tdmaps::for_each_pair_law_part(Space(), map, 3, 3, IntLaw{}, out), std::invalid_argument);
  EXPECT_THROW(tdmaps::for_each_pair_law_part(Space(), map, 0, 0, IntLaw{}, out), std::invalid_argument);
  tdmaps::LaunchHints bad;
  bad.blocks_per_team = -1;
  EXPECT_THROW(tdmaps::for_each_pair_law(Space(), map, IntLaw{}, out, PairDiagonal::exclude, "x", bad),
               std::invalid_argument);
}
