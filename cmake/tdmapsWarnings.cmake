# Warnings for the project's own targets (never for Kokkos' headers, which
# come in as system includes through the imported target).
function(tdmaps_target_warnings target)
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
endfunction()
