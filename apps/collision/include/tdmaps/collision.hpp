#ifndef TDMAPS_COLLISION_HPP
#define TDMAPS_COLLISION_HPP

// All-pairs collision detection of spheres (3-D) or intervals (1-D) on a
// tdmaps map, the papers' shared-memory test made reusable (target
// tdmaps::collision):
//
//   index_t tdmaps::collision::collide(space, spheres, map, result, kernel, out[, hints])
//
// spheres: ConstSpheres<MemorySpace>, an (n x 4) View of (x, y, z, r);
// map: any tdmaps map over Domain2(n, rho, Triangle::strict_lower): the
// pairs j < i. Spheres collide when |c_i - c_j| < r_i + r_j, decided exactly
// for the float inputs (an fp32 test with an error filter, fp64 for near
// ties). Results: count, flags / rowflags / tileflags (bit flags in three
// layouts), pairs (the exact sorted list), intflags (int32 per pair); every
// one returns the count. Kernels: tile (team scratch; block-space maps),
// element (any map), linear (packed order). Bad spheres (NaN, Inf, negative
// radius) throw std::invalid_argument naming the row before anything is
// written; n = 0 and n = 1 have no pairs. collide() fences the space.
// The maps come from <tdmaps/tdmaps.hpp>. apps/collision/README.md has the
// details.

/// \namespace tdmaps::collision
/// \brief All-pairs collision detection of spheres or intervals (target tdmaps::collision).

#include <tdmaps/collision/collide.hpp>
#include <tdmaps/collision/names.hpp>
#include <tdmaps/collision/pair_test.hpp>
#include <tdmaps/collision/result.hpp>
#include <tdmaps/collision/spheres.hpp>

#endif
