#!/usr/bin/env bash
# Nearest neighbour on one GPU, the warp walk against the block walk it
# replaced, in one run: run from the repository root with the CUDA binaries
# in $1 (tdmaps-edm, tdmaps_unit_tests_cuda) and, optionally, $2 a
# tdmaps-edm built before the warp walk (reduce_rows on CUDA too); logs,
# JSON lines and commands under $OUT (default ./out).
#   OUT=out bash perf_tests/scripts/device_nearest.sh build/gpu/bin [old/tdmaps-edm]
# n = 10^6 points in [0, 1)^3, fp32 (NumPy, seed 7); pairs/s = n (n - 1) / 2 / t
# (ms_min of --repeat 3). The outputs of both binaries must be identical.
set -uo pipefail
BIN=${1:?usage: device_nearest.sh BIN_DIR [OLD_EDM]}
OLD=${2:-}
OUT=${OUT:-out}
WORK=${WORK:-/tmp/tdmaps_nearest}
PY=${PYTHON:-python3}
mkdir -p "$OUT" "$WORK"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)" | tee "$OUT/batch.log"

echo "== CUDA unit tests" | tee -a "$OUT/batch.log"
"$BIN/tdmaps_unit_tests_cuda" --gtest_brief=1 > "$OUT/unit_tests_cuda.log" 2>&1
echo "rc=$?" >> "$OUT/unit_tests_cuda.log"
tail -3 "$OUT/unit_tests_cuda.log" | tee -a "$OUT/batch.log"

$PY - "$WORK" <<'PYEOF'
import sys, numpy as np
np.save(sys.argv[1] + "/p1m.npy", np.random.default_rng(7).random((1000000, 3)).astype(np.float32))
PYEOF

J="$OUT/nearest.jsonl"
: > "$J"
run() {  # run LABEL EXE ARGS...: one JSON line, tagged with LABEL
  local label=$1; shift
  echo "+ $*" >> "$OUT/commands.txt"
  local line
  line=$(timeout 300 "$@" 2>> "$OUT/stderr.log")
  echo "rc=$? $label $*" >> "$OUT/batch.log"
  [ -n "$line" ] && echo "{\"label\": \"$label\", \"report\": $line}" >> "$J"
}
for m in lambda bb; do
  run "warp $m" "$BIN/tdmaps-edm" --input "$WORK/p1m.npy" --reduce nn --map $m --repeat 3 --json --output "$WORK/nn_new_$m.npy"
  [ -n "$OLD" ] && run "block $m" "$OLD" --input "$WORK/p1m.npy" --reduce nn --map $m --repeat 3 --json --output "$WORK/nn_old_$m.npy"
done
for m in lambda bb; do
  if [ -n "$OLD" ]; then
    cmp "$WORK/nn_new_$m.npy" "$WORK/nn_old_$m.npy" && echo "$m: outputs identical" | tee -a "$OUT/batch.log" \
      || echo "$m: OUTPUTS DIFFER" | tee -a "$OUT/batch.log"
  fi
done
$PY - "$J" <<'PYEOF' | tee "$OUT/table.txt"
import json, sys
n = 10**6
rows = [json.loads(l) for l in open(sys.argv[1])]
t = {r["label"]: r["report"]["ms_min"] for r in rows}
print("| case | ms (min of 3) | pairs/s |")
print("| --- | --- | --- |")
for k, ms in t.items():
    print(f"| {k} | {ms:.1f} | {n * (n - 1) / 2 / (ms / 1e3):.3g} |")
for m in ("lambda", "bb"):
    if f"warp {m}" in t and f"block {m}" in t:
        print(f"speed-up {m}: {t[f'block {m}'] / t[f'warp {m}']:.3f}")
if "warp lambda" in t and "warp bb" in t:
    print(f"I = t_bb / t_lambda (warp): {t['warp bb'] / t['warp lambda']:.3f}")
PYEOF
