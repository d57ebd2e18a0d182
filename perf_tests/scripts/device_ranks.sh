#!/usr/bin/env bash
# The multi-GPU batch (MPI ranks, one per GPU) on a machine of several GPUs:
# run from the repository root with the CUDA + MPI binaries in $1
# (tdmaps-edm, tdmaps-collide, tdmaps-triplets, optionally
# tdmaps_unit_tests_cuda), logs under $OUT, inputs and outputs under $WORK.
# For R = 1, 2, 4 ranks (RANKS overrides): the EDM reductions (histogram,
# nearest neighbour, count; n = 2 x 10^6, d = 3, fp32), the ATM energy
# (n = 16,384, fp64, with the per-particle shares), the collision count
# (n = 10^6, sparse radii) and pair list (n = 10^6, radii 0.001-0.003), and
# where tdmaps-nbody is there one N-body force evaluation (n = 2^20, fp32
# and fp64, the ranks' accelerations summed: inside ms_min) and fp32
# leapfrog steps (accelerations alone between reports; ms_min the fastest
# step). tdmaps-nbody sums the ranks' accelerations through NCCL where it
# can load it: TDMAPS_NCCL (default: the NCCL of python3's nvidia-nccl
# package where there is one; TDMAPS_NCCL=off for the host path). Each `ms_min`
# of --repeat 3; every output of R ranks compared with one rank's. N_EDM,
# N_ATM, N_COL, N_NBODY override the sizes; CASES picks cases (e.g. CASES=nn). Prints the table last: times,
# efficiency t1 / (R tR), the time the ranks' results take to meet at the
# most ranks (ms_combine: copies and all-reductions, outside ms_min), and
# whether the outputs equal one rank's.
#   OUT=out bash perf_tests/scripts/device_ranks.sh build/gpu/bin
set -uo pipefail
BIN=${1:?usage: device_ranks.sh BIN_DIR}
OUT=${OUT:-out}
WORK=${WORK:-/tmp/tdmaps_ranks}
RANKS=${RANKS:-"1 2 4"}
N_EDM=${N_EDM:-2000000} N_ATM=${N_ATM:-16384} N_COL=${N_COL:-1000000} N_NBODY=${N_NBODY:-1048576}
mkdir -p "$OUT" "$WORK"
# NVLink multicast stays off (the machines' notes), NCCL included.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
PY=${PYTHON:-python3}
if [ -z "${TDMAPS_NCCL:-}" ]; then
  TDMAPS_NCCL=$($PY -c "import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], 'lib', 'libnccl.so.2'))" 2>/dev/null)
fi
export TDMAPS_NCCL
MPIRUN=${MPIRUN:-mpirun}
MPI_EXTRA=${MPI_EXTRA:-}  # e.g. --oversubscribe where ranks outnumber cores
log() { echo "== $*" | tee -a "$OUT/batch.log"; }
nvidia-smi --query-gpu=index,name,memory.total --format=csv | tee "$OUT/gpu.txt"
nvidia-smi topo -m >> "$OUT/gpu.txt" 2>&1
"$MPIRUN" --version 2>&1 | head -1 | tee -a "$OUT/gpu.txt"

if [ -x "$BIN/tdmaps_unit_tests_cuda" ] && [ "${UNIT_TESTS:-1}" = 1 ]; then
  log "CUDA unit tests"
  timeout 300 "$BIN/tdmaps_unit_tests_cuda" --gtest_brief=1 > "$OUT/unit_tests_cuda.log" 2>&1
  echo "rc=$?" >> "$OUT/unit_tests_cuda.log"
  tail -4 "$OUT/unit_tests_cuda.log" | tee -a "$OUT/batch.log"
fi

log "inputs: $N_EDM points in [0, 1)^3 fp32 (numpy, seed 7)"
$PY - "$WORK" "$N_EDM" <<'PYEOF'
import sys, numpy as np
np.save(sys.argv[1] + "/p2m.npy", np.random.default_rng(7).random((int(sys.argv[2]), 3)).astype(np.float32))
PYEOF

