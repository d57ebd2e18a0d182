# The flags of the project's own targets (never of Kokkos' headers, which
# come in as system includes through the imported target): the warnings,
# -Werror with TDMAPS_WERROR, and TDMAPS_HOST_OPTIMIZATION.
#
# TDMAPS_HOST_OPTIMIZATION (empty: the build type's) sets the host compiler's
# optimisation of every project target, the unit tests' included, in place of
# the build type's -O (removed from the build types' flags here: nvcc takes
# one). For builds that check compilation only: CI's CUDA build uses -O0
# (nvcc's -O is the host compiler's; the device code, cicc's and ptxas',
# comes out byte for byte the same), its Kokkos 4.6 build -O1.
set(TDMAPS_HOST_OPTIMIZATION "" CACHE STRING
    "Host optimisation flags of every project target, in place of the build type's -O (empty: the build type's)")
if(TDMAPS_HOST_OPTIMIZATION)
  foreach(config RELEASE RELWITHDEBINFO MINSIZEREL DEBUG)
    string(REGEX REPLACE "(^| )-O[0-9a-z]*" "" CMAKE_CXX_FLAGS_${config} "${CMAKE_CXX_FLAGS_${config}}")
  endforeach()
endif()

function(tdmaps_target_flags target)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    if(Kokkos_ENABLE_CUDA)
      # nvcc_wrapper: host-compiler warnings only; device code warnings come from nvcc itself.
      target_compile_options(${target} PRIVATE -Wall -Wextra)
    else()
      target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow)
    endif()
    if(TDMAPS_WERROR)
      target_compile_options(${target} PRIVATE -Werror)
    endif()
  endif()
  if(TDMAPS_HOST_OPTIMIZATION)
    target_compile_options(${target} PRIVATE ${TDMAPS_HOST_OPTIMIZATION})
  endif()
endfunction()
