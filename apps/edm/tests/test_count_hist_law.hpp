// count_within's and pair_histogram's pair laws (count.hpp, histogram.hpp)
// against host nested loops, fp32 and fp64 points of 2, 3 and 4
// coordinates on a grid (distances on the radius and on bin edges), with
// repeated points and a NaN point: the edm calls (the reduce walk on GPU
// backends, the element walk on host ones), their _part forms summed, and on
// every backend the laws through the public reduce walks and the GPU's lane
// walk itself (one lane on host backends); distances within ulps of every
// bin edge.
#include "oracle.hpp"

#include <tdmaps/edm.hpp>
#include <tdmaps/edm/reduce.hpp>
#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace tdmaps_count_hist_law_test {

using tdmaps::index_t;
using tdmaps::Triangle;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;
using Counts = Kokkos::View<std::int64_t*, Mem>;
namespace edm = tdmaps::edm;

/// n points of D coordinates on a grid of step 1/4 in [0, 1] (fixed seed):
/// many distances exactly 1/4, 1/2, ...; point 3 NaN where n > 3.
template <class Real>
std::vector<Real> make_points(index_t n, int D) {
  std::mt19937_64 g(20261128u);
  std::uniform_int_distribution<int> u(0, 4);
  std::vector<Real> h(static_cast<std::size_t>(n * D));
  for (auto& v : h) v = static_cast<Real>(u(g)) / Real(4);
  if (n > 3) h[std::size_t(3 * D)] = std::numeric_limits<Real>::quiet_NaN();
  return h;
}

/// The squared distance as the kernels form it (in order; nvcc contracts to fused multiply-adds).
template <class Real>
Real host_sq(const std::vector<Real>& h, int D, index_t i, index_t j) {
  Real s = 0;
  for (int k = 0; k < D; ++k) {
    const Real t = h[std::size_t(i * D + k)] - h[std::size_t(j * D + k)];
    if (tdmaps::is_gpu_space<Space>::value)
      s = std::fma(t, t, s);
    else
      s += t * t;
  }
  return s;
}

/// NumPy's edges of B bins of (0, R): linspace(0, R, B + 1) in Real, the last R.
template <class Real>
std::vector<Real> numpy_edges(Real R, int B) {
  std::vector<Real> e(static_cast<std::size_t>(B) + 1);
  for (int k = 0; k < B; ++k)
    e[std::size_t(k)] = static_cast<Real>(static_cast<double>(k) * (static_cast<double>(R) / B));
  e[std::size_t(B)] = R;
  return e;
}

/// NumPy's bin of r: the last edge <= r, -1 for none (r >= R or NaN).
template <class Real>
int numpy_bin(Real r, const std::vector<Real>& e) {
  if (!(r < e.back())) return -1;
  return static_cast<int>(std::upper_bound(e.begin(), e.end(), r) - e.begin()) - 1;
}

template <class Real, int D>
void check(index_t n) {
  const std::vector<Real> h = make_points<Real>(n, D);
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> x("x", static_cast<std::size_t>(n), static_cast<std::size_t>(D));
  auto hx = Kokkos::create_mirror_view(x);
  for (index_t i = 0; i < n; ++i)
    for (int k = 0; k < D; ++k) hx(i, k) = h[std::size_t(i * D + k)];
  Kokkos::deep_copy(x, hx);
  const double radius = 0.5, rmax = 1.0;
  const int bins = 8;
  const std::vector<Real> edges = numpy_edges(static_cast<Real>(rmax), bins);
  index_t want = 0;
  std::vector<std::int64_t> hist(bins, 0);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < i; ++j) {
      const Real r = std::sqrt(host_sq(h, D, i, j));
      want += r < static_cast<Real>(radius) ? 1 : 0;
      const int b = numpy_bin(r, edges);
      if (b >= 0) ++hist[std::size_t(b)];
    }
  const std::string what =
      std::string(sizeof(Real) == 4 ? "fp32" : "fp64") + " D " + std::to_string(D) + " n " + std::to_string(n);
  const auto expect_hist = [&](const Counts& got, const std::string& how) {
    auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
    for (int b = 0; b < bins; ++b) EXPECT_EQ(hg(b), hist[std::size_t(b)]) << what << " " << how << ": bin " << b;
  };
  const tdmaps::LambdaMap<> map(n, 32, Triangle::strict_lower);
  // The edm calls, whole and by parts.
  EXPECT_EQ(edm::count_within(Space(), x, map, radius), want) << what;
  index_t parts = 0;
  for (int p = 0; p < 3; ++p) parts += edm::count_within_part(Space(), x, map, p, 3, radius);
  EXPECT_EQ(parts, want) << what << " 3 parts";
  Counts whole("whole", bins), split("split", bins);
  edm::pair_histogram(Space(), x, map, rmax, whole);
  expect_hist(whole, "pair_histogram");
  for (int p = 0; p < 3; ++p) edm::pair_histogram_part(Space(), x, map, p, 3, rmax, split);
  expect_hist(split, "pair_histogram_part x 3");
  // The laws through the public reduce walks and the lane walk on this backend.
  edm::detail::CountLaw<Real, D> count;
  count.x = x.data();
  count.threshold = edm::detail::sq_threshold(static_cast<Real>(radius));
  edm::detail::BinLaw<Real, D> bin;
  bin.x = x.data();
  bin.bin = edm::detail::make_bins<Real>(rmax, bins);
  EXPECT_EQ(tdmaps::reduce_pair_law(Space(), tdmaps::BoundingBoxMap(n, 16, Triangle::strict_lower), count), want)
      << what << " reduce_pair_law";
  Counts law("law", bins);
  tdmaps::histogram_pair_law(Space(), tdmaps::HadoukenMap(n, 16, Triangle::strict_lower), bin, law);
  expect_hist(law, "histogram_pair_law");
  if constexpr (tdmaps::intrinsics::lane_width<Space>::value == 1) {
    const auto macro = tdmaps::detail::warp_walk_map(map, 4);
    index_t got = 0;
    Counts lanes("lanes", bins);
    const index_t size = tdmaps::detail::league_size(macro, 0);
    tdmaps::detail::reduce_law_lanes<1, 4>(Space(), macro, 0, 0, size, n, false, count, got, tdmaps::LaunchHints(),
                                           "lanes");
    tdmaps::detail::bin_law_lanes<1, 4, 1, tdmaps::detail::BinMode::lanes>(Space(), macro, 0, 0, size, n, false, bin,
                                                                           lanes, tdmaps::LaunchHints(), "lanes");
    EXPECT_EQ(got, want) << what << " lane walk";
    expect_hist(lanes, "lane walk");
  }
}

