#ifndef TDMAPS_MAPS_HADOUKEN_HPP
#define TDMAPS_MAPS_HADOUKEN_HPP

// H, the Hadouken map of Navarro et al. (2022/23): a block triangle of
// P = 2^k block rows is launched as a grid of exactly T(P) = P (P + 1) / 2
// blocks (no waste), mapped with shifts, masks and one count-leading-zeros:
// no square root. The authors' code uses a ceil((P - 1) / 2) x (P + 1) grid,
// h = bit length of (by + 1), q = bx with its low bits cleared and the target
// (bx + q, by + 2q) in an upper-triangle picture; tdmaps re-derives it for the
// lower triangle bj <= bi as follows.
//
// One H-triangle, side P = 2^k, local block coordinates (i, j), j <= i < P:
//
//   omega < P        the diagonal: (omega, omega).
//   omega >= P       r = omega - P on a grid of W = P / 2 columns:
//                      by = r >> (k - 1),  bx = r & (W - 1)
//                      h  = bit_length(by + 1),  s = 2^(h - 1)
//                      q  = bx with its low h - 1 bits cleared
//                      (i, j) = (by + 1 + 2q, bx + q)
//
// Why it is a bijection onto the strict triangle j < i < P. Take the highest
// bit where i and j differ, bit h - 1 (h = bit_length(i ^ j)): above it they
// share a prefix c = 2 s m (a multiple of 2s), and i has the bit, j does not,
// so (i, j) lies in exactly one square
//     S(h, m) = rows [2sm + s, 2sm + 2s) x columns [2sm, 2sm + s),
// one per level h = 1..k and m = 0 .. P/(2s) - 1 (these are REC's squares;
// H launches all of them at once). A level has P/(2s) squares of s^2 blocks =
// W s blocks = exactly s grid rows of width W, so level h takes the grid rows
// by in [s - 1, 2s - 1), i.e. by + 1 in [s, 2s): h = bit_length(by + 1).
// Inside them, v = by - (s - 1) in [0, s) and bx = s m + u with u in [0, s)
// (W is a multiple of s), q = s m, and (by + 1 + 2q, bx + q) =
// (2sm + s + v, 2sm + u): the square S(h, m) walked row by row. Levels
// 1..k take sum s = P - 1 grid rows; with the P diagonal blocks in front the
// league is P + W (P - 1) = T(P). For P = 8 (D diagonal, digits = grid row by):
//
//     D . . . . . . .
//     0 D . . . . . .
//     1 1 D . . . . .
//     2 2 0 D . . . .
//     3 3 3 3 D . . .
//     4 4 4 4 0 D . .
//     5 5 5 5 1 1 D .
//     6 6 6 6 2 2 0 D
//
// General nb (host, constructor): strip the highest power of two P <= R of
// the R rows left (R = nb at offset o = 0): an H-triangle of side P at (o, o)
// and the R - P by P rectangle under it (rows [o + P, nb), columns [o, o + P),
// omega -> (row, column) by a shift and a mask since P is a power of two;
// the rectangles of earlier triangles already cover every column left of o),
// then go on with o += P, R -= P. That is one triangle per set bit of nb. When
// the rows left are R = 2^j - 1 with j >= 2 (nb ends in j one bits), the last
// j triangles and j - 1 rectangles are replaced by one H-triangle of side
// R + 1 = 2^j whose last block row lies outside the domain: block() returns
// false there. (This is the authors' "next power of two when n is within one
// block of it", applied on every remainder; j = 1 gains nothing, one launch of
// side 1 versus one of side 2.)
//
//   launches        2t - 1, t = popcount(nb) (minus j - 1 when padded)
//                   <= 2 bit_length(nb) - 1, <= 55 (t <= 28 for nb <= 2^28);
//                   0 for nb = 0, 1 for nb = 2^k
//   wasted blocks   2^j when nb ends in j >= 2 one bits, else 0; always
//                   <= nb + 1 (under one block row), 0 for nb = 2^k
//
// The map stores one (offset, log2 side) pair per triangle in a fixed array
// of 32 (t <= 28 since nb <= max_side / 8 = 2^28) and derives the rectangles
// from it, so it stays small (the CUDA functor stays a kernel argument) and
// trivially copyable; nothing grows with n.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {

