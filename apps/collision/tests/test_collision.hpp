// The collision app (<tdmaps/collision.hpp>, apps/collision/include) against an independent
// oracle: a host fp64 nested loop over the strict lower triangle. Every result
// (count, bit flags, row-aligned and tiled bit flags, pair list, int flags)
// of every map (tile kernel: the block-space maps; element kernel: every map,
// UTM included) for rho 8/16/32, 1-D and 3-D, dense and sparse radii, several
// n; outputs poisoned first.
#include "oracle.hpp"

#include <tdmaps/collision.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <bitset>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace tc = tdmaps::collision;
using tdmaps::index_t;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;

/// The oracle: which packed pairs collide, by the plain definition in fp64.
struct Expected {
  std::vector<std::uint8_t> mask;  ///< per packed pair (i, j), j < i
  index_t count = 0;
};

Expected oracle(const std::vector<float>& s, int dims) {
  const index_t n = static_cast<index_t>(s.size() / 4);
  Expected e;
  e.mask.assign(static_cast<std::size_t>(n > 1 ? n * (n - 1) / 2 : 0), 0);
  std::size_t p = 0;
  for (index_t i = 1; i < n; ++i) {
    for (index_t j = 0; j < i; ++j, ++p) {
      const double dx = double(s[4 * i]) - double(s[4 * j]);
      const double dy = double(s[4 * i + 1]) - double(s[4 * j + 1]);
      const double dz = double(s[4 * i + 2]) - double(s[4 * j + 2]);
      const double reach = double(s[4 * i + 3]) + double(s[4 * j + 3]);
      const bool hit = dims == 1 ? std::fabs(dx) < reach : std::sqrt(dx * dx + dy * dy + dz * dz) < reach;
      e.mask[p] = hit ? 1 : 0;
      e.count += hit ? 1 : 0;
    }
  }
  return e;
}

