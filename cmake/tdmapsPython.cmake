# The apps' CLI tests are Python scripts (numpy, scipy from Debian). They run
# the binaries, so they are registered on host backends only (a CUDA build
# machine may have no GPU). A missing interpreter is an error, not a silently
# dropped test: pass -DTDMAPS_PYTHON_TESTS=OFF to build without them.
option(TDMAPS_PYTHON_TESTS "Register the apps' Python CLI tests (need python3 with numpy and scipy)" ON)

# tdmaps_python_with(<out-var> <python statement>): the first python3 on PATH
# for which the statement runs (a pyenv shim without the modules is skipped).
function(tdmaps_python_with out statement)
  set(candidates)
  execute_process(COMMAND which -a python3 OUTPUT_VARIABLE found OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  string(REPLACE "\n" ";" candidates "${found}")
  foreach(py ${candidates})
    execute_process(COMMAND ${py} -c "${statement}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(${out} ${py} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "tdmaps: no python3 on PATH can run '${statement}' (tried: ${candidates}); "
                      "install python3-numpy python3-scipy (cmake/bootstrap.sh does), or configure with "
                      "-DTDMAPS_PYTHON_TESTS=OFF")
endfunction()

# tdmaps_add_python_test(<name> <label> <script> <binary target> <env> [<more binary targets>...])
function(tdmaps_add_python_test name label script target env)
  if(NOT TDMAPS_ENABLE_TESTS OR NOT TDMAPS_PYTHON_TESTS OR TDMAPS_GPU_BUILD)
    return()
  endif()
  tdmaps_python_with(py "import numpy, scipy.spatial")
  set(binaries $<TARGET_FILE:${target}>)
  foreach(more ${ARGN})
    list(APPEND binaries $<TARGET_FILE:${more}>)
  endforeach()
  add_test(NAME ${name} COMMAND ${py} ${script} ${binaries})
  # COST: ctest -j starts these long scripts first, beside the many short unit
  # tests, instead of last, one beside the other, after them.
  set_tests_properties(${name} PROPERTIES LABELS ${label} TIMEOUT 600 COST 100
                       ENVIRONMENT "${TDMAPS_TEST_OMP_ENV};${env}")
endfunction()
