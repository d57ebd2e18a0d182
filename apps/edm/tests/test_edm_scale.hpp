// The EDM past device memory and without the matrix: edm_chunk (any chunk
// edges) bit for bit against the whole matrix of the element kernel, and the
// reductions (pair_histogram, count_within, nearest_neighbour), whole, by
// omega ranges and by parts, against host nested loops; the histogram's bins against a
// table of NumPy's edges (np.linspace) on distances placed on every edge.
#include <tdmaps/edm.hpp>
#include <tdmaps/edm/chunk.hpp>
#include <tdmaps/edm/reduce.hpp>
#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace tdmaps_edm_scale_test {

using tdmaps::index_t;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;
namespace edm = tdmaps::edm;

template <class Real>
Kokkos::View<Real**, Kokkos::LayoutRight, Mem> random_points(index_t n, int d, unsigned seed, std::vector<Real>& host,
                                                             int duplicates = 0) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  host.resize(static_cast<std::size_t>(n * d));
  for (auto& v : host) v = static_cast<Real>(u(g));
  for (int k = 0; k < duplicates && n > 1; ++k) {
    const index_t a = static_cast<index_t>(g() % static_cast<std::uint64_t>(n));
    const index_t b = static_cast<index_t>(g() % static_cast<std::uint64_t>(n));
    for (int c = 0; c < d; ++c) host[std::size_t(a * d + c)] = host[std::size_t(b * d + c)];
  }
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> x("x", static_cast<std::size_t>(n), static_cast<std::size_t>(d));
  auto m = Kokkos::create_mirror_view(x);
  for (index_t i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c) m(i, c) = host[std::size_t(i * d + c)];
  Kokkos::deep_copy(x, m);
  return x;
}

/// NumPy's bin edges for Real data and a Real range: np.linspace(0, R, bins +
/// 1) in fp64 for R = rmax rounded to Real, rounded to Real.
template <class Real>
std::vector<Real> linspace_edges(double rmax_given, int bins, bool in_real = false) {
  const double rmax = static_cast<double>(static_cast<Real>(rmax_given));
  std::vector<Real> e(static_cast<std::size_t>(bins) + 1);
  const double step = rmax / bins;
  // in_real: NumPy 2's float32 linspace, every term in Real (R / B, then b times it).
  const Real r = static_cast<Real>(rmax), step_r = r / static_cast<Real>(bins);
  for (int b = 0; b < bins; ++b)
    e[std::size_t(b)] = in_real ? (step_r == Real(0) ? static_cast<Real>(b) / static_cast<Real>(bins) * r : static_cast<Real>(b) * step_r)
                                : static_cast<Real>(step == 0 ? static_cast<double>(b) / bins * rmax : b * step);
  e[std::size_t(bins)] = static_cast<Real>(rmax);
  return e;
}

/// np.histogram's bin of r (edge_b <= r < edge_{b+1}), -1 for r >= rmax or NaN.
template <class Real>
int linspace_bin(const std::vector<Real>& edges, Real r) {
  if (!(r < edges.back())) return -1;
  return static_cast<int>(std::upper_bound(edges.begin(), edges.end(), r) - edges.begin()) - 1;
}

/// The squared distance as the kernels form it (in order, in Real); nvcc
/// contracts s += t * t into one fused multiply-add, g++ on x86-64 does not.
template <class Real>
Real host_sq(const std::vector<Real>& x, int d, index_t i, index_t j) {
  Real s = 0;
  for (int c = 0; c < d; ++c) {
    const Real t = x[std::size_t(i * d + c)] - x[std::size_t(j * d + c)];
    if (tdmaps::is_gpu_space<Space>::value) s = std::fma(t, t, s);
    else s += t * t;
  }
  return s;
}

