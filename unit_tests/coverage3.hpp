#ifndef TDMAPS_UNIT_TESTS_COVERAGE3_HPP
#define TDMAPS_UNIT_TESTS_COVERAGE3_HPP

// The 3-D oracle and coverage driver shared by the tetrahedron tests: hit
// counts per triplet in a packed array (the packed position written out
// here, not taken from core/tetrahedral.hpp) plus a counter of touches
// outside the domain, checked by a host nested loop over k <= j <= i < n
// (k < j < i < n for the strict form); the driver runs a map for every n in
// 0..64 and a set of larger n (odd, even, prime, 2^k +- 1) with each block
// side, lower and strict, and for the largest n (up to 257: 129 layers of
// blocks) with one of each, element and tile kernels.

#include "oracle.hpp"

#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace tdmaps_test {

using tdmaps::index_t;

/// Triplets of the n-side tetrahedron, counted by the oracle's own formula:
/// n (n + 1) (n + 2) / 6 (lower) or n (n - 1) (n - 2) / 6 (strict).
inline index_t triplets(index_t n, tdmaps::Triangle t) {
  if (t == tdmaps::Triangle::lower) return n * (n + 1) * (n + 2) / 6;
  return n >= 2 ? n * (n - 1) * (n - 2) / 6 : 0;
}

/// Packed position of (i, j, k): the triplets of the layers before i, then
/// of the rows before j in layer i, then k.
KOKKOS_INLINE_FUNCTION index_t packed3(index_t i, index_t j, index_t k, bool strict) {
  if (!strict) return i * (i + 1) * (i + 2) / 6 + j * (j + 1) / 2 + k;
  return i * (i - 1) * (i - 2) / 6 + j * (j - 1) / 2 + k;
}

/// What a 3-D launch touched: hits per packed triplet, touches outside the domain.
template <class ExecSpace>
struct HitCounter3 {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<int*, memory_space> hits;
  Kokkos::View<int, memory_space> outside;
  index_t n;
  bool strict;

  HitCounter3(index_t n_, tdmaps::Triangle t)
      : hits("tdmaps::test::hits3", static_cast<std::size_t>(triplets(n_, t))),
        outside("tdmaps::test::outside3"),
        n(n_),
        strict(t == tdmaps::Triangle::strict_lower) {}

  KOKKOS_FUNCTION void operator()(index_t i, index_t j, index_t k) const {
    const bool in = k >= 0 && i < n && (strict ? (k < j && j < i) : (k <= j && j <= i));
    if (!in) {
      Kokkos::atomic_add(&outside(), 1);
      return;
    }
    Kokkos::atomic_add(&hits(packed3(i, j, k, strict)), 1);
  }

  /// Empty when every triplet of the domain was hit exactly once and nothing
  /// else was; otherwise the first few differences.
  std::string check() const {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hits);
    auto o = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), outside);
    std::ostringstream msg;
    if (o() != 0) msg << o() << " touches outside the domain; ";
    int reported = 0;
    const index_t s = strict ? 1 : 0;
    for (index_t i = 0; i < n; ++i)
      for (index_t j = 0; j + s <= i; ++j)
        for (index_t k = 0; k + s <= j; ++k) {
          const int c = h(static_cast<std::size_t>(packed3(i, j, k, strict)));
          if (c != 1 && reported < 5) {
            msg << "(" << i << "," << j << "," << k << ") hit " << c << " times; ";
            ++reported;
          }
        }
    return msg.str();
  }
};

/// 3-D tile kernel: every triplet of its Tile3 through for_each_lane3 (the
/// GPU walk: a lane per column, a thread row per row, layers stepped), and
/// one count per block in `tiles`.
template <class ExecSpace>
struct TileHits3 {
  HitCounter3<ExecSpace> counter;
  Kokkos::View<index_t, typename ExecSpace::memory_space> tiles;
  int log2_rho;

