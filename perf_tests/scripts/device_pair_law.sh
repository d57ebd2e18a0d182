#!/usr/bin/env bash
# The pair-law batch of one device session, from the repository root: the
# CUDA unit tests, then in one run of tdmaps_bench_maps the pairlaw group (a
# user's gravity and Gaussian kernel sum through tdmaps::for_each_pair_law,
# beside tdmaps::nbody::Forces on the same walk, lambda and bb) and the nbody
# group's gravity with the accelerations alone (the GPU Gems twin and the
# triangle), the CUDA samples' own N-body kernel in the same call, the
# pairlaw group's nearest neighbour, count and histogram (the edm calls on
# the pair-law walks beside the element walk they took before) at REDUCE_N
# points, and compute-sanitizer memcheck of the pair-law tests.
#
#   [BUDGET=560] [ANCHOR=path/to/nbody_anchor] bash perf_tests/scripts/device_pair_law.sh [BIN_DIR]
#
# ANCHOR: the samples' kernel built from ../shared/anchors/nbody_samples
# (nvcc -O3 -std=c++17 -arch=sm_90 -cudart static -o nbody_anchor nbody_anchor.cu),
# skipped where not given. Into $OUT: pairlaw.json (Google Benchmark's),
# anchor.csv, pairlaw.txt (scripts/pair_law_table.py) and logs.tgz.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
use_bin "${1:-}"
use_logs
SAN_RESERVE=${SAN_RESERVE:-40}
N=${PAIRLAW_N:-65536,262144,1048576}
RN=${REDUCE_N:-1000,10000,100000,1000000}
echo "command: BUDGET=$BUDGET ANCHOR=${ANCHOR:-} PAIRLAW_N=$N REDUCE_N=$RN bash $0 $*" | note

say machine
machine "$L/machine.txt"

say "CUDA unit tests"
unit_tests "$L"

say "the CUDA samples' N-body kernel (fp32 and fp64, accelerations alone)"
if [ -n "${ANCHOR:-}" ] && [ -x "$ANCHOR" ]; then
  for n in ${N//,/ }; do
    "$ANCHOR" "$n" 10 f1 | grep '^samples' >> "$OUT/anchor.csv"
    [ "$n" -ge 1048576 ] || "$ANCHOR" "$n" 10 d1 | grep '^samples' >> "$OUT/anchor.csv"
  done
  cat "$OUT/anchor.csv" | note
else
  echo "anchor skipped (ANCHOR not given)" | note
fi

say "pairlaw group and nbody gravity_acc (gems, lambda), n = $N"
limit=$(( $(left) - 90 ))
if [ "$limit" -gt 0 ]; then
  timeout "$limit" "$BIN/tdmaps_bench_maps" \
    --benchmark_filter='^pairlaw/|^nbody/gravity_acc/fp(32|64)/(gems|lambda)/' --nbody-n="$N" --nbody-rho=32 \
    --reduce-n="$RN" \
    --nbody-terms=acc --no-check --benchmark_format=json --benchmark_out="$OUT/pairlaw.json" \
    --benchmark_out_format=json > "$L/bench_console.json" 2> "$L/bench_stderr.txt"
  echo "bench rc=$?" | note
fi

say "compute-sanitizer memcheck: the pair-law and nbody unit tests"
san memcheck pair_law "$BIN/tdmaps_unit_tests_cuda" --gtest_filter='*pair_law*:*pair_reduce_law*:*count_and_histogram_laws*:*nbody_accelerations*'

say "table"
python3 "$PERF_SCRIPTS/pair_law_table.py" "$OUT/pairlaw.json" ${ANCHOR:+--anchor "$OUT/anchor.csv"} > "$OUT/pairlaw.txt" 2>&1
echo "table rc=$?" | note
cat "$OUT/pairlaw.txt"

say "done"
grep -E "rc=" "$LOG"
pack logs
ls -la "$OUT"
