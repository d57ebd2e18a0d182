// The dimension-tiled walk (launch/pair_min_keys.hpp) against a host nested
// loop that sums each pair's squared distance in coordinate order: every
// block-space map, block sides 16 and 32, d across the staged chunks'
// edges (1 .. 70) and long points (130, 1024), fp32 and fp64, n around the
// block side; the keys of both ends bit for bit, whole and by omega ranges, ties (duplicate points) to
// the smaller partner, NaN coordinates, keys that start above and below the
// pairs' own, a key of each end's own index, and the refusals.
#include "oracle.hpp"

#include <tdmaps/launch/pair_min_keys.hpp>
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

namespace tdmaps_min_keys_test {

using tdmaps::index_t;
using tdmaps::Triangle;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;
using Key = std::uint64_t;

/// A nearest neighbour's key: the squared distance's bits (non-negative, so
/// ordered as the values are) above the partner; NaN: no key.
struct NearestOf {
  KOKKOS_FUNCTION Key operator()(float s, index_t, index_t p) const {
    return s != s ? ~Key(0) : (Key(tdmaps::intrinsics::float_bits(s)) << 32) | Key(p);
  }
  KOKKOS_FUNCTION Key operator()(double s, index_t, index_t) const {
    return s != s ? ~Key(0) : static_cast<Key>(tdmaps::intrinsics::double_as_int64(s));
  }
};

/// The same keys, declared ordered by (s, partner): the walk then meets each
/// row's smallest (s, partner) before making its key (the same minimum).
struct OrderedNearestOf : NearestOf {
  static constexpr bool ordered_by_distance = true;
};
static_assert(tdmaps::detail::ordered_by_distance<OrderedNearestOf>::value &&
                  !tdmaps::detail::ordered_by_distance<NearestOf>::value,
              "the trait reads the declaration");

/// OrderedNearestOf with the sum of a key (pair_min_k_keys skips the pairs
/// above their rows' bounds): the float of the key's upper word (fp32), the
/// double of the key (fp64), +inf for none.
template <class Real>
struct BoundedNearestOf : OrderedNearestOf {
  KOKKOS_FUNCTION Real sum_bound(Key key) const {
    if constexpr (sizeof(Real) == 4)
      return tdmaps::intrinsics::int_as_float(
          static_cast<std::int32_t>(key == ~Key(0) ? 0x7f800000u : static_cast<std::uint32_t>(key >> 32)));
    else
      return tdmaps::intrinsics::int64_as_double(
          static_cast<std::int64_t>(key == ~Key(0) ? 0x7ff0000000000000ull : key));
  }
};
/// A bound without the order: the trait ignores it.
struct UnorderedBound : NearestOf {
  KOKKOS_FUNCTION float sum_bound(Key) const { return 0.f; }
};
static_assert(tdmaps::detail::has_sum_bound<BoundedNearestOf<float>, Key, float>::value &&
                  tdmaps::detail::has_sum_bound<BoundedNearestOf<double>, Key, double>::value &&
                  !tdmaps::detail::has_sum_bound<BoundedNearestOf<float>, Key, double>::value &&
                  !tdmaps::detail::has_sum_bound<OrderedNearestOf, Key, float>::value &&
                  !tdmaps::detail::has_sum_bound<UnorderedBound, Key, float>::value,
              "the trait needs the order and a bound in the sums' type");

template <class Real>
Key host_key(Real s, index_t p) {
  if (s != s) return ~Key(0);
  if constexpr (sizeof(Real) == 4) {
    std::uint32_t b;
    std::memcpy(&b, &s, 4);
    return (Key(b) << 32) | Key(p);
  } else {
    Key b;
    std::memcpy(&b, &s, 8);
    return b;
  }
}

/// A key that depends on the point itself: the partner where the squared
/// distance's bits are the point's own index modulo 7 in the low bits, the
/// partner's index + n otherwise (the self argument on both ends).
struct SelfOf {
  index_t n;
  KOKKOS_FUNCTION Key operator()(float s, index_t self, index_t p) const {
    return (tdmaps::intrinsics::float_bits(s) & 7u) == static_cast<std::uint32_t>(self % 7) ? Key(p) : Key(p + n);
  }
};

/// walk(map, x) over map `name` of Domain2(n, rho, strict_lower), or, for
/// parts > 1 on a one-launch map, walk(map, x, range) over each of its omega
/// ranges (last first when `backwards`: any order joins to the same keys).
template <class Real, class Walk>
void over_map(const std::string& name, index_t n, int rho, int parts, bool backwards,
              const Kokkos::View<Real**, Kokkos::LayoutRight, Mem>& xv, const Walk& walk) {
  tdmaps::MapSpec spec;
  spec.map = name;
  tdmaps::with_map(
      spec, tdmaps::Domain2(n, rho, Triangle::strict_lower),
      [&](auto map) {
        using Map = decltype(map);
        const Kokkos::View<const Real**, Kokkos::LayoutRight, Mem> cx = xv;
        if constexpr (tdmaps::is_block_space_map_v<Map> && !tdmaps::is_multi_launch_map_v<Map>) {
          if (parts > 1) {
            for (int q = 0; q < parts; ++q) walk(map, cx, tdmaps::omega_range(map, backwards ? parts - 1 - q : q, parts));
            return;
          }
        }
        if constexpr (tdmaps::is_block_space_map_v<Map>) walk(map, cx);
      },
      true);
}

/// The walk over map `name` (parts > 1: over its omega ranges, joined) against the nested loop; keys start at `start`.
template <class Real>
void check(const std::string& name, index_t n, int d, int rho, const std::vector<Real>& x, const std::vector<Key>& start,
           int parts = 1) {
  std::vector<Key> want = start;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < i; ++j) {
      const Real s = tdmaps_test::pair_sq<Space>(x, d, i, j);
      want[std::size_t(i)] = std::min(want[std::size_t(i)], host_key(s, j));
      want[std::size_t(j)] = std::min(want[std::size_t(j)], host_key(s, i));
    }
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> xv("x", n, d);
  Kokkos::deep_copy(xv, Kokkos::View<const Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                            x.data(), n, d));
  // Both joins of a block's keys: key by key (NearestOf), and each row's
  // smallest (s, partner) first (OrderedNearestOf).
  const auto run = [&](const auto key_of, const char* which) {
    using KeyOf = std::decay_t<decltype(key_of)>;
    Kokkos::View<Key*, Mem> keys("keys", n);
    Kokkos::deep_copy(keys, Kokkos::View<const Key*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(start.data(), n));
    over_map(name, n, rho, parts, true, xv, [&](const auto& map, const auto& cx, const auto&... range) {
      tdmaps::pair_min_keys(Space(), map, range..., cx, keys, KeyOf());
    });
    auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), keys);
    index_t bad = 0, first = -1;
    for (index_t i = 0; i < n; ++i)
      if (got(i) != want[std::size_t(i)] && bad++ == 0) first = i;
    EXPECT_EQ(bad, 0) << name << " n = " << n << " d = " << d << " rho = " << rho
                      << (sizeof(Real) == 4 ? " fp32 " : " fp64 ") << which << ": first wrong key at " << first;
  };
  run(NearestOf(), "key by key");
  run(OrderedNearestOf(), "ordered by distance");
}

