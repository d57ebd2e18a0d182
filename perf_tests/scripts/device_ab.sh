#!/usr/bin/env bash
# A / B of two builds on one GPU in one call: the collision tile paths
# (count, int flags, packed, row-aligned and tiled bit flags) at n = 1024 and
# 30720, and the EDM tile kernels (d = 2 and 4, packed and full) at
# n = 30720, BB and lambda; the two builds alternate, twice each, so that a
# drift of the machine shows as a difference between rounds.
#
#   [RESULTS=...] bash perf_tests/scripts/device_ab.sh A_BIN_DIR B_BIN_DIR     ($OUT/ab/{A,B}_{1,2}/)
#
# RESULTS: the collision results (default count,intflags,flags,rowflags,
# tileflags; a build older than a result needs a list without it).
# Each folder is a sweep.py output (results.csv, summary.txt, raw JSON); the
# table printed last puts each case's medians side by side. A / B outputs are
# not committed: the conclusion goes into perf_tests/README.md as one line
# naming the case that shows it.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[ $# -eq 2 ] || die "usage: device_ab.sh A_BIN_DIR B_BIN_DIR"
use_bin "$1"; A=$BIN
use_bin "$2"; B=$BIN
RESULTS=${RESULTS:-$ALL_RESULTS}
mkdir -p "$OUT/ab"
for round in 1 2; do
  for side in A B; do
    if [ "$side" = A ]; then bin=$A; else bin=$B; fi
    sweep --bin "$bin/tdmaps_bench_maps" --groups edm,collision --out "$OUT/ab/${side}_$round" -- \
      --maps=bb,lambda_rsqrt --edm-n=30720 --edm-d=2,4 --edm-rho=32 --edm-layouts=packed,full --edm-kernels=tile \
      --collision-n=1024,30720 --collision-rho=32 --collision-dims=3 \
      --collision-results="$RESULTS" --collision-kernels=tile --iters=30 2>&1 | tail -1
  done
done
python3 - "$OUT/ab" <<'EOF'
import csv, os, sys
root = sys.argv[1]
rows = {}
for run in sorted(os.listdir(root)):
    path = os.path.join(root, run, "results.csv")
    if not os.path.exists(path):
        continue
    for r in csv.DictReader(open(path)):
        key = (r["variant"], r["map"], r["n"])
        rows.setdefault(key, {})[run] = r["ms_median"]
runs = sorted({k for v in rows.values() for k in v})
print("variant map n " + " ".join(runs) + "   (ms, median)")
for key in sorted(rows):
    print(" ".join(key) + " " + " ".join(rows[key].get(r, "-") for r in runs))
EOF