/// The matrix in chunks of random sizes up to each of several limits, one
/// edm_chunk launch per chunk, against the whole matrix bit for bit.
/// `tiny`: also chunks of at most 1 (every offset its own launch) and 7 (every
/// boundary inside block rows); a launch per element, so the small sides only.
template <class Map, class Real>
void check_chunks(index_t n, int d, edm::Layout layout, unsigned seed, bool tiny) {
  std::vector<Real> hx;
  auto x = random_points<Real>(n, d, seed, hx);
  const Map map(edm::make_domain(n, 16, layout));
  const index_t total = edm::output_size(layout, n);
  Kokkos::View<Real*, Mem> whole("whole", static_cast<std::size_t>(total));
  edm::edm(Space(), x, whole, map, layout, edm::Kernel::element);
  auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), whole);
  std::mt19937_64 g(seed + 1);
  for (index_t chunk : {index_t(1), index_t(7), index_t(n + 3), index_t(16 * n + 5), total}) {
    if (chunk < 1 || (chunk <= 7 && !tiny)) continue;
    std::vector<Real> got(static_cast<std::size_t>(total), Real(-1));
    for (index_t o = 0; o < total;) {
      const index_t m = std::min<index_t>(total - o, 1 + static_cast<index_t>(g() % static_cast<std::uint64_t>(chunk)));
      Kokkos::View<Real*, Mem> part("part", static_cast<std::size_t>(m));
      edm::edm_chunk(Space(), x, map, layout, o, part);
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), part);
      for (index_t k = 0; k < m; ++k) got[std::size_t(o + k)] = h(k);
      o += m;
    }
    index_t bad = 0;
    for (index_t k = 0; k < total; ++k) {
      Real a = got[std::size_t(k)], b = w(k);
      if (std::memcmp(&a, &b, sizeof(Real)) != 0) ++bad;
    }
    EXPECT_EQ(bad, 0) << Map::name << " n = " << n << " " << edm::layout_name(layout) << " chunks up to " << chunk;
  }
}

template <class Real, class Map>
void check_reductions(index_t n, int d, int parts, unsigned seed) {
  std::vector<Real> hx;
  auto x = random_points<Real>(n, d, seed, hx, n > 8 ? 4 : 0);
  const Map map(n, 32, tdmaps::Triangle::strict_lower);
  const int bins = 29;
  const double rmax = 1.05, radius = 0.3;
  // Oracle.
  std::vector<std::int64_t> hist(bins, 0);
  index_t count = 0;
  std::vector<index_t> nn_idx(static_cast<std::size_t>(n), -1);
  std::vector<Real> nn_sq(static_cast<std::size_t>(n), std::numeric_limits<Real>::infinity());
  const auto edges = linspace_edges<Real>(rmax, bins);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      if (i == j) continue;
      const Real s = host_sq(hx, d, i, j);
      if (s < nn_sq[std::size_t(i)]) {  // j ascending: the first minimum is the smaller index
        nn_sq[std::size_t(i)] = s;
        nn_idx[std::size_t(i)] = j;
      }
      if (j < i) {
        const Real r = std::sqrt(s);
        const int b = linspace_bin(edges, r);
        if (b >= 0) ++hist[std::size_t(b)];
        count += r < static_cast<Real>(radius) ? 1 : 0;
      }
    }
  Kokkos::View<std::int64_t*, Mem> h("h", bins);
  index_t c = 0;
  Kokkos::View<index_t*, Mem> idx("idx", static_cast<std::size_t>(n));
  Kokkos::View<double*, Mem> dist("dist", static_cast<std::size_t>(n));
  constexpr bool ranges = !tdmaps::detail::has_multi_launch<Map>::value;
  if (parts == 0 || !ranges) {
    edm::pair_histogram(Space(), x, map, rmax, h);
    c = edm::count_within(Space(), x, map, radius);
    edm::nearest_neighbour(Space(), x, map, idx, dist);
  } else if constexpr (ranges) {
    // The _part forms (MPI ranks' calls), added up: the same bins and count.
    Kokkos::View<std::int64_t*, Mem> hp("hp", bins);
    index_t cp = 0;
    for (int p = 0; p < parts; ++p) {
      edm::pair_histogram_part(Space(), x, map, p, parts, rmax, hp);
      cp += edm::count_within_part(Space(), x, map, p, parts, radius);
    }
    EXPECT_EQ(cp, count) << Map::name << " n = " << n << " d = " << d << " _part x " << parts;
    auto ghp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hp);
    for (int b = 0; b < bins; ++b)
      EXPECT_EQ(ghp(b), hist[std::size_t(b)]) << Map::name << " n = " << n << " d = " << d << " _part bin " << b;
    Kokkos::View<edm::NearestKey*, Mem> keys("keys", static_cast<std::size_t>(n));
    Kokkos::deep_copy(keys, edm::nearest_init());
    for (int p = 0; p < parts; ++p) {
      const auto r = tdmaps::omega_range(map, p, parts);
      edm::pair_histogram(Space(), x, map, r, rmax, h);
      c += edm::count_within(Space(), x, map, r, radius);
      edm::nearest_neighbour(Space(), x, map, r, keys);
    }
    Kokkos::View<edm::NearestKey*, Mem> second("second", static_cast<std::size_t>(n));
    Kokkos::deep_copy(second, edm::nearest_init());
    if constexpr (std::is_same<Real, double>::value)
      for (int p = 0; p < parts; ++p)
        edm::nearest_index_pass(Space(), x, map, tdmaps::omega_range(map, p, parts), keys, second);
    Space().fence();
    auto k = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), keys);
    auto s2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), second);
    auto hi = Kokkos::create_mirror_view(idx);
    auto hd = Kokkos::create_mirror_view(dist);
    for (index_t i = 0; i < n; ++i) {
      if constexpr (std::is_same<Real, float>::value) {
        hi(i) = static_cast<index_t>(k(i) & 0xffffffffull);
        hd(i) = static_cast<double>(std::sqrt(tdmaps::from_ordered_bits(static_cast<std::uint32_t>(k(i) >> 32))));
      } else {
        hi(i) = static_cast<index_t>(s2(i));
        hd(i) = std::sqrt(tdmaps::from_ordered_bits(k(i)));
      }
    }
    Kokkos::deep_copy(idx, hi);
    Kokkos::deep_copy(dist, hd);
  }
  Space().fence();
  const std::string what = std::string(Map::name) + " n = " + std::to_string(n) + " d = " + std::to_string(d) +
                           (std::is_same<Real, float>::value ? " fp32" : " fp64") + " parts = " + std::to_string(parts);
  auto gh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), h);
  for (int b = 0; b < bins; ++b) EXPECT_EQ(gh(b), hist[std::size_t(b)]) << what << " bin " << b;
  EXPECT_EQ(c, count) << what;
  auto gi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), idx);
  auto gd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dist);
  int bad = 0;
  for (index_t i = 0; i < n && bad < 5; ++i) {
    const double want = static_cast<double>(std::sqrt(nn_sq[std::size_t(i)]));
    if (gi(i) != nn_idx[std::size_t(i)] || gd(i) != want) {
      ++bad;
      ADD_FAILURE() << what << ": nearest of " << i << " = " << gi(i) << " at " << gd(i) << ", oracle "
                    << nn_idx[std::size_t(i)] << " at " << want;
    }
  }
}

}  // namespace tdmaps_edm_scale_test

