#!/usr/bin/env bash
# A / B of two builds' CLIs on one GPU in one call: the headline cases of the
# README (EDM d = 2 full and d = 4 condensed at n = 30720, the collision int
# flags and count at n = 30720, BB and lambda; the histogram, nearest
# neighbour and count of 10^6 points; ATM fp64 at n = 4096), the builds
# alternating A B A B A B so that a drift of the machine shows between rounds;
# then the reductions' outputs compared byte for byte and B's CUDA unit tests.
#
#   OUT=out bash perf_tests/scripts/device_ab_cli.sh A_BIN_DIR B_BIN_DIR
#
# Each directory holds tdmaps-edm, tdmaps-collide, tdmaps-triplets (B also
# tdmaps_unit_tests_cuda). Prints each case's ms_min per round and B/A of the
# best rounds; A / B outputs are not committed (perf_tests/README.md keeps the
# conclusion).
set -u
A=${1:?usage: device_ab_cli.sh A_BIN_DIR B_BIN_DIR}; B=${2:?usage: device_ab_cli.sh A_BIN_DIR B_BIN_DIR}
OUT=${OUT:-out}
mkdir -p /tmp/ab "$OUT"
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
python3 -c "import numpy as np; r=np.random.default_rng(7); np.save('/tmp/ab/p1m.npy', r.random((1000000, 3)).astype(np.float32)); np.save('/tmp/ab/p2.npy', r.random((30720, 2)).astype(np.float32)); np.save('/tmp/ab/p4.npy', r.random((30720, 4)).astype(np.float32)); s=r.random((30720,4)).astype(np.float32); s[:,3]=0.002+0.001*s[:,3]; np.save('/tmp/ab/s.npy', s); np.save('/tmp/ab/a.npy', r.random((4096,3))*16)"
J="$OUT/ab.jsonl"; : > "$J"
one() {  # side case cmd...
  local side=$1 case=$2; shift 2
  local line; line=$(timeout 120 "$@" --json 2>>"$OUT/stderr.log" | grep '^{')
  echo "{\"side\":\"$side\",\"case\":\"$case\",\"r\":$line}" >> "$J"
}
for round in 1 2 3; do for side in A B; do
  if [ "$side" = A ]; then d=$A; else d=$B; fi
  for m in lambda bb; do
    one $side "edm2_full_$m" $d/tdmaps-edm --input /tmp/ab/p2.npy --layout full --map $m --repeat 20
    one $side "edm4_cond_$m" $d/tdmaps-edm --input /tmp/ab/p4.npy --layout condensed --map $m --repeat 20
    one $side "col_int_$m" $d/tdmaps-collide --input /tmp/ab/s.npy --result intflags --map $m --repeat 20
    one $side "col_count_$m" $d/tdmaps-collide --input /tmp/ab/s.npy --result count --map $m --repeat 20
  done
  one $side hist $d/tdmaps-edm --input /tmp/ab/p1m.npy --reduce hist --bins 64 --rmax 1.0 --repeat 2 --output /tmp/ab/h_$side.npy
  one $side nn $d/tdmaps-edm --input /tmp/ab/p1m.npy --reduce nn --repeat 2 --output /tmp/ab/nn_$side.npy
  one $side count $d/tdmaps-edm --input /tmp/ab/p1m.npy --reduce count --radius 0.05 --repeat 2
  one $side atm_fp64 $d/tdmaps-triplets --input /tmp/ab/a.npy --precision fp64 --repeat 5
done; done
cmp /tmp/ab/h_A.npy /tmp/ab/h_B.npy && echo "hist outputs identical" | tee -a "$OUT/summary.txt"
cmp /tmp/ab/nn_A.npy /tmp/ab/nn_B.npy && echo "nn outputs identical" | tee -a "$OUT/summary.txt"
python3 - "$J" <<'PY' | tee -a "$OUT/summary.txt"
import json, sys, collections
t = collections.defaultdict(list)
for l in open(sys.argv[1]):
    j = json.loads(l); r = j["r"]
    v = r.get("ms_min") or r.get("ms_median") or r.get("ms_mean")
    t[(j["case"], j["side"])].append(v)
cases = sorted({c for c, _ in t})
print(f"{'case':16s} {'A ms (rounds)':32s} {'B ms (rounds)':32s} B/A(min)")
for c in cases:
    a, b = t[(c, "A")], t[(c, "B")]
    fa = " ".join(f"{x:.3f}" for x in a); fb = " ".join(f"{x:.3f}" for x in b)
    print(f"{c:16s} {fa:32s} {fb:32s} {min(b)/min(a):.3f}")
PY
timeout 300 "$B/tdmaps_unit_tests_cuda" --gtest_brief=1 > "$OUT/unit_tests_cuda.log" 2>&1; echo "unit tests rc=$?" | tee -a "$OUT/summary.txt"
tail -3 "$OUT/unit_tests_cuda.log" | tee -a "$OUT/summary.txt"
