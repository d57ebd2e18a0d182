// EDM app kernels (<tdmaps/edm.hpp>, apps/edm/include) against a host fp64 nested-loop oracle:
// every layout (packed, condensed, full lower-only and symmetric) x every map
// (element kernel: BB, lambda rsqrt exact, RB, REC, UTM, H; tile kernel: the
// block-space ones) x d in {1, 2, 3, 4, 7} x fp32/fp64 x n in {1, 2, 17, 33,
// 100, 257}, block sides rotating over 8, 16, 32. Outputs are poisoned with a
// sentinel first and every output element is compared, so an unwritten or
// doubly-mapped element fails. Also: NaN/Inf propagation (SciPy semantics),
// the gemm path and the automatic choice on point clouds where the Gram
// formula cancels (held to the element kernel's tolerance, NaN/Inf exactly
// as the element kernel), and argument checks.
//
// <tdmaps/edm.hpp> comes from linking tdmaps::edm
// (unit_tests/CMakeLists.txt leaves this file out when the apps are disabled).
#include <tdmaps/edm.hpp>
#include "oracle.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using tdmaps::index_t;
namespace edm = tdmaps::edm;
using Space = TEST_EXECSPACE;
using MemSpace = Space::memory_space;

constexpr unsigned base_seed = 20261122u;
constexpr double sentinel = -12345.0;  // distances are never negative

template <class M>
struct MapTag {
  using type = M;
};

/// The maps under test, as types (an explicit list keeps the number of kernel
/// instantiations down: with_map would also instantiate every lambda variant).
template <class F>
void for_each_test_map(bool block_space_only, F&& f) {
  f(MapTag<tdmaps::BoundingBoxMap>{}, "bb");
  f(MapTag<tdmaps::LambdaMap<tdmaps::SqrtRsqrt, tdmaps::Exact>>{}, "lambda_rsqrt");
  f(MapTag<tdmaps::RectangularBoxMap>{}, "rb");
  f(MapTag<tdmaps::RecursiveMap>{}, "rec");
  f(MapTag<tdmaps::HadoukenMap>{}, "hadouken");
  if (!block_space_only) f(MapTag<tdmaps::UpperTriangularMap>{}, "utm");
}

struct Case {
  index_t n;
  int d;
  int rho;
  edm::Layout layout;
  bool symmetric;
  edm::Kernel kernel;
  unsigned seed;
  std::string map;
  int blocks_per_team = 0;  ///< LaunchHints::blocks_per_team

  std::string text() const {
    std::ostringstream s;
    s << "map " << map << ", " << edm::kernel_name(kernel) << " kernel, " << edm::layout_name(layout)
      << (symmetric ? " symmetric" : "") << ", n = " << n << ", d = " << d << ", rho = " << rho
      << ", blocks_per_team = " << blocks_per_team << ", seed = " << seed;
    return s.str();
  }
};

template <class Real>
std::vector<Real> random_points(index_t n, int d, unsigned seed) {
  std::mt19937_64 gen(seed);
  // Signed coordinates of mixed magnitude, never all zero.
  std::uniform_real_distribution<double> dist(-3.0, 5.0);
  std::vector<Real> x(static_cast<std::size_t>(n * d));
  for (auto& v : x) v = static_cast<Real>(dist(gen));
  return x;
}

/// The oracle: fp64 nested loop over every output position of the layout;
/// positions the kernel must not write keep the sentinel.
template <class Real>
std::vector<double> oracle(const std::vector<Real>& x, index_t n, int d, edm::Layout layout, bool symmetric) {
  std::vector<double> ref(static_cast<std::size_t>(edm::output_size(layout, n)), sentinel);
  auto dist = [&](index_t i, index_t j) {
    double s = 0;
    for (int k = 0; k < d; ++k) {
      const double t = static_cast<double>(x[i * d + k]) - static_cast<double>(x[j * d + k]);
      s += t * t;
    }
    return std::sqrt(s);
  };
  // SciPy's pdist order, written out independently of condensed_index:
  // rows a of the strict upper triangle, one after the other.
  index_t row_start = 0;
  for (index_t a = 0; a < n; row_start += n - 1 - a, ++a)
    for (index_t b = 0; b < n; ++b) {
      if (layout == edm::Layout::condensed) {
        if (a < b) ref[static_cast<std::size_t>(row_start + (b - a - 1))] = dist(a, b);
      } else if (layout == edm::Layout::packed) {
        if (b <= a) ref[static_cast<std::size_t>(a * (a + 1) / 2 + b)] = dist(a, b);
      } else {
        if (b <= a || symmetric) ref[static_cast<std::size_t>(a * n + b)] = dist(a, b);
      }
    }
  return ref;
}