using namespace tdmaps_edm_scale_test;

TEST(TEST_CATEGORY, edm_chunks_equal_the_whole_matrix_bit_for_bit) {
  // Block side 16: n = 17 has a full and a partial block row (every offset a
  // chunk boundary there), 100 and 129 several of each.
  for (index_t n : {1, 2, 17, 100, 129}) {
    const bool tiny = n <= 17;
    for (auto layout : {edm::Layout::packed, edm::Layout::condensed}) {
      if (layout == edm::Layout::condensed && n < 2) continue;
      check_chunks<tdmaps::LambdaMap<>, double>(n, 3, layout, 3u + static_cast<unsigned>(n), tiny);
      check_chunks<tdmaps::BoundingBoxMap, float>(n, 5, layout, 5u + static_cast<unsigned>(n), tiny);
      // The dimension-tiled walk's chunks on GPUs (edm::detail::tiled_chunk_walk).
      check_chunks<tdmaps::LambdaMap<>, float>(n, 8, layout, 7u + static_cast<unsigned>(n), tiny);
      check_chunks<tdmaps::BoundingBoxMap, double>(n, 33, layout, 9u + static_cast<unsigned>(n), tiny);
    }
  }
}

TEST(TEST_CATEGORY, edm_chunk_rejects_bad_arguments) {
  std::vector<double> hx;
  auto x = random_points<double>(10, 2, 1u, hx);
  const tdmaps::LambdaMap<> map(edm::make_domain(10, 8, edm::Layout::packed));
  Kokkos::View<double*, Mem> part("part", 5);
  EXPECT_THROW(edm::edm_chunk(Space(), x, map, edm::Layout::packed, 52, part), std::invalid_argument);
  EXPECT_THROW(edm::edm_chunk(Space(), x, map, edm::Layout::condensed, 0, part), std::invalid_argument);
  EXPECT_THROW(edm::edm_chunk(Space(), x, map, edm::Layout::full, 0, part), std::invalid_argument);
}

TEST(TEST_CATEGORY, edm_reductions_match_the_oracle) {
  for (index_t n : {2, 3, 33, 150, 301}) {
    for (int d : {1, 2, 3, 4, 6, 17}) {  // d >= 5: the dimension-tiled walks on GPU backends
      check_reductions<double, tdmaps::LambdaMap<>>(n, d, 0, 11u + static_cast<unsigned>(n));
      check_reductions<float, tdmaps::LambdaMap<>>(n, d, 0, 13u + static_cast<unsigned>(n));
      check_reductions<double, tdmaps::BoundingBoxMap>(n, d, 3, 17u + static_cast<unsigned>(n));
      check_reductions<float, tdmaps::LambdaMap<>>(n, d, 5, 19u + static_cast<unsigned>(n));
    }
  }
  check_reductions<float, tdmaps::RecursiveMap>(200, 3, 0, 23u);
  check_reductions<double, tdmaps::HadoukenMap>(200, 2, 0, 29u);
}

