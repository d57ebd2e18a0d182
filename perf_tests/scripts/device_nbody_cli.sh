#!/usr/bin/env bash
# The N-body CLI batch of one device session, from the repository root: the
# CUDA unit tests, the energy drift of a Plummer sphere (fp32 and fp64, dt
# and dt / 2, JSON lines every 16 steps), and a leapfrog step against one
# force evaluation at n = 2^20 (fp32).
#
#   bash perf_tests/scripts/device_nbody_cli.sh BIN_DIR
#
# Into $OUT: unit_tests.txt, drift_<precision>_<dt>.jsonl, step_vs_force.jsonl,
# machine.txt. perf_tests/scripts/nbody_drift_plot.py plots the drift.
set -uo pipefail
BIN=${1:?bin dir}
OUT=${OUT:?OUT}
export OMPI_MCA_ess_singleton_isolated=1 OMPI_MCA_pml=ob1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$OUT/machine.txt" 2>&1
"$BIN/tdmaps_unit_tests_cuda" > "$OUT/unit_tests.txt" 2>&1
echo "unit tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/unit_tests.txt" | tr '\n' ' ')"
for prec in fp32 fp64; do
  for dt in 0.00390625 0.001953125; do
    steps=$(python3 -c "print(round(4 / $dt))")
    "$BIN/tdmaps-nbody" --plummer 32768 --seed 1 --softening 0.01 --precision "$prec" --steps "$steps" --dt "$dt" \
      --every 16 --json > "$OUT/drift_${prec}_${dt}.jsonl" 2> "$OUT/drift_${prec}_${dt}.err"
    echo "drift $prec dt $dt rc=$? $(tail -1 "$OUT/drift_${prec}_${dt}.jsonl" | head -c 300)"
  done
done
for args in "--repeat 5" "--steps 5 --dt 1e-6 --every 5"; do
  # shellcheck disable=SC2086
  "$BIN/tdmaps-nbody" --random 1048576 --precision fp32 --softening 0.01 $args --json | tail -1 >> "$OUT/step_vs_force.jsonl"
  echo "n = 2^20 fp32 $args rc=$? $(tail -1 "$OUT/step_vs_force.jsonl" | head -c 400)"
done