/// Empty when every element matches: sentinel exactly where nothing may be
/// written, else |got - ref| <= tol * (ref + scale) (relative rounding of the
/// d-term sum, plus an absolute part for the gemm path's cancellation).
template <class Real>
std::string compare(const std::vector<double>& ref, const Kokkos::View<Real*, MemSpace>& out, double rel,
                    double abs_tol = 0) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  if (h.extent(0) != ref.size()) return "output size " + std::to_string(h.extent(0)) + " != " + std::to_string(ref.size());
  std::ostringstream msg;
  int bad = 0;
  for (std::size_t k = 0; k < ref.size(); ++k) {
    const double g = static_cast<double>(h(k));
    const double r = ref[k];
    const bool ok = r == sentinel ? g == sentinel : (std::abs(g - r) <= rel * r + abs_tol);
    if (!ok && bad++ < 5) msg << "[" << k << "] got " << g << " want " << r << "; ";
  }
  if (bad > 5) msg << "(" << bad << " mismatches)";
  return msg.str();
}

template <class Real>
Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace> to_device(const std::vector<Real>& x, index_t n, int d) {
  Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace> v("tdmaps::test::edm::points", static_cast<std::size_t>(n),
                                                       static_cast<std::size_t>(d));
  Kokkos::deep_copy(v, Kokkos::View<const Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           x.data(), static_cast<std::size_t>(n), static_cast<std::size_t>(d)));
  return v;
}

template <class Real>
Kokkos::View<Real*, MemSpace> poisoned_output(edm::Layout layout, index_t n) {
  Kokkos::View<Real*, MemSpace> out("tdmaps::test::edm::out", static_cast<std::size_t>(edm::output_size(layout, n)));
  Kokkos::deep_copy(out, static_cast<Real>(sentinel));
  return out;
}

/// One case: run edm() on Map and compare with the oracle. Empty = pass.
template <class Map, class Real>
std::string run_case(const Case& c) {
  const auto x = random_points<Real>(c.n, c.d, c.seed);
  const auto dx = to_device(x, c.n, c.d);
  auto out = poisoned_output<Real>(c.layout, c.n);
  const Map map(edm::make_domain(c.n, c.rho, c.layout));
  tdmaps::LaunchHints hints;
  hints.blocks_per_team = c.blocks_per_team;
  edm::edm(Space(), dx, out, map, c.layout, c.kernel, c.symmetric, hints);
  Space().fence();
  const double eps = std::numeric_limits<Real>::epsilon();
  return compare(oracle(x, c.n, c.d, c.layout, c.symmetric), out, 4.0 * (c.d + 2) * eps);
}

const std::vector<index_t>& sides() {
  static const std::vector<index_t> s{1, 2, 17, 33, 100, 257};
  return s;
}
const std::vector<int>& dims() {
  static const std::vector<int> s{1, 2, 3, 4, 7};
  return s;
}

struct LayoutCase {
  edm::Layout layout;
  bool symmetric;
};
const std::vector<LayoutCase>& layouts() {
  static const std::vector<LayoutCase> s{{edm::Layout::packed, false},
                                         {edm::Layout::condensed, false},
                                         {edm::Layout::full, false},
                                         {edm::Layout::full, true}};
  return s;
}

template <class Real>
void check_all(edm::Kernel kernel) {
  int cases = 0;
  // The linear kernel uses the map's domain only: the block-space maps suffice.
  for_each_test_map(kernel == edm::Kernel::tile || kernel == edm::Kernel::linear, [&](auto tag, const char* name) {
    using Map = typename decltype(tag)::type;
    unsigned seed = base_seed;
    int rot = 0;
    for (const index_t n : sides())
      for (const int d : dims()) {
        const int rho = 8 << (rot++ % 3);  // 8, 16, 32 in turn
        for (const auto& l : layouts()) {
          // Blocks per team in turn: the default, 1, 2 and 5 (a barrier between
          // blocks that share the team's scratch; teams that end part-way).
          const int k = std::vector<int>{0, 1, 2, 5}[static_cast<std::size_t>(seed % 4)];
          const Case c{n, d, rho, l.layout, l.symmetric, kernel, ++seed, name, k};
          if (kernel == edm::Kernel::linear && l.layout == edm::Layout::full) {
            // Not in memory order: refused, naming the layouts it writes.
            try {
              (void)run_case<Map, Real>(c);
              ADD_FAILURE() << "linear kernel accepted the full layout: " << c.text();
            } catch (const std::invalid_argument& e) {
              EXPECT_NE(std::string(e.what()).find("packed and condensed"), std::string::npos) << e.what();
            }
            continue;
          }
          const std::string err = run_case<Map, Real>(c);
          EXPECT_EQ(err, "") << c.text();
          ++cases;
        }
      }
  });
  EXPECT_GT(cases, 0);
}

}  // namespace

TEST(TEST_CATEGORY, edm_element_fp32_matches_oracle) { check_all<float>(edm::Kernel::element); }
TEST(TEST_CATEGORY, edm_element_fp64_matches_oracle) { check_all<double>(edm::Kernel::element); }
TEST(TEST_CATEGORY, edm_tile_fp32_matches_oracle) { check_all<float>(edm::Kernel::tile); }
TEST(TEST_CATEGORY, edm_tile_fp64_matches_oracle) { check_all<double>(edm::Kernel::tile); }
TEST(TEST_CATEGORY, edm_linear_fp32_matches_oracle) { check_all<float>(edm::Kernel::linear); }
TEST(TEST_CATEGORY, edm_linear_fp64_matches_oracle) { check_all<double>(edm::Kernel::linear); }

