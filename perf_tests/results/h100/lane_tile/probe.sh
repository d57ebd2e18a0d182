#!/usr/bin/env bash
# First H100 run of the lane tile kernels (EDM, collision): cuda unit tests,
# compute-sanitizer on the new kernels, and the EDM / collision tile cases at
# the issue's sizes for several team sizes. From the repository root:
#   OUT=<dir> bash perf_tests/results/h100/lane_tile/probe.sh build/cuda/bin
set -uo pipefail
BIN=${1:-build/cuda/bin}
OUT=${OUT:-$PWD/device_out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/machine.txt" 2>&1
timeout 240 "$BIN/tdmaps_unit_tests_cuda" --gtest_output=json:"$OUT/unit_tests_cuda.json" > "$OUT/unit_tests_cuda.log" 2>&1
echo "unit tests rc=$?"; grep -E "PASSED|FAILED" "$OUT/unit_tests_cuda.log"
san() {
  local tool=$1 name=$2; shift 2
  timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 "$@" > "$OUT/san_${tool}_${name}.log" 2>&1
  echo "$tool $name rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_${tool}_${name}.log" | tail -1)"
}
for n in 1000 4000; do
  for l in packed condensed full; do
    for d in 1 3 4; do san memcheck "edm_tile_${l}_d${d}_$n" "$BIN/tdmaps-edm" --random $n --dims $d --map lambda --kernel tile --layout $l --precision fp32; done
  done
  san memcheck "edm_tile_full_sym_fp64_$n" "$BIN/tdmaps-edm" --random $n --dims 2 --map h --kernel tile --layout full --symmetric --precision fp64
  for r in count flags pairs intflags; do san memcheck "collide_tile_${r}_$n" "$BIN/tdmaps-collide" --random $n --dims 3 --map lambda --kernel tile --result $r; done
done
for n in 500 2000; do
  san racecheck "edm_tile_packed_$n" "$BIN/tdmaps-edm" --random $n --dims 4 --map lambda --kernel tile --layout packed --precision fp32
  san racecheck "edm_tile_condensed_$n" "$BIN/tdmaps-edm" --random $n --dims 3 --map h --kernel tile --layout condensed --precision fp32
  san racecheck "collide_tile_$n" "$BIN/tdmaps-collide" --random $n --dims 3 --map lambda --kernel tile --result intflags
done
timeout 200 "$BIN/tdmaps_bench_maps" --edm-n=30720,65536 --edm-d=4,2 --edm-rho=32 --edm-layouts=packed,condensed,full \
  --edm-kernels=tile --maps=bb,lambda_rsqrt,rb,h --team-threads=0,128,512,1024 --iters=10 \
  --benchmark_filter='^edm/' --benchmark_out="$OUT/edm.json" --benchmark_out_format=json 2>&1 | grep -E '^edm' | awk '{print $1, $2, $3, $NF}' > "$OUT/edm.txt"
echo "edm rc=$?"
timeout 100 "$BIN/tdmaps_bench_maps" --collision-n=30720 --collision-rho=32 --maps=bb,lambda_rsqrt,rb,h --team-threads=0,128,512 --iters=10 \
  --benchmark_filter='^collision/3d_(intflags|flags|count)_tile' --benchmark_out="$OUT/collision.json" --benchmark_out_format=json 2>&1 | grep -E '^collision' | awk '{print $1, $2, $3, $NF}' > "$OUT/collision.txt"
echo "collision rc=$?"
cat "$OUT/edm.txt" "$OUT/collision.txt" | sed 's|/iterations:10/manual_time||'
