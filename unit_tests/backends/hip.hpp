#ifndef TDMAPS_UNIT_TESTS_BACKENDS_HIP_HPP
#define TDMAPS_UNIT_TESTS_BACKENDS_HIP_HPP
#include <Kokkos_Core.hpp>
#include <tdmaps/kokkos_ext/backend.hpp>
#define TEST_CATEGORY hip
#define TEST_EXECSPACE tdmaps::backend::HIP
#endif