namespace tdmaps_edm_scale_test {

/// Points on a small integer grid (many exactly equal distances, a few equal
/// points) and NaN coordinates in point `nan_at` (if < n): each point's
/// nearest other point and its distance against a host loop (ties: the
/// smaller index; NaN distances: nobody's nearest; a point with no other
/// non-NaN distance: -1 at +inf). Whole triangle and 3 omega ranges.
template <class Real, class Map>
void check_nearest_ties(index_t n, int d, index_t nan_at, unsigned seed) {
  std::mt19937_64 g(seed);
  std::vector<Real> hx(static_cast<std::size_t>(n * d));
  for (auto& v : hx) v = static_cast<Real>(static_cast<int>(g() % 9));
  if (nan_at < n) hx[std::size_t(nan_at * d + d - 1)] = std::numeric_limits<Real>::quiet_NaN();
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> x("x", static_cast<std::size_t>(n), static_cast<std::size_t>(d));
  auto m = Kokkos::create_mirror_view(x);
  for (index_t i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c) m(i, c) = hx[std::size_t(i * d + c)];
  Kokkos::deep_copy(x, m);
  std::vector<index_t> want_i(static_cast<std::size_t>(n), -1);
  std::vector<double> want_d(static_cast<std::size_t>(n), std::numeric_limits<double>::infinity());
  for (index_t i = 0; i < n; ++i) {
    Real best = std::numeric_limits<Real>::infinity();
    for (index_t j = 0; j < n; ++j) {
      if (j == i) continue;
      Real s = 0;  // small integers: every order of the sum is exact
      for (int c = 0; c < d; ++c) {
        const Real t = hx[std::size_t(i * d + c)] - hx[std::size_t(j * d + c)];
        s += t * t;
      }
      if (s < best || (want_i[std::size_t(i)] < 0 && s == best)) {  // j ascending: ties keep the smaller index
        best = s;
        want_i[std::size_t(i)] = j;
        want_d[std::size_t(i)] = static_cast<double>(std::sqrt(s));
      }
    }
  }
  const Map map(n, 16, tdmaps::Triangle::strict_lower);
  Kokkos::View<index_t*, Mem> idx("idx", static_cast<std::size_t>(n));
  Kokkos::View<double*, Mem> dist("dist", static_cast<std::size_t>(n));
  edm::nearest_neighbour(Space(), x, map, idx, dist);
  auto gi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), idx);
  auto gd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dist);
  const std::string what = std::string(Map::name) + " n = " + std::to_string(n) + " d = " + std::to_string(d) +
                           (std::is_same<Real, float>::value ? " fp32" : " fp64");
  int bad = 0;
  for (index_t i = 0; i < n && bad < 5; ++i)
    if (gi(i) != want_i[std::size_t(i)] || !(gd(i) == want_d[std::size_t(i)])) {
      ++bad;
      ADD_FAILURE() << what << ": nearest of " << i << " = " << gi(i) << " at " << gd(i) << ", oracle "
                    << want_i[std::size_t(i)] << " at " << want_d[std::size_t(i)];
    }
  if constexpr (std::is_same<Real, float>::value && !tdmaps::detail::has_multi_launch<Map>::value) {
    // The same by omega ranges joined into one set of keys.
    Kokkos::View<edm::NearestKey*, Mem> keys("keys", static_cast<std::size_t>(n));
    Kokkos::deep_copy(keys, edm::nearest_init());
    for (int p = 0; p < 3; ++p) edm::nearest_neighbour(Space(), x, map, tdmaps::omega_range(map, p, 3), keys);
    auto k = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), keys);
    for (index_t i = 0; i < n; ++i) {
      const index_t got = k(i) == edm::nearest_init() ? -1 : static_cast<index_t>(k(i) & 0xffffffffull);
      EXPECT_EQ(got, want_i[std::size_t(i)]) << what << " by ranges, point " << i;
    }
    // And by parts (nearest_neighbour_part: on CUDA the warp walk's league split).
    for (int parts : {1, 2, 4, 7}) {
      Kokkos::deep_copy(keys, edm::nearest_init());
      for (int p = 0; p < parts; ++p) edm::nearest_neighbour_part(Space(), x, map, p, parts, keys);
      Kokkos::deep_copy(k, keys);
      int wrong = 0;
      for (index_t i = 0; i < n; ++i) {
        const index_t got = k(i) == edm::nearest_init() ? -1 : static_cast<index_t>(k(i) & 0xffffffffull);
        wrong += got != want_i[std::size_t(i)] ? 1 : 0;
      }
      EXPECT_EQ(wrong, 0) << what << " by " << parts << " parts";
    }
    EXPECT_THROW(edm::nearest_neighbour_part(Space(), x, map, 0, 0, keys), std::invalid_argument);
    EXPECT_THROW(edm::nearest_neighbour_part(Space(), x, map, -1, 2, keys), std::invalid_argument);
    EXPECT_THROW(edm::nearest_neighbour_part(Space(), x, map, 2, 2, keys), std::invalid_argument);
  }
}

}  // namespace tdmaps_edm_scale_test

