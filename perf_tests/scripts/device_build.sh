#!/usr/bin/env bash
# Builds the CUDA CLIs and the CUDA unit-test executable on the device
# machine (16 cores) from a Kokkos CUDA prefix built here and carried there,
# for this tree (B) and, optionally, tdmaps-edm of an older tree (A, a
# `git archive` tarball), both at the cuda preset's flags (Release, host
# -O3, machine code for the prefix's architecture). The machine has no
# GoogleTest: a copy of this machine's (headers and static libraries, under
# GTEST_ROOT) travels too. Binaries in build/dev-B/bin and build/dev-A/bin;
# each build's .ninja_log and the wall time in $OUT. B_TARGETS: B's targets
# (default the four CLIs and the unit tests).
#
#   KOKKOS=<carried prefix> GTEST_ROOT=<carried gtest> OUT=out [B_TARGETS=...] \
#     bash perf_tests/scripts/device_build.sh [OLD.tar]
set -u
K=$(cd "${KOKKOS:?KOKKOS: the Kokkos CUDA prefix}" && pwd) || { echo "no Kokkos prefix at $KOKKOS"; exit 1; }
G=$(cd "${GTEST_ROOT:?GTEST_ROOT: GoogleTest headers and libraries}" && pwd) || { echo "no GoogleTest at $GTEST_ROOT"; exit 1; }
R=${OUT:-out}; mkdir -p "$R"; rm -f "$R/build_times.txt"
export PATH=/usr/local/cuda/bin:$PATH
# The prefix's CMake files name the CUDA libraries where this machine's
# toolkit has them (lib/libcudart.so, lib/stubs/libcuda.so); the device
# machine's toolkit has them under lib64 or targets/: linked where missing.
for lib in libcudart.so stubs/libcuda.so; do
  want=$(grep -o "/[^;\"]*/$lib" "$K/lib/cmake/Kokkos/KokkosConfig.cmake" | head -1)
  [ -z "$want" ] || [ -e "$want" ] && continue
  have=$(find "$(dirname "$(dirname "$(command -v nvcc)")")/" -path "*/$lib" 2>/dev/null | head -1)
  [ -n "$have" ] || { echo "no $lib in the CUDA toolkit (the Kokkos prefix names $want)"; exit 1; }
  mkdir -p "$(dirname "$want")" && ln -s "$have" "$want"
done
J=$(nproc)
cfg() { # src dir extra...
  local src=$1 dir=$2; shift 2
  # A folder configured with another compiler, or whose configure failed, is started again.
  { [ -f "$dir/.device-build-configured" ] && grep -qs "^CMAKE_CXX_COMPILER:[A-Z]*=$K/bin/nvcc_wrapper$" "$dir/CMakeCache.txt"; } \
    || rm -rf "$dir"
  cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$K/bin/nvcc_wrapper" \
        -DKokkos_ROOT="$K" -DTDMAPS_CUDART_STATIC=ON -DTDMAPS_ENABLE_PERF_TESTS=OFF "$@" > "$dir.configure.log" 2>&1 \
    || { tail -30 "$dir.configure.log"; echo "configure of $src failed"; exit 1; }
  touch "$dir/.device-build-configured"
}
mkdir -p build
t0=$(date +%s)
cfg . build/dev-B -DGTEST_ROOT="$G"
pids=()
# shellcheck disable=SC2086
( ninja -C build/dev-B -j "$J" ${B_TARGETS:-tdmaps-edm tdmaps-collide tdmaps-nbody tdmaps-triplets tdmaps_unit_tests_cuda} > "$R/build_B.log" 2>&1
  echo "B rc=$? $(( $(date +%s) - t0 )) s" >> "$R/build_times.txt" ) & pids+=($!)
if [ $# -ge 1 ]; then
  rm -rf build/dev-A-src && mkdir -p build/dev-A-src && tar -xf "$1" -C build/dev-A-src
  cfg build/dev-A-src build/dev-A -DTDMAPS_ENABLE_TESTS=OFF
  ( ninja -C build/dev-A -j "$J" tdmaps-edm > "$R/build_A.log" 2>&1
    echo "A rc=$? $(( $(date +%s) - t0 )) s" >> "$R/build_times.txt" ) & pids+=($!)
fi
wait "${pids[@]}"
cat "$R/build_times.txt"
for d in B A; do [ -f build/dev-$d/.ninja_log ] && cp build/dev-$d/.ninja_log "$R/ninja_log_$d.txt"; done
if grep -q "rc=[^0]" "$R/build_times.txt"; then
  grep -h -B2 -A12 "error" "$R"/build_*.log | head -60
  exit 1
fi
