#!/usr/bin/env bash
# Nsight Compute counters of the GPU tile kernels (one launch per case):
# time, DRAM bytes read / written, L2 write sectors, warps active, instructions.
# Shows what the packed layout's unaligned row segments cost against the full layout.
#
#   bash perf_tests/ncu_tile.sh [BIN_DIR [CASE...]]     ($OUT/ncu_tile.txt)
#
# CASE: test/variant without map and sizes (edm/packed_d4_tile_t64_k1, ...);
# the default list is the one of results/h100/tile_launch/tune_consecutive/ncu_tile.txt.
set -uo pipefail
BIN=${1:-build/cuda/bin}
shift $(( $# > 0 ? 1 : 0 ))
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(edm/packed_d4_tile_t64_k1 edm/packed_d4_tile_t64_k2 edm/full_d4_tile_t64_k1
  edm/full_d4_tile_t64_k2 edm/condensed_d4_tile_t64_k1 edm/full_d4_tile_t32_k1 collision/3d_intflags_tile_t64_k1
  collision/3d_flags_tile_t32_k4)
OUT=${OUT:-$PWD/device_out}
mkdir -p "$OUT"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum
M=$M,lts__t_requests_op_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
M=$M,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
for c in "${CASES[@]}"; do
  echo "### $c/lambda_rsqrt/r32/n30720"
  ncu --clock-control none --kernel-name-base demangled --metrics "$M" -k regex:TileFunctor --launch-skip 1 --launch-count 1 \
    "$BIN/tdmaps_bench_maps" --benchmark_filter="^$c/lambda_rsqrt/r32/n30720/" --edm-n=30720 --edm-d=4 --edm-rho=32 \
    --edm-layouts=packed,condensed,full --edm-kernels=tile --maps=lambda_rsqrt --team-threads=32,64 --blocks-per-team=1,2,4 \
    --collision-n=30720 --collision-rho=32 --collision-dims=3 --collision-results=intflags,flags --collision-kernels=tile \
    --iters=2 --no-check 2>&1 | grep -E "^ +(gpu__|dram__|lts__|sm__|smsp__|l1tex__)|TileFunctor.*\(" | sed 's/  */ /g'
done 2>&1 | tee "$OUT/ncu_tile.txt"
