// The dimension-tiled pair walks (launch/pair_sums.hpp) against a host
// nested loop that sums each pair's squared distance in coordinate order:
// every block-space map, block sides 16 and 32, d across the staged
// chunks' edges (1 .. 70) and long points (130, 1024), fp32 and fp64, n
// around the block side, whole and by omega ranges (joined in any order);
// laws that read the sum's bits and both indices (a sum of a hash, the
// smallest sum, the bins of a hash, rows' smallest, largest and summed
// keys of both ends), for_each_pair_sums' every pair once
// with its sum bit for bit (the diagonal of Triangle::lower too), NaN
// coordinates, histograms in a team's scratch and past it, and the refusals.
#include "oracle.hpp"

#include <tdmaps/launch/pair_sums.hpp>
#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tdmaps_pair_sums_test {

using tdmaps::index_t;
using tdmaps::Triangle;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;
using Counts = Kokkos::View<std::int64_t*, Mem>;

/// The low 32 bits of a sum's bits (fp32: all of them; fp64: the low word);
/// one value for every NaN (a NaN's payload is the backend's: CUDA makes
/// every NaN result its canonical one, x86 keeps an operand's).
constexpr std::uint32_t nan_bits = 0x7fc00000u;
KOKKOS_INLINE_FUNCTION std::uint32_t low_bits(float s) {
  return s != s ? nan_bits : tdmaps::intrinsics::float_bits(s);
}
KOKKOS_INLINE_FUNCTION std::uint32_t low_bits(double s) {
  return s != s ? nan_bits : static_cast<std::uint32_t>(static_cast<std::uint64_t>(tdmaps::intrinsics::double_as_int64(s)));
}
/// A hash of a pair's sum and its two ends (order matters: i is the larger).
KOKKOS_INLINE_FUNCTION std::uint32_t pair_hash(std::uint32_t bits, index_t i, index_t j) {
  std::uint32_t h = bits * 2654435761u ^ static_cast<std::uint32_t>(i) * 40503u ^ static_cast<std::uint32_t>(j) * 9973u;
  return h ^ (h >> 15);
}

/// reduce_pair_sums' law: the hash's low byte summed (every pair, NaN too).
struct HashSum {
  template <class Real>
  KOKKOS_FUNCTION void operator()(Real s, index_t i, index_t j, index_t& c) const {
    c += static_cast<index_t>(pair_hash(low_bits(s), i, j) & 0xffu);
  }
};
/// The smallest sum of the pairs (NaN sums left out).
struct SmallestSum {
  template <class Real>
  KOKKOS_FUNCTION void operator()(Real s, index_t, index_t, Real& m) const {
    if (s == s && s < m) m = s;
  }
};
/// histogram_pair_sums' law: bin hash % (bins + 3), so that some pairs
/// have none (bins .. bins + 2); NaN sums have none (-1).
struct HashBin {
  int bins;
  template <class Real>
  KOKKOS_FUNCTION int operator()(Real s, index_t i, index_t j) const {
    return s != s ? -1 : static_cast<int>(pair_hash(low_bits(s), i, j) % static_cast<std::uint32_t>(bins + 3));
  }
};

template <class Real>
std::uint32_t host_low_bits(Real s) {
  if (s != s) return nan_bits;
  if constexpr (sizeof(Real) == 4) {
    std::uint32_t b;
    std::memcpy(&b, &s, 4);
    return b;
  } else {
    std::uint64_t b;
    std::memcpy(&b, &s, 8);
    return static_cast<std::uint32_t>(b);
  }
}

template <class Real>
std::vector<Real> points(index_t n, int d, unsigned seed) {
  return tdmaps_test::uniform_points<Real>(n, d, seed);
}