template <class Real>
std::vector<Real> points(index_t n, int d, unsigned seed) {
  return tdmaps_test::uniform_points<Real>(n, d, seed);
}

template <class Real>
void sweep() {
  const std::vector<Key> none;
  unsigned seed = 11;
  for (const int rho : {16, 32})
    for (const index_t n : {index_t(1), index_t(2), index_t(rho - 1), index_t(rho + 3), index_t(3 * rho + 5)})
      for (const int d : {1, 5, 16, 17, 33, 70}) {
        const auto x = points<Real>(n, d, ++seed);
        check<Real>("lambda", n, d, rho, x, std::vector<Key>(std::size_t(n), ~Key(0)));
      }
  // Long points: many chunks of coordinates (d up to 1024).
  for (const int d : {130, 1024}) {
    const auto x = points<Real>(45, d, ++seed);
    check<Real>("lambda", 45, d, 32, x, std::vector<Key>(45, ~Key(0)));
    check<Real>("bb", 45, d, 16, x, std::vector<Key>(45, ~Key(0)));
  }
  // Every block-space map at one size; the one-launch maps by omega ranges too.
  for (const char* name : {"bb", "rb", "rec", "hadouken", "lambda"}) {
    const auto x = points<Real>(150, 21, ++seed);
    check<Real>(name, 150, 21, 32, x, std::vector<Key>(150, ~Key(0)));
  }
  for (const char* name : {"bb", "rb", "lambda"})
    for (const int parts : {2, 3, 7}) {
      const auto x = points<Real>(140, 19, ++seed);
      check<Real>(name, 140, 19, 16, x, std::vector<Key>(140, ~Key(0)), parts);
    }
}

}  // namespace tdmaps_min_keys_test

