#!/usr/bin/env bash
# The tuning batch of the GPU tile kernels' launch shape, from the repository
# root: the cuda unit tests, then team size x blocks per team for the EDM and
# collision tile kernels at n = 30720 (block side 32, BB and lambda, one run),
# the launch paths beside plain CUDA, the dummy at block sides 8 and 32, and
# racecheck + synccheck of the tile kernels at the library's defaults.
#
#   [TEAMS=32,64] bash perf_tests/device_tune.sh [BIN_DIR]     (default build/cuda/bin)
#
# Everything lands in $OUT as tune.tgz, launch.tgz and logs.tgz.
set -uo pipefail
BIN=${1:-build/cuda/bin}
OUT=${OUT:-$PWD/device_out}
L=$OUT/logs
mkdir -p "$L"
export PYTHONUNBUFFERED=1
T0=$SECONDS
BUDGET=${BUDGET:-560}
left() { echo $((BUDGET - (SECONDS - T0))); }
say() { echo "== $* (t=$((SECONDS - T0)) s)" | tee -a "$L/batch.log"; }

say machine
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; nproc; } > "$L/machine.txt" 2>&1

say "unit tests (cuda)"
"$BIN/tdmaps_unit_tests_cuda" --gtest_output=json:"$L/unit_tests_cuda.json" > "$L/unit_tests_cuda.log" 2>&1
echo "unit tests rc=$?" | tee -a "$L/batch.log"; grep -E "PASSED|FAILED" "$L/unit_tests_cuda.log" | tee -a "$L/batch.log"

say "tile kernels: team threads x blocks per team (n = 30720, block 32)"
timeout $(( $(left) - 240 )) python3 perf_tests/sweep.py --bin "$BIN/tdmaps_bench_maps" --groups edm,collision \
  --out "$OUT/tune" -- --edm-n=30720 --edm-d=2,4 --edm-rho=32 --edm-layouts=packed,condensed,full --edm-kernels=tile \
  --maps=bb,lambda_rsqrt --team-threads=${TEAMS:-32,64} --blocks-per-team=1,2,4,8,16 --collision-n=30720 \
  --collision-rho=32 --collision-dims=3 --collision-results=intflags,flags --collision-kernels=tile --iters=10 2>&1 \
  | tail -5 | tee "$L/tune.txt"

say "launch paths and the dummy (n = 30720; dummy at block sides 8 and 32)"
timeout $(( $(left) - 120 )) python3 perf_tests/sweep.py --bin "$BIN/tdmaps_bench_maps" --groups dummy,launch \
  --out "$OUT/launch" -- --n=30720 --rho=8,32 --maps=bb,lambda_rsqrt,lambda_rsqrt_eps,lambda_sqrt,rb,h \
  --launch-n=30720 --launch-rho=32 --iters=20 2>&1 | tail -40 | tee "$L/launch.txt"

say "racecheck and synccheck of the tile kernels (library defaults)"
san() {  # tool, name, command...
  local tool=$1 name=$2; shift 2
  [ "$(left)" -gt 30 ] || { echo "$tool $name skipped (budget)" | tee -a "$L/batch.log"; return; }
  timeout 60 compute-sanitizer --tool "$tool" --kernel-name kns=TileFunctor --error-exitcode 9 --print-limit 20 "$@" \
    > "$L/san_${tool}_${name}.log" 2>&1
  echo "$tool $name rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san_${tool}_${name}.log" | tail -1)" \
    | tee -a "$L/batch.log"
}
for tool in racecheck synccheck; do
  san $tool edm_packed "$BIN/tdmaps-edm" --random 2000 --dims 4 --map lambda --kernel tile --layout packed --precision fp32
  san $tool edm_condensed_h "$BIN/tdmaps-edm" --random 2000 --dims 3 --map h --kernel tile --layout condensed --precision fp32
  san $tool edm_full_sym_bb "$BIN/tdmaps-edm" --random 2000 --dims 2 --map bb --kernel tile --layout full --symmetric --precision fp64
  san $tool collide_pairs "$BIN/tdmaps-collide" --random 2000 --dims 3 --map lambda --kernel tile --result pairs
  san $tool collide_flags_bb "$BIN/tdmaps-collide" --random 2000 --dims 3 --map bb --kernel tile --result flags
done

say done
cd "$OUT" && tar czf logs.tgz logs && rm -rf logs
for d in tune launch; do [ -d $d ] && tar czf $d.tgz $d && rm -rf $d; done
ls -la "$OUT"
