#ifndef TDMAPS_TDMAPS_HPP
#define TDMAPS_TDMAPS_HPP

// Everything public of tdmaps. Internals (tdmaps/detail/, namespace
// tdmaps::detail) come in through the headers that need them and are not API.

#include <tdmaps/core/cbrt.hpp>
#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/math.hpp>
#include <tdmaps/core/sqrt.hpp>
#include <tdmaps/core/tetrahedral.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kernels/dummy.hpp>
#include <tdmaps/kernels/dummy3.hpp>
#include <tdmaps/launch/dispatch.hpp>
#include <tdmaps/launch/for_each.hpp>
#include <tdmaps/launch/for_each_run.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/omega_range3.hpp>
#include <tdmaps/launch/reduce.hpp>
#include <tdmaps/launch/run.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/bounding_box.hpp>
#include <tdmaps/maps/bounding_box3.hpp>
#include <tdmaps/maps/hadouken.hpp>
#include <tdmaps/maps/lambda.hpp>
#include <tdmaps/maps/lambda3.hpp>
#include <tdmaps/maps/map_concept.hpp>
#include <tdmaps/maps/rectangular_box.hpp>
#include <tdmaps/maps/recursive.hpp>
#include <tdmaps/maps/upper_triangular.hpp>

#endif