// The linear and tile kernels with views that allow no vector access and
// whose output starts off the sector grid: points shifted by one value (no
// vector loads for d = 2, 4) and outputs shifted by 1, 3 and 5 elements, so
// the scalar paths run and the tile kernel's aligned chunks (gpu_tile:
// chunks follow the output's address, not its indices) start at other
// columns than with an aligned output; both layouts, n = 300 so that every
// kind of block (first column, diagonal, last row, whole inner blocks) is
// there at block side 32.
TEST(TEST_CATEGORY, edm_unaligned_views_match_oracle) {
  for (const auto kernel : {edm::Kernel::linear, edm::Kernel::tile})
    for (const auto layout : {edm::Layout::packed, edm::Layout::condensed})
      for (const int d : {2, 4})
        for (const int shift : {1, 3, 5})
          for (const int rho : {8, 32}) {
            const index_t n = 300;
            const auto x = random_points<float>(n, d, base_seed + static_cast<unsigned>(d + 10 * shift));
            Kokkos::View<float*, MemSpace> xbuf("tdmaps::test::edm::xbuf", static_cast<std::size_t>(n * d + 1));
            const auto size = static_cast<std::size_t>(edm::output_size(layout, n));
            Kokkos::View<float*, MemSpace> obuf("tdmaps::test::edm::obuf", size + static_cast<std::size_t>(shift) + 1);
            Kokkos::deep_copy(obuf, static_cast<float>(sentinel));
            auto hx = Kokkos::create_mirror_view(xbuf);
            for (index_t q = 0; q < n * d; ++q) hx(static_cast<std::size_t>(q + 1)) = x[static_cast<std::size_t>(q)];
            Kokkos::deep_copy(xbuf, hx);
            Kokkos::View<const float**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryUnmanaged> px(xbuf.data() + 1, n, d);
            Kokkos::View<float*, MemSpace, Kokkos::MemoryUnmanaged> out(obuf.data() + shift, size);
            edm::edm(Space(), px, out, tdmaps::LambdaMap<>(edm::make_domain(n, rho, layout)), layout, kernel);
            Space().fence();
            Kokkos::View<float*, MemSpace> copy("tdmaps::test::edm::copy", size);
            Kokkos::deep_copy(copy, out);
            const std::string where = std::string(edm::kernel_name(kernel)) + ", " + edm::layout_name(layout) +
                                      ", d = " + std::to_string(d) + ", shift = " + std::to_string(shift) +
                                      ", rho = " + std::to_string(rho);
            EXPECT_EQ(compare(oracle(x, n, d, layout, false), copy, 4.0 * (d + 2) * std::numeric_limits<float>::epsilon()), "")
                << where;
            // Nothing written outside: the elements before and after the output keep the sentinel.
            auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), obuf);
            for (int k = 0; k < shift; ++k) EXPECT_EQ(h(static_cast<std::size_t>(k)), static_cast<float>(sentinel)) << where;
            EXPECT_EQ(h(size + static_cast<std::size_t>(shift)), static_cast<float>(sentinel)) << where;
          }
}

// The condensed layout is SciPy's pdist order: pair (0, 1) first, then (0, 2),
// ..., (0, n - 1), (1, 2), ... (a hand-checked small case on top of the oracle).
TEST(TEST_CATEGORY, edm_condensed_is_pdist_order) {
  // Points on a line at 0, 1, 3, 7: pdist = [1, 3, 7, 2, 6, 4].
  const std::vector<double> x{0, 1, 3, 7};
  auto out = poisoned_output<double>(edm::Layout::condensed, 4);
  for (int kernel = 0; kernel < 2; ++kernel) {
    const tdmaps::LambdaMap<> map(edm::make_domain(4, 8, edm::Layout::condensed));
    edm::edm(Space(), to_device(x, 4, 1), out, map, edm::Layout::condensed,
             kernel == 0 ? edm::Kernel::element : edm::Kernel::tile);
    Space().fence();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    const double want[] = {1, 3, 7, 2, 6, 4};
    for (int k = 0; k < 6; ++k) EXPECT_EQ(h(k), want[k]) << "k = " << k << ", kernel " << kernel;
    EXPECT_EQ(edm::condensed_index(4, 1, 0), 0);
    EXPECT_EQ(edm::condensed_index(4, 3, 0), 2);
    EXPECT_EQ(edm::condensed_index(4, 2, 1), 3);
    EXPECT_EQ(edm::condensed_index(4, 3, 2), 5);
  }
}

