#ifndef TDMAPS_MAPS_BOUNDING_BOX_HPP
#define TDMAPS_MAPS_BOUNDING_BOX_HPP

// BB: the nb x nb bounding box of the triangle. Blocks above the diagonal exit
// at block level before any thread coordinate is computed (the papers'
// optimized BB, sec. 4.2 of the journal paper): nb (nb - 1) / 2 wasted blocks.

#include <tdmaps/core/domain.hpp>

namespace tdmaps {

struct BoundingBoxMap {
  using space_tag = BlockSpaceTag;
  static constexpr const char* name = "bb";

  Domain2 domain;

  BoundingBoxMap() = default;
  explicit BoundingBoxMap(const Domain2& d) : domain(d) {}
  BoundingBoxMap(index_t n, int rho, Triangle t = Triangle::lower) : domain(n, rho, t) {}

  KOKKOS_FUNCTION index_t league_size() const { return domain.nb * domain.nb; }
  /// Row bi = omega / nb by an integer division (nvcc takes a 32-bit path
  /// while omega < 2^32). A multiplication with a stored 1 / nb and integer
  /// checks instead ran 86 SASS instructions per launched warp of the
  /// element path against 82 (64-bit conversions and products; Nsight
  /// Compute, perf_tests/results/h100/rowflags/check_a7470c3/).
  KOKKOS_FORCEINLINE_FUNCTION bool block(index_t omega, Block2& b) const {
    b.bi = omega / domain.nb;
    b.bj = omega - b.bi * domain.nb;
    return b.bj <= b.bi;
  }
};

}  // namespace tdmaps

#endif