/// walk(map, x[, range]) over map `name` of Domain2(n, rho, triangle), by
/// `parts` omega ranges of a one-launch map (last first) where parts > 1.
template <class Real, class Walk>
void over_map(const std::string& name, index_t n, int rho, Triangle triangle, int parts,
              const Kokkos::View<const Real**, Kokkos::LayoutRight, Mem>& x, const Walk& walk) {
  tdmaps::MapSpec spec;
  spec.map = name;
  tdmaps::with_map(
      spec, tdmaps::Domain2(n, rho, triangle),
      [&](auto map) {
        using Map = decltype(map);
        if constexpr (tdmaps::is_block_space_map_v<Map> && !tdmaps::is_multi_launch_map_v<Map>) {
          if (parts > 1) {
            for (int q = parts - 1; q >= 0; --q) walk(map, x, tdmaps::omega_range(map, q, parts));
            return;
          }
        }
        if constexpr (tdmaps::is_block_space_map_v<Map>) walk(map, x);
      },
      true);
}

/// Both reductions and the histogram over map `name` against the nested loop.
template <class Real>
void check(const std::string& name, index_t n, int d, int rho, const std::vector<Real>& x, int bins = 13,
           int parts = 1, Triangle triangle = Triangle::strict_lower) {
  index_t want_sum = 0;
  Real want_min = std::numeric_limits<Real>::max();
  std::vector<std::int64_t> want_hist(std::size_t(bins), 0);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < i; ++j) {
      const Real s = tdmaps_test::pair_sq<Space>(x, d, i, j);
      const std::uint32_t h = pair_hash(host_low_bits(s), i, j);
      want_sum += static_cast<index_t>(h & 0xffu);
      if (s == s && s < want_min) want_min = s;
      const int b = static_cast<int>(h % static_cast<std::uint32_t>(bins + 3));
      if (s == s && b < bins) ++want_hist[std::size_t(b)];
    }
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> xv("x", n, d);
  Kokkos::deep_copy(xv, Kokkos::View<const Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                            x.data(), n, d));
  const Kokkos::View<const Real**, Kokkos::LayoutRight, Mem> cx = xv;
  index_t got_sum = 0;
  Real got_min = std::numeric_limits<Real>::max();
  Counts counts("counts", bins);
  Kokkos::deep_copy(counts, 5);  // added to, not reset
  over_map<Real>(name, n, rho, triangle, parts, cx, [&](const auto& map, const auto& px, const auto&... range) {
    index_t c = 0;
    tdmaps::reduce_pair_sums(Space(), map, range..., px, HashSum(), Kokkos::Sum<index_t>(c));
    got_sum += c;
    Real m = 0;
    tdmaps::reduce_pair_sums(Space(), map, range..., px, SmallestSum(), Kokkos::Min<Real>(m));
    got_min = m < got_min ? m : got_min;
    tdmaps::histogram_pair_sums(Space(), map, range..., px, HashBin{bins}, counts);
  });
  const std::string what = name + " n = " + std::to_string(n) + " d = " + std::to_string(d) +
                           " rho = " + std::to_string(rho) + (sizeof(Real) == 4 ? " fp32" : " fp64") +
                           " parts = " + std::to_string(parts) + " bins = " + std::to_string(bins);
  EXPECT_EQ(got_sum, want_sum) << what;
  EXPECT_EQ(got_min, want_min) << what;
  const auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  index_t bad = 0, first = -1;
  for (int b = 0; b < bins; ++b)
    if (got(b) != want_hist[std::size_t(b)] + 5 && bad++ == 0) first = b;
  EXPECT_EQ(bad, 0) << what << ": first wrong bin " << first;
}

/// reduce_rows_pair_sums' law: the hash of (sum, row, other) above the
/// other end's index, so that RowMin and RowMax of it tell which pair a row
/// kept; RowSum of its low byte counts each (row, other) once.
struct RowKey {
  template <class Real>
  KOKKOS_FUNCTION std::uint64_t operator()(Real s, index_t row, index_t other) const {
    return static_cast<std::uint64_t>(pair_hash(low_bits(s), row, other)) << 32 | static_cast<std::uint32_t>(other);
  }
};
struct RowByte {
  template <class Real>
  KOKKOS_FUNCTION index_t operator()(Real s, index_t row, index_t other) const {
    return static_cast<index_t>(pair_hash(low_bits(s), row, other) & 0xffu);
  }
};