namespace {

/// NaN in a coordinate of point p: every distance involving p is NaN (its
/// diagonal too), all others finite and right. Inf against a finite point is
/// Inf; two points with +Inf in the same coordinate give NaN (Inf - Inf).
/// At n = 200, block side 32, the special points also sit in whole
/// off-diagonal blocks (the GPU walks' checked sqrt, whose odd values take a
/// second pass): besides NaN and Inf, a duplicate point (distance 0) and a
/// pair 2^-60 apart (squared distance 2^-120, below the fast sqrt's range;
/// exact in both precisions).
template <class Real>
void check_nonfinite_at(edm::Kernel kernel, index_t n) {
  const int d = 3;
  const int rho = n > 64 ? 32 : 8;
  auto x = random_points<Real>(n, d, base_seed + 7);
  const Real nan = std::numeric_limits<Real>::quiet_NaN(), inf = std::numeric_limits<Real>::infinity();
  const index_t p_nan = n > 64 ? 40 : 5, p_inf = n > 64 ? 100 : 20, q_inf = n > 64 ? 170 : 33;
  x[static_cast<std::size_t>(p_nan * d + 1)] = nan;
  x[static_cast<std::size_t>(p_inf * d + 0)] = inf;
  x[static_cast<std::size_t>(q_inf * d + 0)] = inf;
  if (n > 64) {
    for (int k = 0; k < d; ++k) {
      x[static_cast<std::size_t>(150 * d + k)] = x[static_cast<std::size_t>(60 * d + k)];  // distance 0
      x[static_cast<std::size_t>(120 * d + k)] = x[static_cast<std::size_t>(61 * d + k)];
    }
    x[static_cast<std::size_t>(61 * d)] = 0;
    x[static_cast<std::size_t>(120 * d)] = static_cast<Real>(0x1p-60);  // distance 2^-60
  }
  const auto dx = to_device(x, n, d);
  for (const auto& l : layouts()) {
    auto out = poisoned_output<Real>(l.layout, n);
    const tdmaps::LambdaMap<> map(edm::make_domain(n, rho, l.layout));
    edm::edm(Space(), dx, out, map, l.layout, kernel, l.symmetric);
    Space().fence();
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    const auto ref = oracle(x, n, d, l.layout, l.symmetric);  // fp64 arithmetic propagates the same way
    int bad = 0, nans = 0, infs = 0;
    for (std::size_t k = 0; k < ref.size(); ++k) {
      const double g = static_cast<double>(h(k)), r = ref[k];
      bool ok;
      if (std::isnan(r)) {
        ok = std::isnan(g);
        ++nans;
      } else if (std::isinf(r)) {
        ok = g == r;
        ++infs;
      } else {
        ok = r == sentinel ? g == sentinel : std::abs(g - r) <= 20 * std::numeric_limits<Real>::epsilon() * r;
      }
      if (!ok) ++bad;
    }
    EXPECT_EQ(bad, 0) << edm::layout_name(l.layout) << (l.symmetric ? " symmetric" : "") << ", "
                      << edm::kernel_name(kernel) << ", n = " << n;
    if (n > 64 && l.layout == edm::Layout::packed) {
      EXPECT_EQ(h(static_cast<std::size_t>(tdmaps::tri(150) + 60)), Real(0)) << edm::kernel_name(kernel);
      EXPECT_EQ(h(static_cast<std::size_t>(tdmaps::tri(120) + 61)), static_cast<Real>(0x1p-60)) << edm::kernel_name(kernel);
    }
    // The oracle itself must see NaN (the NaN point with everyone, the two Infs) and Inf.
    EXPECT_GE(nans, static_cast<int>(n - 1)) << edm::layout_name(l.layout);
    EXPECT_GT(infs, 0) << edm::layout_name(l.layout);
  }
}

template <class Real>
void check_nonfinite(edm::Kernel kernel) {
  for (const index_t n : {41, 200}) check_nonfinite_at<Real>(kernel, n);
}

}  // namespace

TEST(TEST_CATEGORY, edm_nan_and_inf_propagate_like_scipy) {
  check_nonfinite<float>(edm::Kernel::element);
  check_nonfinite<float>(edm::Kernel::tile);
  check_nonfinite<double>(edm::Kernel::element);
  check_nonfinite<double>(edm::Kernel::tile);
}