template <class V>
auto to_host(const V& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

/// Runs every Result of collide() for one map and kernel; "" when all agree
/// with the oracle, else the first differences.
template <class Map>
std::string check_all_results(const tc::ConstSpheres<Mem>& spheres, const Map& map, tc::Kernel kernel,
                              const Expected& e, const tdmaps::LaunchHints& hints = tdmaps::LaunchHints()) {
  std::ostringstream err;
  const index_t n = static_cast<index_t>(spheres.extent(0));
  const index_t np = tc::pair_count(n);
  tc::Output<Mem> out;

  // count
  const index_t c = tc::collide(Space(), spheres, map, tc::Result::count, kernel, out, hints);
  if (c != e.count) err << "count " << c << " != " << e.count << "; ";

  // bit flags, poisoned
  out.flags = Kokkos::View<std::uint32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "flags"),
                                                static_cast<std::size_t>(tc::flag_words(n)));
  Kokkos::deep_copy(Space(), out.flags, 0xA5A5A5A5u);
  const index_t cf = tc::collide(Space(), spheres, map, tc::Result::flags, kernel, out, hints);
  if (cf != e.count) err << "flags count " << cf << " != " << e.count << "; ";
  {
    auto w = to_host(out.flags);
    std::vector<std::uint32_t> want(static_cast<std::size_t>(tc::flag_words(n)), 0u);
    for (index_t p = 0; p < np; ++p)
      if (e.mask[static_cast<std::size_t>(p)]) want[static_cast<std::size_t>(p >> 5)] |= 1u << (p & 31);
    int bad = 0;
    for (std::size_t k = 0; k < want.size() && bad < 3; ++k)
      if (w(k) != want[k]) {
        err << "flag word " << k << " = " << std::hex << w(k) << " != " << want[k] << std::dec << "; ";
        ++bad;
      }
  }

  // row-aligned bit flags, poisoned
  out.rowflags = Kokkos::View<std::uint32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rowflags"),
                                                   static_cast<std::size_t>(tc::row_flag_words(n)));
  Kokkos::deep_copy(Space(), out.rowflags, 0x5A5A5A5Au);
  const index_t cr = tc::collide(Space(), spheres, map, tc::Result::rowflags, kernel, out, hints);
  if (cr != e.count) err << "rowflags count " << cr << " != " << e.count << "; ";
  {
    auto w = to_host(out.rowflags);
    // Independent of row_flag_word: the rows' words counted one by one.
    std::vector<std::uint32_t> want;
    std::size_t p = 0;
    for (index_t i = 1; i < n; ++i) {
      const std::size_t first = want.size();
      want.resize(first + static_cast<std::size_t>((i + 31) / 32), 0u);
      for (index_t j = 0; j < i; ++j, ++p)
        if (e.mask[p]) want[first + static_cast<std::size_t>(j / 32)] |= 1u << (j % 32);
    }
    if (w.extent(0) != want.size()) err << "rowflags has " << w.extent(0) << " words, rows need " << want.size() << "; ";
    int bad = 0;
    for (std::size_t k = 0; k < want.size() && k < w.extent(0) && bad < 3; ++k)
      if (w(k) != want[k]) {
        err << "row flag word " << k << " = " << std::hex << w(k) << " != " << want[k] << std::dec << "; ";
        ++bad;
      }
  }

  // tiled bit flags, poisoned: every word must be stored, the zeros of rows
  // past n and of the diagonal tiles' upper halves (j >= i) included
  out.tileflags = Kokkos::View<std::uint32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tileflags"),
                                                    static_cast<std::size_t>(tc::tile_flag_words(n)));
  Kokkos::deep_copy(Space(), out.tileflags, 0x3C3C3C3Cu);
  const index_t ct = tc::collide(Space(), spheres, map, tc::Result::tileflags, kernel, out, hints);
  if (ct != e.count) err << "tileflags count " << ct << " != " << e.count << "; ";
  {
    auto w = to_host(out.tileflags);
    // Independent of tile_flag_word: tiles (I, J), J <= I, counted in order,
    // 32 words each (rows 32 I + r), until the tile row of row n - 1.
    std::vector<std::uint32_t> want;
    std::vector<index_t> tile_i, tile_j;  // the tile of each word, for the message
    for (index_t I = 0; n > 1 && 32 * I < n; ++I)
      for (index_t J = 0; J <= I; ++J)
        for (index_t r = 0; r < 32; ++r) {
          const index_t i = 32 * I + r;
          std::uint32_t word = 0;
          for (index_t b = 0; b < 32; ++b) {
            const index_t j = 32 * J + b;
            if (j < i && i < n && e.mask[static_cast<std::size_t>(i * (i - 1) / 2 + j)]) word |= 1u << b;
          }
          want.push_back(word);
          tile_i.push_back(I);
          tile_j.push_back(J);
        }
    if (w.extent(0) != want.size()) err << "tileflags has " << w.extent(0) << " words, tiles need " << want.size() << "; ";
    int bad = 0;
    for (std::size_t k = 0; k < want.size() && k < w.extent(0) && bad < 3; ++k)
      if (w(k) != want[k]) {
        err << "tile flag word " << k << " (tile " << tile_i[k] << "," << tile_j[k] << ", row " << 32 * tile_i[k] + index_t(k % 32)
            << ") = " << std::hex << w(k) << " != " << want[k] << std::dec << "; ";
        ++bad;
      }
  }

  // int flags, poisoned
  out.intflags = Kokkos::View<std::int32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "intflags"),
                                                  static_cast<std::size_t>(np));
  Kokkos::deep_copy(Space(), out.intflags, -7);
  const index_t ci = tc::collide(Space(), spheres, map, tc::Result::intflags, kernel, out, hints);
  if (ci != e.count) err << "intflags count " << ci << " != " << e.count << "; ";
  {
    auto f = to_host(out.intflags);
    int bad = 0;
    for (index_t p = 0; p < np && bad < 3; ++p)
      if (f(p) != e.mask[static_cast<std::size_t>(p)]) {
        err << "intflag " << p << " = " << f(p) << " != " << int(e.mask[static_cast<std::size_t>(p)]) << "; ";
        ++bad;
      }
  }

  // pair list: a stale, poisoned view of the wrong size must be replaced
  out.pairs = tc::PairList<Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "stale"), 3);
  // (Execution-space deep copies throughout: a Serial test must not wake the
  // default host space's threads.)
  Kokkos::deep_copy(Space(), out.pairs, std::int64_t(-5));
  const index_t cp = tc::collide(Space(), spheres, map, tc::Result::pairs, kernel, out, hints);
  if (cp != e.count) err << "pairs count " << cp << " != " << e.count << "; ";
  if (static_cast<index_t>(out.pairs.extent(0)) != e.count) {
    err << "pair list has " << out.pairs.extent(0) << " rows, want " << e.count << "; ";
  } else {
    auto pl = to_host(out.pairs);
    index_t k = 0, p = 0;
    int bad = 0;
    for (index_t i = 1; i < n && bad < 3; ++i)
      for (index_t j = 0; j < i && bad < 3; ++j, ++p)
        if (e.mask[static_cast<std::size_t>(p)]) {
          if (pl(k, 0) != i || pl(k, 1) != j) {
            err << "pair " << k << " = (" << pl(k, 0) << "," << pl(k, 1) << ") != (" << i << "," << j << "); ";
            ++bad;
          }
          ++k;
        }
  }
  return err.str();
}

/// f(map, kernel) for each block-space map with the tile kernel, every map
/// (UTM included) with the element kernel, and the linear kernel.
template <class F>
void for_each_map_and_kernel(index_t n, int rho, F&& f) {
  const auto t = tdmaps::Triangle::strict_lower;
  f(tdmaps::BoundingBoxMap(n, rho, t), tc::Kernel::tile);
  f(tdmaps::LambdaMap<>(n, rho, t), tc::Kernel::tile);
  f(tdmaps::RectangularBoxMap(n, rho, t), tc::Kernel::tile);
  f(tdmaps::RecursiveMap(n, rho, t), tc::Kernel::tile);
  f(tdmaps::HadoukenMap(n, rho, t), tc::Kernel::tile);
  f(tdmaps::BoundingBoxMap(n, rho, t), tc::Kernel::element);
  f(tdmaps::LambdaMap<>(n, rho, t), tc::Kernel::element);
  f(tdmaps::RectangularBoxMap(n, rho, t), tc::Kernel::element);
  f(tdmaps::RecursiveMap(n, rho, t), tc::Kernel::element);
  f(tdmaps::HadoukenMap(n, rho, t), tc::Kernel::element);
  f(tdmaps::UpperTriangularMap(n, rho, t), tc::Kernel::element);
  f(tdmaps::LambdaMap<>(n, rho, t), tc::Kernel::linear);  // uses the domain only
}