/// reduce_rows_pair_sums over map `name` against the nested loop: each
/// row's smallest and largest key and its sum of bytes (rows prefilled:
/// joined into, not reset).
template <class Real>
void check_rows(const std::string& name, index_t n, int d, int rho, const std::vector<Real>& x, int parts = 1,
                Triangle triangle = Triangle::strict_lower) {
  using Min = tdmaps::RowMin<std::uint64_t>;
  using Max = tdmaps::RowMax<std::uint64_t>;
  std::vector<std::uint64_t> want_min(std::size_t(n), Min::identity()), want_max(std::size_t(n), Max::identity());
  std::vector<index_t> want_sum(std::size_t(n), 5);
  const auto key = [](std::uint32_t bits, index_t row, index_t other) {
    return static_cast<std::uint64_t>(pair_hash(bits, row, other)) << 32 | static_cast<std::uint32_t>(other);
  };
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < i; ++j) {
      const std::uint32_t b = host_low_bits(tdmaps_test::pair_sq<Space>(x, d, i, j));
      for (const auto& [row, other] : {std::pair<index_t, index_t>(i, j), std::pair<index_t, index_t>(j, i)}) {
        const std::uint64_t k = key(b, row, other);
        const auto r = std::size_t(row);
        want_min[r] = std::min(want_min[r], k);
        want_max[r] = std::max(want_max[r], k);
        want_sum[r] += static_cast<index_t>(pair_hash(b, row, other) & 0xffu);
      }
    }
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> xv("x", n, d);
  Kokkos::deep_copy(xv, Kokkos::View<const Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                            x.data(), n, d));
  const Kokkos::View<const Real**, Kokkos::LayoutRight, Mem> cx = xv;
  Kokkos::View<std::uint64_t*, Mem> lo("lo", n), hi("hi", n);
  Kokkos::View<index_t*, Mem> sum("sum", n);
  Kokkos::deep_copy(lo, Min::identity());
  Kokkos::deep_copy(hi, Max::identity());
  Kokkos::deep_copy(sum, 5);
  over_map<Real>(name, n, rho, triangle, parts, cx, [&](const auto& map, const auto& px, const auto&... range) {
    tdmaps::reduce_rows_pair_sums<Min>(Space(), map, range..., px, RowKey(), lo);
    tdmaps::reduce_rows_pair_sums<Max>(Space(), map, range..., px, RowKey(), hi);
    tdmaps::reduce_rows_pair_sums<tdmaps::RowSum<index_t>>(Space(), map, range..., px, RowByte(), sum);
  });
  const auto glo = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), lo);
  const auto ghi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hi);
  const auto gsum = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sum);
  index_t bad = 0, first = -1;
  for (index_t i = 0; i < n; ++i) {
    const auto r = std::size_t(i);
    if ((glo(i) != want_min[r] || ghi(i) != want_max[r] || gsum(i) != want_sum[r]) && bad++ == 0) first = i;
  }
  EXPECT_EQ(bad, 0) << name << " n = " << n << " d = " << d << " rho = " << rho
                    << (sizeof(Real) == 4 ? " fp32" : " fp64") << " parts = " << parts
                    << (triangle == Triangle::lower ? " lower" : " strict_lower") << ": first wrong row " << first;
}

/// for_each_pair_sums' f: each pair's sum into the packed lower triangle
/// (with its diagonal), and a hit per call.
template <class Real>
struct StoreSum {
  Kokkos::View<Real*, Mem> out;
  Kokkos::View<int*, Mem> hits;
  KOKKOS_FUNCTION void operator()(Real s, index_t i, index_t j) const {
    out(tdmaps::tri(i) + j) = s;
    Kokkos::atomic_add(&hits(tdmaps::tri(i) + j), 1);
  }
};