#if defined(TDMAPS_EDM_HAVE_KOKKOSKERNELS)
namespace {

/// Point clouds on which |x|^2 + |y|^2 - 2 x.y cancels: the gemm path must
/// still be as accurate as the element kernel on every one of them.
enum class Cloud { random, offset, clustered, duplicates, mixed_scale };

const char* cloud_name(Cloud c) {
  return c == Cloud::random       ? "random"
         : c == Cloud::offset     ? "offset"
         : c == Cloud::clustered  ? "clustered"
         : c == Cloud::duplicates ? "duplicates"
                                  : "mixed scale";
}

template <class Real>
std::vector<Real> cloud_points(Cloud kind, index_t n, int d, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  const auto nd = static_cast<std::size_t>(n * d);
  std::vector<double> x(nd);
  switch (kind) {
    case Cloud::random:  // the mean is not 0: centring matters here too
      for (auto& v : x) v = -3.0 + 8.0 * u01(gen);
      break;
    case Cloud::offset:  // everything 1e6 away from the origin, distances ~ 1
      for (auto& v : x) v = 1e6 + u01(gen);
      break;
    case Cloud::clustered: {  // 4 centres up to 1e3 apart, spread 1e-2 around each
      std::vector<double> centre(static_cast<std::size_t>(4 * d));
      for (auto& v : centre) v = -1e3 + 2e3 * u01(gen);
      for (index_t i = 0; i < n; ++i) {
        const auto c = static_cast<std::size_t>(gen() % 4);
        for (int k = 0; k < d; ++k)
          x[static_cast<std::size_t>(i * d + k)] = centre[c * d + k] + 1e-2 * (2.0 * u01(gen) - 1.0);
      }
      break;
    }
    case Cloud::duplicates: {  // n / 4 distinct rows near 100, the others copies (a third of them of row 0)
      const index_t m = n / 4 > 0 ? n / 4 : 1;
      for (index_t i = 0; i < n; ++i) {
        const index_t from = i < m ? i : (i % 3 == 0 ? 0 : static_cast<index_t>(gen() % static_cast<std::uint64_t>(m)));
        for (int k = 0; k < d; ++k)
          x[static_cast<std::size_t>(i * d + k)] = i < m ? 100.0 + u01(gen) : x[static_cast<std::size_t>(from * d + k)];
      }
      break;
    }
    case Cloud::mixed_scale:  // even rows at the 1e6 scale, odd rows at the 1e-3 scale
      for (index_t i = 0; i < n; ++i)
        for (int k = 0; k < d; ++k)
          x[static_cast<std::size_t>(i * d + k)] = (i % 2 == 0 ? 1e6 : 1e-3) * (2.0 * u01(gen) - 1.0);
      break;
  }
  std::vector<Real> out(nd);
  for (std::size_t q = 0; q < nd; ++q) out[q] = static_cast<Real>(x[q]);
  return out;
}

/// The gemm path (and the automatic choice, tile or element, which never
/// takes it) against the oracle with the element kernel's tolerance,
/// 4 (d + 2) eps relative and no absolute slack: a zero distance (duplicate
/// points) must come out exactly 0. gemm runs on the lambda map; automatic
/// alternates between the lambda map at block side 32 (tile where its
/// scratch fits) and the thread-space UTM map (never tile).
template <class Real>
void check_gemm_clouds(edm::Kernel kernel) {
  const double eps = std::numeric_limits<Real>::epsilon();
  int cases = 0;
  for (const Cloud cloud : {Cloud::random, Cloud::offset, Cloud::clustered, Cloud::duplicates, Cloud::mixed_scale})
    for (const int d : {1, 3, 96, 130, 257, 512}) {
      const index_t n = d <= 3 ? 300 : d <= 130 ? 200 : 120;
      const unsigned seed = base_seed + 1000u * static_cast<unsigned>(cloud) + static_cast<unsigned>(d);
      const auto x = cloud_points<Real>(cloud, n, d, seed);
      const auto dx = to_device(x, n, d);
      int rot = 0;
      for (const auto& l : layouts()) {
        auto out = poisoned_output<Real>(l.layout, n);
        const bool utm = kernel == edm::Kernel::automatic && rot++ % 2 == 1;
        if (utm)
          edm::edm(Space(), dx, out, tdmaps::UpperTriangularMap(edm::make_domain(n, 32, l.layout)), l.layout, kernel,
                   l.symmetric);
        else
          edm::edm(Space(), dx, out, tdmaps::LambdaMap<>(edm::make_domain(n, 32, l.layout)), l.layout, kernel,
                   l.symmetric);
        Space().fence();
        EXPECT_EQ(compare(oracle(x, n, d, l.layout, l.symmetric), out, 4.0 * (d + 2) * eps), "")
            << edm::kernel_name(kernel) << (utm ? " (utm)" : "") << ", " << cloud_name(cloud) << " points, "
            << edm::layout_name(l.layout) << (l.symmetric ? " symmetric" : "") << ", n = " << n << ", d = " << d
            << ", seed = " << seed;
        ++cases;
      }
    }
  // The smallest inputs: one point (the diagonal only), two points.
  for (const index_t n : {1, 2})
    for (const int d : {1, 130}) {
      const unsigned seed = base_seed + static_cast<unsigned>(n * 7 + d);
      const auto x = cloud_points<Real>(Cloud::offset, n, d, seed);
      for (const auto& l : layouts()) {
        auto out = poisoned_output<Real>(l.layout, n);
        edm::edm(Space(), to_device(x, n, d), out, tdmaps::LambdaMap<>(edm::make_domain(n, 8, l.layout)), l.layout,
                 kernel, l.symmetric);
        Space().fence();
        EXPECT_EQ(compare(oracle(x, n, d, l.layout, l.symmetric), out, 4.0 * (d + 2) * eps), "")
            << edm::kernel_name(kernel) << ", " << edm::layout_name(l.layout) << (l.symmetric ? " symmetric" : "")
            << ", n = " << n << ", d = " << d << ", seed = " << seed;
        ++cases;
      }
    }
  EXPECT_GT(cases, 0);
}

/// Non-finite and huge inputs: wherever the element kernel gives NaN or Inf
/// the gemm path gives the same (NaN where NaN, the same Inf where Inf), and
/// elsewhere it is as accurate as in check_gemm_clouds. The points: NaN, +Inf
/// twice in the same coordinate (Inf - Inf = NaN), -Inf in that coordinate
/// (Inf against +Inf), +-Inf in other coordinates, and huge finite points
/// whose squares overflow (fp32: in the element kernel's float arithmetic;
/// fp64: also the norms), two of them equal (distance 0), and a point whose
/// distances overflow only in the element kernel's arithmetic. The huge
/// points of fp64 also make the mean of every coordinate overflow.
template <class Real>
void check_gemm_nonfinite() {
  const Real nan = std::numeric_limits<Real>::quiet_NaN(), inf = std::numeric_limits<Real>::infinity();
  const Real huge = std::numeric_limits<Real>::max() / 2;
  const double eps = std::numeric_limits<Real>::epsilon();
  for (const int d : {3, 130}) {
    const index_t n = 90;
    const unsigned seed = base_seed + 31u + static_cast<unsigned>(d);
    auto x = cloud_points<Real>(Cloud::offset, n, d, seed);
    auto at = [&](index_t i, int k) -> Real& { return x[static_cast<std::size_t>(i * d + k)]; };
    at(3, 1) = nan;
    at(10, 0) = inf;
    at(17, 0) = inf;
    at(25, 0) = -inf;
    at(31, 2) = inf;
    at(31, 1) = -inf;
    for (int k = 0; k < d; ++k) {
      at(40, k) = huge;
      at(41, k) = huge;
      at(42, k) = k % 2 == 0 ? huge : -huge;
      at(43, k) = static_cast<Real>(1e-3 * k) * huge;
    }
    // Finite in s and in the fp64 norms, but the element kernel's square of
    // the coordinate difference overflows (fp32: 1e40; fp64: 1e320).
    at(44, 0) = std::is_same<Real, float>::value ? Real(1e20) : Real(1e160);
    const auto dx = to_device(x, n, d);
    for (const auto& l : layouts()) {
      auto element = poisoned_output<Real>(l.layout, n);
      auto gemm = poisoned_output<Real>(l.layout, n);
      const tdmaps::LambdaMap<> map(edm::make_domain(n, 16, l.layout));
      edm::edm(Space(), dx, element, map, l.layout, edm::Kernel::element, l.symmetric);
      edm::edm(Space(), dx, gemm, map, l.layout, edm::Kernel::gemm, l.symmetric);
      Space().fence();
      auto he = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), element);
      auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gemm);
      const auto ref = oracle(x, n, d, l.layout, l.symmetric);
      std::ostringstream msg;
      int bad = 0, nonfinite = 0;
      for (std::size_t k = 0; k < ref.size(); ++k) {
        const double e = static_cast<double>(he(k)), g = static_cast<double>(hg(k)), r = ref[k];
        bool ok;
        if (!std::isfinite(e)) {
          ok = std::isnan(e) ? std::isnan(g) : g == e;
          ++nonfinite;
        } else {
          ok = r == sentinel ? g == sentinel : std::abs(g - r) <= 4.0 * (d + 2) * eps * r;
        }
        if (!ok && bad++ < 5) msg << "[" << k << "] gemm " << g << ", element " << e << ", oracle " << r << "; ";
      }
      EXPECT_EQ(bad, 0) << msg.str() << edm::layout_name(l.layout) << (l.symmetric ? " symmetric" : "") << ", d = " << d
                        << ", seed = " << seed;
      EXPECT_GE(nonfinite, static_cast<int>(n - 1)) << edm::layout_name(l.layout);  // the NaN point's row at least
    }
  }
}

}  // namespace