void check_against_oracle(int dims, tc::Density density, std::uint64_t seed) {
  const tc::RadiusRange radii = tc::default_radii(dims, density);
  for (index_t n : {2, 3, 31, 32, 33, 100, 257, 1000}) {
    const std::vector<float> host = tc::random_spheres_host(n, dims, radii, seed + static_cast<std::uint64_t>(n));
    const Expected e = oracle(host, dims);
    if (density == tc::Density::dense && n >= 100) {
      ASSERT_GT(e.count, 0) << "dense radii should give collisions; n = " << n << ", seed = " << seed + n;
    }
    const tc::ConstSpheres<Mem> spheres = tc::to_device(Space(), host);
    int turn = 0;
    for (int rho : {8, 16, 32}) {
      for_each_map_and_kernel(n, rho, [&](const auto& map, tc::Kernel kernel) {
        // Blocks per team in turn: the default, one (the papers'), and 3 and 7
        // (teams that end part-way through the league, a barrier between blocks).
        tdmaps::LaunchHints hints;
        hints.blocks_per_team = std::vector<int>{0, 1, 3, 7}[static_cast<std::size_t>(turn++ % 4)];
        const std::string err = check_all_results(spheres, map, kernel, e, hints);
        EXPECT_TRUE(err.empty()) << "map " << map.name << ", kernel " << tc::name(kernel) << ", dims " << dims << ", "
                                 << tc::name(density) << ", n = " << n << ", rho = " << rho
                                 << ", blocks_per_team = " << hints.blocks_per_team
                                 << ", seed = " << seed + static_cast<std::uint64_t>(n) << ": " << err;
      });
    }
  }
}

}  // namespace

TEST(TEST_CATEGORY, collision_3d_dense_matches_oracle) { check_against_oracle(3, tc::Density::dense, 1001); }
TEST(TEST_CATEGORY, collision_3d_sparse_matches_oracle) { check_against_oracle(3, tc::Density::sparse, 2002); }
TEST(TEST_CATEGORY, collision_1d_dense_matches_oracle) { check_against_oracle(1, tc::Density::dense, 3003); }
TEST(TEST_CATEGORY, collision_1d_sparse_matches_oracle) { check_against_oracle(1, tc::Density::sparse, 4004); }

// Touching spheres do not collide; one grid step closer, they do. The centres
// (0, 0, 0) and (0.375, 0.5, 0) are 0.625 apart exactly.
// Int flags whose first entry sits off the 32-byte grid (views into a larger
// buffer at 1, 3 and 5 ints): the GPU tile kernel takes each row's pairs in
// chunks aligned to the ints' addresses, so these shifts move the chunks to
// other columns; the entries before and after the view must stay untouched.
TEST(TEST_CATEGORY, collision_intflags_off_the_sector_grid) {
  const index_t n = 300;
  const std::vector<float> host = tc::random_spheres_host(n, 3, tc::default_radii(3, tc::Density::dense), 5005);
  const Expected e = oracle(host, 3);
  const tc::ConstSpheres<Mem> spheres = tc::to_device(Space(), host);
  const index_t np = tc::pair_count(n);
  for (const int shift : {1, 3, 5})
    for (const int rho : {8, 32})
      for (const auto kernel : {tc::Kernel::tile, tc::Kernel::linear}) {
        Kokkos::View<std::int32_t*, Mem> buf(Kokkos::view_alloc(Kokkos::WithoutInitializing, "intflags_buffer"),
                                             static_cast<std::size_t>(np + shift + 1));
        Kokkos::deep_copy(Space(), buf, -7);
        tc::Output<Mem> out;
        out.intflags = Kokkos::View<std::int32_t*, Mem>(buf.data() + shift, static_cast<std::size_t>(np));
        const index_t c = tc::collide(Space(), spheres, tdmaps::LambdaMap<>(n, rho, tdmaps::Triangle::strict_lower),
                                      tc::Result::intflags, kernel, out);
        const std::string where = "shift " + std::to_string(shift) + ", rho " + std::to_string(rho) + ", kernel " +
                                  tc::name(kernel);
        EXPECT_EQ(c, e.count) << where;
        auto h = to_host(buf);
        int bad = 0;
        for (index_t p = 0; p < np && bad < 3; ++p)
          if (h(static_cast<std::size_t>(p + shift)) != e.mask[static_cast<std::size_t>(p)]) {
            ADD_FAILURE() << where << ": intflag " << p << " = " << h(static_cast<std::size_t>(p + shift));
            ++bad;
          }
        for (int k = 0; k < shift; ++k) EXPECT_EQ(h(static_cast<std::size_t>(k)), -7) << where;
        EXPECT_EQ(h(static_cast<std::size_t>(np + shift)), -7) << where;
      }
}