  TileHits3(index_t n, int rho, tdmaps::Triangle t)
      : counter(n, t), tiles("tdmaps::test::tiles3"), log2_rho(tdmaps::log2_block_side(rho)) {}

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team, const tdmaps::Tile3& t) const {
    Kokkos::single(Kokkos::PerTeam(team), [&]() { Kokkos::atomic_add(&tiles(), index_t(1)); });
    tdmaps::for_each_lane3(team, log2_rho, [&](const int tk, const int tj, const int first, const int step) {
      if (tk >= t.nk || tj >= t.nj) return;
      for (int ti = first; ti < t.ni; ti += step)
        if (t.contains(ti, tj, tk)) counter(t.i0 + ti, t.j0 + tj, t.k0 + tk);
    });
  }

  /// As HitCounter3::check, and the kernel ran once per block of the block
  /// tetrahedron (nb (nb + 1) (nb + 2) / 6 blocks), none outside it.
  std::string check(int rho) const {
    std::string msg = counter.check();
    const index_t nb = (counter.n + rho - 1) / rho;
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tiles);
    if (h() != triplets(nb, tdmaps::Triangle::lower))
      msg += "tile kernel ran for " + std::to_string(h()) + " blocks, expected " +
             std::to_string(triplets(nb, tdmaps::Triangle::lower));
    return msg;
  }
};

template <class ExecSpace, class Map>
std::string element_coverage3(index_t n, int rho, tdmaps::Triangle t, const tdmaps::LaunchHints& hints = {}) {
  const Map map(n, rho, t);
  HitCounter3<ExecSpace> counter(n, t);
  tdmaps::for_each_element(ExecSpace(), map, counter, "tdmaps::test::coverage3", hints);
  ExecSpace().fence();
  return counter.check();
}

template <class ExecSpace, class Map>
std::string tile_coverage3(index_t n, int rho, tdmaps::Triangle t, const tdmaps::LaunchHints& hints = {}) {
  const Map map(n, rho, t);
  TileHits3<ExecSpace> kernel(n, rho, t);
  tdmaps::for_each_tile(ExecSpace(), map, 0, kernel, "tdmaps::test::tile_coverage3", hints);
  ExecSpace().fence();
  return kernel.check(rho);
}

/// The larger sides, each block side, lower and strict: odd, even, prime,
/// 2^k - 1, 2^k, 2^k + 1.
inline const std::vector<index_t>& larger_sides3() {
  static const std::vector<index_t> s{65, 97, 127, 128, 129};
  return s;
}

/// The largest sides, one block side and triangle each (each costs as much
/// as all sides below 129 together): up to 129 layers of blocks.
struct Side3 {
  index_t n;
  int rho;
  tdmaps::Triangle triangle;
};
inline const std::vector<Side3>& largest_sides3() {
  static const std::vector<Side3> s{{200, 8, tdmaps::Triangle::strict_lower},
                                    {255, 4, tdmaps::Triangle::lower},
                                    {256, 2, tdmaps::Triangle::strict_lower},
                                    {257, 2, tdmaps::Triangle::lower}};
  return s;
}

inline std::string where3(index_t n, int rho, tdmaps::Triangle t) {
  return "n = " + std::to_string(n) + ", rho = " + std::to_string(rho) +
         (t == tdmaps::Triangle::lower ? ", lower" : ", strict");
}

inline std::string describe3(const char* map, const char* kernel, index_t n, int rho, tdmaps::Triangle t) {
  return std::string(map) + " " + kernel + " kernel, " + where3(n, rho, t);
}

/// Every side 0..max_small and `larger` with block sides 2, 4, 8, lower and
/// strict, then `largest`; element and tile kernels.
template <class ExecSpace, class Map>
void check_coverage3(index_t max_small = 64, const std::vector<index_t>& larger = larger_sides3(),
                     const std::vector<Side3>& largest = largest_sides3()) {
  using tdmaps::Triangle;
  auto one = [](index_t n, int rho, Triangle t) {
    EXPECT_EQ((element_coverage3<ExecSpace, Map>(n, rho, t)), "") << describe3(Map::name, "element", n, rho, t);
    EXPECT_EQ((tile_coverage3<ExecSpace, Map>(n, rho, t)), "") << describe3(Map::name, "tile", n, rho, t);
  };
  for (int rho : {2, 4, 8})
    for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
      for (index_t n = 0; n <= max_small; ++n) one(n, rho, t);
      for (index_t n : larger) one(n, rho, t);
    }
  for (const Side3& s : largest) one(s.n, s.rho, s.triangle);
}

}  // namespace tdmaps_test

#endif
