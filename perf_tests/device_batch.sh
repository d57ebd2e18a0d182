#!/usr/bin/env bash
# The whole GPU batch of one device session, from the repository root:
#   unit tests of the cuda build, the apps' CLI checks, the main job (apps/demo.py),
#   compute-sanitizer memcheck + racecheck on every CUDA kernel family at a
#   small and a mid n, the issue-target benchmarks at n = 30720 / 65536 (apps
#   first, then the tile kernels' team sizes, then the launch paths and the
#   dummy), the quick sweep, and PyTorch's pdist/cdist on the same GPU.
#
#   bash perf_tests/device_batch.sh [BIN_DIR]     (default build/cuda/bin)
#
# BIN_DIR holds the cuda-preset binaries and libbenchmark.so.1debian (the
# benchmark's RUNPATH is $ORIGIN). Everything lands in $OUT as logs.tgz,
# targets_apps.tgz, team_size.tgz, targets_launch.tgz and quick.tgz.
set -uo pipefail
BIN=${1:-build/cuda/bin}
OUT=${OUT:-$PWD/device_out}
L=$OUT/logs
mkdir -p "$L"
export PYTHONUNBUFFERED=1
T0=$SECONDS
BUDGET=${BUDGET:-560}  # seconds: later phases shrink or are skipped to end inside it
left() { echo $((BUDGET - (SECONDS - T0))); }
say() { echo "== $* (t=$((SECONDS - T0)) s)" | tee -a "$L/batch.log"; }

say machine
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; nproc; } > "$L/machine.txt" 2>&1

say "unit tests (cuda)"
"$BIN/tdmaps_unit_tests_cuda" --gtest_output=json:"$L/unit_tests_cuda.json" > "$L/unit_tests_cuda.log" 2>&1
echo "unit tests rc=$?" | tee -a "$L/batch.log"; grep -E "PASSED|FAILED|first wrong" "$L/unit_tests_cuda.log" | tee -a "$L/batch.log"

say "CLI checks (numpy/scipy where the machine has them)"
if python3 -c "import numpy, scipy" 2>/dev/null; then
  python3 apps/edm/test_scipy_interop.py "$BIN/tdmaps-edm" > "$L/edm_interop.log" 2>&1; echo "edm interop rc=$?" | tee -a "$L/batch.log"
else echo "edm interop: scipy missing on this machine" | tee -a "$L/batch.log"; fi
if python3 -c "import numpy" 2>/dev/null; then
  python3 apps/collision/test_cli.py "$BIN/tdmaps-collide" > "$L/collide_cli.log" 2>&1; echo "collide cli rc=$?" | tee -a "$L/batch.log"
fi

say "main job on the GPU (n = 30720)"
python3 apps/demo.py --bin "$BIN" --n 30720 --repeat 10 2>&1 | tee "$L/demo_cuda.txt"

say "issue targets: EDM and collision tile kernels (n = 30720, 65536; block 32; 20 iterations)"
timeout $(( $(left) - 330 )) python3 perf_tests/sweep.py --bin "$BIN/tdmaps_bench_maps" --groups ceiling,edm,collision \
  --out "$OUT/targets_apps" -- --edm-n=30720,65536 --edm-d=2,4 --edm-rho=32 --edm-layouts=packed,condensed,full \
  --edm-kernels=tile,linear --maps=bb,lambda_rsqrt,rb,rec,h --collision-n=30720 --collision-rho=32 --collision-dims=3 \
  --collision-results=count,intflags,flags,rowflags,tileflags --collision-kernels=tile,linear --iters=20 2>&1 | tail -40 | tee "$L/targets_apps.txt"

say "launch shape of the tile kernels: team threads x blocks per team (n = 30720)"
timeout $(( $(left) - 280 )) python3 perf_tests/sweep.py --bin "$BIN/tdmaps_bench_maps" --groups edm,collision \
  --out "$OUT/team_size" -- --edm-n=30720 --edm-d=2,4 --edm-rho=32 --edm-layouts=packed,condensed,full --edm-kernels=tile \
  --maps=bb,lambda_rsqrt --team-threads=32,64,256 --blocks-per-team=1,2,4,8 --collision-n=30720 --collision-rho=32 \
  --collision-dims=3 --collision-results=intflags,flags,rowflags,tileflags --collision-kernels=tile --iters=10 2>&1 | tail -30 | tee "$L/team_size.txt"

say "launch paths beside plain CUDA (n = 30720) and the dummy (block sides 8 and 32)"
timeout $(( $(left) - 220 )) python3 perf_tests/sweep.py --bin "$BIN/tdmaps_bench_maps" --groups dummy,launch \
  --out "$OUT/targets_launch" -- --n=30720 --rho=8,32 --launch-n=30720 --launch-rho=32 --iters=20 2>&1 \
  | tail -40 | tee "$L/targets_launch.txt"