TEST(TEST_CATEGORY, edm_nearest_neighbour_ties_go_to_the_smaller_index_and_nan_to_nobody) {
  for (index_t n : {2, 3, 129, 300, 700}) {
    for (int d : {2, 3, 4, 5}) {
      check_nearest_ties<float, tdmaps::LambdaMap<>>(n, d, 5, 31u + static_cast<unsigned>(n * d));
      check_nearest_ties<double, tdmaps::LambdaMap<>>(n, d, 5, 37u + static_cast<unsigned>(n * d));
    }
  }
  check_nearest_ties<float, tdmaps::BoundingBoxMap>(700, 3, 0, 41u);
  check_nearest_ties<float, tdmaps::RecursiveMap>(300, 3, 299, 43u);
  // n = 2 with a NaN point: neither has a neighbour.
  check_nearest_ties<float, tdmaps::LambdaMap<>>(2, 3, 1, 47u);
}

TEST(TEST_CATEGORY, edm_reductions_reject_bad_arguments) {
  std::vector<double> hx;
  auto x = random_points<double>(10, 2, 1u, hx);
  const tdmaps::LambdaMap<> lower(10, 32);
  const tdmaps::LambdaMap<> strict(10, 32, tdmaps::Triangle::strict_lower);
  Kokkos::View<std::int64_t*, Mem> h("h", 4);
  EXPECT_THROW(edm::pair_histogram(Space(), x, lower, 1.0, h), std::invalid_argument);
  EXPECT_THROW(edm::pair_histogram(Space(), x, strict, -1.0, h), std::invalid_argument);
  EXPECT_THROW(edm::pair_histogram(Space(), x, strict, std::nan(""), h), std::invalid_argument);
  EXPECT_THROW(edm::count_within(Space(), x, strict, std::nan("")), std::invalid_argument);
  const tdmaps::LambdaMap<> other(11, 32, tdmaps::Triangle::strict_lower);
  EXPECT_THROW(edm::count_within(Space(), x, other, 0.5), std::invalid_argument);
}

