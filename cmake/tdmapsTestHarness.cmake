# The per-backend GoogleTest executables (Cabana's test harness): every test
# header is compiled once per enabled Kokkos backend through a generated
# translation unit that first includes the backend's category header
# (unit_tests/backends/<backend>.hpp: TEST_CATEGORY, TEST_EXECSPACE), so the
# tests come out as serial.<test>, openmp.<test>, threads.<test>, cuda.<test>,
# hip.<test>. One executable
# per backend, tdmaps_unit_tests_<backend>, holds every set registered here:
# the library's (unit_tests/) and each app's (apps/<app>/tests/). Host builds
# add three executables that run chosen headers again on Serial with a
# compile-time switch, their tests prefixed by the executable's role:
#   lane_tile_step3., lane_tile_step1.  TDMAPS_FORCE_LANE_TILE: the GPU walks
#       of blocks (the apps' tile kernels, for_each_element's GPU path) on
#       host teams, rows walked 3 apart per lane (as a GPU team of 3 threads
#       per lane would; odd, so the diagonal block's first row needs the
#       rounding up) or 1 (the unrolled whole-block path of the library's
#       default 32-thread tile teams), so their index math is checked against
#       the oracles without a GPU. (A CUDA build runs the real GPU path.)
#       One executable, tdmaps_unit_tests_lane_tile, whose every test ctest
#       runs twice: with --tdmaps-lane-step=3 and with =1 (the step is read at
#       run time, tdmaps::detail::forced_lane_step).
#   split_league.  TDMAPS_MAX_LEAGUE_PER_LAUNCH=7: every league of more than 7
#       teams split into several launches (run_league's omega offsets, UTM's
#       ThreadFunctor ranges), on leagues the coverage tests can check.
#   staged_walk.  TDMAPS_FORCE_STAGED_MIN_KEYS, on OpenMP with 64 threads:
#       the GPU walk of the dimension-tiled walks (pair_min_keys,
#       pair_min_k_keys and the pair sums: a team of up to 64 threads staging
#       a block's coordinates, its micro-tiles, the team barriers) on host teams.
#
#   tdmaps_add_backend_tests(<set>
#       HEADERS <test headers>...          on every enabled backend
#       [LANE_TILE <test headers>...]      also in the lane_tile executable
#       [SPLIT_LEAGUE <test headers>...]   also in the split_league executable
#       [STAGED <test headers>...]         also in the staged_walk executable
#       [LIBS <targets>...]                what the set's tests link
#       [DEFINITIONS <definitions>...])    for the set's translation units
# Relative header paths are taken from the calling directory.

# A GPU build (CUDA, HIP) tests its GPU backend; its host backends are the
# host builds' (the same code through a host compiler), so their
# executables are left out there unless asked for.
# (TDMAPS_GPU_BUILD: the top CMakeLists.txt.)
if(TDMAPS_GPU_BUILD)
  option(TDMAPS_TEST_HOST_BACKENDS "Also build the host backends' test executables in a CUDA build" OFF)
else()
  set(TDMAPS_TEST_HOST_BACKENDS ON)
endif()
# TDMAPS_TEST_ONLY_BACKENDS narrows them to a list (CI's second Kokkos line
# tests OpenMP alone: the Serial executable compiles the same sources again).
set(TDMAPS_TEST_ONLY_BACKENDS "" CACHE STRING
    "Test only these of the enabled Kokkos backends (a ;-list of serial, openmp, threads, cuda, hip; empty: all of them)")
foreach(backend ${TDMAPS_TEST_ONLY_BACKENDS})
  if(NOT backend MATCHES "^(serial|openmp|threads|cuda|hip)$")
    message(FATAL_ERROR "TDMAPS_TEST_ONLY_BACKENDS: unknown backend '${backend}' (serial, openmp, threads, cuda or hip)")
  endif()
