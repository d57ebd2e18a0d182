#ifndef TDMAPS_UNIT_TESTS_BACKENDS_SERIAL_HPP
#define TDMAPS_UNIT_TESTS_BACKENDS_SERIAL_HPP
#include <Kokkos_Core.hpp>
#define TEST_CATEGORY serial
#define TEST_EXECSPACE Kokkos::Serial
#endif
