#!/usr/bin/env bash
# The 3-D batch of one device session, from the repository root: the
# tetrahedral maps (dummy3, sink3 under BB3 and every lambda3 form; the 3-D
# element path beside its plain-CUDA twin), the ATM
# three-body energy (fp64, fp32; BB3 and lambda3), compute-sanitizer memcheck
# and racecheck of the new kernels at small n, and the targets report.
#
#   [BUDGET=560] bash perf_tests/scripts/device_3d.sh [BIN_DIR]     (default build/cuda/bin)
#
# Into $OUT: d3/, atm/ (sweep folders: results.csv, results.json,
# summary.txt, raw JSON), logs/ (batch.log, sanitizer logs, targets_report.md),
# packed as d3.tgz, atm.tgz, logs.tgz; a short table last.
# N3, RHO3, ATM_N, ATM_RHO override the case lists (the binary's --n3,
# --rho3, --atm-n, --atm-rho).
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
use_bin "${1:-}"
use_logs
SAN_RESERVE=${SAN_RESERVE:-30}
N3=${N3:-256,512,1024,1536,2048}
RHO3=${RHO3:-4,8}
ATM_N=${ATM_N:-1024,2048,3072,4096}
ATM_RHO=${ATM_RHO:-8,4}
echo "command: BUDGET=$BUDGET N3=$N3 RHO3=$RHO3 ATM_N=$ATM_N ATM_RHO=$ATM_RHO bash $0 $*" | note

say machine
machine "$L/machine.txt"

# Each sweep is cut off early enough (its first argument, seconds) for the
# phases after it.
say "3-D maps: dummy3, sink3 (BB3, lambda3 forms), launch3 (tdmaps vs plain CUDA)"
budget_sweep 330 --bin "$BIN/tdmaps_bench_maps" --groups dummy3,sink3,launch3 --out "$OUT/d3" -- \
  --n3="$N3" --rho3="$RHO3" --iters=20 2>&1 | tail -30 | tee "$L/d3.txt"

say "ATM three-body energy (fp64, fp32; BB3 and lambda3)"
budget_sweep 120 --bin "$BIN/tdmaps_bench_maps" --groups atm --out "$OUT/atm" -- \
  --atm-n="$ATM_N" --atm-rho="$ATM_RHO" --iters=10 2>&1 | tail -12 | tee "$L/atm.txt"

say "compute-sanitizer (small n)"
# memcheck: every 3-D map and form (eps included: its blocks outside the
# tetrahedron must be rejected, not written), block sides 2, 4, 8, n not a
# multiple of the block side; the plain-CUDA twin; the ATM tile kernel.
# shellcheck disable=SC2054  # commas inside the options' lists
SMALL3=(--n3=67 --rho3=2,4,8 --maps3=lambda3_cbrt,lambda3_cbrt_eps,lambda3_cardano,lambda3_cardano_eps,lambda3_fp64,lambda3_fp64_eps --iters=1)
san memcheck bench_dummy3 "$BIN/tdmaps_bench_maps" --benchmark_filter='^(dummy3|sink3|launch3)/' "${SMALL3[@]}"
san memcheck bench_dummy_full "$BIN/tdmaps_bench_maps" --benchmark_filter='^launch/dummy_full\.' --launch-n=301 \
  --launch-rho=8,32 --iters=1
san memcheck bench_atm "$BIN/tdmaps_bench_maps" --benchmark_filter='^atm/' --atm-n=67,130 --atm-rho=2,4,8 --iters=1
# racecheck: the ATM tile kernel (team scratch, barriers; san filters on
# TileFunctor); the element kernels unfiltered, without the output checks
# (Kokkos' reductions draw warnings of their own).
san racecheck bench_atm "$BIN/tdmaps_bench_maps" --benchmark_filter='^atm/' --atm-n=67,130 --atm-rho=4,8 --iters=1
[ "$(left)" -gt "$SAN_RESERVE" ] && {
  timeout 60 compute-sanitizer --tool racecheck --error-exitcode 9 --print-limit 20 "$BIN/tdmaps_bench_maps" \
    --benchmark_filter='^(dummy3|launch3)/' "${SMALL3[@]}" --no-check > "$L/san_racecheck_bench_dummy3.log" 2>&1
  echo "racecheck bench_dummy3 rc=$? $(grep -E 'RACECHECK SUMMARY' "$L/san_racecheck_bench_dummy3.log" | tail -1)" | note
}

say "the targets, read off this batch's sweeps"
csvs=()
for d in d3 atm; do [ -f "$OUT/$d/results.csv" ] && csvs+=("$OUT/$d/results.csv"); done
[ ${#csvs[@]} -gt 0 ] && python3 "$PERF_SCRIPTS/targets.py" "${csvs[@]}" > "$L/targets_report.md" 2>&1

say "done"
for d in d3 atm; do
  [ -f "$OUT/$d/summary.txt" ] && { echo "--- $d"; sed -n '/^test\/variant/,$p' "$OUT/$d/summary.txt"; }
done
grep -E "rc=" "$LOG" | grep -E "memcheck|racecheck"
grep -E "3-D|element path" "$L/targets_report.md" 2>/dev/null
pack logs d3 atm
ls -la "$OUT"