TEST(TEST_CATEGORY, collision_touching_is_not_a_collision) {
  const float step = 1.0f / 16777216.0f;
  const std::vector<float> host = {
      0.0f,   0.0f, 0.0f, 0.25f,          // 0
      0.375f, 0.5f, 0.0f, 0.375f,         // 1: touches 0
      0.0f,   0.0f, 0.625f, 0.375f + step,  // 2: overlaps 0 by one grid step
      0.75f,  0.0f, 0.0f, 0.5f,           // 3: touches 0 (0.75 = 0.25 + 0.5)
  };
  const Expected e = oracle(host, 3);
  // (1,0) touch: 0; (2,0) 0.625 < 0.625 + step: 1; (2,1) 0.884 vs 0.75 + step: 0;
  // (3,0) touch: 0; (3,1) 0.625 vs 0.875: 1; (3,2) 0.976 vs 0.875 + step: 0.
  ASSERT_EQ(e.mask, (std::vector<std::uint8_t>{0, 1, 0, 0, 1, 0}));
  const tc::ConstSpheres<Mem> spheres = tc::to_device(Space(), host);
  for_each_map_and_kernel(4, 8, [&](const auto& map, tc::Kernel kernel) {
    EXPECT_EQ(check_all_results(spheres, map, kernel, e), "") << map.name << " " << tc::name(kernel);
  });
  // 1-D: intervals [0 +- 0.25] and [0.5 +- 0.25] touch; with one step more they overlap.
  const std::vector<float> line = {0.0f, 0, 0, 0.25f, 0.5f, 0, 0, 0.25f, 0.5f, 0, 0, 0.25f + step};
  const Expected e1 = oracle(line, 1);
  ASSERT_EQ(e1.mask, (std::vector<std::uint8_t>{0, 1, 1}));
  const tc::ConstSpheres<Mem> s1 = tc::to_device(Space(), line);
  EXPECT_EQ(check_all_results(s1, tdmaps::LambdaMap<>(3, 8, tdmaps::Triangle::strict_lower), tc::Kernel::tile, e1), "");
  EXPECT_EQ(check_all_results(s1, tdmaps::UpperTriangularMap(3, 8, tdmaps::Triangle::strict_lower), tc::Kernel::element, e1),
            "");
}

// Thousands of exact and near ties, spread over whole blocks: 343 spheres on
// a 7 x 7 x 7 grid of step 2^-4 (shuffled, fixed seed), radius 2^-5, so grid
// neighbours touch exactly (no collision); every third sphere has its radius
// one 2^-24 step larger, so its neighbours overlap by that step (a
// collision). Each such pair is a near tie for the fp32 filters (gap ~ 2^-27
// against bounds ~ 2^-23), decided in fp64 by every kernel; on CUDA the
// tile kernel's whole-block walk redoes those lanes.
TEST(TEST_CATEGORY, collision_grid_of_exact_and_near_ties) {
  const int side = 7;
  const float step = 0x1p-4f, radius = 0x1p-5f;
  std::vector<float> host;
  for (int a = 0; a < side; ++a)
    for (int b = 0; b < side; ++b)
      for (int c = 0; c < side; ++c) {
        const bool grown = (a * side * side + b * side + c) % 3 == 0;
        host.insert(host.end(), {a * step, b * step, c * step, grown ? radius + 0x1p-24f : radius});
      }
  const index_t n = static_cast<index_t>(host.size() / 4);
  std::vector<index_t> order(static_cast<std::size_t>(n));
  for (index_t k = 0; k < n; ++k) order[static_cast<std::size_t>(k)] = k;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(6006));
  std::vector<float> shuffled(host.size());
  for (index_t k = 0; k < n; ++k)
    for (int c = 0; c < 4; ++c)
      shuffled[static_cast<std::size_t>(4 * k + c)] = host[static_cast<std::size_t>(4 * order[static_cast<std::size_t>(k)] + c)];
  const Expected e = oracle(shuffled, 3);
  // Neighbour pairs: 3 * 6 * 49 = 882; those with a grown sphere collide.
  index_t touching = 0;
  for (index_t i = 1; i < n; ++i)
    for (index_t j = 0; j < i; ++j) {
      const float* p = &shuffled[static_cast<std::size_t>(4 * i)];
      const float* q = &shuffled[static_cast<std::size_t>(4 * j)];
      const double d2 = (double(p[0]) - q[0]) * (double(p[0]) - q[0]) + (double(p[1]) - q[1]) * (double(p[1]) - q[1]) +
                        (double(p[2]) - q[2]) * (double(p[2]) - q[2]);
      if (d2 == double(step) * step) ++touching;
    }
  ASSERT_EQ(touching, 882);
  ASSERT_GT(e.count, 300);
  ASSERT_LT(e.count, touching);
  const tc::ConstSpheres<Mem> spheres = tc::to_device(Space(), shuffled);
  for (const int rho : {8, 32})
    for_each_map_and_kernel(n, rho, [&](const auto& map, tc::Kernel kernel) {
      EXPECT_EQ(check_all_results(spheres, map, kernel, e), "") << map.name << " " << tc::name(kernel) << " rho " << rho;
    });
}

