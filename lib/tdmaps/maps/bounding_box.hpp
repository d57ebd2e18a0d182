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
  /// 1 / nb, rounded: block() divides by multiplying. Set by the
  /// constructors; should domain be changed afterwards, block() stays exact
  /// (its integer steps correct any guess) but may step far.
  double inv_nb = 0.0;

  BoundingBoxMap() = default;
  explicit BoundingBoxMap(const Domain2& d) : domain(d), inv_nb(d.nb > 0 ? 1.0 / static_cast<double>(d.nb) : 0.0) {}
  BoundingBoxMap(index_t n, int rho, Triangle t = Triangle::lower) : BoundingBoxMap(Domain2(n, rho, t)) {}

  KOKKOS_FUNCTION index_t league_size() const { return domain.nb * domain.nb; }
  /// Row bi = omega / nb by a multiplication with 1 / nb and an integer
  /// check, not a division: a 64-bit integer division costs ~25 instructions
  /// per block (its 32-bit path included), and every launched block pays it,
  /// the half BB wastes too (Nsight Compute, perf_tests/README.md). With
  /// omega < nb^2 <= 2^56 the guess is within 2 of the quotient (omega's
  /// conversion and the product round by at most 2^-53 relative), so each
  /// loop runs at most twice.
  KOKKOS_FORCEINLINE_FUNCTION bool block(index_t omega, Block2& b) const {
    const index_t nb = domain.nb;
    index_t bi = static_cast<index_t>(static_cast<double>(omega) * inv_nb);
    while (bi * nb > omega) --bi;
    while ((bi + 1) * nb <= omega) ++bi;
    b.bi = bi;
    b.bj = omega - bi * nb;
    return b.bj <= b.bi;
  }
};

}  // namespace tdmaps

#endif
