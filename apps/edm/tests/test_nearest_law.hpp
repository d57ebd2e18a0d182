// nearest_neighbour's pair law (nearest_law.hpp) through the public pair-law
// walk, against a host nested loop: fp32 points of 2, 3 and 4 coordinates
// with ties (repeated points) and a NaN point, every map kind, whole and by
// parts; on host backends also the GPU's lane walk itself (one lane, 4 rows).
#include "oracle.hpp"

#include <tdmaps/edm.hpp>
#include <tdmaps/edm/reduce.hpp>
#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace tdmaps_nearest_law_test {

using tdmaps::index_t;
using tdmaps::Triangle;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;
using Keys = Kokkos::View<tdmaps::edm::NearestKey*, Mem>;
namespace edm = tdmaps::edm;

/// n points of D coordinates back to back (fixed seed): every 7th a copy of
/// an earlier one (ties), point 5 NaN where n > 5.
std::vector<float> make_points(index_t n, int D, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> h(static_cast<std::size_t>(n * D));
  for (index_t i = 0; i < n; ++i)
    for (int k = 0; k < D; ++k)
      h[std::size_t(i * D + k)] = (i % 7 == 6) ? h[std::size_t((i / 2) * D + k)] : u(g);
  if (n > 5) h[std::size_t(5 * D)] = std::numeric_limits<float>::quiet_NaN();
  return h;
}

/// The squared distance as the kernels form it (in order; nvcc contracts to fused multiply-adds).
float host_sq(const std::vector<float>& h, int D, index_t i, index_t j) {
  float s = 0;
  for (int k = 0; k < D; ++k) {
    const float t = h[std::size_t(i * D + k)] - h[std::size_t(j * D + k)];
    if (tdmaps::is_gpu_space<Space>::value) s = std::fma(t, t, s);
    else s += t * t;
  }
  return s;
}

/// Each point's key by a nested loop: the smallest (ordered bits of the squared distance, partner); NaN skipped.
std::vector<tdmaps::edm::NearestKey> oracle(const std::vector<float>& h, index_t n, int D) {
  std::vector<tdmaps::edm::NearestKey> k(static_cast<std::size_t>(n), edm::nearest_init());
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const float s = host_sq(h, D, i, j);
      if (s != s) continue;
      const auto key = (tdmaps::edm::NearestKey(tdmaps::ordered_bits(s)) << 32) | tdmaps::edm::NearestKey(j);
      if (key < k[std::size_t(i)]) k[std::size_t(i)] = key;
    }
  return k;
}

template <int D>
struct Case {
  index_t n;
  std::vector<float> h;
  Kokkos::View<float*, Mem> x;
  std::vector<tdmaps::edm::NearestKey> want;
  Case(index_t n_, unsigned seed) : n(n_), h(make_points(n_, D, seed)), x("x", static_cast<std::size_t>(n_ * D)) {
    auto m = Kokkos::create_mirror_view(x);
    for (std::size_t k = 0; k < h.size(); ++k) m(k) = h[k];
    Kokkos::deep_copy(x, m);
    want = oracle(h, n, D);
  }
  Keys keys() const {
    Keys k("keys", static_cast<std::size_t>(n));
    Kokkos::deep_copy(k, edm::nearest_init());
    return k;
  }
  void expect(const Keys& got, const std::string& what) const {
    auto g = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), got);
    int bad = 0;
    for (index_t i = 0; i < n && bad < 3; ++i)
      if (g(i) != want[std::size_t(i)]) {
        ++bad;
        ADD_FAILURE() << what << " D " << D << " n " << n << ": point " << i << " key " << g(i) << ", nested loop "
                      << want[std::size_t(i)];
      }
  }
};

template <int D, class Map>
void check_law(index_t n) {
  const Case<D> c(n, 40u + static_cast<unsigned>(n) + D);
  const Map map(n, 32, Triangle::strict_lower);
  const edm::detail::NearestLaw<D, Keys> law{c.x.data()};
  const Keys whole = c.keys();
  tdmaps::for_each_pair_law(Space(), map, law, whole);
  c.expect(whole, std::string(Map::name) + " whole");
  if constexpr (!tdmaps::detail::has_multi_launch<Map>::value) {
    const Keys parts = c.keys();
    for (int p = 0; p < 3; ++p) tdmaps::for_each_pair_law_part(Space(), map, p, 3, law, parts);
    c.expect(parts, std::string(Map::name) + " 3 parts");
  }
  if constexpr (!tdmaps::is_gpu_space<Space>::value) {
    // The GPU's lane walk on one lane: its edges, diagonal blocks and flushes.
    const Map macro = tdmaps::detail::warp_walk_map(map, 4);
    const Keys lanes = c.keys();
    for (int l = 0; l < tdmaps::detail::launches(macro); ++l)
      tdmaps::detail::pair_law_lanes<1, 4>(Space(), macro, l, 0, tdmaps::detail::league_size(macro, l), n, false, law,
                                           lanes, tdmaps::LaunchHints(), "lanes");
    c.expect(lanes, std::string(Map::name) + " one lane");
  }
}

template <class Map>
void check_law_all(index_t n) {
  check_law<2, Map>(n);
  check_law<3, Map>(n);
  check_law<4, Map>(n);
}

}  // namespace tdmaps_nearest_law_test

TEST(TEST_CATEGORY, edm_nearest_law_matches_the_nested_loop_for_every_map) {
  using namespace tdmaps_nearest_law_test;
  for (const index_t n : {2, 3, 37, 300}) {
    check_law_all<tdmaps::LambdaMap<>>(n);
    check_law_all<tdmaps::BoundingBoxMap>(n);
    check_law_all<tdmaps::RecursiveMap>(n);
    check_law_all<tdmaps::HadoukenMap>(n);
  }
}

TEST(TEST_CATEGORY, edm_nearest_neighbour_fp32_matches_the_nested_loop) {
  // The public entry point: on GPU backends it takes the law above.
  using namespace tdmaps_nearest_law_test;
  for (const index_t n : {2, 130, 700}) {
    const Case<3> c(n, 7u + static_cast<unsigned>(n));
    Kokkos::View<float**, Kokkos::LayoutRight, Mem> pts("pts", static_cast<std::size_t>(n), 3);
    Kokkos::deep_copy(pts, Kokkos::View<float**, Kokkos::LayoutRight, Mem>(c.x.data(), static_cast<std::size_t>(n), 3));
    const Keys keys = c.keys();
    edm::nearest_neighbour(Space(), pts, tdmaps::LambdaMap<>(n, 32, Triangle::strict_lower), tdmaps::full_range(
        tdmaps::LambdaMap<>(n, 32, Triangle::strict_lower)), keys);
    c.expect(keys, "nearest_neighbour");
    const Keys parts = c.keys();
    for (int p = 0; p < 2; ++p)
      edm::nearest_neighbour_part(Space(), pts, tdmaps::BoundingBoxMap(n, 32, Triangle::strict_lower), p, 2, parts);
    c.expect(parts, "nearest_neighbour_part");
  }
}
