#ifndef TDMAPS_LAUNCH_OMEGA_RANGE3_HPP
#define TDMAPS_LAUNCH_OMEGA_RANGE3_HPP

// The triplets before a block of the 3-D maps' leagues, in closed form: what
// elements_before() (launch/omega_range.hpp) gives for lambda3 and bb3, and so
// what balances their omega ranges by triplets (a three-body sum's work is its
// triplets, not its blocks: the blocks of the tetrahedron's faces hold fewer).
//
// Both leagues run block layer by block layer (bi), block row by block row
// within a layer (bj), block column fastest (bk); lambda3 over the block
// tetrahedron bk <= bj <= bi only, bb3 over the whole box with the blocks
// outside the tetrahedron empty. So the triplets before block (bi, bj, bk)
// are three closed terms (I = bi rho, J = bj rho, K = bk rho, h = the layers
// of block layer bi inside [0, n)):
//   - the layers i < I: tet_elements(I);
//   - the rows j < J of layer block bi: every one lies below every layer i of
//     the block (j < J <= I <= i), so h times the triplets of a row prefix,
//     sum_{j < J} (j + 1) = T(J) (lower) or sum_{j < J} j = T(J - 1) (strict);
//   - the columns k < K of block row bj: every one lies left of every row j
//     of the block (k < K <= J <= j), so K times the pairs (i, j) of block
//     (bi, bj) in the domain: h rho off the diagonal (bj < bi), T(h) or
//     T(h - 1) on it.
// Every term is an int64 product below T3(2^21 + 2) (domain.hpp's max_side3):
// exact up to the largest league.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/tetrahedral.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/maps/bounding_box3.hpp>
#include <tdmaps/maps/lambda3.hpp>

#include <type_traits>

namespace tdmaps {
namespace detail {

/// Whether elements_before() has the closed form of this file for Map.
template <class Map>
struct has_layer_order3
    : std::integral_constant<bool, is_lambda3_map_v<Map> || std::is_same<Map, BoundingBox3Map>::value> {};

/// Triplets of the blocks before block (bi, bj, bk) in layer, row, column
/// order over the block tetrahedron of d (bk <= bj <= bi < nb); bi = nb
/// (with bj = bk = 0) is the end of the league: every triplet.
inline index_t triplets_before(const Domain3& d, index_t bi, index_t bj, index_t bk) {
  const index_t rho = d.rho;
  const index_t i0 = bi * rho;
  if (i0 >= d.n) return d.elements();
  const bool lower = d.triangle == Triangle::lower;
  const index_t h = d.n - i0 < rho ? d.n - i0 : rho;
  const index_t j0 = bj * rho;
  const index_t row_prefix = lower ? tri(j0) : (j0 > 0 ? tri(j0 - 1) : 0);
  const index_t pairs = bj < bi ? h * rho : (lower ? tri(h) : tri(h - 1));
  return tet_elements(i0, d.triangle) + h * row_prefix + bk * rho * pairs;
}

/// elements_before() of a 3-D map, 0 < omega < map.league_size().
template <class Map>
index_t elements_before3(const Map& map, index_t omega) {
  static_assert(has_layer_order3<Map>::value, "tdmaps::elements_before: needs lambda3 or bb3 among the 3-D maps");
  const Domain3& d = map.domain;
  if constexpr (is_lambda3_map_v<Map>) {
    // The exact decode whatever the map's guess and form: the league order
    // the count follows is the exact one (the Epsilon form only matches it
    // where its guesses hold).
    const index_t bi = tet_root(omega);
    const index_t r = omega - tet(bi);
    const index_t bj = tri_root(r);
    return triplets_before(d, bi, bj, r - tri(bj));
  } else {
    const index_t nb = d.nb;
    const index_t row = omega / nb;  // bi nb + bj
    const index_t bk = omega - row * nb;
    const index_t bi = row / nb;
    const index_t bj = row - bi * nb;
    // An omega outside the block tetrahedron counts as the first block after it.
    if (bj > bi) return triplets_before(d, bi + 1, 0, 0);
    if (bk > bj) return bj == bi ? triplets_before(d, bi + 1, 0, 0) : triplets_before(d, bi, bj + 1, 0);
    return triplets_before(d, bi, bj, bk);
  }
}

}  // namespace detail
}  // namespace tdmaps

#endif
