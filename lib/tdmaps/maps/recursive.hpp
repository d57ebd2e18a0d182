#ifndef TDMAPS_MAPS_RECURSIVE_HPP
#define TDMAPS_MAPS_RECURSIVE_HPP

// REC, the recursive partition of Ries et al. (sec. 4.2 of the journal paper):
// the block triangle is split into a square under the diagonal and two half
// triangles, recursively; each recursion level is one launch of equal squares,
// plus one launch for the diagonal blocks. The original needs nb = m 2^k.
//
// Any nb, without padding: the boundaries of depth d are
//   p(r) = floor(r nb / 2^d),  r = 0 .. 2^d,
// which nest (the boundaries of depth d are those of depth d + 1 with even r),
// so interval r = [lo, hi) of depth d splits at mid = floor((2r + 1) nb / 2^(d+1))
// into the triangles [lo, mid), [mid, hi) and the rectangle rows [mid, hi) x
// columns [lo, mid). Its sides are floor or ceil of nb / 2^(d+1), so one
// launch per depth of 2^d tiles of c x c blocks, c = ceil(nb / 2^(d+1)),
// covers them all; a block outside its (at most one row/column smaller)
// rectangle exits. For nb = 2^k nothing is wasted; otherwise at most
// 2^d (2c - 1) blocks per depth. Depths run 0 .. D - 1, D = ceil(log2 nb);
// the intervals of depth D hold one row each: the diagonal launch.
// Launches are numbered bottom-up as in Ries et al.: 0 is the diagonal,
// l = 1 .. D is depth D - l.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <cstdint>

namespace tdmaps {

/// \brief The recursive partition (REC): the block triangle as its diagonal blocks plus square tiles of halving sides,
/// one launch per depth.
struct RecursiveMap {
  using space_tag = BlockSpaceTag;            ///< the map contract's space (maps/map_concept.hpp)
  static constexpr const char* name = "rec";  ///< Map::name: kernel labels, with_map's name

  Domain2 domain;  ///< what the map covers
  int depths = 0;  ///< D = ceil(log2 nb)

  /// \brief A map over the empty domain (n = 0).
  RecursiveMap() = default;
  /// \brief The map over d.
  explicit RecursiveMap(const Domain2& d)
      : domain(d), depths(d.nb > 1 ? intrinsics::bit_length(static_cast<std::uint64_t>(d.nb - 1)) : 0) {}
  /// \brief The map over Domain2(n, rho, t).
  RecursiveMap(index_t n, int rho, Triangle t = Triangle::lower) : RecursiveMap(Domain2(n, rho, t)) {}

  /// \brief Number of launches of the league.
  int launches() const { return domain.nb > 0 ? depths + 1 : 0; }
  /// Side c of the tiles of depth d.
  KOKKOS_FORCEINLINE_FUNCTION index_t tile_side(int d) const {
    return (domain.nb + (index_t(1) << (d + 1)) - 1) >> (d + 1);
  }
  /// \brief Omegas of launch l.
  KOKKOS_FUNCTION index_t league_size(int l) const {
    if (l == 0) return domain.nb;
    const int d = depths - l;
    const index_t c = tile_side(d);
    return (index_t(1) << d) * c * c;
  }
  /// \brief Block b of league rank omega of launch l; false where omega names no block.
  KOKKOS_FORCEINLINE_FUNCTION bool block(int l, index_t omega, Block2& b) const {
    if (l == 0) {
      b.bi = b.bj = omega;
      return true;
    }
    const int d = depths - l;
    const index_t c = tile_side(d);
    const index_t r = omega / (c * c);
    const index_t rem = omega - r * c * c;
    const index_t y = rem / c;
    const index_t x = rem - y * c;
    const index_t nb = domain.nb;
    const index_t lo = (r * nb) >> d;
    const index_t mid = ((2 * r + 1) * nb) >> (d + 1);
    const index_t hi = ((r + 1) * nb) >> d;
    b.bi = mid + y;
    b.bj = lo + x;
    return b.bi < hi && b.bj < mid;
  }
};

}  // namespace tdmaps

#endif
