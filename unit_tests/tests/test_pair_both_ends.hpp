// Pair interactions that update both ends (launch/pair_both_ends.hpp) against
// host nested loops in fp64: an exact integer kernel that tells the two ends
// and the diagonal apart, a 3-D gravity-like force (a struct with its own
// atomic_add, a struct of reals through pair_value_reals, Kokkos::Array) and
// a scalar potential, for every block-space map, whole and by omega ranges;
// momentum conservation; no calls for n = 0 and 1.
#include "oracle.hpp"

#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tdmaps_pair_both_ends_test {

using tdmaps::index_t;
using tdmaps::PairDiagonal;
using tdmaps::Triangle;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;

/// A force with its own atomic add (found by pair_value_traits' SFINAE).
struct Force {
  double x, y, z;
  KOKKOS_FUNCTION Force& operator+=(const Force& o) {
    x += o.x;
    y += o.y;
    z += o.z;
    return *this;
  }
  KOKKOS_FUNCTION static void atomic_add(Force* dst, const Force& v) {
    Kokkos::atomic_add(&dst->x, v.x);
    Kokkos::atomic_add(&dst->y, v.y);
    Kokkos::atomic_add(&dst->z, v.z);
  }
};

/// A force and a potential: a plain struct of reals, no operator+=.
struct ForcePot {
  double x, y, z, pot;
};

}  // namespace tdmaps_pair_both_ends_test

template <>
struct tdmaps::pair_value_traits<tdmaps_pair_both_ends_test::ForcePot>
    : tdmaps::pair_value_reals<tdmaps_pair_both_ends_test::ForcePot, double> {};

namespace tdmaps_pair_both_ends_test {

using Array3 = Kokkos::Array<double, 3>;
using Pos = Kokkos::View<double* [4], Kokkos::LayoutRight, Mem>;  // x, y, z, mass

constexpr double eps2 = 1e-2;

/// Random bodies (fixed seed) on the device and on the host.
struct Bodies {
  Pos p;
  std::vector<double> h;  // n x 4
  index_t n = 0;
  unsigned seed = 0;
  Bodies(index_t n_, unsigned seed_) : p("p", static_cast<std::size_t>(n_)), h(static_cast<std::size_t>(4 * n_)), n(n_), seed(seed_) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0), m(0.5, 2.0);
    auto hm = Kokkos::create_mirror_view(p);
    for (index_t i = 0; i < n; ++i) {
      for (int c = 0; c < 3; ++c) h[std::size_t(4 * i + c)] = hm(i, c) = u(g);
      h[std::size_t(4 * i + 3)] = hm(i, 3) = m(g);
    }
    Kokkos::deep_copy(p, hm);
  }
};

/// The force of j on i (gravity-like, softened) and the pair potential;
/// written once for the device kernels and the host oracle.
KOKKOS_FORCEINLINE_FUNCTION void interact(const double* a, const double* b, double f[3], double& pot) {
  const double dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
  const double r2 = dx * dx + dy * dy + dz * dz + eps2;
  const double inv = 1.0 / tdmaps::intrinsics::sqrt_d(r2);
  const double mm = a[3] * b[3];
  const double s = mm * inv * inv * inv;
  f[0] = s * dx;
  f[1] = s * dy;
  f[2] = s * dz;
  pot = mm * inv;
}

KOKKOS_FORCEINLINE_FUNCTION void interact(const Pos& p, index_t i, index_t j, double f[3], double& pot) {
  const double a[4] = {p(i, 0), p(i, 1), p(i, 2), p(i, 3)};
  const double b[4] = {p(j, 0), p(j, 1), p(j, 2), p(j, 3)};
  interact(a, b, f, pot);
}

