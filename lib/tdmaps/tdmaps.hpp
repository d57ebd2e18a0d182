#ifndef TDMAPS_TDMAPS_HPP
#define TDMAPS_TDMAPS_HPP

/// \file
/// \brief The umbrella header: every public header of tdmaps, API only.
///
/// Internals (the detail/ folder of each layer, namespace tdmaps::detail) come in
/// through the headers that need them and are not API. The papers' dummy
/// kernels (tdmaps::bench, <tdmaps/bench/dummy.hpp> and
/// <tdmaps/bench/dummy3.hpp>) are not part of it: benchmarks and tests
/// include them where they use them.

/// \namespace tdmaps
/// \brief The public API of tdmaps: domains, maps, and the launches over them.

#include <tdmaps/core/cbrt.hpp>
#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/math.hpp>
#include <tdmaps/core/sqrt.hpp>
#include <tdmaps/core/tetrahedral.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/launch/for_each.hpp>
#include <tdmaps/launch/for_each_run.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/omega_range3.hpp>
#include <tdmaps/launch/pair_both_ends.hpp>
#include <tdmaps/launch/pair_law.hpp>
#include <tdmaps/launch/pair_reduce_law.hpp>
#include <tdmaps/launch/reduce.hpp>
#include <tdmaps/launch/run.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/bounding_box.hpp>
#include <tdmaps/maps/bounding_box3.hpp>
#include <tdmaps/maps/dispatch.hpp>
#include <tdmaps/maps/hadouken.hpp>
#include <tdmaps/maps/lambda.hpp>
#include <tdmaps/maps/lambda3.hpp>
#include <tdmaps/maps/map_concept.hpp>
#include <tdmaps/maps/rectangular_box.hpp>
#include <tdmaps/maps/recursive.hpp>
#include <tdmaps/maps/upper_triangular.hpp>

#endif