J="$OUT/ranks.jsonl"
: > "$J"
# run R NAME ARGS...: one mpirun of R ranks; its JSON line tagged with the case.
# CASES: the cases to run (default all: hist nn count atm collide_count collide_pairs nbody_fp32 nbody_fp64).
run() {
  local r=$1 name=$2
  shift 2
  case " ${CASES:-$name} " in *" $name "*) ;; *) return 0 ;; esac
  echo "+ $MPIRUN --allow-run-as-root --bind-to none $MPI_EXTRA -n $r $*" >> "$OUT/commands.txt"
  local line
  line=$(timeout "${LIMIT:-300}" "$MPIRUN" --allow-run-as-root --bind-to none $MPI_EXTRA -n "$r" "$@" 2>> "$WORK/stderr.log" | grep '^{' | tail -1)
  echo "rc=$? R=$r $name" >> "$OUT/batch.log"
  [ -n "$line" ] && echo "{\"case\":\"$name\",\"R\":$r,\"report\":$line}" >> "$J"
}
for r in $RANKS; do
  log "$r rank(s)"
  run "$r" hist "$BIN/tdmaps-edm" --input "$WORK/p2m.npy" --reduce hist --bins 64 --rmax 1.0 --repeat 3 --json --output "$WORK/hist_$r.npy"
  run "$r" nn "$BIN/tdmaps-edm" --input "$WORK/p2m.npy" --reduce nn --repeat 3 --json --output "$WORK/nn_$r.npy"
  run "$r" count "$BIN/tdmaps-edm" --input "$WORK/p2m.npy" --reduce count --radius 0.01 --repeat 3 --json
  run "$r" atm "$BIN/tdmaps-triplets" --random "$N_ATM" --seed 5 --precision fp64 --repeat 3 --json --output "$WORK/atm_$r.npy"
  run "$r" collide_count "$BIN/tdmaps-collide" --random "$N_COL" --density sparse --seed 3 --repeat 3 --json
  run "$r" collide_pairs "$BIN/tdmaps-collide" --random "$N_COL" --rmin 0.001 --rmax 0.003 --seed 3 --result pairs \
    --repeat 3 --json --output "$WORK/pairs_$r.npy"
  if [ -x "$BIN/tdmaps-nbody" ]; then
    for p in fp32 fp64; do
      run "$r" "nbody_$p" "$BIN/tdmaps-nbody" --random "$N_NBODY" --seed 2 --precision "$p" --softening 0.01 --repeat 3 --json
    done
    run "$r" nbody_step_fp32 "$BIN/tdmaps-nbody" --random "$N_NBODY" --seed 2 --precision fp32 --softening 0.01 \
      --steps 4 --dt 1e-6 --every 4 --json
  fi
done
sha256sum "$WORK"/*.npy > "$OUT/sha256.txt" 2>/dev/null

log "table"
$PY - "$J" "$WORK" <<'PYEOF' | tee "$OUT/summary.md" | tee -a "$OUT/batch.log"
import json, sys, os
import numpy as np
rows = [json.loads(l) for l in open(sys.argv[1])]
work = sys.argv[2]
by = {}
for r in rows:
    by.setdefault(r["case"], {})[r["R"]] = r["report"]
files = {"hist": "hist", "nn": "nn", "atm": "atm", "collide_pairs": "pairs"}
print("| case | n | " + " | ".join(f"{R} GPU ms" for R in sorted({r['R'] for r in rows})) +
      " | efficiency at most | results met, ms | outputs |")
print("| --- | --- | " + " | ".join("---" for _ in sorted({r['R'] for r in rows})) + " | --- | --- | --- |")
for case, runs in by.items():
    Rs = sorted(runs)
    t1 = runs.get(1, {}).get("ms_min")
    top = Rs[-1]
    eff = t1 / (top * runs[top]["ms_min"]) if t1 else float("nan")
    same = "?"
    if case in files and 1 in runs:
        ref = os.path.join(work, f"{files[case]}_1.npy")
        if case == "atm":
            a = np.load(ref)
            e1 = runs[1]["energy"]
            ok = all(abs(runs[R]["energy"] - e1) <= 1e-12 * abs(e1) and
                     np.max(np.abs(np.load(os.path.join(work, f"atm_{R}.npy")) - a)) <= 1e-12 * np.max(np.abs(a))
                     for R in Rs)
            same = "energy and shares to 1e-12" if ok else "DIFFER"
        else:
            b = open(ref, "rb").read()
            ok = all(open(os.path.join(work, f"{files[case]}_{R}.npy"), "rb").read() == b for R in Rs)
            same = "identical files" if ok else "DIFFER"
    elif case in ("count", "collide_count"):
        same = "equal counts" if len({runs[R]["count"] for R in Rs}) == 1 else "DIFFER"
    elif case.startswith("nbody"):
        tol = 1e-12 if "fp64" in case else 1e-8
        e1 = runs[Rs[0]]["energy"]
        ok = all(abs(runs[R]["energy"] - e1) <= tol * abs(e1) for R in Rs)
        same = (f"energy to {tol:g}" if ok else "DIFFER") + f"; sums: {runs[top].get('rank_sums', '?')}"
    print(f"| {case} | {runs[Rs[0]]['n']} | " + " | ".join(f"{runs[R]['ms_min']:.1f}" for R in Rs) +
          f" | {eff:.3f} at {top} | {runs[top].get('ms_combine', float('nan')):.1f} | {same} |")
PYEOF