endforeach()
set(TDMAPS_TEST_BACKENDS)
foreach(dev SERIAL OPENMP THREADS CUDA HIP)
    string(TOLOWER ${dev} backend)
  if(TDMAPS_TEST_ONLY_BACKENDS AND NOT backend IN_LIST TDMAPS_TEST_ONLY_BACKENDS)
    continue()
  endif()
  if(Kokkos_ENABLE_${dev} AND (dev MATCHES "^(CUDA|HIP)$" OR TDMAPS_TEST_HOST_BACKENDS))
    list(APPEND TDMAPS_TEST_BACKENDS ${backend})
  endif()
endforeach()
if(NOT TDMAPS_TEST_BACKENDS)
  message(FATAL_ERROR "tdmaps: no Kokkos backend left to test (TDMAPS_TEST_ONLY_BACKENDS = '${TDMAPS_TEST_ONLY_BACKENDS}')")
endif()
message(STATUS "tdmaps unit-test backends: ${TDMAPS_TEST_BACKENDS}")

# The unit-test executables' optimisation on host compilers (after the
# build type's flags, so it wins): -O1 compiles their template-heavy sources
# in about half the time of -O3 and computes the same IEEE values (no
# -ffast-math, no FMA contraction on the default x86-64 target). The apps,
# the Python module and the benchmarks keep the build type's (their tests
# run them as built); CUDA builds keep it too (nvcc takes one -O; their tests
# run on the GPU). TDMAPS_HOST_OPTIMIZATION, when set, is used instead
# (cmake/tdmapsTargetFlags.cmake).
if(TDMAPS_GPU_BUILD)
  set(TDMAPS_TEST_OPTIMIZATION "" CACHE STRING "Optimisation flags of the unit-test executables (empty: the build type's)")
else()
  set(TDMAPS_TEST_OPTIMIZATION "-O1" CACHE STRING "Optimisation flags of the unit-test executables (empty: the build type's)")
endif()

# The variants of the executables: <name>|<backend header>|<ctest prefix>|<definitions>.
set(_tdmaps_test_variants)
foreach(backend ${TDMAPS_TEST_BACKENDS})
  list(APPEND _tdmaps_test_variants "${backend}|${backend}||")
endforeach()
# TDMAPS_TEST_HOST_VARIANTS=OFF leaves them out: they test the project's own
# index math, not Kokkos (CI's second Kokkos line skips them).
option(TDMAPS_TEST_HOST_VARIANTS "Build the lane_tile and split_league test executables (host builds)" ON)
if(Kokkos_ENABLE_SERIAL AND NOT TDMAPS_GPU_BUILD AND TDMAPS_TEST_HOST_VARIANTS)
  list(APPEND _tdmaps_test_variants
       "lane_tile|serial|lane_tile_step3.,lane_tile_step1.|TDMAPS_FORCE_LANE_TILE"
       # Every launch of at most 7 blocks: the 2-D coverage stops at side 1024 there.
       "split_league|serial|split_league.|TDMAPS_MAX_LEAGUE_PER_LAUNCH=7,TDMAPS_TEST_FEW_SIDES")
endif()
if(Kokkos_ENABLE_OPENMP AND NOT TDMAPS_GPU_BUILD AND TDMAPS_TEST_HOST_VARIANTS)
  # A team of up to 64 threads (the 4 x 4 micro-tiles of a block of 32):
  # unit_tests/main.cpp asks OpenMP for TDMAPS_TEST_OMP_THREADS.
  list(APPEND _tdmaps_test_variants
       "staged_walk|openmp|staged_walk.|TDMAPS_FORCE_STAGED_MIN_KEYS,TDMAPS_TEST_OMP_THREADS=64")
endif()
# Global: the apps' directories call the function too.
set(TDMAPS_TEST_VARIANTS "${_tdmaps_test_variants}" CACHE INTERNAL "tdmaps test executables")

