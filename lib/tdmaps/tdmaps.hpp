#ifndef TDMAPS_TDMAPS_HPP
#define TDMAPS_TDMAPS_HPP

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/intrinsics.hpp>
#include <tdmaps/core/math.hpp>
#include <tdmaps/core/sqrt.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kernels/dummy.hpp>
#include <tdmaps/launch/dispatch.hpp>
#include <tdmaps/launch/for_each.hpp>
#include <tdmaps/launch/for_each_run.hpp>
#include <tdmaps/maps/bounding_box.hpp>
#include <tdmaps/maps/hadouken.hpp>
#include <tdmaps/maps/lambda.hpp>
#include <tdmaps/maps/rectangular_box.hpp>
#include <tdmaps/maps/recursive.hpp>
#include <tdmaps/maps/upper_triangular.hpp>

#endif
