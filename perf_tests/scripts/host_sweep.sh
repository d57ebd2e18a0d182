#!/usr/bin/env bash
# The host sweep: the quick case lists cut to sizes a 2-core machine runs in
# seconds, then the plots. Host timings prove the pipeline (every group runs,
# checks pass, I is computed), not the maps: the development machine is shared
# with builds, so its output is not kept under perf_tests/results/.
#
#   [OMP_NUM_THREADS=2] bash perf_tests/scripts/host_sweep.sh [BIN_DIR]     (default build/host/bin; into $OUT, default ./host_out)
OUT=${OUT:-$PWD/host_out}
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
use_bin "${1:-build/host/bin}"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
sweep --bin "$BIN/tdmaps_bench_maps" --quick --out "$OUT" -- \
  --n=256,512,1024,2048 --edm-n=512,1024 --collision-n=512,1024 --launch-n=1024 --iters=7
rc=$?
if command -v gnuplot > /dev/null; then python3 "$PERF_SCRIPTS/plot.py" "$OUT/results.csv"
else echo "gnuplot missing: no plots"; fi
exit $rc