// Every pair collides (all radii 1): the list holds all T(n - 1) pairs, in
// order, with both kernels; a cap below the count throws instead of truncating.
TEST(TEST_CATEGORY, collision_pair_list_never_truncates) {
  const index_t n = 1000;
  std::vector<float> host = tc::random_spheres_host(n, 3, {1.0, 1.0}, 77);
  const Expected e = oracle(host, 3);
  ASSERT_EQ(e.count, tc::pair_count(n));
  const tc::ConstSpheres<Mem> spheres = tc::to_device(Space(), host);
  const tdmaps::LambdaMap<> lambda(n, 32, tdmaps::Triangle::strict_lower);
  EXPECT_EQ(check_all_results(spheres, lambda, tc::Kernel::tile, e), "");
  EXPECT_EQ(check_all_results(spheres, tdmaps::UpperTriangularMap(n, 8, tdmaps::Triangle::strict_lower),
                              tc::Kernel::element, e),
            "");
  tc::Output<Mem> out;
  out.max_pairs = tc::pair_count(n) - 1;
  EXPECT_THROW(tc::collide(Space(), spheres, lambda, tc::Result::pairs, tc::Kernel::tile, out), std::length_error);
  EXPECT_EQ(out.pairs.extent(0), 0u) << "nothing may be written when the cap is exceeded";
  out.max_pairs = tc::pair_count(n);
  EXPECT_EQ(tc::collide(Space(), spheres, lambda, tc::Result::pairs, tc::Kernel::tile, out), tc::pair_count(n));
  EXPECT_EQ(static_cast<index_t>(out.pairs.extent(0)), tc::pair_count(n));
}

// n = 0 and 1: no pairs, count 0, and no words of any of the bit flags (the
// sizes are checked by check_all_results).
TEST(TEST_CATEGORY, collision_no_pairs_for_n_0_and_1) {
  for (index_t n : {0, 1}) {
    const std::vector<float> host = tc::random_spheres_host(n, 3, tc::default_radii(3, tc::Density::dense), 5);
    const tc::ConstSpheres<Mem> spheres = tc::to_device(Space(), host);
    const Expected e = oracle(host, 3);
    EXPECT_EQ(check_all_results(spheres, tdmaps::LambdaMap<>(n, 16, tdmaps::Triangle::strict_lower), tc::Kernel::tile, e),
              "")
        << "n = " << n;
    EXPECT_EQ(check_all_results(spheres, tdmaps::UpperTriangularMap(n, 16, tdmaps::Triangle::strict_lower),
                                tc::Kernel::element, e),
              "")
        << "n = " << n;
  }
}

namespace {
template <class Fn>
std::string thrown_message(Fn&& fn) {
  try {
    fn();
  } catch (const std::invalid_argument& ex) {
    return ex.what();
  }
  return "(nothing thrown)";
}
}  // namespace

