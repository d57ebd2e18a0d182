#ifndef TDMAPS_MAPS_BOUNDING_BOX_HPP
#define TDMAPS_MAPS_BOUNDING_BOX_HPP

// BB: the nb x nb bounding box of the triangle. Blocks above the diagonal exit
// at block level before any thread coordinate is computed (the papers'
// optimized BB, sec. 4.2 of the journal paper): nb (nb - 1) / 2 wasted blocks.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/maps/map_concept.hpp>

namespace tdmaps {

/// \brief The bounding box (BB): a league of nb x nb blocks, omega = bi nb + bj; the blocks above the diagonal come
/// back false.
struct BoundingBoxMap {
  using space_tag = BlockSpaceTag;           ///< the map contract's space (maps/map_concept.hpp)
  static constexpr const char* name = "bb";  ///< Map::name: kernel labels, with_map's name

  Domain2 domain;  ///< what the map covers

  /// \brief A map over the empty domain (n = 0).
  BoundingBoxMap() = default;
  /// \brief The map over d.
  explicit BoundingBoxMap(const Domain2& d) : domain(d) {}
  /// \brief The map over Domain2(n, rho, t).
  BoundingBoxMap(index_t n, int rho, Triangle t = Triangle::lower) : domain(n, rho, t) {}

  /// \brief Omegas of the league (one launch).
  KOKKOS_FUNCTION index_t league_size() const { return domain.nb * domain.nb; }
  /// Row bi = omega / nb by an integer division (nvcc takes a 32-bit path
  /// while omega < 2^32), not a multiplication by a stored 1 / nb with
  /// integer checks: the checks' 64-bit conversions and products cost every
  /// launched warp more than the division saves. The `launch` group's
  /// `edm_packed_d2.tdmaps` case under BB at block side 32 decides it.
  KOKKOS_FORCEINLINE_FUNCTION bool block(index_t omega, Block2& b) const {
    b.bi = omega / domain.nb;
    b.bj = omega - b.bi * domain.nb;
    return b.bj <= b.bi;
  }
};

}  // namespace tdmaps

#endif