/// Named "hadouken"; with_map also takes the short name "h".
struct HadoukenMap {
  using space_tag = BlockSpaceTag;                 ///< the map contract's space (maps/map_concept.hpp)
  static constexpr const char* name = "hadouken";  ///< Map::name: kernel labels, with_map's name

  /// Room for one H-triangle per set bit of nb <= max_side / 8 = 2^28.
  static constexpr int max_triangles = 32;

  Domain2 domain;                             ///< what the map covers
  int triangles = 0;                          ///< t: launches are 2t - 1
  std::int32_t offset[max_triangles] = {};    ///< block offset o of triangle p (at (o, o))
  std::int8_t log2_side[max_triangles] = {};  ///< k of triangle p: side 2^k

  /// \brief A map over the empty domain (n = 0).
  HadoukenMap() = default;
  /// \brief The map over d.
  explicit HadoukenMap(const Domain2& d) : domain(d) {
    // Block offsets are int32 here: max_side / 8 block rows must fit.
    static_assert(max_side / 8 <= index_t(std::numeric_limits<std::int32_t>::max()),
                  "tdmaps::HadoukenMap: block offsets must fit int32");
    index_t o = 0, rows_left = d.nb;
    while (rows_left > 0) {
      if (triangles == max_triangles)
        throw std::logic_error("tdmaps::HadoukenMap: nb = " + std::to_string(d.nb) + " needs more than " +
                               std::to_string(max_triangles) + " triangles");
      const int len = intrinsics::bit_length(static_cast<std::uint64_t>(rows_left));
      // rows_left = 2^j - 1, j >= 2: one padded triangle of side 2^j ends the list.
      const bool pad = rows_left >= 3 && (rows_left & (rows_left + 1)) == 0;
      const int k = pad ? len : len - 1;
      offset[triangles] = static_cast<std::int32_t>(o);
      log2_side[triangles] = static_cast<std::int8_t>(k);
      ++triangles;
      if (pad) break;
      o += index_t(1) << k;
      rows_left -= index_t(1) << k;
    }
  }
  /// \brief The map over Domain2(n, rho, t).
  HadoukenMap(index_t n, int rho, Triangle t = Triangle::lower) : HadoukenMap(Domain2(n, rho, t)) {}

  /// Launch 2p is triangle p, launch 2p + 1 the rectangle under it.
  int launches() const { return triangles > 0 ? 2 * triangles - 1 : 0; }

  /// Blocks launched that lie outside the domain: 2^j if nb ends in j >= 2 one bits.
  index_t wasted_blocks() const {
    index_t total = 0;
    for (int l = 0; l < launches(); ++l) total += league_size(l);
    return total - tri(domain.nb);
  }

  /// \brief Omegas of launch l.
  KOKKOS_FUNCTION index_t league_size(int l) const {
    const int p = l >> 1;
    const index_t side = index_t(1) << log2_side[p];
    if ((l & 1) == 0) return tri(side);
    return (domain.nb - offset[p] - side) * side;  // rectangle under triangle p
  }

  /// \brief Block b of league rank omega of launch l; false where omega names no block.
  KOKKOS_FORCEINLINE_FUNCTION bool block(int l, index_t omega, Block2& b) const {
    const int p = l >> 1;
    const int k = log2_side[p];
    const index_t o = offset[p];
    const index_t side = index_t(1) << k;
    if (l & 1) {
      // Rectangle rows [o + side, nb) x columns [o, o + side): always inside.
      b.bi = o + side + (omega >> k);
      b.bj = o + (omega & (side - 1));
      return true;
    }
    if (omega < side) {
      b.bi = b.bj = o + omega;
    } else {
      // k >= 1 here (a side-1 triangle has only its diagonal). Grid
      // coordinates fit 32 bits: by < 2^k <= 2^29, bx < 2^(k-1).
      const index_t r = omega - side;
      const auto by = static_cast<std::uint32_t>(r >> (k - 1));
      const auto bx = static_cast<std::uint32_t>(r & ((side >> 1) - 1));
      const int h = intrinsics::bit_length(by + 1u);
      const std::uint32_t q = (bx >> (h - 1)) << (h - 1);
      b.bi = o + by + 1 + 2 * index_t(q);
      b.bj = o + bx + q;
    }
    return b.bi < domain.nb;  // false only on the padding row of a padded triangle
  }
};

static_assert(std::is_trivially_copyable<HadoukenMap>::value, "tdmaps::HadoukenMap must be trivially copyable");

}  // namespace tdmaps

#endif
