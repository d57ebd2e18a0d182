#!/usr/bin/env bash
# Nsight Compute's SASS of one kernel launch with instructions executed and
# stall samples per SASS line (the hot loops of a case), from the repository
# root; sass_hot.py prints a CSV's hot lines:
#
#   [NCU_KERNEL=TileFunctor] bash perf_tests/scripts/ncu_sass.sh [BIN_DIR [CASE...]]     ($OUT/sass/<case>.csv)
#
# CASE: a benchmark name prefix of tdmaps_bench_maps at n = 30720, block 32,
# lambda (default: edm/packed_d4_tile edm/full_d4_tile collision/3d_count_tile),
# or a whole name up to n (e.g. launch/edm_packed_d2.tdmaps/bb/r32/n30720).
# NCU_KERNEL: the kernel-name regex.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
use_bin "${1:-}"
shift || true
CASES=("$@")
[ ${#CASES[@]} -gt 0 ] || CASES=(edm/packed_d4_tile edm/full_d4_tile collision/3d_count_tile)
mkdir -p "$OUT/sass"
for c in "${CASES[@]}"; do
  name=$(echo "$c" | tr '/' '_')
  case "$c" in */n30720) filter="^$c/" ;; *) filter="^$c/lambda_rsqrt/r32/n30720/" ;; esac
  "${NCU[@]}" -k "regex:${NCU_KERNEL:-TileFunctor}" "${NCU_ONE[@]}" \
    --section SourceCounters --page source --print-source sass --csv \
    "$BIN/tdmaps_bench_maps" --benchmark_filter="$filter" "${CASES_30720[@]}" --edm-kernels=tile --maps=bb,lambda_rsqrt \
    --collision-results=$ALL_RESULTS --collision-kernels=tile --launch-n=30720 --launch-rho=32 --iters=2 --no-check \
    > "$OUT/sass/$name.csv" 2> "$OUT/sass/$name.err"
  echo "$c rc=$? $(wc -l < "$OUT/sass/$name.csv") lines"
done