TEST(TEST_CATEGORY, pair_min_keys_match_the_nested_loop_fp32) { tdmaps_min_keys_test::sweep<float>(); }

TEST(TEST_CATEGORY, pair_min_keys_match_the_nested_loop_fp64) { tdmaps_min_keys_test::sweep<double>(); }

TEST(TEST_CATEGORY, pair_min_keys_ties_nan_and_starting_keys) {
  using namespace tdmaps_min_keys_test;
  const index_t n = 100;
  const int d = 9;
  auto x = points<float>(n, d, 5);
  // Duplicates: rows 40 and 70 copy row 10 (their nearest: distance 0, the smaller partner).
  for (int k = 0; k < d; ++k) x[std::size_t(40 * d + k)] = x[std::size_t(70 * d + k)] = x[std::size_t(10 * d + k)];
  // NaN coordinates: rows 33, 55 and 65 are nobody's neighbour and have none
  // (33 and 65 each the first partner of a micro-tile's row or column).
  for (const int row : {33, 55, 65}) x[std::size_t(row * d + 3)] = std::numeric_limits<float>::quiet_NaN();
  check<float>("lambda", n, d, 32, x, std::vector<Key>(std::size_t(n), ~Key(0)));
  check<float>("lambda", n, d, 16, x, std::vector<Key>(std::size_t(n), ~Key(0)));
  // Points of a 3 x 3 grid (d = 2) and of {0, 1}^6: every point has many
  // partners at its smallest distance, several in one micro-tile's row or
  // column (the smaller partner's key), fp32 and fp64.
  std::mt19937_64 gg(17);
  for (const int dg : {2, 6}) {
    std::vector<float> grid(std::size_t(n * dg));
    for (auto& v : grid) v = static_cast<float>(gg() % (dg == 2 ? 3 : 2));
    check<float>("lambda", n, dg, 32, grid, std::vector<Key>(std::size_t(n), ~Key(0)));
    check<float>("rb", n, dg, 16, grid, std::vector<Key>(std::size_t(n), ~Key(0)));
    check<double>("lambda", n, dg, 32, std::vector<double>(grid.begin(), grid.end()),
                  std::vector<Key>(std::size_t(n), ~Key(0)));
  }
  // Keys that start below some pairs' and above others': the smaller stays.
  std::vector<Key> start(static_cast<std::size_t>(n));
  std::mt19937_64 g(3);
  for (auto& k : start) k = g() >> 1;
  check<float>("bb", n, d, 16, x, start);
}

TEST(TEST_CATEGORY, pair_min_keys_give_key_of_each_end_itself) {
  using namespace tdmaps_min_keys_test;
  const index_t n = 77;
  const int d = 6;
  const auto x = points<float>(n, d, 9);
  std::vector<Key> want(static_cast<std::size_t>(n), ~Key(0));
  const SelfOf key{n};
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < i; ++j) {
      const float s = tdmaps_test::pair_sq<Space>(x, d, i, j);
      want[std::size_t(i)] = std::min(want[std::size_t(i)], key(s, i, j));
      want[std::size_t(j)] = std::min(want[std::size_t(j)], key(s, j, i));
    }
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> xv("x", n, d);
  Kokkos::deep_copy(xv, Kokkos::View<const float**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                            x.data(), n, d));
  Kokkos::View<Key*, Mem> keys("keys", n);
  Kokkos::deep_copy(keys, ~Key(0));
  tdmaps::pair_min_keys(Space(), tdmaps::BoundingBoxMap(tdmaps::Domain2(n, 32, Triangle::strict_lower)),
                        Kokkos::View<const float**, Kokkos::LayoutRight, Mem>(xv), keys, key);
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), keys);
  for (index_t i = 0; i < n; ++i) EXPECT_EQ(got(i), want[std::size_t(i)]) << "point " << i;
}

