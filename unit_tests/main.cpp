// GoogleTest main for one backend. Kokkos is initialized around the tests,
// except when the runner only lists them (test discovery), so listing works on
// a machine without the backend's device.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstring>

int main(int argc, char* argv[]) {
  bool list_only = false;
  for (int a = 1; a < argc; ++a)
    if (std::strcmp(argv[a], "--gtest_list_tests") == 0) list_only = true;
  ::testing::InitGoogleTest(&argc, argv);
  if (list_only) return RUN_ALL_TESTS();
  Kokkos::initialize(argc, argv);
  int result = RUN_ALL_TESTS();
  Kokkos::finalize();
  return result;
}