# The executable of one variant, created on first use (in the directory that
# first registers a set: unit_tests/).
function(_tdmaps_test_executable variant out)
  string(REPLACE "|" ";" fields "${variant}")
  list(GET fields 0 name)
  list(GET fields 2 prefix)
  list(LENGTH fields nfields)
  set(exe tdmaps_unit_tests_${name})
  if(NOT TARGET ${exe})
    # unit_tests/: main.cpp, backends/, the oracles every set may include.
    add_executable(${exe} ${PROJECT_SOURCE_DIR}/unit_tests/main.cpp)
    target_include_directories(${exe} PRIVATE ${PROJECT_SOURCE_DIR}/unit_tests)
    target_link_libraries(${exe} PRIVATE tdmaps::tdmaps GTest::gtest)
    if(nfields GREATER 3)
      list(GET fields 3 defs)
      string(REPLACE "," ";" defs "${defs}")
      target_compile_definitions(${exe} PRIVATE ${defs})
    endif()
    tdmaps_target_flags(${exe})
    if(TDMAPS_TEST_OPTIMIZATION AND NOT TDMAPS_HOST_OPTIMIZATION)
      target_compile_options(${exe} PRIVATE ${TDMAPS_TEST_OPTIMIZATION})
    endif()
    # Discovery runs the executable, which on a GPU backend needs the GPU: do
    # it when the tests run, not at build time (the build machine may have none).
    # OMP_WAIT_POLICY: see TDMAPS_TEST_OMP_ENV.
    if(name STREQUAL "lane_tile")
      # Every test at each lane step, the step in the prefix (see the top).
      string(REPLACE "," ";" prefixes "${prefix}")
      foreach(p ${prefixes})
        string(REGEX REPLACE "^lane_tile_step([0-9]+)\\.$" "\\1" step "${p}")
        gtest_discover_tests(${exe} TEST_PREFIX ${p} EXTRA_ARGS --tdmaps-lane-step=${step}
                             DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
                             PROPERTIES ENVIRONMENT "${TDMAPS_TEST_OMP_ENV}")
      endforeach()
    elseif(prefix)
      gtest_discover_tests(${exe} TEST_PREFIX ${prefix} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
                           PROPERTIES ENVIRONMENT "${TDMAPS_TEST_OMP_ENV}")
    else()
      gtest_discover_tests(${exe} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
                           PROPERTIES ENVIRONMENT "${TDMAPS_TEST_OMP_ENV}")
    endif()
  endif()
  set(${out} ${exe} PARENT_SCOPE)
endfunction()

function(tdmaps_add_backend_tests set)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "HEADERS;LANE_TILE;SPLIT_LEAGUE;STAGED;LIBS;DEFINITIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tdmaps_add_backend_tests(${set}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  foreach(variant ${TDMAPS_TEST_VARIANTS})
    string(REPLACE "|" ";" fields "${variant}")
    list(GET fields 0 name)
    list(GET fields 1 backend)
    if(name STREQUAL backend)
      set(headers ${arg_HEADERS})
    elseif(name MATCHES "^lane_tile")
      set(headers ${arg_LANE_TILE})
    elseif(name STREQUAL "staged_walk")
      set(headers ${arg_STAGED})
    else()
      set(headers ${arg_SPLIT_LEAGUE})
    endif()
    if(NOT headers)
      continue()
    endif()
    _tdmaps_test_executable("${variant}" exe)
    set(tus)
    foreach(header ${headers})
      get_filename_component(header ${header} ABSOLUTE)
      get_filename_component(stem ${header} NAME_WE)
      set(tu ${CMAKE_BINARY_DIR}/unit_tests/generated/${name}/${set}/${stem}.cpp)
      file(CONFIGURE OUTPUT ${tu} CONTENT
           "// generated by cmake/tdmapsTestHarness.cmake\n#include \"backends/${backend}.hpp\"\n#include \"${header}\"\n")
      list(APPEND tus ${tu})
    endforeach()
    target_sources(${exe} PRIVATE ${tus})
    if(arg_DEFINITIONS)
      set_source_files_properties(${tus} TARGET_DIRECTORY ${exe} PROPERTIES COMPILE_DEFINITIONS "${arg_DEFINITIONS}")
    endif()
    if(arg_LIBS)
      target_link_libraries(${exe} PRIVATE ${arg_LIBS})
    endif()
  endforeach()
endfunction()