TEST(TEST_CATEGORY, pair_min_keys_rejects_bad_arguments) {
  using namespace tdmaps_min_keys_test;
  const Kokkos::View<const float**, Kokkos::LayoutRight, Mem> x(Kokkos::View<float**, Kokkos::LayoutRight, Mem>("x", 10, 3));
  Kokkos::View<Key*, Mem> keys("keys", 10), short_keys("keys", 9);
  EXPECT_THROW(tdmaps::pair_min_keys(Space(), tdmaps::LambdaMap<>(tdmaps::Domain2(10, 8, Triangle::strict_lower)), x,
                                     keys, NearestOf()),
               std::invalid_argument);
  EXPECT_THROW(tdmaps::pair_min_keys(Space(), tdmaps::LambdaMap<>(tdmaps::Domain2(10, 16, Triangle::strict_lower)), x,
                                     short_keys, NearestOf()),
               std::invalid_argument);
  EXPECT_THROW(tdmaps::pair_min_keys(Space(), tdmaps::LambdaMap<>(tdmaps::Domain2(11, 16, Triangle::strict_lower)), x,
                                     keys, NearestOf()),
               std::invalid_argument);
  const Kokkos::View<const float**, Kokkos::LayoutRight, Mem> empty(Kokkos::View<float**, Kokkos::LayoutRight, Mem>("x", 10, 0));
  EXPECT_THROW(tdmaps::pair_min_keys(Space(), tdmaps::LambdaMap<>(tdmaps::Domain2(10, 16, Triangle::strict_lower)),
                                     empty, keys, NearestOf()),
               std::invalid_argument);
  const tdmaps::LambdaMap<> map(tdmaps::Domain2(10, 16, Triangle::strict_lower));
  EXPECT_THROW(tdmaps::pair_min_keys(Space(), map, tdmaps::OmegaRange{0, tdmaps::full_range(map).end + 1}, x, keys,
                                     NearestOf()),
               std::invalid_argument);
}

namespace tdmaps_min_keys_test {

/// pair_min_k_keys over map `name` (parts > 1: by its omega ranges, joined)
/// against the nested loop: each row the k smallest of its starting row
/// (sorted) and of its pairs' keys, sorted (equal keys as often as they come).
template <class Real>
void check_k(const std::string& name, index_t n, int d, int rho, int k, const std::vector<Real>& x,
             const std::vector<Key>& start, int parts = 1) {
  std::vector<std::vector<Key>> all(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i)
    all[std::size_t(i)].assign(start.begin() + i * k, start.begin() + (i + 1) * k);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < i; ++j) {
      const Real s = tdmaps_test::pair_sq<Space>(x, d, i, j);
      all[std::size_t(i)].push_back(host_key(s, j));
      all[std::size_t(j)].push_back(host_key(s, i));
    }
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> xv("x", n, d);
  Kokkos::deep_copy(xv, Kokkos::View<const Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                            x.data(), n, d));
  for (auto& want : all) std::sort(want.begin(), want.end());
  // Every pair's key (NearestOf), and only those within their rows' bounds (BoundedNearestOf).
  const auto run = [&](const auto key_of, const char* which) {
    using KeyOf = std::decay_t<decltype(key_of)>;
    Kokkos::View<Key**, Kokkos::LayoutRight, Mem> keys("keys", n, k);
    Kokkos::deep_copy(keys, Kokkos::View<const Key**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                start.data(), n, k));
    over_map(name, n, rho, parts, false, xv, [&](const auto& map, const auto& cx, const auto&... range) {
      tdmaps::pair_min_k_keys(Space(), map, range..., cx, keys, KeyOf());
    });
    const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), keys);
    index_t bad = 0, first = -1;
    for (index_t i = 0; i < n; ++i) {
      const auto& want = all[std::size_t(i)];
      for (int c = 0; c < k; ++c)
        if (got(i, c) != want[std::size_t(c)]) {
          if (bad++ == 0) first = i;
          break;
        }
    }
    EXPECT_EQ(bad, 0) << name << " n = " << n << " d = " << d << " rho = " << rho << " k = " << k
                      << (sizeof(Real) == 4 ? " fp32" : " fp64") << " parts = " << parts << " " << which
                      << ": first wrong row " << first;
  };
  run(NearestOf(), "every key");
  run(BoundedNearestOf<Real>(), "keys within the bounds");
}