TEST(TEST_CATEGORY, edm_gemm_fp32_matches_oracle_on_hard_clouds) { check_gemm_clouds<float>(edm::Kernel::gemm); }
TEST(TEST_CATEGORY, edm_gemm_fp64_matches_oracle_on_hard_clouds) { check_gemm_clouds<double>(edm::Kernel::gemm); }
TEST(TEST_CATEGORY, edm_automatic_fp32_matches_oracle_on_hard_clouds) {
  check_gemm_clouds<float>(edm::Kernel::automatic);
}
TEST(TEST_CATEGORY, edm_automatic_fp64_matches_oracle_on_hard_clouds) {
  check_gemm_clouds<double>(edm::Kernel::automatic);
}
TEST(TEST_CATEGORY, edm_gemm_nan_and_inf_like_the_element_kernel) {
  check_gemm_nonfinite<float>();
  check_gemm_nonfinite<double>();
}

// The extra device memory of the gemm path, for the CLI's memory check: a
// centred fp64 copy (n d), n norms, d means and a Gram panel of at most
// 64 MiB (8 Mi doubles) or one row, whatever the points' precision.
TEST(TEST_CATEGORY, edm_gemm_workspace_bytes) {
  EXPECT_EQ(edm::gemm_workspace_bytes<double>(10, 3), 8 * (30 + 10 + 3 + 10 * 10));
  EXPECT_EQ(edm::gemm_workspace_bytes<float>(10, 3), 8 * (30 + 10 + 3 + 10 * 10));
  // n = 4096: panels of 2048 rows.
  EXPECT_EQ(edm::gemm_workspace_bytes<float>(4096, 128), index_t(8) * (4096 * 128 + 4096 + 128 + 2048 * 4096));
  // n = 2^24: one row (more than 64 MiB by itself).
  const index_t big = index_t(1) << 24;
  EXPECT_EQ(edm::gemm_workspace_bytes<double>(big, 2), index_t(8) * (big * 2 + big + 2 + big));
}

