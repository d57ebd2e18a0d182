#!/usr/bin/env bash
# A short GPU check of a new kernel before the whole batch: the cuda unit
# tests, the EDM and collision kernels at n = 30720 (tile at its default and
# two team shapes, linear), and Nsight Compute counters of the packed EDM.
#
#   bash perf_tests/device_check.sh [BIN_DIR]     ($OUT/check.tgz)
set -uo pipefail
BIN=${1:-build/cuda/bin}
OUT=${OUT:-$PWD/device_out}
mkdir -p "$OUT/check"
export PYTHONUNBUFFERED=1
"$BIN/tdmaps_unit_tests_cuda" > "$OUT/check/unit_tests_cuda.log" 2>&1
echo "unit tests rc=$?"; grep -E "FAILED|PASSED" "$OUT/check/unit_tests_cuda.log"
python3 perf_tests/sweep.py --bin "$BIN/tdmaps_bench_maps" --groups edm,collision --out "$OUT/check/sweep" -- \
  --edm-n=30720 --edm-d=2,4 --edm-rho=32 --edm-layouts=packed,condensed,full --edm-kernels=tile,linear \
  --maps=bb,lambda_rsqrt --team-threads=0,32,64 --collision-n=30720 --collision-rho=32 --collision-dims=3 \
  --collision-results=count,intflags,flags --collision-kernels=tile,linear --iters=10 2>&1 | tail -3
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
for c in edm/packed_d4_linear collision/3d_intflags_linear collision/3d_flags_linear; do
  echo "### $c/lambda_rsqrt/r32/n30720"
  ncu --clock-control none --kernel-name-base demangled --metrics "$M" -k regex:RunFunctor --launch-skip 1 --launch-count 1 \
    "$BIN/tdmaps_bench_maps" --benchmark_filter="^$c/lambda_rsqrt/r32/n30720/" --edm-n=30720 --edm-d=4 --edm-rho=32 \
    --edm-layouts=packed --edm-kernels=linear --maps=lambda_rsqrt --collision-n=30720 --collision-rho=32 \
    --collision-dims=3 --collision-results=intflags,flags --collision-kernels=linear --iters=2 --no-check 2>&1 \
    | grep -E "^ +(gpu__|dram__|lts__|sm__|smsp__)" | sed 's/  */ /g'
done 2>&1 | tee "$OUT/check/ncu.txt"
cd "$OUT" && tar czf check.tgz check && rm -rf check