/// Antisymmetric force: +f to i, -f to j.
struct ForceKernel {
  Pos p;
  KOKKOS_FUNCTION void operator()(index_t i, index_t j, Force& fi, Force& fj) const {
    double f[3], pot;
    interact(p, i, j, f, pot);
    fi += Force{f[0], f[1], f[2]};
    fj += Force{-f[0], -f[1], -f[2]};
  }
};
struct ForcePotKernel {
  Pos p;
  KOKKOS_FUNCTION void operator()(index_t i, index_t j, ForcePot& a, ForcePot& b) const {
    double f[3], pot;
    interact(p, i, j, f, pot);
    a.x += f[0], a.y += f[1], a.z += f[2], a.pot += pot;
    b.x -= f[0], b.y -= f[1], b.z -= f[2], b.pot += pot;
  }
};
struct ArrayKernel {
  Pos p;
  KOKKOS_FUNCTION void operator()(index_t i, index_t j, Array3& a, Array3& b) const {
    double f[3], pot;
    interact(p, i, j, f, pot);
    for (int c = 0; c < 3; ++c) {
      a[c] += f[c];
      b[c] -= f[c];
    }
  }
};
/// The potential, the same to both ends.
struct PotKernel {
  Pos p;
  KOKKOS_FUNCTION void operator()(index_t i, index_t j, double& a, double& b) const {
    double f[3], pot;
    interact(p, i, j, f, pot);
    a += pot;
    b += pot;
  }
};
/// Exact and asymmetric: what i and what j get differ, and the diagonal shows.
struct IntKernel {
  KOKKOS_FUNCTION void operator()(index_t i, index_t j, std::int64_t& a, std::int64_t& b) const {
    a += 1000003 * i + j + 1;
    b += 7 * j + 3 * i + 5;
  }
};
/// Counts its calls.
struct CountKernel {
  Kokkos::View<int, Mem> calls;
  KOKKOS_FUNCTION void operator()(index_t, index_t, double& a, double& b) const {
    Kokkos::atomic_add(&calls(), 1);
    a += 1.0;
    b += 1.0;
  }
};

/// Kokkos 3 stores a View of Kokkos::Array member by member (its Array
/// specialisation, which deep_copy and mirrors do not take): copied through
/// these. LayoutRight: Kokkos 3.4 leaves the member stride of an allocated
/// LayoutLeft one (CUDA's default) at zero.
using ArrayView = Kokkos::View<Array3*, Kokkos::LayoutRight, Mem>;
struct ArrayIn {
  ArrayView arr;
  Kokkos::View<double* [3], Kokkos::LayoutRight, Mem> a3;
  KOKKOS_FUNCTION void operator()(index_t i) const {
    for (int c = 0; c < 3; ++c) arr(i)[c] = a3(i, c);
  }
};
struct ArrayOut {
  ArrayView arr;
  Kokkos::View<double* [3], Kokkos::LayoutRight, Mem> a3;
  KOKKOS_FUNCTION void operator()(index_t i) const {
    for (int c = 0; c < 3; ++c) a3(i, c) = arr(i)[c];
  }
};
inline Kokkos::View<double* [3], Kokkos::LayoutRight, Mem> arr_out(const ArrayView& arr) {
  Kokkos::View<double* [3], Kokkos::LayoutRight, Mem> a3("a3", arr.extent(0));
  Kokkos::parallel_for(Kokkos::RangePolicy<Space>(0, arr.extent(0)), ArrayOut{arr, a3});
  return a3;
}

/// The pairs a call visits: i > j, and i == j where the diagonal is included.
template <class F>
void each_pair(index_t n, bool diag, const F& f) {
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < (diag ? i + 1 : i); ++j) f(i, j);
}
bool with_diagonal(Triangle t, PairDiagonal d) { return t == Triangle::lower && d == PairDiagonal::include; }

/// Oracle of the force and potential: out starts from `start` (4 per body:
/// force, potential); `mag` sums the terms' magnitudes (the rounding bound).
struct Oracle {
  std::vector<double> want, mag;
  Oracle(const Bodies& b, bool diag, const std::vector<double>& start) : want(start), mag(start.size(), 0.0) {
    for (std::size_t k = 0; k < start.size(); ++k) mag[k] = std::fabs(start[k]);
    each_pair(b.n, diag, [&](index_t i, index_t j) {
      double f[3], pot;
      interact(&b.h[std::size_t(4 * i)], &b.h[std::size_t(4 * j)], f, pot);
      for (int c = 0; c < 3; ++c) {
        want[std::size_t(4 * i + c)] += f[c];
        want[std::size_t(4 * j + c)] -= f[c];
        mag[std::size_t(4 * i + c)] += std::fabs(f[c]);
        mag[std::size_t(4 * j + c)] += std::fabs(f[c]);
      }
      want[std::size_t(4 * i + 3)] += pot;
      want[std::size_t(4 * j + 3)] += pot;
      mag[std::size_t(4 * i + 3)] += std::fabs(pot);
      mag[std::size_t(4 * j + 3)] += std::fabs(pot);
    });
  }
};

