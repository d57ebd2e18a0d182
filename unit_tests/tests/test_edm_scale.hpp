// The EDM past device memory and without the matrix: edm_chunk (any chunk
// edges) bit for bit against the whole matrix of the element kernel, and the
// reductions (pair_histogram, count_within, nearest_neighbour), whole and by
// omega ranges, against host nested loops.
#include <tdmaps/edm.hpp>
#include <tdmaps/edm/chunk.hpp>
#include <tdmaps/edm/reduce.hpp>
#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

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

template <class Map, class Real>
void check_chunks(index_t n, int d, edm::Layout layout, unsigned seed) {
  std::vector<Real> hx;
  auto x = random_points<Real>(n, d, seed, hx);
  const Map map(edm::make_domain(n, 16, layout));
  const index_t total = edm::output_size(layout, n);
  Kokkos::View<Real*, Mem> whole("whole", static_cast<std::size_t>(total));
  edm::edm(Space(), x, whole, map, layout, edm::Kernel::element);
  auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), whole);
  std::mt19937_64 g(seed + 1);
  for (index_t chunk : {index_t(1), index_t(7), index_t(n + 3), index_t(16 * n + 5), total}) {
    if (chunk < 1) continue;
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
  const Real scale = static_cast<Real>(bins) / static_cast<Real>(rmax);
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
        if (r < static_cast<Real>(rmax)) ++hist[std::size_t(std::min(bins - 1, static_cast<int>(r * scale)))];
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
  for (index_t n : {1, 2, 17, 100, 129}) {
    for (auto layout : {edm::Layout::packed, edm::Layout::condensed}) {
      if (layout == edm::Layout::condensed && n < 2) continue;
      check_chunks<tdmaps::LambdaMap<>, double>(n, 3, layout, 3u + static_cast<unsigned>(n));
      check_chunks<tdmaps::BoundingBoxMap, float>(n, 5, layout, 5u + static_cast<unsigned>(n));
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
    for (int d : {1, 2, 3, 4, 6}) {
      check_reductions<double, tdmaps::LambdaMap<>>(n, d, 0, 11u + static_cast<unsigned>(n));
      check_reductions<float, tdmaps::LambdaMap<>>(n, d, 0, 13u + static_cast<unsigned>(n));
      check_reductions<double, tdmaps::BoundingBoxMap>(n, d, 3, 17u + static_cast<unsigned>(n));
      check_reductions<float, tdmaps::LambdaMap<>>(n, d, 5, 19u + static_cast<unsigned>(n));
    }
  }
  check_reductions<float, tdmaps::RecursiveMap>(200, 3, 0, 23u);
  check_reductions<double, tdmaps::HadoukenMap>(200, 2, 0, 29u);
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