namespace tdmaps_edm_scale_test {

template <class Real>
void check_sq_threshold() {
  using Bits = std::conditional_t<sizeof(Real) == 4, std::uint32_t, std::uint64_t>;
  const Real inf = std::numeric_limits<Real>::infinity();
  std::vector<Real> radii = {Real(0), Real(-1), -inf, std::numeric_limits<Real>::denorm_min(),
                             std::numeric_limits<Real>::min(), Real(1e-30), Real(0.3), Real(1), Real(5), Real(1e30),
                             std::numeric_limits<Real>::max(), inf};
  std::mt19937_64 g(97u);
  for (int k = 0; k < 20000; ++k) {  // positive finite values over every binade
    Bits b = static_cast<Bits>(g());
    b &= ~(Bits(1) << (8 * sizeof(Bits) - 1));
    Real r;
    std::memcpy(&r, &b, sizeof r);
    if (std::isfinite(r)) radii.push_back(r);
  }
  for (const Real r : radii) {
    const Real t = edm::detail::sq_threshold(r);
    if (!(r > 0)) {
      EXPECT_EQ(t, Real(0)) << r;
      continue;
    }
    // The boundary: sqrt(t) >= r, and every smaller s has sqrt(s) < r.
    EXPECT_GE(std::sqrt(t), r) << r;
    if (t > Real(0)) {
      EXPECT_LT(std::sqrt(std::nextafter(t, Real(0))), r) << r;
    }
  }
  EXPECT_EQ(edm::detail::sq_threshold(inf), inf);
}

/// Points whose distances hit the radius exactly (3-4-5 triangles): a pair at
/// the radius is not within it, one ulp more takes it in.
template <class Real, class Map>
void check_exact_radius() {
  const std::vector<Real> pts = {0, 0, 3, 4, 6, 8, 0, 5, 5, 0, 3, 0, 0, 4, 9, 12, 4, 3};
  const index_t n = static_cast<index_t>(pts.size() / 2);
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> x("x", static_cast<std::size_t>(n), 2);
  auto hx = Kokkos::create_mirror_view(x);
  for (index_t i = 0; i < n; ++i)
    for (int c = 0; c < 2; ++c) hx(i, c) = pts[std::size_t(2 * i + c)];
  Kokkos::deep_copy(x, hx);
  const Map map(n, 8, tdmaps::Triangle::strict_lower);
  for (const Real radius : {Real(3), Real(4), Real(5), Real(10), Real(15)}) {
    for (const Real r : {std::nextafter(radius, Real(0)), radius, std::nextafter(radius, Real(100))}) {
      index_t want = 0, at = 0;
      for (index_t i = 0; i < n; ++i)
        for (index_t j = 0; j < i; ++j) {
          const Real dx = hx(i, 0) - hx(j, 0), dy = hx(i, 1) - hx(j, 1);
          const Real dist = std::sqrt(dx * dx + dy * dy);
          want += dist < r ? 1 : 0;
          at += dist == radius ? 1 : 0;
        }
      ASSERT_GT(at, 0) << "no pair at the radius " << radius;
      EXPECT_EQ(edm::count_within(Space(), x, map, static_cast<double>(r)), want)
          << Map::name << " radius " << static_cast<double>(r);
    }
  }
}

}  // namespace tdmaps_edm_scale_test

TEST(TEST_CATEGORY, edm_count_threshold_is_the_exact_boundary) {
  check_sq_threshold<float>();
  check_sq_threshold<double>();
  check_exact_radius<float, tdmaps::LambdaMap<>>();
  check_exact_radius<double, tdmaps::LambdaMap<>>();
  check_exact_radius<float, tdmaps::BoundingBoxMap>();
  check_exact_radius<double, tdmaps::UpperTriangularMap>();
}

namespace tdmaps_edm_scale_test {

/// 1-D points: 0 and edges of `edges` (every one, or `most` at random besides
/// the first, the last two and rmax itself), each with its neighbours one ulp
/// below and above: the distances from 0 are those values exactly
/// (sqrt(t * t) == |t|), so every edge is hit and both its sides.
template <class Real>
std::vector<Real> edge_points(const std::vector<Real>& edges, int most, unsigned seed) {
  const int bins = static_cast<int>(edges.size()) - 1;
  std::vector<int> pick;
  if (bins + 1 <= most) {
    for (int b = 0; b <= bins; ++b) pick.push_back(b);
  } else {
    pick = {1, bins - 1, bins};
    std::mt19937_64 g(seed);
    for (int k = 0; k < most; ++k) pick.push_back(static_cast<int>(g() % static_cast<std::uint64_t>(bins + 1)));
  }
  std::vector<Real> x = {Real(0)};
  for (const int b : pick) {
    const Real e = edges[std::size_t(b)];
    x.push_back(e);
    x.push_back(std::nextafter(e, Real(0)));
    x.push_back(std::nextafter(e, std::numeric_limits<Real>::infinity()));
  }
  return x;
}

/// pair_histogram of 1-D points hx under Map (by `parts` omega ranges where
/// parts > 0) against np.histogram's rule on the host distances.
template <class Real, class Map>
void check_edges(const std::vector<Real>& hx, double rmax, int bins, int parts, const std::string& what,
                 edm::EdgeArithmetic arith = edm::EdgeArithmetic::fp64) {
  const index_t n = static_cast<index_t>(hx.size());
  const auto edges = linspace_edges<Real>(rmax, bins, arith == edm::EdgeArithmetic::points);
  std::vector<std::int64_t> want(static_cast<std::size_t>(bins), 0);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < i; ++j) {
      const int b = linspace_bin(edges, std::sqrt(host_sq(hx, 1, i, j)));
      if (b >= 0) ++want[std::size_t(b)];
    }
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> x("x", static_cast<std::size_t>(n), 1);
  auto m = Kokkos::create_mirror_view(x);
  for (index_t i = 0; i < n; ++i) m(i, 0) = hx[std::size_t(i)];
  Kokkos::deep_copy(x, m);
  const Map map(n, 32, tdmaps::Triangle::strict_lower);
  Kokkos::View<std::int64_t*, Mem> h("h", static_cast<std::size_t>(bins));
  if constexpr (!tdmaps::detail::has_multi_launch<Map>::value) {
    if (parts > 0) {
      for (int p = 0; p < parts; ++p)
        edm::pair_histogram(Space(), x, map, tdmaps::omega_range(map, p, parts), rmax, h, tdmaps::LaunchHints(), arith);
    } else {
      edm::pair_histogram(Space(), x, map, rmax, h, tdmaps::LaunchHints(), arith);
    }
  } else {
    edm::pair_histogram(Space(), x, map, rmax, h, tdmaps::LaunchHints(), arith);
  }
  auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), h);
  int bad = 0;
  for (int b = 0; b < bins && bad < 3; ++b)
    if (got(b) != want[std::size_t(b)]) {
      ++bad;
      ADD_FAILURE() << what << " " << Map::name << (std::is_same<Real, float>::value ? " fp32" : " fp64") << " rmax "
                    << rmax << " bins " << bins << " parts " << parts
                    << (arith == edm::EdgeArithmetic::points ? " (edges in Real)" : "") << ": bin " << b << " = " << got(b)
                    << ", np.histogram " << want[std::size_t(b)] << " (edges " << edges[std::size_t(b)] << ", "
                    << edges[std::size_t(b) + 1] << ")";
    }
}

