#ifndef TDMAPS_EDM_HPP
#define TDMAPS_EDM_HPP

// Euclidean distance matrices of n points in d dimensions on a tdmaps map
// (target tdmaps::edm):
//
//   tdmaps::edm::edm(space, points, out, map, layout[, kernel[, symmetric[, hints]]])
//
// points: Kokkos::View<Real**, LayoutRight>, n x d (Real = float or double);
// out: Kokkos::View<Real*> of output_size(layout, n) values; map: any tdmaps
// map over make_domain(n, rho, layout).
// Layouts: packed (lower triangle with the diagonal, (i, j) at T(i) + j),
// condensed (SciPy's pdist order, no diagonal), full (n x n; both halves
// when symmetric). Kernels: element (any map), tile (team scratch;
// block-space maps), linear (packed / condensed in memory order), gemm
// (Kokkos Kernels, guarded), automatic (tile where it fits, else element;
// gemm only when asked for). Every kernel is exact to the element
// kernel's direct formula: the gemm path recomputes the pairs its error
// bound does not vouch for (detail::GemmAccuracy). NaN and Inf propagate as
// in SciPy. edm() does not fence (the gemm path does). apps/edm/README.md
// has the details.

/// \namespace tdmaps::edm
/// \brief Euclidean distance matrices and the pair reductions over them (target tdmaps::edm).

#include <tdmaps/tdmaps.hpp>

#include <tdmaps/edm/driver.hpp>
#include <tdmaps/edm/element.hpp>
#include <tdmaps/edm/gemm.hpp>
#include <tdmaps/edm/layout.hpp>
#include <tdmaps/edm/linear.hpp>
#include <tdmaps/edm/names.hpp>
#include <tdmaps/edm/tile.hpp>

#endif
