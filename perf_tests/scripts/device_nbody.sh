#!/usr/bin/env bash
# The N-body batch of one device session, from the repository root: the
# nbody group of tdmaps_bench_maps (the check at n = 4099, then plain-CUDA
# gems and square against the triangle of tdmaps::nbody under lambda and bb,
# gravity and Lennard-Jones, fp32 and fp64), compute-sanitizer on the gems,
# square and lambda kernels at n = 4096, and a table of rates and ratios.
#
#   [BUDGET=560] bash perf_tests/scripts/device_nbody.sh [BIN_DIR]     (default build/cuda/bin)
#
# Into $OUT: nbody.json (Google Benchmark's JSON), nbody.csv and nbody.txt
# (scripts/nbody_table.py: variant, law, precision, n, ms, interactions/s,
# ratios against gems and square), logs/ (batch.log, the run's console
# output, the sanitizer logs) packed as logs.tgz. NBODY_N, NBODY_RHO and
# NBODY_K override the binary's --nbody-n, --nbody-rho and --nbody-k.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
use_bin "${1:-}"
use_logs
SAN_RESERVE=${SAN_RESERVE:-30}
NBODY_ARGS=()
[ -n "${NBODY_N:-}" ] && NBODY_ARGS+=("--nbody-n=$NBODY_N")
[ -n "${NBODY_RHO:-}" ] && NBODY_ARGS+=("--nbody-rho=$NBODY_RHO")
[ -n "${NBODY_K:-}" ] && NBODY_ARGS+=("--nbody-k=$NBODY_K")
echo "command: BUDGET=$BUDGET NBODY_N=${NBODY_N:-} NBODY_RHO=${NBODY_RHO:-} NBODY_K=${NBODY_K:-} bash $0 $*" | note

say machine
machine "$L/machine.txt"

# The main run, cut off early enough for the sanitizers and the table (a
# JSON cut off is read up to its last complete case).
say "nbody group: check (n = 4099), then gems / square / lambda / bb"
limit=$(( $(left) - 120 ))
if [ "$limit" -gt 0 ]; then
  timeout "$limit" "$BIN/tdmaps_bench_maps" --benchmark_filter=nbody/ --benchmark_format=json \
    --benchmark_out="$OUT/nbody.json" --benchmark_out_format=json "${NBODY_ARGS[@]}" \
    > "$L/nbody_console.json" 2> "$L/nbody_stderr.txt"
  echo "nbody run rc=$?" | note
else
  echo "nbody run skipped (budget)" | note
fi

say "compute-sanitizer (n = 4096; memcheck: gems, square, lambda; racecheck, synccheck: gems, square)"
# --no-check: no check cases, no sampled reference; --nbody-iters=1: one
# batch. square's shape search launches every shape, so all are covered.
small=(--nbody-n=4096 --nbody-rho=32 --nbody-iters=1 --no-check)
sanitize() {
  local tool=$1 name=$2 filter=$3
  [ "$(left)" -gt "$SAN_RESERVE" ] || { echo "$tool $name skipped (budget)" | note; return; }
  timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 --print-limit 20 "$BIN/tdmaps_bench_maps" \
    --benchmark_filter="$filter" "${small[@]}" > "$L/san_${tool}_${name}.log" 2>&1
  echo "$tool $name rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san_${tool}_${name}.log" | tail -1)" | note
}
sanitize memcheck nbody_fp32 '^nbody/(gravity|lj)/fp32/(gems|square|lambda)/'
sanitize memcheck nbody_fp64 '^nbody/(gravity|lj)/fp64/(gems|square|lambda)/'
sanitize racecheck nbody_gems_square '^nbody/(gravity|lj)/fp32/(gems|square)/'
sanitize synccheck nbody_gems_square '^nbody/gravity/fp32/(gems|square)/'

say "table"
if [ -f "$OUT/nbody.json" ]; then
  python3 "$PERF_SCRIPTS/nbody_table.py" "$OUT/nbody.json" --csv "$OUT/nbody.csv" > "$OUT/nbody.txt" 2>&1
  echo "table rc=$?" | note
  cat "$OUT/nbody.txt"
fi

say "done"
grep -E "rc=" "$LOG"
pack logs
ls -la "$OUT"
