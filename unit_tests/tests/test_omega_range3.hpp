// Omega ranges of the 3-D maps balanced by triplets (launch/omega_range.hpp,
// launch/omega_range3.hpp): elements_before of lambda3 (each layer guess and
// form) and bb3 against a block-by-block host count at every omega, lower and
// strict, block sides 2, 4, 8, ragged last blocks; at the largest league
// (n = 2^21, rho = 2) against a 128-bit count of the triplets whose block
// comes first in layer, row, column order, and block by block; the balance
// bound of omega_range for 1..40 parts; and for_each_element / for_each_tile
// over the parts' ranges hitting every triplet exactly once.
#include "coverage3.hpp"

#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tdmaps_omega_range3_test {

using tdmaps::index_t;
using tdmaps::Triangle;
using Space = TEST_EXECSPACE;
__extension__ typedef __int128 int128;  // the largest league's oracle

using Lambda3Cbrt = tdmaps::Lambda3Map<tdmaps::CbrtFloat, tdmaps::SqrtRsqrt, tdmaps::Exact>;
using Lambda3Cardano = tdmaps::Lambda3Map<tdmaps::CbrtCardano, tdmaps::SqrtIEEE, tdmaps::Exact>;
using Lambda3Fp64 = tdmaps::Lambda3Map<tdmaps::CbrtDouble, tdmaps::SqrtDouble, tdmaps::Exact>;
using Lambda3CardanoEps = tdmaps::Lambda3Map<tdmaps::CbrtCardano, tdmaps::SqrtRsqrt, tdmaps::Epsilon>;

inline std::string where(const char* map, index_t n, int rho, Triangle t) {
  return std::string(map) + " " + tdmaps_test::where3(n, rho, t);
}

/// Triplets of the block of omega (0 where omega names none), by a nested
/// loop over the block's rho^3 positions.
template <class Map>
index_t block_triplets(const Map& map, index_t omega) {
  tdmaps::Block3 b;
  if (!map.block(omega, b)) return 0;
  const index_t rho = map.domain.rho, n = map.domain.n;
  const bool strict = map.domain.triangle == Triangle::strict_lower;
  index_t c = 0;
  for (index_t i = b.bi * rho; i < (b.bi + 1) * rho && i < n; ++i)
    for (index_t j = b.bj * rho; j < (b.bj + 1) * rho && j < n; ++j)
      for (index_t k = b.bk * rho; k < (b.bk + 1) * rho && k < n; ++k)
        c += (strict ? (k < j && j < i) : (k <= j && j <= i)) ? 1 : 0;
  return c;
}

/// prefix[w] = triplets of the blocks of omegas [0, w), block by block.
template <class Map>
std::vector<index_t> prefix_counts(const Map& map) {
  std::vector<index_t> p(static_cast<std::size_t>(map.league_size()) + 1, 0);
  for (index_t w = 0; w < map.league_size(); ++w)
    p[std::size_t(w + 1)] = p[std::size_t(w)] + block_triplets(map, w);
  return p;
}

/// Empty when elements_before(map, w) equals the block-by-block count at
/// every omega 0..league (and past both ends); else the first mismatch.
template <class Map>
std::string check_elements_before(const Map& map) {
  const std::vector<index_t> p = prefix_counts(map);
  const index_t league = map.league_size();
  if (p.back() != tdmaps_test::triplets(map.domain.n, map.domain.triangle))
    return "the blocks hold " + std::to_string(p.back()) + " triplets";
  for (index_t w = 0; w <= league; ++w) {
    const index_t e = tdmaps::elements_before(map, w);
    if (e != p[std::size_t(w)])
      return "omega " + std::to_string(w) + ": " + std::to_string(e) + ", counted " + std::to_string(p[std::size_t(w)]);
  }
  if (tdmaps::elements_before(map, -1) != 0 || tdmaps::elements_before(map, league + 1) != p.back())
    return "outside the league";
  return "";
}

/// Triplets (i, j, k) of the domain whose block (i / rho, j / rho, k / rho)
/// comes before (bi, bj, bk) in layer, row, column order, in 128 bits: the
/// layers below, then layer by layer of block layer bi the rows below (a sum
/// over j in closed form) and row by row of block row bj the columns below.
/// Holds for any (bi, bj, bk) of the box, inside the block tetrahedron or not.
inline int128 oracle_before(index_t n, int rho, Triangle t, index_t bi, index_t bj, index_t bk) {
  const bool lower = t == Triangle::lower;
  const int128 i0 = bi * rho < n ? bi * rho : n;
  int128 c = lower ? i0 * (i0 + 1) * (i0 + 2) / 6 : i0 * (i0 - 1) * (i0 - 2) / 6;  // (i0 + 2 choose 3), (i0 choose 3)
  const index_t j0 = bj * rho, k0 = bk * rho;
  for (index_t i = bi * rho; i < (bi + 1) * rho && i < n; ++i) {
    const index_t jend = lower ? i + 1 : i;  // rows j < jend of layer i
    const int128 jb = j0 < jend ? j0 : jend;
    c += lower ? jb * (jb + 1) / 2 : jb * (jb - 1) / 2;  // sum over j < jb of j + 1 (j) columns
    for (index_t j = j0; j < j0 + rho && j < jend; ++j) {
      const index_t kend = lower ? j + 1 : j;
      c += k0 < kend ? k0 : kend;
    }
  }
  return c;
}