/// for_each_pair_sums over map `name` against the nested loop: every pair of
/// the triangle (the diagonal where it is Triangle::lower) once, its sum bit
/// for bit (a NaN for a NaN), nothing else touched.
/// Mirrored (parts ranges of a one-launch map): for_each_pair_sums_mirrored,
/// whose pair (i', j') of the map is the points' (n - 1 - j', n - 1 - i'):
/// the same pairs, each once, the same sums.
template <class Real>
void check_each(const std::string& name, index_t n, int d, int rho, const std::vector<Real>& x, Triangle triangle,
                int parts = 1, bool mirrored = false) {
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> xv("x", n, d);
  Kokkos::deep_copy(xv, Kokkos::View<const Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                            x.data(), n, d));
  const std::size_t size = static_cast<std::size_t>(tdmaps::tri(n));
  StoreSum<Real> f{Kokkos::View<Real*, Mem>("out", size), Kokkos::View<int*, Mem>("hits", size)};
  Kokkos::deep_copy(f.out, Real(-7));  // poisoned: a missed pair shows
  over_map<Real>(name, n, rho, triangle, mirrored ? std::max(parts, 2) : parts, xv,
                 [&](const auto& map, const auto& px, const auto&... range) {
                   if constexpr (sizeof...(range) == 1) {
                     if (mirrored) {
                       tdmaps::detail::for_each_pair_sums_mirrored(Space(), map, range..., px, f, "mirrored");
                       return;
                     }
                   }
                   tdmaps::for_each_pair_sums(Space(), map, range..., px, f);
                 });
  const auto out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.out);
  const auto hits = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.hits);
  index_t bad = 0, first = -1;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j <= i; ++j) {
      const std::size_t k = static_cast<std::size_t>(tdmaps::tri(i) + j);
      const bool in = j < i || triangle == Triangle::lower;
      const Real want = in ? tdmaps_test::pair_sq<Space>(x, d, i, j) : Real(-7);
      const bool same = std::memcmp(&out(k), &want, sizeof(Real)) == 0 || (want != want && out(k) != out(k));
      if ((!same || hits(k) != (in ? 1 : 0)) && bad++ == 0) first = static_cast<index_t>(k);
    }
  EXPECT_EQ(bad, 0) << name << " n = " << n << " d = " << d << " rho = " << rho
                    << (triangle == Triangle::lower ? " lower" : " strict_lower") << " parts = " << parts
                    << (mirrored ? " mirrored" : "") << ": first wrong element " << first;
}

template <class Real>
void sweep() {
  unsigned seed = 31;
  for (const int rho : {16, 32})
    for (const index_t n : {index_t(1), index_t(2), index_t(rho - 1), index_t(rho + 3), index_t(3 * rho + 5)})
      for (const int d : {1, 5, 16, 17, 33, 70}) check<Real>("lambda", n, d, rho, points<Real>(n, d, ++seed));
  for (const int d : {130, 1024}) {
    const auto x = points<Real>(45, d, ++seed);
    check<Real>("lambda", 45, d, 32, x);
    check<Real>("bb", 45, d, 16, x);
  }
  // Every block-space map, both triangles (the diagonal is never offered);
  // the one-launch maps by omega ranges too.
  for (const char* name : {"bb", "rb", "rec", "hadouken", "lambda"})
    for (const Triangle t : {Triangle::strict_lower, Triangle::lower})
      check<Real>(name, 150, 21, 32, points<Real>(150, 21, ++seed), 13, 1, t);
  for (const char* name : {"bb", "rb", "lambda"})
    for (const int parts : {2, 3, 7}) check<Real>(name, 140, 19, 16, points<Real>(140, 19, ++seed), 13, parts);
}

}  // namespace tdmaps_pair_sums_test

TEST(TEST_CATEGORY, pair_sums_reductions_match_the_nested_loop_fp32) { tdmaps_pair_sums_test::sweep<float>(); }

TEST(TEST_CATEGORY, pair_sums_reductions_match_the_nested_loop_fp64) { tdmaps_pair_sums_test::sweep<double>(); }

