#ifndef TDMAPS_TRIPLETS_HPP
#define TDMAPS_TRIPLETS_HPP

// Three-body sums over the triplets k < j < i < n on a tdmaps 3-D map, made
// reusable (target tdmaps::triplets):
//
//   double tdmaps::triplets::atm_energy<Real>(space, map, x, params[, per_particle[, hints]])
//
// The Axilrod-Teller-Muto energy sum over triplets of c9 (1 + 3 cos g1 cos
// g2 cos g3) / (r_ij r_jk r_ki)^3 of the particles x, an (n x 3) View of
// Real = float or double in the space's memory; map: a block-space 3-D map
// (BoundingBox3Map, Lambda3Map) over Domain3(n, rho, Triangle::strict_lower).
// Terms in Real, sums in double; optional cutoffs (AtmParams) and each
// particle's share (a third of each of its triplets). A tile kernel: the
// block's particles staged in team scratch, one atomic per team for the
// total. random_points_host / to_device make inputs. The maps come from
// <tdmaps/tdmaps.hpp>. apps/triplets/README.md has the details.

/// \namespace tdmaps::triplets
/// \brief Three-body sums over the triplets of a tetrahedron (target tdmaps::triplets).

#include <tdmaps/triplets/atm.hpp>
#include <tdmaps/triplets/atm_tile.hpp>
#include <tdmaps/triplets/points.hpp>

#endif