inline std::string str(int128 v) {
  const bool neg = v < 0;
  std::string s;
  do {
    const int d = static_cast<int>(v % 10);
    s.insert(s.begin(), char('0' + (d < 0 ? -d : d)));
    v /= 10;
  } while (v != 0);
  return neg ? "-" + s : s;
}

/// The balance bound: parts [0, parts) are contiguous from 0 to the league's
/// end and each holds total / parts triplets to within one block (rho^3),
/// counted by `before` (the block-by-block prefix or the 128-bit oracle).
template <class Map, class Before>
std::string check_balance(const Map& map, index_t parts, const Before& before) {
  const int128 total = before(map.league_size());  // the caller's count of the whole domain
  const int128 block = int128(map.domain.rho) * map.domain.rho * map.domain.rho;
  index_t prev = 0;
  for (index_t p = 0; p < parts; ++p) {
    const tdmaps::OmegaRange r = tdmaps::omega_range(map, p, parts);
    const std::string what = "part " + std::to_string(p) + " of " + std::to_string(parts) + " [" +
                             std::to_string(r.begin) + ", " + std::to_string(r.end) + ")";
    if (r.begin != prev || r.end < r.begin) return what + " does not follow " + std::to_string(prev);
    prev = r.end;
    const int128 c = before(r.end) - before(r.begin);
    const int128 off = c * parts - total;  // parts times the distance to total / parts
    if (off >= block * parts || -off >= block * parts)
      return what + " holds " + str(c) + " of " + str(total) + " triplets";
  }
  if (prev != map.league_size()) return "the parts end at " + std::to_string(prev);
  return "";
}

inline std::vector<index_t> sides() {
  std::vector<index_t> s;
  for (index_t n = 0; n <= 70; ++n) s.push_back(n);
  for (index_t n : {127, 128, 129, 257}) s.push_back(n);
  return s;
}

}  // namespace tdmaps_omega_range3_test

using namespace tdmaps_omega_range3_test;

TEST(TEST_CATEGORY, omega_range3_elements_before_counts_block_by_block) {
  for (int rho : {2, 4, 8}) {
    for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
      for (index_t n : sides()) {
        EXPECT_EQ(check_elements_before(tdmaps::BoundingBox3Map(n, rho, t)), "") << where("bb3", n, rho, t);
        EXPECT_EQ(check_elements_before(Lambda3Cbrt(n, rho, t)), "") << where("lambda3 cbrt", n, rho, t);
        EXPECT_EQ(check_elements_before(Lambda3Cardano(n, rho, t)), "") << where("lambda3 cardano", n, rho, t);
        EXPECT_EQ(check_elements_before(Lambda3Fp64(n, rho, t)), "") << where("lambda3 fp64", n, rho, t);
        // The papers' uncorrected form follows the same order where its
        // guesses hold (up to 65 block layers: test_maps3).
        if (n <= 129) {
          EXPECT_EQ(check_elements_before(Lambda3CardanoEps(n, rho, t)), "") << where("lambda3 epsilon", n, rho, t);
        }
      }
    }
  }
}

