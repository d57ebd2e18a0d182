#!/usr/bin/env bash
# The scale batch on a GPU machine (reductions, streaming): run from the
# repository root with the CUDA binaries in $1 (tdmaps-edm, t_reduce_cuda:
# the unit tests test_reduce and test_edm_scale, python/ the CUDA module),
# logs under $OUT (default ./out), inputs and outputs under $WORK. Prints a
# short table last.
#   OUT=out bash perf_tests/scripts/device_scale.sh build/gpu
set -uo pipefail
BIN=${1:?usage: device_scale.sh BIN_DIR}
OUT=${OUT:-out}
WORK=${WORK:-/tmp/tdmaps_scale}
mkdir -p "$OUT" "$WORK"
EDM="$BIN/tdmaps-edm"
PY=${PYTHON:-python3}
log() { echo "== $*" | tee -a "$OUT/batch.log"; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)" | tee "$OUT/batch.log"

log "CUDA unit tests of omega ranges and reductions"
"$BIN/t_reduce_cuda" --gtest_brief=1 > "$OUT/unit_tests_reduce.log" 2>&1; echo "rc=$?" >> "$OUT/unit_tests_reduce.log"
tail -3 "$OUT/unit_tests_reduce.log" | tee -a "$OUT/batch.log"

log "points: 10^6 and 20,000 in [0, 1)^3, fp32 (numpy, seed 7)"
$PY - "$WORK" <<'PYEOF'
import sys, numpy as np
g = np.random.default_rng(7)
x = g.random((1000000, 3)).astype(np.float32)
np.save(sys.argv[1] + "/p1m.npy", x)
np.save(sys.argv[1] + "/p20k.npy", x[:20000].copy())
PYEOF

J="$OUT/scale.jsonl"
: > "$J"
run() { echo "+ $*" >> "$OUT/commands.txt"; timeout "${LIMIT:-150}" "$@" >> "$J" 2>> "$WORK/stderr.log"; echo "rc=$? $*" >> "$OUT/batch.log"; }
for m in lambda bb; do
  run "$EDM" --input "$WORK/p1m.npy" --reduce hist --bins 64 --rmax 1.0 --map $m --repeat 3 --json --output "$WORK/hist_1m_$m.npy"
  run "$EDM" --input "$WORK/p1m.npy" --reduce nn --map $m --repeat 2 --json --output "$WORK/nn_1m_$m.npy"
  run "$EDM" --input "$WORK/p1m.npy" --reduce count --radius 0.05 --map $m --repeat 3 --json
done
for r in hist nn; do
  a=("--reduce" "$r"); [ $r = hist ] && a+=(--bins 64 --rmax 1.0)
  run "$EDM" --input "$WORK/p20k.npy" "${a[@]}" --json --output "$WORK/${r}_20k.npy"
done
run "$EDM" --input "$WORK/p20k.npy" --reduce count --radius 0.05 --json
log "oracle checks (brute force on the host)"
cp "$J" "$WORK/scale.jsonl"
$PY perf_tests/scripts/check_reduce_sample.py "$WORK" | tee "$OUT/check.txt" | tee -a "$OUT/batch.log"

log "EDM packed fp32 n = 150,000 in device memory, and the fill ceiling (torch) in the same run"
run "$EDM" --random 150000 --dims 4 --precision fp32 --layout packed --repeat 5 --json
$PY - >> "$OUT/ceiling.txt" 2>&1 <<'PYEOF'
import torch, time
n = 150000 * 150001 // 2
a = torch.empty(n, dtype=torch.float32, device="cuda")
best = 1e9
for _ in range(6):
    torch.cuda.synchronize(); t = time.perf_counter(); a.fill_(1.0); torch.cuda.synchronize()
    best = min(best, time.perf_counter() - t)
print(f"fill {n * 4 / 1e9:.2f} GB best {best * 1e3:.3f} ms {n * 4 / best / 1e9:.1f} GB/s")
PYEOF
cat "$OUT/ceiling.txt" | tee -a "$OUT/batch.log"

log "EDM packed fp32 n = 200,000 (80 GB) streamed to host memory"
LIMIT=300 run "$EDM" --random 200000 --dims 4 --precision fp32 --layout packed --max-device-memory 32G --json
tail -5 "$WORK/stderr.log" >> "$OUT/batch.log" 2>/dev/null

log "Python on this machine (the CUDA module python/ is built for the build machine's Python)"
$PY -c "import sys, torch; print('python', sys.version.split()[0], 'torch', torch.__version__)" 2>&1 | tee -a "$OUT/batch.log"

log "summary"
$PY - "$J" <<'PYEOF' | tee -a "$OUT/batch.log"
import json, sys
for line in open(sys.argv[1]):
    try:
        j = json.loads(line)
    except ValueError:
        continue
    what = (j.get("reduce") or ("stream" if j.get("mode") == "stream" else "edm")) + ("/" + str(j.get("bins")) if j.get("bins") else "")
    rate = j.get("elements_per_second")
    print(f"{what:9s} n={j['n']:>8d} map={j['map']:12s} ms={j.get('ms_min', j.get('ms')):10.3f} "
          + (f"pairs/s={rate:.3e}" if rate else f"GB/s={j.get('gbps_best', j.get('gbps')):.1f} d2h={j.get('d2h_gbps')}"))
PYEOF