/// Distances within a few ulps of every edge (and of rmax): the origin and
/// points on the x axis at edge_b + k ulps, k = -6 .. 6 (8 bins) or -2 .. 2
/// (1000 bins).
template <class Real>
void check_edges(int bins) {
  const double rmax = 1.0;
  std::vector<Real> h{0, 0, 0};
  for (int b = 1; b <= bins; ++b) {
    const Real e = static_cast<Real>(static_cast<double>(b) * (rmax / bins));
    Real up = e, down = e;
    for (int k = 0; k < (bins > 100 ? 2 : 6); ++k) {
      up = std::nextafter(up, Real(2));
      down = std::nextafter(down, Real(0));
      for (const Real v : {up, down}) h.insert(h.end(), {v, Real(0), Real(0)});
    }
    h.insert(h.end(), {e, Real(0), Real(0)});
  }
  const index_t n = static_cast<index_t>(h.size() / 3);
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> x("x", static_cast<std::size_t>(n), 3);
  auto hx = Kokkos::create_mirror_view(x);
  for (index_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) hx(i, k) = h[std::size_t(i * 3 + k)];
  Kokkos::deep_copy(x, hx);
  const std::vector<Real> edges = numpy_edges(static_cast<Real>(rmax), bins);
  std::vector<std::int64_t> want(static_cast<std::size_t>(bins), 0);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < i; ++j) {
      const int b = numpy_bin(std::sqrt(host_sq(h, 3, i, j)), edges);
      if (b >= 0) ++want[std::size_t(b)];
    }
  const std::string what =
      std::string(sizeof(Real) == 4 ? "fp32" : "fp64") + " edges, " + std::to_string(bins) + " bins";
  const auto expect = [&](const Counts& got, const std::string& how) {
    auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
    for (int b = 0; b < bins; ++b) EXPECT_EQ(hg(b), want[std::size_t(b)]) << what << " " << how << ": bin " << b;
  };
  const tdmaps::LambdaMap<> map(n, 32, Triangle::strict_lower);
  Counts app("app", static_cast<std::size_t>(bins)), law("law", static_cast<std::size_t>(bins));
  edm::pair_histogram(Space(), x, map, rmax, app);
  expect(app, "pair_histogram");
  edm::detail::BinLaw<Real, 3> bin;
  bin.x = x.data();
  bin.bin = edm::detail::make_bins<Real>(rmax, bins);
  tdmaps::histogram_pair_law(Space(), map, bin, law);
  expect(law, "histogram_pair_law");
}

}  // namespace tdmaps_count_hist_law_test

TEST(TEST_CATEGORY, edm_count_and_histogram_laws_match_the_nested_loop_on_radius_and_edges) {
  using namespace tdmaps_count_hist_law_test;
  for (const index_t n : {2, 5, 131, 400}) {
    check<float, 2>(n);
    check<float, 3>(n);
    check<float, 4>(n);
    check<double, 3>(n);
  }
}

TEST(TEST_CATEGORY, edm_histogram_law_matches_the_nested_loop_within_ulps_of_every_edge) {
  using namespace tdmaps_count_hist_law_test;
  for (const int bins : {8, 1000}) {
    check_edges<float>(bins);
    check_edges<double>(bins);
  }
}
