#!/usr/bin/env bash
# A / B of two builds' CLIs on one GPU in one call, the portability issue's
# headline cases: EDM d = 2 full and d = 4 packed at n = 30720 (fp32), the
# collision bit flags and count at n = 30720, the histogram, nearest
# neighbour and count of 10^6 3-D points (fp32), N-body fp32 and fp64 at
# n = 2^20, ATM at n = 4096. B's CUDA unit tests first; then each case once
# per build with its output (hashed: sha256), then three rounds of timed runs,
# the builds alternating; last, the atomically summed outputs (N-body forces,
# ATM shares) of each build twice, to set the A / B difference against the
# run-to-run one. Prints the table; raw JSON lines under $OUT.
#
#   OUT=out [CASES=regex] bash perf_tests/scripts/device_ab_headline.sh A_BIN_DIR B_BIN_DIR
#
# Each directory holds tdmaps-edm, tdmaps-collide, tdmaps-nbody and
# tdmaps-triplets (B also tdmaps_unit_tests_cuda). Outputs go to /dev/shm.
set -u
A=${1:?usage: device_ab_headline.sh A_BIN_DIR B_BIN_DIR}; B=${2:?usage: device_ab_headline.sh A_BIN_DIR B_BIN_DIR}
R=${OUT:-out}; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$R/machine.txt" 2>&1
echo "== B's CUDA unit tests"; t=$(date +%s)
"$B/tdmaps_unit_tests_cuda" > "$R/unit_tests_cuda.log" 2>&1; echo "rc=$? in $(( $(date +%s) - t )) s"; tail -1 "$R/unit_tests_cuda.log"
for v in A B; do d=$A; [ $v = B ] && d=$B; for e in "$d"/tdmaps-*; do
  echo "$v $(basename "$e") kernels $(cuobjdump -res-usage "$e" 2>/dev/null | grep -c 'Function ')" >> "$R/kernels.txt"; done; done
cases=(
 "edm_full_d2|tdmaps-edm|--random 30720 --dims 2 --precision fp32 --layout full|--repeat 20|--output SHM.npy"
 "edm_packed_d4|tdmaps-edm|--random 30720 --dims 4 --precision fp32 --layout packed|--repeat 20|--output SHM.npy"
 "collide_flags|tdmaps-collide|--random 30720 --result flags|--repeat 20|--output SHM.npy"
 "collide_count|tdmaps-collide|--random 30720 --result count|--repeat 20|"
 "hist_1e6|tdmaps-edm|--random 1000000 --dims 3 --precision fp32 --reduce hist --bins 64 --rmax 0.5|--repeat 3|--output SHM.npy"
 "nn_1e6|tdmaps-edm|--random 1000000 --dims 3 --precision fp32 --reduce nn|--repeat 3|--output SHM.npy"
 "count_1e6|tdmaps-edm|--random 1000000 --dims 3 --precision fp32 --reduce count --radius 0.05|--repeat 3|"
 "nbody_fp32_2p20|tdmaps-nbody|--random 1048576 --precision fp32|--repeat 3|--forces SHM.npy"
 "nbody_fp64_2p20|tdmaps-nbody|--random 1048576 --precision fp64|--repeat 2|--forces SHM.npy"
 "atm_4096|tdmaps-triplets|--random 4096|--repeat 5|--output SHM.npy"
)
# CASES (a bash regex on the case names, e.g. 'edm|hist|nn|count') runs a
# subset: the cases whose binaries differ between A and B.
if [ -n "${CASES:-}" ]; then
  sel=(); for c in "${cases[@]}"; do [[ ${c%%|*} =~ $CASES ]] && sel+=("$c"); done; cases=("${sel[@]}")