template <class Real>
void check_edges_every_map(double rmax, int bins, int most, unsigned seed) {
  // NumPy 2's rule (the edges in Real) on its own edges, whole and in parts (parts: the GPU walk's split).
  const auto hr = edge_points(linspace_edges<Real>(rmax, bins, true), most, seed);
  check_edges<Real, tdmaps::LambdaMap<>>(hr, rmax, bins, 0, "edges", edm::EdgeArithmetic::points);
  check_edges<Real, tdmaps::BoundingBoxMap>(hr, rmax, bins, 2, "edges", edm::EdgeArithmetic::points);
  const auto hx = edge_points(linspace_edges<Real>(rmax, bins), most, seed);
  check_edges<Real, tdmaps::LambdaMap<>>(hx, rmax, bins, 0, "edges");
  check_edges<Real, tdmaps::LambdaMap<>>(hx, rmax, bins, 3, "edges");
  check_edges<Real, tdmaps::BoundingBoxMap>(hx, rmax, bins, 2, "edges");
  check_edges<Real, tdmaps::RectangularBoxMap>(hx, rmax, bins, 0, "edges");
  check_edges<Real, tdmaps::RecursiveMap>(hx, rmax, bins, 0, "edges");
  check_edges<Real, tdmaps::HadoukenMap>(hx, rmax, bins, 0, "edges");
}

/// The histogram of two 1-D points 0 and r.
template <class Real>
std::vector<std::int64_t> two_point_histogram(Real r, double rmax, int bins) {
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> x("x", 2, 1);
  auto m = Kokkos::create_mirror_view(x);
  m(0, 0) = Real(0);
  m(1, 0) = r;
  Kokkos::deep_copy(x, m);
  Kokkos::View<std::int64_t*, Mem> h("h", static_cast<std::size_t>(bins));
  edm::pair_histogram(Space(), x, tdmaps::LambdaMap<>(2, 32, tdmaps::Triangle::strict_lower), rmax, h);
  auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), h);
  return std::vector<std::int64_t>(g.data(), g.data() + bins);
}

}  // namespace tdmaps_edm_scale_test