// Points far from the origin and close together (where |x|^2 + |y|^2 - 2 x.y
// in the input precision loses every digit): the gemm path keeps the element
// kernel's accuracy.
TEST(TEST_CATEGORY, edm_gemm_accurate_for_close_far_points) {
  const index_t n = 16;
  const int d = 3;
  std::vector<float> x(static_cast<std::size_t>(n * d));
  for (index_t i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) x[i * d + k] = 1000.0f + 0.001f * static_cast<float>(i + k);
  const auto dx = to_device(x, n, d);
  auto direct = poisoned_output<float>(edm::Layout::condensed, n);
  auto gemm = poisoned_output<float>(edm::Layout::condensed, n);
  const tdmaps::LambdaMap<> map(edm::make_domain(n, 8, edm::Layout::condensed));
  edm::edm(Space(), dx, direct, map, edm::Layout::condensed, edm::Kernel::tile);
  edm::edm(Space(), dx, gemm, map, edm::Layout::condensed, edm::Kernel::gemm);
  Space().fence();
  const auto ref = oracle(x, n, d, edm::Layout::condensed, false);
  EXPECT_EQ(compare(ref, direct, 4.0 * 5 * std::numeric_limits<float>::epsilon()), "");
  EXPECT_EQ(compare(ref, gemm, 4.0 * 5 * std::numeric_limits<float>::epsilon()), "");
}
#endif

// Large run-time d (the D = 0 path with long coordinate loops), and the
// automatic kernel choice.
TEST(TEST_CATEGORY, edm_large_d_and_automatic_kernel) {
  for (const int d : {33, 70}) {
    for (const auto kernel : {edm::Kernel::element, edm::Kernel::tile, edm::Kernel::automatic}) {
      const Case c{45, d, 8, edm::Layout::condensed, false, kernel, base_seed + static_cast<unsigned>(d), "lambda_rsqrt"};
      EXPECT_EQ((run_case<tdmaps::LambdaMap<>, double>(c)), "") << c.text();
    }
  }
  using Lambda = tdmaps::LambdaMap<>;
  EXPECT_EQ((edm::resolve_kernel<Space, Lambda, double>(edm::Kernel::automatic, 4, 32)), edm::Kernel::tile);
  EXPECT_EQ((edm::resolve_kernel<Space, tdmaps::UpperTriangularMap, double>(edm::Kernel::automatic, 4, 32)),
            edm::Kernel::element);
  EXPECT_EQ((edm::resolve_kernel<Space, Lambda, float>(edm::Kernel::element, 4, 32)), edm::Kernel::element);
  // 2 x 32 x 300 doubles of scratch fit no backend's level-0 team scratch:
  // the element kernel instead, never gemm (not bit for bit the direct sum),
  // whatever d, also past gemm_min_dims. Where the tile kernel is the
  // dimension-tiled walk (GPU backends, block side 16 or 32, d >= 5; host
  // teams under TDMAPS_FORCE_LANE_TILE), it fits at any d.
  constexpr bool tiled = edm::detail::tiled_walk_v<Space, Kokkos::View<const double**, Kokkos::LayoutRight>, 0>;
  EXPECT_EQ((edm::tile_fits<Space, double>(32, 300)), tiled);
  EXPECT_EQ((edm::tile_fits<Space, double>(16, 1 << 20)), tiled);
  EXPECT_EQ((edm::tile_fits<Space, double>(8, 4000)), false);  // block side 8: never the tiled form
  const int threshold = edm::gemm_min_dims<Space>();
  EXPECT_LE(threshold, 300);
  EXPECT_EQ((edm::resolve_kernel<Space, Lambda, double>(edm::Kernel::automatic, 300, 32)),
            tiled ? edm::Kernel::tile : edm::Kernel::element);
  EXPECT_EQ((edm::resolve_kernel<Space, Lambda, float>(edm::Kernel::automatic, 200, 8)), edm::Kernel::tile);
  EXPECT_EQ((edm::resolve_kernel<Space, Lambda, double>(edm::Kernel::gemm, 4, 32)), edm::Kernel::gemm);  // asked for
  // A thread-space map cannot run the tile kernel at any d.
  for (const int d : {threshold - 1, threshold, 300})
    EXPECT_EQ((edm::resolve_kernel<Space, tdmaps::UpperTriangularMap, float>(edm::Kernel::automatic, d, 8)),
              edm::Kernel::element);
}