TEST(TEST_CATEGORY, collision_rejects_bad_input_naming_it) {
  const auto t = tdmaps::Triangle::strict_lower;
  std::vector<float> host = tc::random_spheres_host(40, 3, tc::default_radii(3, tc::Density::dense), 9);
  tc::Output<Mem> out;
  {
    std::vector<float> bad = host;
    bad[4 * 17 + 3] = std::nanf("");
    const tc::ConstSpheres<Mem> s = tc::to_device(Space(), bad);
    const std::string m =
        thrown_message([&] { tc::collide(Space(), s, tdmaps::LambdaMap<>(40, 8, t), tc::Result::count, tc::Kernel::tile, out); });
    EXPECT_NE(m.find("row 17"), std::string::npos) << m;
    EXPECT_NE(m.find("radius"), std::string::npos) << m;
  }
  {
    std::vector<float> bad = host;
    bad[4 * 5 + 3] = -0.5f;
    bad[4 * 30 + 1] = INFINITY;
    const tc::ConstSpheres<Mem> s = tc::to_device(Space(), bad);
    const std::string m =
        thrown_message([&] { tc::collide(Space(), s, tdmaps::BoundingBoxMap(40, 8, t), tc::Result::count, tc::Kernel::tile, out); });
    EXPECT_NE(m.find("row 5"), std::string::npos) << m;
    EXPECT_NE(m.find("negative"), std::string::npos) << m;
  }
  // Outputs written only by the kernel stay untouched when the input is
  // rejected, whichever way the check runs (on tile paths that write
  // nothing before the kernel it runs on the device ahead of it, whose
  // teams then take no block): every kernel, block sides 8 and 32, the
  // first bad row named. The same Output then serves good input: its
  // counters and the check's result are reset by every call.
  const Expected good = oracle(host, 3);
  for (const int rho : {8, 32}) {
    for (const tc::Kernel kernel : {tc::Kernel::tile, tc::Kernel::element, tc::Kernel::linear}) {
      std::vector<float> bad = host;
      bad[4 * 33 + 0] = INFINITY;
      bad[4 * 36 + 2] = std::nanf("");
      const tc::ConstSpheres<Mem> s = tc::to_device(Space(), bad);
      const tdmaps::LambdaMap<> map(40, rho, t);
      tc::Output<Mem> o;
      o.intflags = Kokkos::View<std::int32_t*, Mem>("intflags", static_cast<std::size_t>(tc::pair_count(40)));
      o.rowflags = Kokkos::View<std::uint32_t*, Mem>("rowflags", static_cast<std::size_t>(tc::row_flag_words(40)));
      o.tileflags = Kokkos::View<std::uint32_t*, Mem>("tileflags", static_cast<std::size_t>(tc::tile_flag_words(40)));
      Kokkos::deep_copy(Space(), o.intflags, -7);
      Kokkos::deep_copy(Space(), o.rowflags, 0xA5A5A5A5u);
      Kokkos::deep_copy(Space(), o.tileflags, 0xA5A5A5A5u);
      for (const tc::Result r : {tc::Result::count, tc::Result::intflags, tc::Result::rowflags, tc::Result::tileflags}) {
        const std::string m = thrown_message([&] { tc::collide(Space(), s, map, r, kernel, o); });
        EXPECT_NE(m.find("row 33"), std::string::npos) << tc::name(r) << ", " << tc::name(kernel) << ", rho " << rho << ": " << m;
        EXPECT_NE(m.find("x is inf"), std::string::npos) << tc::name(r) << ", " << tc::name(kernel) << ": " << m;
      }
      auto fi = to_host(o.intflags);
      auto fr = to_host(o.rowflags);
      auto ft = to_host(o.tileflags);
      index_t touched = 0;
      for (std::size_t k = 0; k < fi.extent(0); ++k) touched += fi(k) != -7 ? 1 : 0;
      for (std::size_t k = 0; k < fr.extent(0); ++k) touched += fr(k) != 0xA5A5A5A5u ? 1 : 0;
      for (std::size_t k = 0; k < ft.extent(0); ++k) touched += ft(k) != 0xA5A5A5A5u ? 1 : 0;
      EXPECT_EQ(touched, 0) << tc::name(kernel) << ", rho " << rho << ": outputs written despite the rejected input";
      const tc::ConstSpheres<Mem> ok = tc::to_device(Space(), host);
      for (const tc::Result r : {tc::Result::count, tc::Result::intflags, tc::Result::rowflags, tc::Result::tileflags})
        EXPECT_EQ(tc::collide(Space(), ok, map, r, kernel, o), good.count)
            << tc::name(r) << ", " << tc::name(kernel) << ", rho " << rho << ": after a rejected call";
      fi = to_host(o.intflags);
      touched = 0;
      for (std::size_t k = 0; k < fi.extent(0); ++k) touched += fi(k) != static_cast<std::int32_t>(good.mask[k]) ? 1 : 0;
      EXPECT_EQ(touched, 0) << tc::name(kernel) << ", rho " << rho << ": int flags after a rejected call";
      // The poison left by the rejected calls must be gone from the bit flags
      // too: their set bits are exactly the collisions.
      fr = to_host(o.rowflags);
      ft = to_host(o.tileflags);
      index_t row_bits = 0, tile_bits = 0;
      for (std::size_t k = 0; k < fr.extent(0); ++k) row_bits += std::bitset<32>(fr(k)).count();
      for (std::size_t k = 0; k < ft.extent(0); ++k) tile_bits += std::bitset<32>(ft(k)).count();
      EXPECT_EQ(row_bits, good.count) << tc::name(kernel) << ", rho " << rho << ": row flags after a rejected call";
      EXPECT_EQ(tile_bits, good.count) << tc::name(kernel) << ", rho " << rho << ": tile flags after a rejected call";
    }
  }
  const tc::ConstSpheres<Mem> s = tc::to_device(Space(), host);
  std::string m = thrown_message(
      [&] { tc::collide(Space(), s, tdmaps::LambdaMap<>(41, 8, t), tc::Result::count, tc::Kernel::tile, out); });
  EXPECT_NE(m.find("n = 41"), std::string::npos) << m;
  EXPECT_NE(m.find("40 rows"), std::string::npos) << m;
  m = thrown_message([&] {
    tc::collide(Space(), s, tdmaps::LambdaMap<>(40, 8, tdmaps::Triangle::lower), tc::Result::count, tc::Kernel::tile, out);
  });
  EXPECT_NE(m.find("strict_lower"), std::string::npos) << m;
  m = thrown_message(
      [&] { tc::collide(Space(), s, tdmaps::UpperTriangularMap(40, 8, t), tc::Result::count, tc::Kernel::tile, out); });
  EXPECT_NE(m.find("thread-space"), std::string::npos) << m;
  out.flags = Kokkos::View<std::uint32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "flags"),
                                                static_cast<std::size_t>(tc::flag_words(40) + 1));
  m = thrown_message([&] { tc::collide(Space(), s, tdmaps::LambdaMap<>(40, 8, t), tc::Result::flags, tc::Kernel::tile, out); });
  EXPECT_NE(m.find("flags has 26 words"), std::string::npos) << m;
  EXPECT_NE(m.find("= 25"), std::string::npos) << m;
  out.rowflags = Kokkos::View<std::uint32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "rowflags"), 26);
  m = thrown_message([&] { tc::collide(Space(), s, tdmaps::LambdaMap<>(40, 8, t), tc::Result::rowflags, tc::Kernel::tile, out); });
  EXPECT_NE(m.find("rowflags has 26 words; n = 40 spheres need row_flag_words(n) = 46"), std::string::npos) << m;
  out.tileflags = Kokkos::View<std::uint32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tileflags"), 26);
  m = thrown_message([&] { tc::collide(Space(), s, tdmaps::LambdaMap<>(40, 8, t), tc::Result::tileflags, tc::Kernel::tile, out); });
  EXPECT_NE(m.find("tileflags has 26 words; n = 40 spheres need tile_flag_words(n) = 96"), std::string::npos) << m;
  out.intflags = Kokkos::View<std::int32_t*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "intflags"), 10);
  m = thrown_message(
      [&] { tc::collide(Space(), s, tdmaps::LambdaMap<>(40, 8, t), tc::Result::intflags, tc::Kernel::element, out); });
  EXPECT_NE(m.find("intflags has 10 entries"), std::string::npos) << m;
  EXPECT_NE(m.find("= 780"), std::string::npos) << m;
}