TEST(TEST_CATEGORY, omega_range3_elements_before_is_exact_at_the_largest_league) {
  const index_t n = tdmaps::max_side3;
  const int rho = 2;
  std::mt19937_64 g(20270427u);
  for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
    const Lambda3Cbrt lam(n, rho, t);
    const tdmaps::BoundingBox3Map bb(n, rho, t);
    const index_t nb = lam.domain.nb;
    const int128 total = oracle_before(n, rho, t, nb, 0, 0);
    ASSERT_EQ(str(total), str(lam.domain.elements()));
    // lambda3: the first, last and random omegas (random layer starts among
    // them), the block of each decoded by the map itself.
    std::vector<index_t> ws{0, 1, 2, 3, 4, lam.league_size() - 2, lam.league_size() - 1, lam.league_size()};
    std::uniform_int_distribution<index_t> any(0, lam.league_size() - 1), layer(0, nb - 1);
    for (int r = 0; r < 2000; ++r) ws.push_back(any(g));
    for (int r = 0; r < 200; ++r) {
      const index_t k = layer(g);
      ws.push_back(tdmaps::tet(k));
      ws.push_back(tdmaps::tet(k) + tdmaps::tri(k));  // the layer's last block row
    }
    for (const index_t w : ws) {
      int128 want = total;
      if (w < lam.league_size()) {
        tdmaps::Block3 b;
        ASSERT_TRUE(lam.block(w, b));
        want = oracle_before(n, rho, t, b.bi, b.bj, b.bk);
      }
      ASSERT_EQ(str(tdmaps::elements_before(lam, w)), str(want)) << where("lambda3", n, rho, t) << " omega " << w;
      if (w < lam.league_size()) {
        ASSERT_EQ(tdmaps::elements_before(lam, w + 1) - tdmaps::elements_before(lam, w), block_triplets(lam, w))
            << where("lambda3", n, rho, t) << " omega " << w;
      }
    }
    // bb3: the first, last and random omegas of the box (most outside the
    // tetrahedron) and random blocks inside it.
    ws = {0, 1, nb - 1, nb, nb * nb, bb.league_size() - 2, bb.league_size() - 1, bb.league_size()};
    std::uniform_int_distribution<index_t> box(0, bb.league_size() - 1);
    for (int r = 0; r < 2000; ++r) ws.push_back(box(g));
    for (int r = 0; r < 2000; ++r) {
      index_t a = layer(g), b = layer(g), c = layer(g);
      if (a < b) std::swap(a, b);
      if (b < c) std::swap(b, c);
      if (a < b) std::swap(a, b);
      ws.push_back((a * nb + b) * nb + c);
    }
    for (const index_t w : ws) {
      const int128 want = w < bb.league_size() ? oracle_before(n, rho, t, w / (nb * nb), (w / nb) % nb, w % nb) : total;
      ASSERT_EQ(str(tdmaps::elements_before(bb, w)), str(want)) << where("bb3", n, rho, t) << " omega " << w;
      if (w < bb.league_size()) {
        ASSERT_EQ(tdmaps::elements_before(bb, w + 1) - tdmaps::elements_before(bb, w), block_triplets(bb, w))
            << where("bb3", n, rho, t) << " omega " << w;
      }
    }
    // The balance at the largest league, counted by the oracle.
    for (index_t parts : {1, 2, 3, 7, 40}) {
      EXPECT_EQ(check_balance(lam, parts,
                              [&](index_t w) {
                                tdmaps::Block3 b;
                                if (w >= lam.league_size()) return total;
                                lam.block(w, b);
                                return oracle_before(n, rho, t, b.bi, b.bj, b.bk);
                              }),
                "")
          << where("lambda3", n, rho, t);
      EXPECT_EQ(check_balance(bb, parts,
                              [&](index_t w) {
                                if (w >= bb.league_size()) return total;
                                return oracle_before(n, rho, t, w / (nb * nb), (w / nb) % nb, w % nb);
                              }),
                "")
          << where("bb3", n, rho, t);
    }
  }
}

TEST(TEST_CATEGORY, omega_range3_parts_are_balanced_by_triplets) {
  for (int rho : {2, 4, 8}) {
    for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
      for (index_t n : {0, 1, 2, 3, 9, 37, 70, 129}) {
        const Lambda3Cbrt lam(n, rho, t);
        const tdmaps::BoundingBox3Map bb(n, rho, t);
        const std::vector<index_t> pl = prefix_counts(lam), pb = prefix_counts(bb);
        for (index_t parts = 1; parts <= 40; ++parts) {
          EXPECT_EQ(check_balance(lam, parts, [&](index_t w) { return int128(pl[std::size_t(w)]); }), "")
              << where("lambda3", n, rho, t);
          EXPECT_EQ(check_balance(bb, parts, [&](index_t w) { return int128(pb[std::size_t(w)]); }), "")
              << where("bb3", n, rho, t);
        }
      }
    }
  }
}

TEST(TEST_CATEGORY, omega_range3_parts_cover_every_triplet_once) {
  for (int rho : {2, 4, 8}) {
    for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
      for (index_t n : {1, 3, 9, 33, 50}) {
        for (index_t parts : {1, 3, 7, 40}) {
          const Lambda3Cbrt lam(n, rho, t);
          const tdmaps::BoundingBox3Map bb(n, rho, t);
          tdmaps_test::HitCounter3<Space> a(n, t), b(n, t);
          tdmaps_test::TileHits3<Space> la(n, rho, t), lb(n, rho, t);
          for (index_t p = 0; p < parts; ++p) {
            tdmaps::for_each_element(Space(), lam, tdmaps::omega_range(lam, p, parts), a);
            tdmaps::for_each_element(Space(), bb, tdmaps::omega_range(bb, p, parts), b);
            tdmaps::for_each_tile(Space(), lam, tdmaps::omega_range(lam, p, parts), 0, la);
            tdmaps::for_each_tile(Space(), bb, tdmaps::omega_range(bb, p, parts), 0, lb);
          }
          Space().fence();
          const std::string what = tdmaps_test::where3(n, rho, t) + ", " + std::to_string(parts) + " parts";
          EXPECT_EQ(a.check(), "") << "lambda3 element, " << what;
          EXPECT_EQ(b.check(), "") << "bb3 element, " << what;
          EXPECT_EQ(la.check(rho), "") << "lambda3 tile, " << what;
          EXPECT_EQ(lb.check(rho), "") << "bb3 tile, " << what;
        }
      }
    }
  }
}
