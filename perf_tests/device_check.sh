#!/usr/bin/env bash
# A short GPU check of a new kernel before the whole batch: the cuda unit
# tests, the EDM and collision kernels at n = 30720 (block side 32, BB and
# lambda) over a grid of launch shapes, the EDM at n = 65536 at the
# defaults, and Nsight Compute counters of the chosen kernels.
#
#   [KERNELS=tile] [TEAMS=0,32,64] [KS=0,1,2,4] [NCU_KERNEL=TileFunctor] \
#     bash perf_tests/device_check.sh [BIN_DIR]     ($OUT/check.tgz)
#
# TEAMS / KS: --team-threads / --blocks-per-team lists (0: the library's
# default shape); KERNELS: the EDM and collision kernels to run.
set -uo pipefail
BIN=${1:-build/cuda/bin}
OUT=${OUT:-$PWD/device_out}
KERNELS=${KERNELS:-tile}
mkdir -p "$OUT/check"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/check/machine.txt" 2>&1
"$BIN/tdmaps_unit_tests_cuda" > "$OUT/check/unit_tests_cuda.log" 2>&1
echo "unit tests rc=$?"; grep -E "FAILED|PASSED" "$OUT/check/unit_tests_cuda.log"
python3 perf_tests/sweep.py --bin "$BIN/tdmaps_bench_maps" --groups ceiling,edm,collision --out "$OUT/check/sweep" -- \
  --edm-n=30720 --edm-d=2,4 --edm-rho=32 --edm-layouts=packed,condensed,full --edm-kernels="$KERNELS" \
  --maps=bb,lambda_rsqrt --team-threads="${TEAMS:-0,32,64}" --blocks-per-team="${KS:-0,1,2,4}" --collision-n=30720 \
  --collision-rho=32 --collision-dims=3 --collision-results=count,intflags,flags,rowflags,tileflags --collision-kernels="$KERNELS" \
  --iters=10 2>&1 | tail -3
python3 perf_tests/sweep.py --bin "$BIN/tdmaps_bench_maps" --groups edm --out "$OUT/check/sweep_65536" -- \
  --edm-n=65536 --edm-d=4 --edm-rho=32 --edm-layouts=packed,condensed --edm-kernels="$KERNELS" \
  --maps=bb,lambda_rsqrt --iters=10 2>&1 | tail -3
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
M=$M,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,lts__t_requests_op_write.sum
K=$(echo "$KERNELS" | cut -d, -f1)
for c in edm/packed_d4_$K edm/condensed_d4_$K edm/full_d4_$K collision/3d_count_$K collision/3d_intflags_$K collision/3d_flags_$K collision/3d_rowflags_$K collision/3d_tileflags_$K; do
  echo "### $c/lambda_rsqrt/r32/n30720"
  ncu --clock-control none --kernel-name-base demangled --metrics "$M" -k "regex:${NCU_KERNEL:-TileFunctor}" \
    --launch-skip 1 --launch-count 1 \
    "$BIN/tdmaps_bench_maps" --benchmark_filter="^$c/lambda_rsqrt/r32/n30720/" --edm-n=30720 --edm-d=4 --edm-rho=32 \
    --edm-layouts=packed,condensed,full --edm-kernels="$K" --maps=lambda_rsqrt --collision-n=30720 --collision-rho=32 \
    --collision-dims=3 --collision-results=count,intflags,flags,rowflags,tileflags --collision-kernels="$K" --iters=2 --no-check 2>&1 \
    | grep -E "^ +(gpu__|dram__|lts__|sm__|smsp__|l1tex__)" | sed 's/  */ /g'
done 2>&1 | tee "$OUT/check/ncu.txt"
cd "$OUT" && tar czf check.tgz check && rm -rf check
