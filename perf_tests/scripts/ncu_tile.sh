#!/usr/bin/env bash
# Nsight Compute counters of the GPU tile kernels (one launch per case):
# time, DRAM bytes read / written, L2 write sectors and requests, warps
# active, instructions. Shows what a layout's stores cost: e.g. a packed
# row that starts inside a sector against the full layout's whole rows, or
# blocks per team taken consecutively (sectors read back) against interleaved.
#
#   bash perf_tests/scripts/ncu_tile.sh [BIN_DIR [CASE...]]     ($OUT/ncu_tile.txt)
#
# CASE: test/variant without map and sizes (edm/packed_d4_tile_t64_k1, ...);
# the default list compares team sizes 32 / 64 and 1 / 2 blocks per team.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
use_bin "${1:-}"
shift || true
mkdir -p "$OUT"
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(edm/packed_d4_tile_t64_k1 edm/packed_d4_tile_t64_k2 edm/full_d4_tile_t64_k1
  edm/full_d4_tile_t64_k2 edm/condensed_d4_tile_t64_k1 edm/full_d4_tile_t32_k1 collision/3d_intflags_tile_t64_k1
  collision/3d_flags_tile_t32_k4)
for c in "${CASES[@]}"; do
  echo "### $c/lambda_rsqrt/r32/n30720"
  "${NCU[@]}" --metrics "$NCU_METRICS" -k regex:TileFunctor "${NCU_ONE[@]}" \
    "$BIN/tdmaps_bench_maps" --benchmark_filter="^$c/lambda_rsqrt/r32/n30720/" "${CASES_30720[@]}" --edm-kernels=tile \
    --maps=lambda_rsqrt --team-threads=32,64 --blocks-per-team=1,2,4 --collision-results=intflags,flags \
    --collision-kernels=tile --iters=2 --no-check 2>&1 | ncu_metric_lines 'TileFunctor.*\('
done 2>&1 | tee "$OUT/ncu_tile.txt"
