#!/usr/bin/env bash
# Every kernel of one collide() call with its duration (Nsight Compute), to
# split a call's time into its kernels and what lies between them:
#
#   bash perf_tests/scripts/ncu_call.sh [BIN_DIR [RESULT...]]     ($OUT/ncu_call.txt)
#
# RESULT: count, intflags, flags, rowflags, tileflags (default: count intflags rowflags tileflags);
# n = 30720, block side 32, lambda, tile kernel. The benchmark's warm-up call
# is skipped; the next call's kernels are listed in launch order.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
use_bin "${1:-}"
shift || true
mkdir -p "$OUT"
RESULTS=("$@")
[ ${#RESULTS[@]} -gt 0 ] || RESULTS=(count intflags rowflags tileflags)
for r in "${RESULTS[@]}"; do
  echo "### collision/3d_${r}_tile/lambda_rsqrt/r32/n30720"
  # The warm-up call launches 3 kernels (check, tile, finish); the
  # first timed call's 3 follow.
  "${NCU[@]}" --metrics gpu__time_duration.sum \
    -k "regex:CheckSpheres|FirstBadSphere|TileFunctor|FinishCount|ViewFill|PopcountWords" --launch-skip 3 --launch-count 3 \
    "$BIN/tdmaps_bench_maps" --benchmark_filter="^collision/3d_${r}_tile/lambda_rsqrt/r32/n30720/" --maps=lambda_rsqrt \
    --collision-n=30720 --collision-rho=32 --collision-dims=3 --collision-results="$r" --collision-kernels=tile \
    --iters=2 --no-check 2>&1 | grep -E "^  [A-Za-z_:<]|gpu__time_duration" | sed -E 's/\(([^()]|\([^()]*\))*\)//g; s/  +/ /g' | cut -c1-160
done 2>&1 | tee "$OUT/ncu_call.txt"
