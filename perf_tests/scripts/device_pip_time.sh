#!/usr/bin/env bash
# The CUDA build of the Python module, timed as a user runs it: `pip wheel`
# (pip install's build) of this checkout, cold (no compiler cache, a new
# build folder), on every core, against a prebuilt Kokkos; optionally the
# same for an older source tree (a `git archive` tarball) first, in the same
# call. Prints the wall time of each and its longest compile units; the
# build's .ninja_log (each unit's start and end) goes under $OUT. With
# TDMAPS_PIP_KEEP=<dir> the wheels are kept, as <dir>/old/*.whl and
# <dir>/new/*.whl (for an A/B of the two modules, python_ab.py).
#
#   Kokkos_ROOT=<CUDA Kokkos prefix> OUT=out bash perf_tests/scripts/device_pip_time.sh [OLD.tar]
#
# Needs nvcc, a host g++, cmake, ninja and a Python with pip and pybind11.
set -u
R=${OUT:-out}; mkdir -p "$R"
: "${Kokkos_ROOT:?set Kokkos_ROOT to a CUDA Kokkos prefix}"
export Kokkos_ROOT TDMAPS_PYTHON_PRESET=cuda PATH=/usr/local/cuda/bin:$PATH
{ echo "cores $(nproc)"; g++ --version | head -1; nvcc --version | tail -1; python3 -V; } | tee "$R/env.txt"
one() {  # label source_dir
  rm -rf "$2"/build/wheel
  local t0 t1 rc; t0=$(date +%s.%N)
  (cd "$2" && python3 -m pip wheel --no-build-isolation --no-deps -w "$R/whl_$1" . > "$R/pip_$1.log" 2>&1); rc=$?
  t1=$(date +%s.%N)
  echo "$1: exit $rc, $(python3 -c "print(round($t1 - $t0, 1))") s" | tee -a "$R/pip_time.txt"
  cp "$2"/build/wheel/*/.ninja_log "$R/ninja_$1.log" 2>/dev/null
  awk 'NR > 1 {printf "%7.1f s  %s\n", ($2 - $1) / 1000, $4}' "$R/ninja_$1.log" 2>/dev/null | sort -rn | head -5
  if [ -n "${TDMAPS_PIP_KEEP:-}" ]; then
    rm -rf "$TDMAPS_PIP_KEEP/$1"; mkdir -p "$TDMAPS_PIP_KEEP/$1"; mv "$R/whl_$1"/*.whl "$TDMAPS_PIP_KEEP/$1/"
  fi
  rm -rf "$R/whl_$1"
}
if [ -n "${1:-}" ]; then
  old=$(mktemp -d); tar -C "$old" -xf "$1"; one old "$old"
fi
one new "$PWD"