// The row-aligned flags' index math against counting: row i starts where
// row i - 1's ceil((i - 1) / 32) words end, from small n up to rows past
// 2^32 (64-bit products), and row_of_flag_word inverts it at every row's
// first and last word.
TEST(TEST_CATEGORY, collision_row_flag_words_by_counting) {
  index_t start = 0;
  for (index_t i = 0; i <= 5000; ++i) {
    ASSERT_EQ(tc::row_flag_word(i), start) << "i = " << i;
    start += (i + 31) / 32;
  }
  EXPECT_EQ(tc::row_flag_words(0), 0);
  EXPECT_EQ(tc::row_flag_words(1), 0);
  EXPECT_EQ(tc::row_flag_words(2), 1);
  EXPECT_EQ(tc::row_flag_words(33), 32);
  EXPECT_EQ(tc::row_flag_words(34), 34);
  for (const index_t base : {index_t(30720), index_t(1) << 20, (index_t(1) << 31) - 40, (index_t(1) << 32) + 3,
                             index_t(3000000000)}) {
    for (index_t i = base - 70; i < base + 70; ++i) {
      ASSERT_EQ(tc::row_flag_word(i + 1) - tc::row_flag_word(i), (i + 31) / 32) << "i = " << i;
      if (i < 1) continue;
      const index_t words = (i + 31) / 32;
      for (const index_t k : {index_t(0), words - 1}) {
        index_t ri = -1, rk = -1;
        tc::row_of_flag_word(tc::row_flag_word(i) + k, ri, rk);
        ASSERT_EQ(ri, i) << "word " << k << " of row " << i;
        ASSERT_EQ(rk, k) << "word " << k << " of row " << i;
      }
    }
    // The closed form at a group start: rows 32 q + 1 .. start at 32 T(q).
    const index_t q = base / 32;
    EXPECT_EQ(tc::row_flag_word(32 * q + 1), 32 * tdmaps::tri(q)) << "q = " << q;
  }
}