/// fp64 sums in another order: within 1e-12 of the terms' magnitude.
inline bool close(double got, double want, double mag) { return std::fabs(got - want) <= 1e-12 * mag + 1e-300; }

/// Random start values (never test on zeros).
std::vector<double> start_values(index_t n, unsigned seed) {
  std::mt19937_64 g(seed * 7919u + 1u);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::vector<double> s(std::size_t(4 * n));
  for (auto& v : s) v = u(g);
  return s;
}

/// Runs `run(kernel, out)` (the whole, or the parts of a range split) for
/// every value form and compares with the oracle; with momentum, also checks
/// that the forces add up to the start values' sum.
template <class Run>
void check_values(const Bodies& b, bool diag, const std::string& what, const Run& run) {
  const index_t n = b.n;
  const std::size_t un = static_cast<std::size_t>(n);
  const std::vector<double> start = start_values(n, b.seed);
  const Oracle o(b, diag, start);
  Kokkos::View<Force*, Mem> force("force", un);
  Kokkos::View<ForcePot*, Mem> fp("fp", un);
  ArrayView arr("arr", un);
  Kokkos::View<double*, Mem> pot("pot", un);
  {
    auto hf = Kokkos::create_mirror_view(force);
    auto hfp = Kokkos::create_mirror_view(fp);
    Kokkos::View<double* [3], Kokkos::LayoutRight, Mem> a3("a3", un);
    auto ha = Kokkos::create_mirror_view(a3);
    auto hp = Kokkos::create_mirror_view(pot);
    for (std::size_t i = 0; i < un; ++i) {
      const double* s = &start[4 * i];
      hf(i) = Force{s[0], s[1], s[2]};
      hfp(i) = ForcePot{s[0], s[1], s[2], s[3]};
      for (int c = 0; c < 3; ++c) ha(i, c) = s[c];
      hp(i) = s[3];
    }
    Kokkos::deep_copy(force, hf);
    Kokkos::deep_copy(fp, hfp);
    Kokkos::deep_copy(a3, ha);
    Kokkos::parallel_for(Kokkos::RangePolicy<Space>(0, n), ArrayIn{arr, a3});
    Kokkos::deep_copy(pot, hp);
  }
  run(ForceKernel{b.p}, force);
  run(ForcePotKernel{b.p}, fp);
  run(ArrayKernel{b.p}, arr);
  run(PotKernel{b.p}, pot);
  Space().fence();
  auto hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), force);
  auto hfp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fp);
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), arr_out(arr));
  auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), pot);
  int bad = 0;
  const auto expect = [&](const char* form, std::size_t i, int c, double got) {
    const std::size_t k = 4 * i + std::size_t(c);
    if (bad < 4 && !close(got, o.want[k], o.mag[k])) {
      ++bad;
      ADD_FAILURE() << what << ": " << form << "(" << i << ")[" << c << "] = " << got << ", oracle " << o.want[k]
                    << " (seed " << b.seed << ")";
    }
  };
  double momentum[3] = {0, 0, 0}, start_sum[3] = {0, 0, 0}, mag[3] = {0, 0, 0};
  for (std::size_t i = 0; i < un; ++i) {
    const double f[3] = {hf(i).x, hf(i).y, hf(i).z};
    for (int c = 0; c < 3; ++c) {
      expect("force", i, c, f[c]);
      momentum[c] += f[c];
      start_sum[c] += start[4 * i + std::size_t(c)];
      mag[c] += o.mag[4 * i + std::size_t(c)];
    }
    expect("forcepot", i, 0, hfp(i).x);
    expect("forcepot", i, 1, hfp(i).y);
    expect("forcepot", i, 2, hfp(i).z);
    expect("forcepot", i, 3, hfp(i).pot);
    for (int c = 0; c < 3; ++c) expect("array", i, c, ha(i, c));
    expect("potential", i, 3, hp(i));
  }
  // Momentum: the antisymmetric forces add nothing to the sum of the start values.
  for (int c = 0; c < 3; ++c)
    EXPECT_LE(std::fabs(momentum[c] - start_sum[c]), 1e-12 * mag[c] + 1e-300) << what << ": momentum " << c;
}

