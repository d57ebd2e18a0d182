// GoogleTest main for one backend. Kokkos is initialized around the tests,
// except when the runner only lists them (test discovery), so listing works on
// a machine without the backend's device. TDMAPS_TEST_OMP_THREADS (the
// staged_walk executable, cmake/tdmapsTestHarness.cmake): OpenMP's threads,
// whatever OMP_NUM_THREADS says (its teams need that many).
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstring>
#if defined(TDMAPS_TEST_OMP_THREADS)
#include <omp.h>
#endif

int main(int argc, char* argv[]) {
  bool list_only = false;
  for (int a = 1; a < argc; ++a)
    if (std::strcmp(argv[a], "--gtest_list_tests") == 0) list_only = true;
  ::testing::InitGoogleTest(&argc, argv);
  if (list_only) return RUN_ALL_TESTS();
#if defined(TDMAPS_TEST_OMP_THREADS)
  omp_set_num_threads(TDMAPS_TEST_OMP_THREADS);
#endif
  Kokkos::initialize(argc, argv);
  int result = RUN_ALL_TESTS();
  Kokkos::finalize();
  return result;
}