TEST(TEST_CATEGORY, reduce_rows_pair_sums_joins_both_ends_of_each_pair) {
  using namespace tdmaps_pair_sums_test;
  unsigned seed = 91;
  for (const int rho : {16, 32})
    for (const index_t n : {index_t(1), index_t(2), index_t(rho - 1), index_t(rho + 3), index_t(3 * rho + 5)})
      for (const int d : {1, 5, 17, 33}) {
        check_rows<float>("lambda", n, d, rho, points<float>(n, d, ++seed));
        check_rows<double>("lambda", n, d, rho, points<double>(n, d, ++seed));
      }
  check_rows<float>("lambda", 45, 1024, 32, points<float>(45, 1024, ++seed));
  check_rows<double>("bb", 45, 130, 16, points<double>(45, 130, ++seed));
  // Every block-space map, both triangles (the diagonal is never offered);
  // the one-launch maps by omega ranges too.
  for (const char* name : {"bb", "rb", "rec", "hadouken", "lambda"})
    for (const Triangle t : {Triangle::strict_lower, Triangle::lower})
      check_rows<float>(name, 150, 21, 32, points<float>(150, 21, ++seed), 1, t);
  for (const char* name : {"bb", "rb", "lambda"})
    for (const int parts : {2, 3, 7}) check_rows<double>(name, 140, 19, 16, points<double>(140, 19, ++seed), parts);
  // NaN coordinates: their pairs' keys are the NaN sum's (of any payload).
  auto x = points<float>(100, 9, 5);
  for (const int row : {33, 55, 65}) x[std::size_t(row * 9 + 3)] = std::numeric_limits<float>::quiet_NaN();
  check_rows<float>("lambda", 100, 9, 32, x);
}

TEST(TEST_CATEGORY, for_each_pair_sums_offers_each_pair_once_with_its_sum) {
  using namespace tdmaps_pair_sums_test;
  unsigned seed = 71;
  for (const Triangle t : {Triangle::lower, Triangle::strict_lower}) {
    for (const int rho : {16, 32})
      for (const index_t n : {index_t(1), index_t(rho + 3), index_t(3 * rho + 5)})
        for (const int d : {1, 17, 33}) {
          check_each<float>("lambda", n, d, rho, points<float>(n, d, ++seed), t);
          check_each<double>("lambda", n, d, rho, points<double>(n, d, ++seed), t);
        }
    for (const char* name : {"bb", "rb", "rec", "hadouken"})
      check_each<float>(name, 150, 21, 32, points<float>(150, 21, ++seed), t);
    for (const char* name : {"bb", "rb", "lambda"})
      check_each<double>(name, 140, 7, 16, points<double>(140, 7, ++seed), t, 3);
  }
  // The mirrored triangle (edm_chunk's condensed chunks): n off the block
  // side, so that the points' blocks start off its multiples.
  for (const Triangle t : {Triangle::lower, Triangle::strict_lower})
    for (const char* name : {"bb", "rb", "lambda"})
      for (const int rho : {16, 32})
        for (const index_t n : {index_t(1), index_t(rho + 3), index_t(3 * rho + 5)}) {
          check_each<float>(name, n, 17, rho, points<float>(n, 17, ++seed), t, 3, true);
          check_each<double>(name, n, 5, rho, points<double>(n, 5, ++seed), t, 1, true);
        }
  // NaN coordinates: their pairs' and their diagonal's sums are NaN (of any payload).
  auto x = points<float>(100, 9, 5);
  x[std::size_t(33 * 9 + 3)] = std::numeric_limits<float>::quiet_NaN();
  check_each<float>("lambda", 100, 9, 32, x, Triangle::lower);
  check_each<float>("bb", 40, 1024, 16, points<float>(40, 1024, 6), Triangle::lower);
}

TEST(TEST_CATEGORY, pair_sums_nan_points_and_bins_past_team_scratch) {
  using namespace tdmaps_pair_sums_test;
  // NaN coordinates: their pairs' sums are NaN (the hash sees their bits,
  // the smallest sum and the bins leave them out).
  auto x = points<float>(100, 9, 5);
  for (const int row : {33, 55, 65}) x[std::size_t(row * 9 + 3)] = std::numeric_limits<float>::quiet_NaN();
  check<float>("lambda", 100, 9, 32, x);
  check<float>("bb", 100, 9, 16, x, 13, 3);
  // Bins in a team's scratch, the most its scratch holds beside the staged
  // coordinates, one more (an atomic per pair into counts), and many more
  // (on CUDA the teams' occupancy bound puts the scratch path's limit lower:
  // histogram_pair_sums asks team_size_max).
  const std::size_t staging =
      tdmaps::detail::tiled_staged<Space> ? tdmaps::detail::tiled_staging_bytes<double>() : 0;
  const int fit = static_cast<int>((static_cast<std::size_t>(tdmaps::detail::tiled_policy_t<Space>::scratch_size_max(0)) -
                                    staging - tdmaps::tile_scratch_alignment) /
                                   sizeof(std::uint32_t));
  const auto xd = points<double>(120, 7, 8);
  for (const int bins : {600, fit, fit + 1, 3 * fit + 5}) {
    check<double>("lambda", 120, 7, 32, xd, bins);
    check<double>("rb", 120, 7, 16, xd, bins, 2);
  }
}

