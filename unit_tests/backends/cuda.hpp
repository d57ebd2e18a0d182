#ifndef TDMAPS_UNIT_TESTS_BACKENDS_CUDA_HPP
#define TDMAPS_UNIT_TESTS_BACKENDS_CUDA_HPP
#include <Kokkos_Core.hpp>
#define TEST_CATEGORY cuda
#define TEST_EXECSPACE Kokkos::Cuda
#endif
