#ifndef TDMAPS_MAPS_RECTANGULAR_BOX_HPP
#define TDMAPS_MAPS_RECTANGULAR_BOX_HPP

// RB, the rectangular box (Jung & O'Leary's packing applied to the parallel
// space, sec. 4.2 of the journal paper): the top rows of the block triangle are
// rotated and placed beside the bottom rows, so the triangle becomes a
// rectangle with no wasted block, for odd and even nb alike.
//
// Derivation. Let h = floor(nb / 2). The bottom rows i = h + y (y >= 0) hold
// h + y + 1 blocks; pair each with the top row i = h - 1 - y, which holds
// h - y blocks: together nb + 1 blocks. For even nb that pairs every row:
// a rectangle of nb / 2 rows x (nb + 1) columns. For odd nb = 2h + 1 the bottom
// half has one row more (y = h, i = nb - 1, nb blocks) and the top row of each
// pair is one block shorter: a rectangle of (nb + 1) / 2 rows x nb columns.
// Either way rows x cols = nb (nb + 1) / 2 exactly. Rectangle block (y, x):
//   x <= h + y : (i, j) = (h + y, x)                      (bottom row as is)
//   otherwise  : (i, j) = (h - 1 - y, x - (h + y + 1))    (top row, appended)
// (The authors' version drops diagonal elements for odd n; this one is
// checked for every n by the coverage tests.)

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/maps/map_concept.hpp>

namespace tdmaps {

/// \brief The rectangular box (RB): the block triangle folded into a rectangle of nb (nb + 1) / 2 blocks.
struct RectangularBoxMap {
  using space_tag = BlockSpaceTag;           ///< the map contract's space (maps/map_concept.hpp)
  static constexpr const char* name = "rb";  ///< Map::name: kernel labels, with_map's name

  Domain2 domain;     ///< what the map covers
  index_t half = 0;   ///< h = floor(nb / 2)
  index_t width = 1;  ///< nb + 1 for even nb, nb for odd nb

  /// \brief A map over the empty domain (n = 0).
  RectangularBoxMap() = default;
  /// \brief The map over d.
  explicit RectangularBoxMap(const Domain2& d) : domain(d), half(d.nb / 2), width(d.nb % 2 == 0 ? d.nb + 1 : d.nb) {}
  /// \brief The map over Domain2(n, rho, t).
  RectangularBoxMap(index_t n, int rho, Triangle t = Triangle::lower) : RectangularBoxMap(Domain2(n, rho, t)) {}

  /// \brief Omegas of the league (one launch).
  KOKKOS_FUNCTION index_t league_size() const { return tri(domain.nb); }
  /// \brief Block b of league rank omega; false where omega names no block.
  KOKKOS_FORCEINLINE_FUNCTION bool block(index_t omega, Block2& b) const {
    const index_t y = omega / width;
    const index_t x = omega - y * width;
    if (x <= half + y) {
      b.bi = half + y;
      b.bj = x;
    } else {
      b.bi = half - 1 - y;
      b.bj = x - (half + y + 1);
    }
    return true;
  }
};

}  // namespace tdmaps

#endif
