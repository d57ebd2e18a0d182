// GoogleTest main for one backend. Kokkos is initialized around the tests,
// except when the runner only lists them (test discovery), so listing works on
// a machine without the backend's device. TDMAPS_TEST_OMP_THREADS (the
// staged_walk executable, cmake/tdmapsTestHarness.cmake): OpenMP's threads,
// whatever OMP_NUM_THREADS says (its teams need that many).
// TDMAPS_FORCE_LANE_TILE (the lane_tile executable): --tdmaps-lane-step=R, the
// GPU team size its host teams' lane walks stand for, is required; ctest runs
// the executable's tests at R = 3 and R = 1 (lane_tile_step3.*, lane_tile_step1.*).
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstring>
#if defined(TDMAPS_FORCE_LANE_TILE)
#include <tdmaps/launch/tile.hpp>

#include <cstdio>
#include <cstdlib>
#endif
#if defined(TDMAPS_TEST_OMP_THREADS)
#include <omp.h>
#endif

int main(int argc, char* argv[]) {
  bool list_only = false;
#if defined(TDMAPS_FORCE_LANE_TILE)
  // Taken out of argv before GoogleTest and Kokkos read it.
  const char* const lane_flag = "--tdmaps-lane-step=";
  int lane_step = 0;
  int kept = 1;
  for (int a = 1; a < argc; ++a) {
    if (std::strncmp(argv[a], lane_flag, std::strlen(lane_flag)) == 0) {
      const char* value = argv[a] + std::strlen(lane_flag);
      char* end = nullptr;
      const long r = std::strtol(value, &end, 10);
      if (end == value || *end != '\0' || r < 1 || r > 1024) {
        std::fprintf(stderr, "error: %s needs a team size from 1 to 1024, got '%s'\n", lane_flag, value);
        return 2;
      }
      lane_step = static_cast<int>(r);
    } else {
      argv[kept++] = argv[a];
    }
  }
  argc = kept;
  argv[argc] = nullptr;
#endif
  for (int a = 1; a < argc; ++a)
    if (std::strcmp(argv[a], "--gtest_list_tests") == 0) list_only = true;
  ::testing::InitGoogleTest(&argc, argv);
  if (list_only) return RUN_ALL_TESTS();
#if defined(TDMAPS_FORCE_LANE_TILE)
  if (lane_step == 0) {
    std::fprintf(stderr, "error: this executable runs the GPU lane walks on host teams and needs "
                         "--tdmaps-lane-step=R, the GPU team size they stand for (ctest passes 3 and 1)\n");
    return 2;
  }
  tdmaps::detail::forced_lane_step() = lane_step;
#endif
#if defined(TDMAPS_TEST_OMP_THREADS)
  omp_set_num_threads(TDMAPS_TEST_OMP_THREADS);
#endif
  Kokkos::initialize(argc, argv);
  int result = RUN_ALL_TESTS();
  Kokkos::finalize();
  return result;
}