/// The exact integer kernel against its oracle, out pre-filled with i * 11 - 5.
template <class Run>
void check_exact(index_t n, bool diag, const std::string& what, const Run& run) {
  const std::size_t un = static_cast<std::size_t>(n);
  std::vector<std::int64_t> want(un);
  for (std::size_t i = 0; i < un; ++i) want[i] = std::int64_t(i) * 11 - 5;
  Kokkos::View<std::int64_t*, Mem> out("out", un);
  {
    auto h = Kokkos::create_mirror_view(out);
    for (std::size_t i = 0; i < un; ++i) h(i) = want[i];
    Kokkos::deep_copy(out, h);
  }
  each_pair(n, diag, [&](index_t i, index_t j) {
    want[std::size_t(i)] += 1000003 * i + j + 1;
    want[std::size_t(j)] += 7 * j + 3 * i + 5;
  });
  run(IntKernel{}, out);
  Space().fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  int bad = 0;
  for (std::size_t i = 0; i < un && bad < 4; ++i)
    if (h(i) != want[i]) {
      ++bad;
      ADD_FAILURE() << what << ": out(" << i << ") = " << h(i) << ", oracle " << want[i];
    }
}

template <class Map>
std::string describe(const Map& map, PairDiagonal d, int parts, const tdmaps::LaunchHints& hints) {
  return std::string(Map::name) + " n = " + std::to_string(map.domain.n) + " rho = " + std::to_string(map.domain.rho) +
         (map.domain.triangle == Triangle::lower ? " lower" : " strict") +
         (d == PairDiagonal::include ? " include" : " exclude") + " parts = " + std::to_string(parts) +
         " blocks_per_team = " + std::to_string(hints.blocks_per_team);
}

/// Whole domain (parts = 0) or the parts of omega_range(map, p, parts).
template <class Map>
void check_map(const Map& map, const Bodies& b, PairDiagonal d, int parts, const tdmaps::LaunchHints& hints = {},
               bool values = true) {
  const bool diag = with_diagonal(map.domain.triangle, d);
  const std::string what = describe(map, d, parts, hints);
  const auto run = [&](const auto& kernel, const auto& out) {
    if (parts == 0) {
      tdmaps::for_each_pair_both_ends(Space(), map, kernel, out, d, "t", hints);
    } else if constexpr (!tdmaps::is_multi_launch_map_v<Map>) {
      for (int p = 0; p < parts; ++p)
        tdmaps::for_each_pair_both_ends(Space(), map, tdmaps::omega_range(map, p, parts), kernel, out, d, "t", hints);
    }
  };
  check_exact(map.domain.n, diag, what, run);
  if (values) check_values(b, diag, what, run);
}

template <class F>
void each_map(index_t n, int rho, Triangle t, const F& f) {
  f(tdmaps::BoundingBoxMap(n, rho, t));
  f(tdmaps::LambdaMap<>(n, rho, t));
  f(tdmaps::RectangularBoxMap(n, rho, t));
  f(tdmaps::RecursiveMap(n, rho, t));
  f(tdmaps::HadoukenMap(n, rho, t));
}

}  // namespace tdmaps_pair_both_ends_test

using namespace tdmaps_pair_both_ends_test;

