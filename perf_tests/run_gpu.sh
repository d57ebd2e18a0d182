#!/usr/bin/env bash
# One batch on a GPU machine (see perf_tests/README.md, "GPU run"): the quick
# sweep, the launch group of a second build (optional), an Nsight Compute look
# at the launch paths, then wider sweeps while time is left. Everything lands
# in $OUT (default ./gpu_out) as few files: run.log, quick.tgz,
# alt_launch.tgz, ncu.txt, medium.tgz.
#
#   [ALT_BIN_DIR=dir] bash perf_tests/run_gpu.sh BIN_DIR [SECONDS]
#
# BIN_DIR holds tdmaps_bench_maps (built with the cuda preset) and
# libbenchmark.so.1debian (the binary's RUNPATH is $ORIGIN). ALT_BIN_DIR: a
# second build (e.g. against Kokkos without a patch under test) whose launch
# group runs too. SECONDS (default 540) is the wall-clock budget: no new phase
# starts after it, and a sweep cut off keeps the groups it finished.
set -uo pipefail
BIN_DIR=${1:?usage: run_gpu.sh BIN_DIR [SECONDS]}
BUDGET=${2:-540}
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
BIN=$BIN_DIR/tdmaps_bench_maps
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
START=$SECONDS
LOG=$OUT/run.log
export PYTHONUNBUFFERED=1
left() { echo $((BUDGET - (SECONDS - START))); }
say() { echo "== $* (t=$((SECONDS - START)) s)" | tee -a "$LOG"; }
sweep() {  # out-name, then sweep.py arguments; cut off 20 s before the budget
  local name=$1; shift
  [ "$(left)" -gt 45 ] || { say "skip $name (budget)"; return 1; }
  say "sweep $name"
  timeout $(( $(left) - 20 )) python3 "$HERE/sweep.py" --out "$OUT/$name" "$@" 2>&1 | tail -45 | tee -a "$LOG"
}

say "machine"
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,power.limit --format=csv;
  for t in ncu nsys cuobjdump compute-sanitizer; do printf '%s: %s\n' "$t" "$(command -v $t || echo -)"; done;
  nproc; python3 --version; } 2>&1 | tee -a "$LOG"

say "smoke"
if ! "$BIN" --benchmark_filter='^launch/dummy\.(cuda|tdmaps)/bb/r32/n2048/' --quick 2>&1 | tee -a "$LOG" | tail -3; then
  echo "smoke run failed" | tee -a "$LOG"; exit 1
fi

sweep quick --bin "$BIN" --quick
tar czf "$OUT/quick.tgz" -C "$OUT" quick && rm -rf "$OUT/quick"

if [ -n "${ALT_BIN_DIR:-}" ]; then
  sweep alt_launch --bin "$ALT_BIN_DIR/tdmaps_bench_maps" --quick --groups launch -- --launch-rho=8,16,32
  tar czf "$OUT/alt_launch.tgz" -C "$OUT" alt_launch && rm -rf "$OUT/alt_launch"
fi

if command -v ncu >/dev/null && [ "$(left)" -gt 150 ]; then
  say "ncu: launch paths (dummy r16, EDM d=4 full r32, lambda, n=30720)"
  timeout 120 ncu --section LaunchStats --section Occupancy --section SpeedOfLight --section InstructionStats \
    --kernel-name-base demangled -k 'regex:element_kernel|ElementFunctor|TeamFlatElement|RangeElement' \
    "$BIN" --benchmark_filter='^launch/(dummy\.(cuda|tdmaps|team_flat)/lambda_rsqrt/r16|edm_full_d4\.(cuda|cuda_t256|tdmaps|team_flat)/lambda_rsqrt/r32)/n30720/' \
    --iters=1 --no-check --quick > "$OUT/ncu.txt" 2>&1
  echo "ncu exit $?" | tee -a "$LOG"
fi

# Wider sweeps for the plots, most wanted first.
sweep medium/edm --bin "$BIN" --groups edm -- --edm-n=2048:30720:2048,49152,65536 --edm-d=2,4 --edm-rho=32 --iters=10
tar czf "$OUT/medium.tgz" -C "$OUT" medium
sweep medium/collision --bin "$BIN" --groups collision -- --collision-n=4096:30720:4096,65536 --collision-rho=32 --iters=5
tar czf "$OUT/medium.tgz" -C "$OUT" medium
sweep medium/launch --bin "$BIN" --groups launch -- --launch-n=2048,8192,16384,30720,65536 --launch-rho=8,16,32 --iters=10
tar czf "$OUT/medium.tgz" -C "$OUT" medium
sweep medium/dummy --bin "$BIN" --groups ceiling,dummy,sink -- --rho=32 --iters=10
tar czf "$OUT/medium.tgz" -C "$OUT" medium
rm -rf "$OUT/medium"
say "done"
