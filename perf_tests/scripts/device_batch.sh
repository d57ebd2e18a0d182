#!/usr/bin/env bash
# The whole GPU batch of one device session, from the repository root:
#   unit tests of the cuda build, the apps' CLI checks, the main job (apps/demo.py),
#   compute-sanitizer memcheck + racecheck + synccheck on every CUDA kernel
#   family at a small and a mid n, the issue-target benchmarks at n = 30720 /
#   65536 (apps first, then the tile kernels' team sizes, then the launch
#   paths and the dummy), the quick sweep, PyTorch's pdist/cdist on the same
#   GPU, and the targets report read off the sweeps.
#
#   [BUDGET=560] bash perf_tests/scripts/device_batch.sh [BIN_DIR]     (default build/cuda/bin)
#
# BIN_DIR holds the cuda-preset binaries and libbenchmark.so.1debian.
# BUDGET (seconds) is the device call's limit: later phases shrink or are
# skipped to end inside it. Everything lands in $OUT as logs.tgz,
# targets_apps.tgz, team_size.tgz, targets_launch.tgz and quick.tgz;
# keep_batch.sh turns them into perf_tests/results/h100/.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
use_bin "${1:-}"
use_logs
echo "command: BUDGET=$BUDGET bash $0 $*" | note  # keep_reference.sh copies it into commands.txt

say machine
machine "$L/machine.txt"

say "unit tests (cuda)"
unit_tests "$L"

say "CLI checks (numpy/scipy where the machine has them)"
if python3 -c "import numpy, scipy" 2>/dev/null; then
  python3 "$REPO/apps/edm/tests/test_scipy_interop.py" "$BIN/tdmaps-edm" > "$L/edm_interop.log" 2>&1
  echo "edm interop rc=$?" | note
else echo "edm interop: scipy missing on this machine" | note; fi
if python3 -c "import numpy" 2>/dev/null; then
  python3 "$REPO/apps/collision/tests/test_cli.py" "$BIN/tdmaps-collide" > "$L/collide_cli.log" 2>&1
  echo "collide cli rc=$?" | note
  python3 "$REPO/apps/triplets/tests/test_cli.py" "$BIN/tdmaps-triplets" > "$L/triplets_cli.log" 2>&1
  echo "triplets cli rc=$?" | note
fi

say "main job on the GPU (n = 30720)"
python3 "$REPO/apps/demo.py" --bin "$BIN" --n 30720 --repeat 10 2>&1 | tee "$L/demo_cuda.txt"

# Each target sweep is cut off early enough (its first argument, seconds)
# for the phases after it: the sanitizers, the quick sweep, the report.
say "issue targets: EDM and collision tile kernels (n = 30720, 65536; block 32; 20 iterations)"
budget_sweep 330 --bin "$BIN/tdmaps_bench_maps" --groups ceiling,edm,collision --out "$OUT/targets_apps" -- \
  --edm-n=30720,65536 --edm-d=2,4 --edm-rho=32 --edm-layouts=packed,condensed,full --edm-kernels=tile,linear \
  --maps=bb,lambda_rsqrt,rb,rec,hadouken --collision-n=30720 --collision-rho=32 --collision-dims=3 \
  --collision-results=$ALL_RESULTS --collision-kernels=tile,linear --iters=20 2>&1 | tail -40 | tee "$L/targets_apps.txt"

say "launch shape of the tile kernels: team threads x blocks per team (n = 30720)"
budget_sweep 280 --bin "$BIN/tdmaps_bench_maps" --groups edm,collision --out "$OUT/team_size" -- \
  --edm-n=30720 --edm-d=2,4 --edm-rho=32 --edm-layouts=packed,condensed,full --edm-kernels=tile \
  --maps=bb,lambda_rsqrt --team-threads=32,64,256 --blocks-per-team=1,2,4,8 --collision-n=30720 --collision-rho=32 \
  --collision-dims=3 --collision-results=intflags,flags,rowflags,tileflags --collision-kernels=tile --iters=10 2>&1 \
  | tail -30 | tee "$L/team_size.txt"

say "launch paths beside plain CUDA (n = 30720) and the dummy (block sides 8 and 32)"
budget_sweep 220 --bin "$BIN/tdmaps_bench_maps" --groups dummy,launch --out "$OUT/targets_launch" -- \
  --n=30720 --rho=8,32 --launch-n=30720 --launch-rho=32 --iters=20 2>&1 | tail -40 | tee "$L/targets_launch.txt"

say "compute-sanitizer"
# memcheck: every kernel family (EDM element / tile in each layout / gemm,
# collision element / tile for each result) at a small and a mid n;
# racecheck and synccheck: the tile kernels (common.sh, san). Kokkos' own
# reductions (the input checks' parallel_reduce) are recorded once,
# unfiltered, in san_racecheck_kokkos_reduce.log.
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
  | note
san memcheck unit_maps "$BIN/tdmaps_unit_tests_cuda" --gtest_filter='*map_h_covers*:*map_coverage_holds*:*harness*:*dummy*'

say "quick sweep"
[ "$(left)" -gt 60 ] && budget_sweep 30 --bin "$BIN/tdmaps_bench_maps" --quick --out "$OUT/quick" 2>&1 | tail -40 > "$L/quick.txt"

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
note < "$L/torch.txt"

say "the issue's targets, read off this batch's sweeps"
csvs=()
for d in targets_apps targets_launch team_size; do [ -f "$OUT/$d/results.csv" ] && csvs+=("$OUT/$d/results.csv"); done
[ ${#csvs[@]} -gt 0 ] && python3 "$PERF_SCRIPTS/targets.py" "${csvs[@]}" 2>&1 | tee "$L/targets_report.md"

say "done"
pack logs targets_apps team_size targets_launch quick
ls -la "$OUT"
