#ifndef TDMAPS_UNIT_TESTS_BACKENDS_OPENMP_HPP
#define TDMAPS_UNIT_TESTS_BACKENDS_OPENMP_HPP
#include <Kokkos_Core.hpp>
#define TEST_CATEGORY openmp
#define TEST_EXECSPACE Kokkos::OpenMP
#endif
