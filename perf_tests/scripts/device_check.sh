#!/usr/bin/env bash
# A short GPU check of a new kernel before the whole batch: the cuda unit
# tests, the EDM and collision kernels at n = 30720 (block side 32, BB and
# lambda) over a grid of launch shapes, the EDM at n = 65536 at the
# defaults, and Nsight Compute counters of the chosen kernels.
#
#   [KERNELS=tile] [TEAMS=0,32,64] [KS=0,1,2,4] [NCU_KERNEL=TileFunctor] \
#     bash perf_tests/scripts/device_check.sh [BIN_DIR]     ($OUT/check.tgz)
#
# TEAMS / KS: --team-threads / --blocks-per-team lists (0: the library's
# default shape); KERNELS: the EDM and collision kernels to run (the first
# one is the one Nsight Compute looks at).
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
use_bin "${1:-}"
KERNELS=${KERNELS:-tile}
C=$OUT/check
mkdir -p "$C"

machine "$C/machine.txt"
"$BIN/tdmaps_unit_tests_cuda" > "$C/unit_tests_cuda.log" 2>&1
echo "unit tests rc=$?"; grep -E "FAILED|PASSED" "$C/unit_tests_cuda.log"

sweep --bin "$BIN/tdmaps_bench_maps" --groups ceiling,edm,collision --out "$C/sweep" -- \
  --edm-n=30720 --edm-d=2,4 --edm-rho=32 --edm-layouts=packed,condensed,full --edm-kernels="$KERNELS" \
  --maps=bb,lambda_rsqrt --team-threads="${TEAMS:-0,32,64}" --blocks-per-team="${KS:-0,1,2,4}" --collision-n=30720 \
  --collision-rho=32 --collision-dims=3 --collision-results=$ALL_RESULTS --collision-kernels="$KERNELS" \
  --iters=10 2>&1 | tail -3
sweep --bin "$BIN/tdmaps_bench_maps" --groups edm --out "$C/sweep_65536" -- \
  --edm-n=65536 --edm-d=4 --edm-rho=32 --edm-layouts=packed,condensed --edm-kernels="$KERNELS" \
  --maps=bb,lambda_rsqrt --iters=10 2>&1 | tail -3

K=${KERNELS%%,*}
for c in edm/packed_d4_$K edm/condensed_d4_$K edm/full_d4_$K collision/3d_count_$K collision/3d_intflags_$K \
         collision/3d_flags_$K collision/3d_rowflags_$K collision/3d_tileflags_$K; do
  echo "### $c/lambda_rsqrt/r32/n30720"
  "${NCU[@]}" --metrics "$NCU_METRICS" -k "regex:${NCU_KERNEL:-TileFunctor}" "${NCU_ONE[@]}" \
    "$BIN/tdmaps_bench_maps" --benchmark_filter="^$c/lambda_rsqrt/r32/n30720/" "${CASES_30720[@]}" \
    --edm-kernels="$K" --maps=lambda_rsqrt --collision-results=$ALL_RESULTS --collision-kernels="$K" \
    --iters=2 --no-check 2>&1 | ncu_metric_lines
done 2>&1 | tee "$C/ncu.txt"
pack check
