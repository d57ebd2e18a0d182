#ifndef TDMAPS_UNIT_TESTS_BACKENDS_THREADS_HPP
#define TDMAPS_UNIT_TESTS_BACKENDS_THREADS_HPP
#include <Kokkos_Core.hpp>
#define TEST_CATEGORY threads
#define TEST_EXECSPACE Kokkos::Threads
#endif