fi
bin() { [ "$1" = A ] && echo "$A" || echo "$B"; }
echo "== outputs"
for c in "${cases[@]}"; do
  IFS='|' read -r name exe args rep outopt <<< "$c"
  for v in A B; do
    o=""; [ -n "$outopt" ] && o=${outopt/SHM//dev/shm/ab_$v}
    # shellcheck disable=SC2086
    "$(bin $v)/$exe" $args --json --quiet $o > "$R/out_${name}_$v.json" 2> "$R/out_${name}_$v.err"
    [ -n "$outopt" ] && { sha256sum /dev/shm/ab_$v.npy | cut -c1-64 > "$R/out_${name}_$v.sha"; rm -f /dev/shm/ab_$v.npy; }
  done
done
echo "== timing rounds"
for round in 1 2 3; do
  for c in "${cases[@]}"; do
    IFS='|' read -r name exe args rep outopt <<< "$c"
    for v in A B; do
      # shellcheck disable=SC2086
      "$(bin $v)/$exe" $args $rep --json --quiet >> "$R/t_${name}_$v.jsonl" 2>> "$R/t_${name}_$v.err"
    done
  done
done
echo "== run to run (atomic sums)"
for c in "nbody_fp32|tdmaps-nbody|--random 1048576 --precision fp32|--forces" \
         "nbody_fp64|tdmaps-nbody|--random 1048576 --precision fp64|--forces" "atm_4096|tdmaps-triplets|--random 4096|--output"; do
  IFS='|' read -r name exe args o <<< "$c"
  [[ -z "${CASES:-}" || $name =~ $CASES ]] || continue
  for v in A B; do for k in 1 2; do
    # shellcheck disable=SC2086
    "$(bin $v)/$exe" $args --json --quiet $o "/dev/shm/rr_${name}_${v}_$k.npy" > /dev/null
  done; done
  python3 - "$name" <<'PY' | tee -a "$R/run_to_run.txt"
import sys, numpy as np
n = sys.argv[1]
a = {k: np.load("/dev/shm/rr_%s_%s.npy" % (n, k)).astype(np.float64) for k in ("A_1", "A_2", "B_1", "B_2")}
rel = lambda x, y: float(np.max(np.abs(x - y)) / np.max(np.abs(x)))
print("%s max|diff|/max|x|: A-A %.3g  B-B %.3g  A-B %.3g" % (n, rel(a["A_1"], a["A_2"]), rel(a["B_1"], a["B_2"]), rel(a["A_1"], a["B_1"])))
PY
  rm -f /dev/shm/rr_"${name}"_*.npy
done
python3 - "$R" <<'PY'
import json, sys, os
R = sys.argv[1]
keys = ["count", "energy", "potential", "counted", "fraction", "elements"]
print("%-16s %10s %10s %7s %7s %7s %s" % ("case", "A ms", "B ms", "B/A", "A rnd", "B rnd", "outputs"))
rows = []
for f in sorted(os.listdir(R)):
    if not (f.startswith("t_") and f.endswith("_A.jsonl")): continue
    name = f[2:-len("_A.jsonl")]
    ms = {v: [json.loads(l)["ms_min"] for l in open(os.path.join(R, "t_%s_%s.jsonl" % (name, v))) if l.startswith("{")] for v in "AB"}
    if not ms["A"] or not ms["B"]: print(name, "missing"); continue
    sha = {v: (open(os.path.join(R, "out_%s_%s.sha" % (name, v))).read().strip() if os.path.exists(os.path.join(R, "out_%s_%s.sha" % (name, v))) else None) for v in "AB"}
    js = {v: json.loads(open(os.path.join(R, "out_%s_%s.json" % (name, v))).read().strip().splitlines()[-1]) for v in "AB"}
    fields = {k: (js["A"].get(k), js["B"].get(k)) for k in keys if js["A"].get(k) is not None}
    same = sha["A"] == sha["B"] and all(a == b for a, b in fields.values())
    spread = {v: (max(ms[v]) - min(ms[v])) / min(ms[v]) for v in "AB"}
    print("%-16s %10.3f %10.3f %7.4f %7.4f %7.4f %s" % (name, min(ms["A"]), min(ms["B"]), min(ms["B"]) / min(ms["A"]),
          spread["A"], spread["B"], "identical" if same else "differ"))
    rows.append(dict(case=name, A_ms=ms["A"], B_ms=ms["B"], sha=sha, fields=fields, identical=same))
json.dump(rows, open(os.path.join(R, "summary.json"), "w"), indent=1)
PY
