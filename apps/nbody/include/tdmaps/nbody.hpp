#ifndef TDMAPS_NBODY_HPP
#define TDMAPS_NBODY_HPP

// Direct-sum N-body on the triangle, made reusable (target tdmaps::nbody):
// every pair (i, j), i > j, evaluated once and its force applied to both
// ends (Newton's third law) through tdmaps::for_each_pair_both_ends.
//
//   Forces<Real, ExecSpace> f(space, params, m[, q]);  f.compute(map, x, acc);
//   accelerations<Real>(space, map, x, m, q, params, acc)
//   check_params, check_bodies, first_non_finite, non_finite_cause  (checks.hpp)
//   State, make_state, kick, drift, leapfrog_step, diagnostics   (integrate.hpp)
//   plummer_host, random_host                                     (initial.hpp)
//
// Laws (forces.hpp): gravity with Plummer softening, Lennard-Jones (cut and
// shifted), Coulomb; Real = float or double; acc holds each body's
// acceleration and its share of the potential energy. apps/nbody/README.md
// has the details.

/// \namespace tdmaps::nbody
/// \brief Direct-sum N-body forces and time stepping on the triangle (target tdmaps::nbody).

#include <tdmaps/nbody/accelerations.hpp>
#include <tdmaps/nbody/checks.hpp>
#include <tdmaps/nbody/forces.hpp>
#include <tdmaps/nbody/initial.hpp>
#include <tdmaps/nbody/integrate.hpp>

#endif