// The tiled flags' index math against counting: tiles (I, J), J <= I, in
// order, 32 words each (row i = 32 I + r is word r), for every pair of small
// n; row_of_tile_word inverts it at every word; and near rows 2^31 .. 2^34
// (64-bit products; words up to ~2^62) against T(I) computed apart in
// unsigned arithmetic, halving the even factor first.
TEST(TEST_CATEGORY, collision_tile_flag_words_by_counting) {
  index_t tiles = 0;
  for (index_t I = 0; I < 7; ++I)  // rows 0 .. 223
    for (index_t J = 0; J <= I; ++J, ++tiles)
      for (index_t r = 0; r < 32; ++r) {
        const index_t i = 32 * I + r, w = 32 * tiles + r;
        for (index_t b = 0; b < 32; ++b) {
          const index_t j = 32 * J + b;
          if (j < i) {
            ASSERT_EQ(tc::tile_flag_word(i, j), w) << "i = " << i << ", j = " << j;
          }
        }
        index_t ri = -1, rj0 = -1;
        tc::row_of_tile_word(w, ri, rj0);
        ASSERT_EQ(ri, i) << "word " << w;
        ASSERT_EQ(rj0, 32 * J) << "word " << w;
      }
  // Sizes: 32 words per tile, the tiles of tile rows 0 .. (n - 1) / 32.
  EXPECT_EQ(tc::tile_flag_words(0), 0);
  EXPECT_EQ(tc::tile_flag_words(1), 0);
  EXPECT_EQ(tc::tile_flag_words(2), 32);
  EXPECT_EQ(tc::tile_flag_words(32), 32);
  EXPECT_EQ(tc::tile_flag_words(33), 96);
  EXPECT_EQ(tc::tile_flag_words(64), 96);
  EXPECT_EQ(tc::tile_flag_words(65), 192);
  EXPECT_EQ(tc::flag_tiles(65), 6);
  for (index_t n = 2; n <= 300; ++n) {
    index_t count = 0;
    for (index_t I = 0; 32 * I < n; ++I) count += I + 1;
    ASSERT_EQ(tc::flag_tiles(n), count) << "n = " << n;
    ASSERT_EQ(tc::tile_flag_words(n), 32 * count) << "n = " << n;
  }
  // Far rows: the first and last rows of tile rows near 2^31 .. 2^34.
  const auto tri_u = [](std::uint64_t k) { return k % 2 == 0 ? (k / 2) * (k + 1) : k * ((k + 1) / 2); };
  const auto want_word = [&](index_t i, index_t j) {
    const std::uint64_t ui = static_cast<std::uint64_t>(i), uj = static_cast<std::uint64_t>(j);
    return static_cast<index_t>(((tri_u(ui / 32) + uj / 32) << 5) | (ui % 32));
  };
  for (const index_t base : {index_t(1) << 31, (index_t(1) << 32) + 5, (index_t(1) << 33) + 31, index_t(3000000000),
                             (index_t(1) << 34) + 31}) {
    for (index_t i = base - 40; i <= base; ++i) {
      for (const index_t j : {index_t(0), i - 1, i - 33, 32 * (i / 32), i / 2}) {
        if (j < 0 || j >= i) continue;
        const index_t w = tc::tile_flag_word(i, j);
        ASSERT_EQ(w, want_word(i, j)) << "i = " << i << ", j = " << j;
        index_t ri = -1, rj0 = -1;
        tc::row_of_tile_word(w, ri, rj0);
        ASSERT_EQ(ri, i) << "word " << w << " of (" << i << ", " << j << ")";
        ASSERT_EQ(rj0, j - j % 32) << "word " << w << " of (" << i << ", " << j << ")";
      }
    }
  }
  // The last word of n = 2^34 + 32 spheres is the last of all the words.
  const index_t nb = (index_t(1) << 34) + 32;
  EXPECT_EQ(tc::tile_flag_word(nb - 1, nb - 2), tc::tile_flag_words(nb) - 1);
}

// The generator: deterministic per seed, on the 2^-24 grid, centres in
// [0, 1), radii in range, y = z = 0 in 1-D, and the documented densities.
TEST(TEST_CATEGORY, collision_random_spheres_as_documented) {
  const double grid = 16777216.0;
  for (int dims : {1, 3}) {
    for (auto density : {tc::Density::dense, tc::Density::sparse}) {
      const tc::RadiusRange r = tc::default_radii(dims, density);
      const std::uint64_t seed = 42;
      const auto a = tc::random_spheres_host(2000, dims, r, seed);
      EXPECT_EQ(a, tc::random_spheres_host(2000, dims, r, seed));
      EXPECT_NE(a, tc::random_spheres_host(2000, dims, r, seed + 1));
      for (std::size_t i = 0; i < 2000; ++i) {
        for (int c = 0; c < 4; ++c) {
          const double v = a[4 * i + c];
          ASSERT_EQ(v * grid, std::floor(v * grid)) << "off the grid: row " << i << " col " << c;
          if (c < 3 && c >= dims) {
            ASSERT_EQ(v, 0.0);
          }
          if (c < dims) {
            ASSERT_TRUE(v >= 0 && v < 1) << v;
          }
          if (c == 3) {
            ASSERT_TRUE(v >= r.r_min && v <= r.r_max) << v;
          }
        }
      }
      // The fraction of colliding pairs the header documents (within 25%).
      const double documented = dims == 3 ? (density == tc::Density::dense ? 2.9e-2 : 2.9e-4)
                                          : (density == tc::Density::dense ? 4.0e-2 : 4.0e-4);
      const double p = double(oracle(a, dims).count) / double(tc::pair_count(2000));
      EXPECT_NEAR(p, documented, 0.25 * documented) << "dims " << dims << " " << tc::name(density);
    }
  }
  EXPECT_THROW(tc::random_spheres_host(10, 2, {0.1, 0.2}, 1), std::invalid_argument);
  EXPECT_THROW(tc::random_spheres_host(10, 3, {0.2, 0.1}, 1), std::invalid_argument);
  EXPECT_THROW(tc::random_spheres_host(10, 3, {0.1, 1.5}, 1), std::invalid_argument);
  EXPECT_THROW(tc::random_spheres_host(-1, 3, {0.1, 0.2}, 1), std::invalid_argument);
}