TEST(TEST_CATEGORY, pair_sums_reject_bad_arguments) {
  using namespace tdmaps_pair_sums_test;
  const Kokkos::View<const float**, Kokkos::LayoutRight, Mem> x(Kokkos::View<float**, Kokkos::LayoutRight, Mem>("x", 10, 3));
  const Kokkos::View<const float**, Kokkos::LayoutRight, Mem> empty(Kokkos::View<float**, Kokkos::LayoutRight, Mem>("x", 10, 0));
  const tdmaps::LambdaMap<> map(tdmaps::Domain2(10, 16, Triangle::strict_lower));
  Counts counts("counts", 4), none("none", 0);
  index_t c = 0;
  EXPECT_THROW(tdmaps::reduce_pair_sums(Space(), tdmaps::LambdaMap<>(tdmaps::Domain2(10, 8, Triangle::strict_lower)), x,
                                        HashSum(), Kokkos::Sum<index_t>(c)),
               std::invalid_argument);
  EXPECT_THROW(tdmaps::reduce_pair_sums(Space(), tdmaps::LambdaMap<>(tdmaps::Domain2(11, 16, Triangle::strict_lower)),
                                        x, HashSum(), Kokkos::Sum<index_t>(c)),
               std::invalid_argument);
  EXPECT_THROW(tdmaps::reduce_pair_sums(Space(), map, empty, HashSum(), Kokkos::Sum<index_t>(c)), std::invalid_argument);
  EXPECT_THROW(tdmaps::reduce_pair_sums(Space(), map, tdmaps::OmegaRange{0, tdmaps::full_range(map).end + 1}, x,
                                        HashSum(), Kokkos::Sum<index_t>(c)),
               std::invalid_argument);
  EXPECT_THROW(tdmaps::histogram_pair_sums(Space(), map, x, HashBin{4}, none), std::invalid_argument);
  Kokkos::View<std::uint64_t*, Mem> rows("rows", 10), short_rows("rows", 9);
  using Min = tdmaps::RowMin<std::uint64_t>;
  EXPECT_THROW(tdmaps::reduce_rows_pair_sums<Min>(Space(), map, x, RowKey(), short_rows), std::invalid_argument);
  EXPECT_THROW(tdmaps::reduce_rows_pair_sums<Min>(Space(), tdmaps::LambdaMap<>(tdmaps::Domain2(10, 64, Triangle::strict_lower)),
                                                  x, RowKey(), rows),
               std::invalid_argument);
  EXPECT_THROW(tdmaps::reduce_rows_pair_sums<Min>(Space(), map, empty, RowKey(), rows), std::invalid_argument);
  EXPECT_THROW(tdmaps::reduce_rows_pair_sums<Min>(Space(), map, tdmaps::OmegaRange{0, tdmaps::full_range(map).end + 1},
                                                  x, RowKey(), rows),
               std::invalid_argument);
  EXPECT_THROW(tdmaps::histogram_pair_sums(Space(), tdmaps::BoundingBoxMap(tdmaps::Domain2(10, 64, Triangle::strict_lower)),
                                           x, HashBin{4}, counts),
               std::invalid_argument);
  EXPECT_THROW(tdmaps::histogram_pair_sums(Space(), map, tdmaps::OmegaRange{3, 2}, x, HashBin{4}, counts),
               std::invalid_argument);
}
