#!/usr/bin/env bash
# The tuning batch of the GPU tile kernels' launch shape, from the repository
# root: the cuda unit tests, then team size x blocks per team for the EDM and
# collision tile kernels at n = 30720 (block side 32, BB and lambda, one run),
# the launch paths beside plain CUDA, the dummy at block sides 8 and 32, and
# racecheck + synccheck of the tile kernels at the library's defaults. Run it
# when a kernel or the launch layer changes: the apps' default tile shapes
# (edm's and collision's tile_hints) are read off its tune/ sweep.
#
#   [TEAMS=32,64] [BUDGET=560] bash perf_tests/scripts/device_tune.sh [BIN_DIR]     (default build/cuda/bin)
#
# Everything lands in $OUT as tune.tgz, launch.tgz and logs.tgz.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
use_bin "${1:-}"
use_logs
SAN_RESERVE=30  # the sanitizers are this batch's last phase

say machine
machine "$L/machine.txt"

say "unit tests (cuda)"
unit_tests "$L"

say "tile kernels: team threads x blocks per team (n = 30720, block 32)"
budget_sweep 240 --bin "$BIN/tdmaps_bench_maps" --groups edm,collision --out "$OUT/tune" -- \
  --edm-n=30720 --edm-d=2,4 --edm-rho=32 --edm-layouts=packed,condensed,full --edm-kernels=tile \
  --maps=bb,lambda_rsqrt --team-threads="${TEAMS:-32,64}" --blocks-per-team=1,2,4,8,16 --collision-n=30720 \
  --collision-rho=32 --collision-dims=3 --collision-results=intflags,flags --collision-kernels=tile --iters=10 2>&1 \
  | tail -5 | tee "$L/tune.txt"

say "launch paths and the dummy (n = 30720; dummy at block sides 8 and 32)"
budget_sweep 120 --bin "$BIN/tdmaps_bench_maps" --groups dummy,launch --out "$OUT/launch" -- \
  --n=30720 --rho=8,32 --maps=bb,lambda_rsqrt,lambda_rsqrt_eps,lambda_sqrt,rb,hadouken \
  --launch-n=30720 --launch-rho=32 --iters=20 2>&1 | tail -40 | tee "$L/launch.txt"

say "racecheck and synccheck of the tile kernels (library defaults)"
for tool in racecheck synccheck; do
  san $tool edm_packed "$BIN/tdmaps-edm" --random 2000 --dims 4 --map lambda --kernel tile --layout packed --precision fp32
  san $tool edm_condensed_h "$BIN/tdmaps-edm" --random 2000 --dims 3 --map h --kernel tile --layout condensed --precision fp32
  san $tool edm_full_sym_bb "$BIN/tdmaps-edm" --random 2000 --dims 2 --map bb --kernel tile --layout full --symmetric --precision fp64
  san $tool collide_pairs "$BIN/tdmaps-collide" --random 2000 --dims 3 --map lambda --kernel tile --result pairs
  san $tool collide_flags_bb "$BIN/tdmaps-collide" --random 2000 --dims 3 --map bb --kernel tile --result flags
done

say "done"
pack logs tune launch
ls -la "$OUT"
