#ifndef TDMAPS_MAPS_BOUNDING_BOX3_HPP
#define TDMAPS_MAPS_BOUNDING_BOX3_HPP

// BB3: the nb x nb x nb bounding box of the tetrahedron. Blocks outside the
// block tetrahedron (bk <= bj <= bi) exit at block level before any thread
// coordinate is computed, as the papers' BB does: nb^3 - T3(nb) wasted
// blocks, about 5/6 of the league.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/maps/map_concept.hpp>

namespace tdmaps {

/// \brief The 3-D bounding box (BB3): a league of nb^3 blocks, omega = (bi nb + bj) nb + bk; the blocks outside the
/// tetrahedron come back false.
struct BoundingBox3Map {
  using space_tag = BlockSpaceTag;            ///< the map contract's space (maps/map_concept.hpp)
  static constexpr const char* name = "bb3";  ///< Map::name: kernel labels, with_map's name

  Domain3 domain;  ///< what the map covers

  /// \brief A map over the empty domain (n = 0).
  BoundingBox3Map() = default;
  /// \brief The map over d.
  explicit BoundingBox3Map(const Domain3& d) : domain(d) {}
  /// \brief The map over Domain3(n, rho, t).
  BoundingBox3Map(index_t n, int rho, Triangle t = Triangle::lower) : domain(n, rho, t) {}

  /// \brief Omegas of the league (one launch).
  KOKKOS_FUNCTION index_t league_size() const { return domain.nb * domain.nb * domain.nb; }
  /// omega = (bi nb + bj) nb + bk, two integer divisions (32-bit ones where omega < 2^32).
  KOKKOS_FORCEINLINE_FUNCTION bool block(index_t omega, Block3& b) const {
    const index_t nb = domain.nb;
    const index_t row = omega / nb;  // bi nb + bj
    b.bk = omega - row * nb;
    b.bi = row / nb;
    b.bj = row - b.bi * nb;
    return b.bk <= b.bj && b.bj <= b.bi;
  }
};

}  // namespace tdmaps

#endif