say "compute-sanitizer"
san() {  # tool, name, command...
  local tool=$1 name=$2; shift 2
  [ "$(left)" -gt 120 ] || { echo "$tool $name skipped (budget)" | tee -a "$L/batch.log"; return; }
  local filter=()
  [ "$tool" = memcheck ] || filter=(--kernel-name kns=TileFunctor)
  timeout 60 compute-sanitizer --tool "$tool" "${filter[@]}" --error-exitcode 9 --print-limit 20 "$@" \
    > "$L/san_${tool}_${name}.log" 2>&1
  echo "$tool $name rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$L/san_${tool}_${name}.log" | tail -1)" | tee -a "$L/batch.log"
}
# memcheck: every kernel family (EDM element / tile in each layout / gemm,
# collision element / tile for each result) at a small and a mid n;
# racecheck and synccheck: the tile kernels (the only ones with team scratch
# and barriers), filtered to them (kns=TileFunctor): Kokkos 3.4's own
# reductions (the input checks' parallel_reduce) draw racecheck warnings of
# their own, recorded once, unfiltered, in san_racecheck_kokkos_reduce.log.
for n in 1000 4000; do
  for l in packed condensed full; do
    san memcheck "edm_tile_${l}_$n" "$BIN/tdmaps-edm" --random $n --dims 4 --map lambda --kernel tile --layout $l --precision fp32
  done
  san memcheck "edm_tile_full_sym_d3_$n" "$BIN/tdmaps-edm" --random $n --dims 3 --map h --kernel tile --layout full --symmetric --precision fp64
  san memcheck "edm_tile_d7_$n" "$BIN/tdmaps-edm" --random $n --dims 7 --map rec --kernel tile --layout condensed --precision fp32
  for m in rb utm; do
    san memcheck "edm_element_${m}_$n" "$BIN/tdmaps-edm" --random $n --dims 2 --map $m --kernel element --layout condensed --precision fp64
    san memcheck "collide_element_${m}_$n" "$BIN/tdmaps-collide" --random $n --dims 1 --map $m --kernel element --result flags
  done
  for r in count flags rowflags tileflags pairs intflags; do
    san memcheck "collide_tile_${r}_$n" "$BIN/tdmaps-collide" --random $n --dims 3 --map lambda --kernel tile --result $r
  done
  san memcheck "edm_gemm_$n" "$BIN/tdmaps-edm" --random $n --dims 40 --kernel gemm --layout full --precision fp32
done
for n in 500 2000; do
  for tool in racecheck synccheck; do
    for m in lambda h; do
      san $tool "edm_tile_${m}_$n" "$BIN/tdmaps-edm" --random $n --dims 3 --map $m --kernel tile --layout full --precision fp32
      san $tool "edm_tile_condensed_${m}_$n" "$BIN/tdmaps-edm" --random $n --dims 4 --map $m --kernel tile --layout condensed --precision fp32
      san $tool "edm_tile_packed_bb_$n" "$BIN/tdmaps-edm" --random $n --dims 2 --map bb --kernel tile --layout packed --precision fp32
      san $tool "collide_tile_${m}_$n" "$BIN/tdmaps-collide" --random $n --dims 3 --map $m --kernel tile --result pairs
      san $tool "collide_tile_rowflags_${m}_$n" "$BIN/tdmaps-collide" --random $n --dims 3 --map $m --kernel tile --result rowflags
      san $tool "collide_tile_tileflags_${m}_$n" "$BIN/tdmaps-collide" --random $n --dims 3 --map $m --kernel tile --result tileflags
    done
  done
done
timeout 60 compute-sanitizer --tool racecheck --print-limit 20 "$BIN/tdmaps-collide" --random 500 --dims 3 --map lambda \
  --kernel tile --result pairs > "$L/san_racecheck_kokkos_reduce.log" 2>&1
echo "racecheck unfiltered collide (Kokkos reductions included): $(grep -E 'RACECHECK SUMMARY' "$L/san_racecheck_kokkos_reduce.log")" \
  | tee -a "$L/batch.log"
san memcheck unit_maps "$BIN/tdmaps_unit_tests_cuda" --gtest_filter='*map_h_covers*:*map_coverage_holds*:*harness*:*dummy*'

say "quick sweep"
[ "$(left)" -gt 60 ] && timeout $(( $(left) - 30 )) python3 perf_tests/sweep.py --bin "$BIN/tdmaps_bench_maps" --quick --out "$OUT/quick" 2>&1 | tail -40 > "$L/quick.txt"

say "PyTorch on the same GPU (n = 30720, d = 4, fp32)"
python3 - > "$L/torch.txt" 2>&1 <<'PY'
import time
try:
    import torch
except ImportError:
    print("torch missing"); raise SystemExit
x = torch.rand(30720, 4, device="cuda")
for name, f in (("pdist (condensed)", lambda: torch.nn.functional.pdist(x)), ("cdist (full)", lambda: torch.cdist(x, x))):
    f(); torch.cuda.synchronize()
    best = 1e9
    for _ in range(3):
        t = time.perf_counter(); y = f(); torch.cuda.synchronize(); best = min(best, time.perf_counter() - t)
    print(f"torch {torch.__version__} {name}: {best * 1e3:.3f} ms, {y.numel() * 4 / best / 1e9:.1f} GB/s")
PY
cat "$L/torch.txt" | tee -a "$L/batch.log"

say "the issue's targets, read off this batch's sweeps"
csvs=$(ls "$OUT"/targets_apps/results.csv "$OUT"/targets_launch/results.csv "$OUT"/team_size/results.csv 2>/dev/null)
[ -n "$csvs" ] && python3 perf_tests/targets.py $csvs 2>&1 | tee "$L/targets_report.md"

say done
cd "$OUT" && tar czf logs.tgz logs && rm -rf logs
for d in targets_apps team_size targets_launch; do [ -d $d ] && tar czf $d.tgz $d && rm -rf $d; done
[ -d quick ] && tar czf quick.tgz quick && rm -rf quick
ls -la "$OUT"
