#ifndef TDMAPS_DETAIL_MAKE_TILE_HPP
#define TDMAPS_DETAIL_MAKE_TILE_HPP

// Not API (tdmaps::detail): the Tile of block (bi, bj) of a domain, clipped
// to [0, n); the same for block (bi, bj, bk) of a tetrahedron.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/tile.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace detail {

KOKKOS_FORCEINLINE_FUNCTION Tile make_tile(const Domain2& d, const Block2& b) {
  Tile t;
  t.i0 = b.bi * d.rho;
  t.j0 = b.bj * d.rho;
  t.rows = static_cast<int>(d.n - t.i0 < d.rho ? d.n - t.i0 : d.rho);
  t.cols = static_cast<int>(d.n - t.j0 < d.rho ? d.n - t.j0 : d.rho);
  t.triangle = d.triangle;
  return t;
}

KOKKOS_FORCEINLINE_FUNCTION Tile3 make_tile(const Domain3& d, const Block3& b) {
  Tile3 t;
  t.i0 = b.bi * d.rho;
  t.j0 = b.bj * d.rho;
  t.k0 = b.bk * d.rho;
  t.ni = static_cast<int>(d.n - t.i0 < d.rho ? d.n - t.i0 : d.rho);
  t.nj = static_cast<int>(d.n - t.j0 < d.rho ? d.n - t.j0 : d.rho);
  t.nk = static_cast<int>(d.n - t.k0 < d.rho ? d.n - t.k0 : d.rho);
  t.triangle = d.triangle;
  return t;
}

}  // namespace detail
}  // namespace tdmaps

#endif