template <class Real>
void sweep_k() {
  unsigned seed = 101;
  const auto empty = [](index_t n, int k) { return std::vector<Key>(std::size_t(n * k), ~Key(0)); };
  for (const int rho : {16, 32})
    for (const index_t n : {index_t(1), index_t(3), index_t(rho + 3), index_t(3 * rho + 5)})
      for (const int k : {1, 2, 5, 16, 64})
        for (const int d : {3, 17}) {
          const auto x = points<Real>(n, d, ++seed);
          check_k<Real>("lambda", n, d, rho, k, x, empty(n, k));
        }
  for (const char* name : {"bb", "rb", "rec", "hadouken"}) {
    const auto x = points<Real>(150, 21, ++seed);
    check_k<Real>(name, 150, 21, 32, 7, x, empty(150, 7));
  }
  for (const char* name : {"bb", "lambda"})
    for (const int parts : {2, 5}) {
      const auto x = points<Real>(140, 19, ++seed);
      check_k<Real>(name, 140, 19, 16, 16, x, empty(140, 16), parts);
    }
  // Long points, and a k of 200.
  const auto x = points<Real>(300, 130, ++seed);
  check_k<Real>("lambda", 300, 130, 32, 16, x, empty(300, 16));
  check_k<Real>("bb", 300, 7, 16, 200, points<Real>(300, 7, ++seed), empty(300, 200));
}

}  // namespace tdmaps_min_keys_test

TEST(TEST_CATEGORY, pair_min_k_keys_match_the_nested_loop_fp32) { tdmaps_min_keys_test::sweep_k<float>(); }

TEST(TEST_CATEGORY, pair_min_k_keys_match_the_nested_loop_fp64) { tdmaps_min_keys_test::sweep_k<double>(); }

TEST(TEST_CATEGORY, pair_min_k_keys_equal_keys_nan_and_starting_rows) {
  using namespace tdmaps_min_keys_test;
  // Points on a small integer grid: many equal distances. fp64's key is the
  // distance alone, so rows hold equal keys as often as they come; fp32's
  // keys tie-break by the partner.
  const index_t n = 400;
  const int d = 6;
  std::mt19937_64 g(17);
  std::vector<double> xd(std::size_t(n * d));
  for (auto& v : xd) v = static_cast<double>(g() % 3);
  std::vector<float> xf(xd.begin(), xd.end());
  for (const int k : {1, 8, 40}) {
    check_k<double>("lambda", n, d, 32, k, xd, std::vector<Key>(std::size_t(n * k), ~Key(0)));
    check_k<float>("lambda", n, d, 16, k, xf, std::vector<Key>(std::size_t(n * k), ~Key(0)));
    check_k<double>("bb", n, d, 16, k, xd, std::vector<Key>(std::size_t(n * k), ~Key(0)), 3);
  }
  // A NaN coordinate: row 55 has no keys and is in nobody's row.
  auto x = points<float>(100, 9, 5);
  x[std::size_t(55 * 9 + 3)] = std::numeric_limits<float>::quiet_NaN();
  check_k<float>("lambda", 100, 9, 32, 10, x, std::vector<Key>(1000, ~Key(0)));
  // Rows that start sorted, with keys below and above the pairs' own and empty slots.
  const int k = 12;
  std::vector<Key> start(std::size_t(100 * k));
  for (auto& v : start)
    v = g() % 3 == 0 ? ~Key(0) : (Key(tdmaps::intrinsics::float_bits(float(g() % 1000) / 300.f)) << 32) | (g() % 100);
  for (index_t i = 0; i < 100; ++i) std::sort(start.begin() + i * k, start.begin() + (i + 1) * k);
  check_k<float>("bb", 100, 9, 16, k, points<float>(100, 9, 6), start);
}

TEST(TEST_CATEGORY, pair_min_k_keys_rejects_bad_arguments) {
  using namespace tdmaps_min_keys_test;
  const Kokkos::View<const float**, Kokkos::LayoutRight, Mem> x(Kokkos::View<float**, Kokkos::LayoutRight, Mem>("x", 10, 3));
  Kokkos::View<Key**, Kokkos::LayoutRight, Mem> keys("keys", 10, 4), short_keys("keys", 9, 4), none("keys", 10, 0);
  const tdmaps::LambdaMap<> map(tdmaps::Domain2(10, 16, Triangle::strict_lower));
  EXPECT_THROW(tdmaps::pair_min_k_keys(Space(), tdmaps::LambdaMap<>(tdmaps::Domain2(10, 8, Triangle::strict_lower)), x,
                                       keys, NearestOf()),
               std::invalid_argument);
  EXPECT_THROW(tdmaps::pair_min_k_keys(Space(), map, x, short_keys, NearestOf()), std::invalid_argument);
  EXPECT_THROW(tdmaps::pair_min_k_keys(Space(), map, x, none, NearestOf()), std::invalid_argument);
  EXPECT_THROW(tdmaps::pair_min_k_keys(Space(), map, tdmaps::OmegaRange{0, tdmaps::full_range(map).end + 1}, x, keys,
                                       NearestOf()),
               std::invalid_argument);
}
