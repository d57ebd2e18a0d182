#!/usr/bin/env bash
# Nsight Compute's SASS of one tile-kernel launch with instructions executed
# per SASS line (the hot loops of a case), from the repository root:
#
#   bash perf_tests/ncu_sass.sh [BIN_DIR [CASE...]]     ($OUT/sass/<case>.csv)
#
# CASE: a benchmark name prefix of tdmaps_bench_maps at n = 30720, block 32,
# lambda (default: edm/packed_d4_tile edm/full_d4_tile collision/3d_count_tile),
# or a whole name up to n (e.g. launch/edm_packed_d2.tdmaps/bb/r32/n30720).
# NCU_KERNEL: the kernel-name regex (default TileFunctor).
set -uo pipefail
BIN=${1:-build/cuda/bin}
shift || true
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(edm/packed_d4_tile edm/full_d4_tile collision/3d_count_tile)
OUT=${OUT:-$PWD/device_out}
mkdir -p "$OUT/sass"
for c in "${CASES[@]}"; do
  name=$(echo "$c" | tr '/' '_')
  case "$c" in */n30720) filter="^$c/" ;; *) filter="^$c/lambda_rsqrt/r32/n30720/" ;; esac
  ncu --clock-control none --kernel-name-base demangled -k "regex:${NCU_KERNEL:-TileFunctor}" --launch-skip 1 --launch-count 1 \
    --section SourceCounters --page source --print-source sass --csv \
    "$BIN/tdmaps_bench_maps" --benchmark_filter="$filter" --edm-n=30720 --edm-d=4 --edm-rho=32 \
    --edm-layouts=packed,condensed,full --edm-kernels=tile --maps=bb,lambda_rsqrt --collision-n=30720 --collision-rho=32 \
    --collision-dims=3 --collision-results=count,intflags,flags,rowflags,tileflags --collision-kernels=tile --launch-n=30720 --launch-rho=32 --iters=2 --no-check \
    > "$OUT/sass/$name.csv" 2> "$OUT/sass/$name.err"
  echo "$c rc=$? $(wc -l < "$OUT/sass/$name.csv") lines"
done