// The tile kernel's distances are the element kernel's, bit for bit, at
// any d where its scratch fits (its dimension-tiled form on GPU backends at
// d >= 5: every d), every layout, both block sides of that form, NaN
// coordinates included.
TEST(TEST_CATEGORY, edm_tile_equals_element_bit_for_bit_at_any_d) {
  const auto one = [](auto real, index_t n, int d, int rho, edm::Layout layout, bool symmetric) {
    using Real = decltype(real);
    if (!edm::tile_fits<Space, Real>(rho, d)) return;
    auto x = random_points<Real>(n, d, base_seed + static_cast<unsigned>(n * d + rho));
    x[std::size_t(5 * d + d / 2)] = std::numeric_limits<Real>::quiet_NaN();  // point 5
    const auto dx = to_device(x, n, d);
    const tdmaps::LambdaMap<> map(edm::make_domain(n, rho, layout));
    auto a = poisoned_output<Real>(layout, n), b = poisoned_output<Real>(layout, n);
    edm::edm(Space(), dx, a, map, layout, edm::Kernel::element, symmetric);
    edm::edm(Space(), dx, b, map, layout, edm::Kernel::tile, symmetric);
    const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
    const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
    index_t bad = 0, first = -1;
    for (std::size_t k = 0; k < ha.extent(0); ++k)
      if (std::memcmp(&ha(k), &hb(k), sizeof(Real)) != 0 && bad++ == 0) first = static_cast<index_t>(k);
    EXPECT_EQ(bad, 0) << "n = " << n << " d = " << d << " rho = " << rho << " " << edm::layout_name(layout)
                      << (symmetric ? " symmetric" : "") << (sizeof(Real) == 4 ? " fp32" : " fp64")
                      << ": first differing element " << first;
  };
  for (const int d : {5, 17, 40, 130})
    for (const int rho : {16, 32})
      for (const auto& l : layouts()) {
        one(float(), 77, d, rho, l.layout, l.symmetric);
        one(double(), 45, d, rho, l.layout, l.symmetric);
      }
}

TEST(TEST_CATEGORY, edm_rejects_bad_arguments) {
  using View2 = Kokkos::View<double**, Kokkos::LayoutRight, MemSpace>;
  using View1 = Kokkos::View<double*, MemSpace>;
  const tdmaps::LambdaMap<> map0(edm::make_domain(0, 8, edm::Layout::packed));
  // n = 0: no points.
  EXPECT_THROW(edm::edm(Space(), View2("x", 0, 3), View1("o", 0), map0, edm::Layout::packed), std::invalid_argument);
  // d = 0.
  const tdmaps::LambdaMap<> map5(edm::make_domain(5, 8, edm::Layout::packed));
  EXPECT_THROW(edm::edm(Space(), View2("x", 5, 0), View1("o", 15), map5, edm::Layout::packed), std::invalid_argument);
  // Output of the wrong size, with the sizes named.
  try {
    edm::edm(Space(), View2("x", 5, 2), View1("o", 14), map5, edm::Layout::packed);
    ADD_FAILURE() << "no exception for a short output";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("15"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("14"), std::string::npos) << e.what();
  }
  // Map over another n.
  const tdmaps::LambdaMap<> map6(edm::make_domain(6, 8, edm::Layout::packed));
  EXPECT_THROW(edm::edm(Space(), View2("x", 5, 2), View1("o", 15), map6, edm::Layout::packed), std::invalid_argument);
  // A strict-triangle map cannot fill a layout with a diagonal.
  const tdmaps::LambdaMap<> strict(edm::make_domain(5, 8, edm::Layout::condensed));
  EXPECT_THROW(edm::edm(Space(), View2("x", 5, 2), View1("o", 15), strict, edm::Layout::packed), std::invalid_argument);
  // symmetric is for the full layout only.
  EXPECT_THROW(edm::edm(Space(), View2("x", 5, 2), View1("o", 15), map5, edm::Layout::packed, edm::Kernel::element, true),
               std::invalid_argument);
  // The tile kernel needs a block-space map.
  const tdmaps::UpperTriangularMap utm(edm::make_domain(5, 8, edm::Layout::packed));
  EXPECT_THROW(edm::edm(Space(), View2("x", 5, 2), View1("o", 15), utm, edm::Layout::packed, edm::Kernel::tile),
               std::invalid_argument);
  // Sizes of the layouts.
  EXPECT_EQ(edm::output_size(edm::Layout::packed, 1), 1);
  EXPECT_EQ(edm::output_size(edm::Layout::condensed, 1), 0);
  EXPECT_EQ(edm::output_size(edm::Layout::full, 3), 9);
  EXPECT_EQ(edm::output_size(edm::Layout::condensed, index_t(1) << 31), (index_t(1) << 30) * ((index_t(1) << 31) - 1));
}