TEST(TEST_CATEGORY, pair_both_ends_match_the_oracle_for_every_map) {
  std::vector<index_t> sides;
  for (index_t n = 0; n <= 40; ++n) sides.push_back(n);
  for (index_t n : {53, 97, 127, 257}) sides.push_back(n);
  for (const index_t n : sides) {
    const Bodies b(n, 1000u + static_cast<unsigned>(n));
    for (int rho : {8, 16, 32})
      for (Triangle t : {Triangle::lower, Triangle::strict_lower})
        for (PairDiagonal d : {PairDiagonal::exclude, PairDiagonal::include})
          each_map(n, rho, t, [&](const auto& map) { check_map(map, b, d, 0, {}, n <= 40 ? rho != 16 : true); });
  }
}

TEST(TEST_CATEGORY, pair_both_ends_by_omega_ranges_equal_the_whole) {
  for (index_t n : {1, 45, 130, 257}) {
    const Bodies b(n, 77u + static_cast<unsigned>(n));
    for (int rho : {8, 32})
      for (Triangle t : {Triangle::lower, Triangle::strict_lower})
        for (PairDiagonal d : {PairDiagonal::exclude, PairDiagonal::include})
          for (int parts = 1; parts <= 40; parts += (parts < 8 ? 1 : 5)) {
            check_map(tdmaps::BoundingBoxMap(n, rho, t), b, d, parts, {}, parts % 3 == 1);
            check_map(tdmaps::LambdaMap<>(n, rho, t), b, d, parts, {}, parts % 3 == 1);
          }
  }
}

TEST(TEST_CATEGORY, pair_both_ends_hold_for_blocks_per_team) {
  // Several consecutive blocks per team: the row sums carried over a block row's blocks.
  const Bodies b(197, 5u);
  for (int rho : {8, 16, 32})
    for (int k : {2, 3, 7, 64, 1024})
      for (PairDiagonal d : {PairDiagonal::exclude, PairDiagonal::include}) {
        const tdmaps::LaunchHints hints{0, k};
        each_map(197, rho, Triangle::lower, [&](const auto& map) { check_map(map, b, d, 0, hints); });
        check_map(tdmaps::LambdaMap<>(197, rho, Triangle::strict_lower), b, d, 3, hints);
        check_map(tdmaps::BoundingBoxMap(197, rho, Triangle::lower), b, d, 5, hints);
      }
}

TEST(TEST_CATEGORY, pair_both_ends_call_nothing_below_two_points) {
  for (index_t n : {0, 1}) {
    for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
      for (PairDiagonal d : {PairDiagonal::exclude, PairDiagonal::include}) {
        each_map(n, 8, t, [&](const auto& map) {
          Kokkos::View<int, Mem> calls("calls");
          Kokkos::View<double*, Mem> out("out", static_cast<std::size_t>(n));
          Kokkos::deep_copy(out, -0.0);  // an added zero would turn it into +0
          tdmaps::for_each_pair_both_ends(Space(), map, CountKernel{calls}, out, d);
          Space().fence();
          auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), calls);
          auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
          const bool diag = with_diagonal(t, d) && n == 1;
          const std::string what = describe(map, d, 0, {});
          EXPECT_EQ(c(), diag ? 1 : 0) << what;
          if (n == 1) {
            if (diag)
              EXPECT_EQ(h(0), 2.0) << what;  // to_i and to_j both go to out(0)
            else
              EXPECT_TRUE(h(0) == 0.0 && std::signbit(h(0))) << what << ": out(0) = " << h(0);
          }
        });
      }
    }
  }
}

TEST(TEST_CATEGORY, pair_both_ends_reject_bad_arguments) {
  const tdmaps::LambdaMap<> lam(10, 8);
  Kokkos::View<double*, Mem> small("small", 9);
  Kokkos::View<double*, Mem> out("out", 10);
  const Bodies b(10, 3u);
  EXPECT_THROW(tdmaps::for_each_pair_both_ends(Space(), lam, PotKernel{b.p}, small), std::invalid_argument);
  EXPECT_THROW(tdmaps::for_each_pair_both_ends(Space(), lam, tdmaps::OmegaRange{0, lam.league_size() + 1},
                                               PotKernel{b.p}, out),
               std::invalid_argument);
  EXPECT_THROW(tdmaps::for_each_pair_both_ends(Space(), lam, PotKernel{b.p}, out, PairDiagonal::exclude, "t",
                                               tdmaps::LaunchHints{0, -1}),
               std::invalid_argument);
}