TEST(TEST_CATEGORY, edm_histogram_bins_are_numpys_on_every_edge) {
  // A value on an edge is in the bin it starts: r = 0.7 / 3 (edge 1 of R = 0.7,
  // B = 3) in bin 1, 3 * (0.7 / 10) in bin 3 of 10, as np.histogram has them.
  EXPECT_EQ(two_point_histogram<double>(0.7 / 3, 0.7, 3), (std::vector<std::int64_t>{0, 1, 0}));
  EXPECT_EQ(two_point_histogram<float>(static_cast<float>(0.7 / 3), 0.7, 3), (std::vector<std::int64_t>{0, 1, 0}));
  std::vector<std::int64_t> third(10, 0);
  third[3] = 1;
  EXPECT_EQ(two_point_histogram<double>(3 * (0.7 / 10), 0.7, 10), third);
  EXPECT_EQ(two_point_histogram<float>(static_cast<float>(3 * (0.7 / 10)), 0.7, 10), third);
  // rmax itself is in no bin; one ulp below it is in the last.
  EXPECT_EQ(two_point_histogram<double>(0.7, 0.7, 3), (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_EQ(two_point_histogram<float>(std::nextafter(0.7f, 0.f), 0.7, 3), (std::vector<std::int64_t>{0, 0, 1}));
  std::vector<std::pair<double, int>> cases = {{0.7, 3},  {0.7, 10},   {1.0, 1},    {1.0, 7},  {0.1, 49},
                                               {1.1, 17}, {0.3, 64},   {2.5, 1000}, {123.4, 333}, {1e-3, 100},
                                               {1e-30, 5}, {3e30, 12}, {1e-40, 6},  {1e-310, 4}, {5e-324, 3}};
  std::mt19937_64 g(2026u);
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  for (int k = 0; k < 12; ++k) cases.emplace_back(std::pow(10.0, u(g)), 1 + static_cast<int>(g() % 3000u));
  unsigned seed = 1u;
  int differ = 0;  // fp32 cases whose two rules' edges differ: the Real rule is a rule of its own
  for (const auto& [rmax, bins] : cases) {
    check_edges_every_map<double>(rmax, bins, 150, ++seed);
    if (static_cast<float>(rmax) > 0) {
      check_edges_every_map<float>(rmax, bins, 150, ++seed);
      differ += linspace_edges<float>(rmax, bins, true) != linspace_edges<float>(rmax, bins);
    }
    // fp64 points: the two rules are the same edges.
    EXPECT_EQ(linspace_edges<double>(rmax, bins, true), linspace_edges<double>(rmax, bins)) << rmax << " " << bins;
  }
  EXPECT_GT(differ, 5);
}

TEST(TEST_CATEGORY, edm_histogram_fp32_edges_come_from_rmax_in_fp32) {
  // NumPy's edges for float32 data and range (0, np.float32(1.1)): edge 5 of 7
  // is float32(5 * (float32(1.1) / 7)) = 0.7857143, one ulp above the
  // 0.78571427 of an fp64 R; a distance on it is in bin 5, one ulp below in 4.
  const float r5 = static_cast<float>(5 * (static_cast<double>(1.1f) / 7));
  EXPECT_NE(r5, static_cast<float>(5 * (1.1 / 7)));
  std::vector<std::int64_t> b5(7, 0), b4(7, 0);
  b5[5] = 1;
  b4[4] = 1;
  EXPECT_EQ(two_point_histogram<float>(r5, 1.1, 7), b5);
  EXPECT_EQ(two_point_histogram<float>(std::nextafter(r5, 0.f), 1.1, 7), b4);
  // The last edge is float32(rmax) too: below it is in the last bin, on it in none.
  const float top = static_cast<float>(1.1);
  std::vector<std::int64_t> last(7, 0);
  last[6] = 1;
  EXPECT_EQ(two_point_histogram<float>(std::nextafter(top, 0.f), 1.1, 7), last);
  EXPECT_EQ(two_point_histogram<float>(top, 1.1, 7), std::vector<std::int64_t>(7, 0));
  // An rmax that is no finite value > 0 in float32 is refused for fp32 points
  // (and taken for fp64 points, where it is one).
  for (const double r : {1e-50, 1e39}) {
    EXPECT_THROW(two_point_histogram<float>(0.f, r, 3), std::invalid_argument) << r;
    EXPECT_NO_THROW(two_point_histogram<double>(0.0, r, 3)) << r;
  }
}

TEST(TEST_CATEGORY, edm_histogram_takes_bins_up_to_2_pow_24) {
  // Past a team's scratch (8,176 bins on the host backends) the bins are
  // counted in global memory; 2^24 (the documented limit) works, 2^24 + 1 is refused.
  for (const int bins : {8176, 8177, 100003, edm::max_histogram_bins}) {
    for (const double rmax : {1.0, 0.7}) {
      const auto hd = edge_points(linspace_edges<double>(rmax, bins), 100, 7u);
      check_edges<double, tdmaps::LambdaMap<>>(hd, rmax, bins, 0, "many bins");
      const auto hf = edge_points(linspace_edges<float>(rmax, bins), 100, 8u);
      check_edges<float, tdmaps::BoundingBoxMap>(hf, rmax, bins, 2, "many bins");
    }
  }
  std::vector<double> hx;
  auto x = random_points<double>(300, 3, 4u, hx);
  const tdmaps::LambdaMap<> map(300, 32, tdmaps::Triangle::strict_lower);
  Kokkos::View<std::int64_t*, Mem> over("over", std::size_t(edm::max_histogram_bins) + 1);
  EXPECT_THROW(edm::pair_histogram(Space(), x, map, 1.0, over), std::invalid_argument);
}
