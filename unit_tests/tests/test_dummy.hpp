// The dummy kernel (bench/dummy.hpp) under several maps: every element of
// the packed output holds the value of its own (i, j), checked against a host
// nested loop on a poisoned output; the sink writes exactly the one element
// its sentinel names, and nothing for the timed sentinel (-1).
#include "oracle.hpp"

#include <tdmaps/bench/dummy.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using tdmaps::index_t;
using tdmaps::Triangle;
using Space = TEST_EXECSPACE;
using Out = Kokkos::View<std::uint32_t*, Space::memory_space>;

constexpr std::uint32_t poison = 0xdeadbeefu;  // no (i, j) with i, j < 65599 produces it

/// The oracle's own value, written out rather than taken from the header.
std::uint32_t expected_value(index_t i, index_t j) {
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(i) * 65599u + static_cast<std::uint64_t>(j)) & 0xffffffffu);
}

Out poisoned(std::size_t size) { return tdmaps_test::poisoned<Out>("tdmaps::test::dummy_out", size, poison); }

template <class Map>
std::string dummy_mismatches(index_t n, int rho, Triangle t) {
  const Map map(n, rho, t);
  const index_t size = map.domain.elements();
  Out out = poisoned(static_cast<std::size_t>(size));
  tdmaps::for_each_element(Space(), map, tdmaps::bench::DummyKernel<Space::memory_space>{out, t}, "tdmaps::test::dummy");
  Space().fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  std::ostringstream msg;
  int reported = 0;
  index_t checked = 0;
  for (index_t i = 0; i < n && reported < 5; ++i) {
    const index_t jend = t == Triangle::lower ? i + 1 : i;
    for (index_t j = 0; j < jend && reported < 5; ++j, ++checked) {
      const std::uint32_t got = h(static_cast<std::size_t>(tdmaps_test::packed(i, j, t)));
      if (got != expected_value(i, j)) {
        msg << "(" << i << "," << j << "): got " << got << (got == poison ? " (never written)" : "") << ", expected "
            << expected_value(i, j) << "; ";
        ++reported;
      }
    }
  }
  if (reported == 0 && checked != size) msg << "oracle visited " << checked << " elements, output holds " << size;
  return msg.str();
}

template <class Map>
void check_dummy() {
  for (int rho : {8, 16, 32})
    for (index_t n : {0, 1, 2, 7, 31, 32, 33, 100, 257, 1000}) {
      for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
        EXPECT_EQ(dummy_mismatches<Map>(n, rho, t), "")
            << Map::name << ", n = " << n << ", rho = " << rho << (t == Triangle::lower ? ", lower" : ", strict");
      }
    }
}

/// Runs the sink with `sentinel` and returns out(0) and out(1) (both poisoned before).
template <class Map>
std::pair<std::uint32_t, std::uint32_t> sink_result(index_t n, int rho, std::int64_t sentinel) {
  const Map map(n, rho, Triangle::lower);
  Out out = poisoned(2);
  tdmaps::for_each_element(Space(), map, tdmaps::bench::DummySink<Space::memory_space>{out, sentinel}, "tdmaps::test::dummy_sink");
  Space().fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  return {h(0), h(1)};
}

template <class Map>
void check_sink() {
  const unsigned seed = 4242u;
  std::mt19937_64 gen(seed);
  for (int rho : {8, 32})
    for (index_t n : {1, 33, 300}) {
      // The timed sentinel matches nothing.
      auto none = sink_result<Map>(n, rho, -1);
      EXPECT_EQ(none.first, poison) << Map::name << ": sink wrote with sentinel -1, n = " << n << ", rho = " << rho;
      EXPECT_EQ(none.second, poison) << Map::name << ": sink touched out(1), n = " << n;
      // A sentinel naming one element of the domain: exactly that element writes.
      std::uniform_int_distribution<index_t> row(0, n - 1);
      const index_t i = row(gen);
      const index_t j = std::uniform_int_distribution<index_t>(0, i)(gen);
      auto one = sink_result<Map>(n, rho, (i << 32) | j);
      EXPECT_EQ(one.first, expected_value(i, j))
          << Map::name << ": sink for (" << i << "," << j << "), n = " << n << ", rho = " << rho << ", seed = " << seed;
      EXPECT_EQ(one.second, poison) << Map::name << ": sink touched out(1), n = " << n;
      // A sentinel naming an element above the diagonal (not in the domain): nothing.
      if (n > 1) {
        auto above = sink_result<Map>(n, rho, (index_t(0) << 32) | (n - 1));
        EXPECT_EQ(above.first, poison) << Map::name << ": sink wrote for (0," << n - 1 << "), outside the domain";
      }
    }
}

}  // namespace

TEST(TEST_CATEGORY, dummy_bb_writes_every_element) { check_dummy<tdmaps::BoundingBoxMap>(); }
TEST(TEST_CATEGORY, dummy_lambda_rsqrt_writes_every_element) {
  check_dummy<tdmaps::LambdaMap<tdmaps::SqrtRsqrt, tdmaps::Exact>>();
}
TEST(TEST_CATEGORY, dummy_lambda_sqrt_epsilon_writes_every_element) {
  check_dummy<tdmaps::LambdaMap<tdmaps::SqrtIEEE, tdmaps::Epsilon>>();
}
TEST(TEST_CATEGORY, dummy_rb_writes_every_element) { check_dummy<tdmaps::RectangularBoxMap>(); }
TEST(TEST_CATEGORY, dummy_rec_writes_every_element) { check_dummy<tdmaps::RecursiveMap>(); }
TEST(TEST_CATEGORY, dummy_utm_writes_every_element) { check_dummy<tdmaps::UpperTriangularMap>(); }

TEST(TEST_CATEGORY, dummy_sink_bb_writes_only_its_sentinel) { check_sink<tdmaps::BoundingBoxMap>(); }
TEST(TEST_CATEGORY, dummy_sink_lambda_writes_only_its_sentinel) {
  check_sink<tdmaps::LambdaMap<tdmaps::SqrtRsqrt, tdmaps::Exact>>();
}
TEST(TEST_CATEGORY, dummy_sink_utm_writes_only_its_sentinel) { check_sink<tdmaps::UpperTriangularMap>(); }
