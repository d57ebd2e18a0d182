#!/usr/bin/env bash
# The peers batch of one device session, from the repository root: tdmaps'
# nearest neighbour, radius count, histogram and a user's Gaussian kernel sum
# (the pairlaw group of tdmaps_bench_maps), then in the same call ArborX 2.1's
# BVH and BruteForce (nearest neighbour with k = 2, radius count at ~32
# neighbours a point) and chunked torch.cdist (both modes for the nearest
# neighbour and the count, the matmul mode for the kernel sum), all fp32,
# uniform points in the unit cube (perf_tests/peers/README.md has the peers).
#
#   [BUDGET=560] [ARBORX=.device/bin/arborx_bench] bash perf_tests/scripts/device_peers.sh [BIN_DIR]
#
# Into $OUT: pairlaw.json (tdmaps), arborx.csv, torch.csv, peers.txt
# (scripts/peers_table.py) and logs.tgz. A peer that is missing is skipped.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
use_bin "${1:-}"
use_logs
RN=${REDUCE_N:-1000,10000,100000,1000000}
ARBORX=${ARBORX:-.device/bin/arborx_bench}
PEERS=$(dirname "${BASH_SOURCE[0]}")/../peers
echo "command: BUDGET=$BUDGET ARBORX=$ARBORX REDUCE_N=$RN bash $0 $*" | note

say machine
machine "$L/machine.txt"

say "tdmaps: pairlaw nearest, count, histogram at n = $RN (nearest and count at d = 3 and 4); kde at 2^20"
timeout $(( $(left) - 300 )) "$BIN/tdmaps_bench_maps" \
  --benchmark_filter='^pairlaw/(nearest|count|histogram)/|^pairlaw/(nearest|count)_d4/|^pairlaw/kde/fp32/user/lambda/' --nbody-n=1048576 \
  --reduce-n="$RN" --benchmark_format=json --benchmark_out="$OUT/pairlaw.json" --benchmark_out_format=json \
  > "$L/bench_console.json" 2> "$L/bench_stderr.txt"
echo "bench rc=$?" | note

say "ArborX 2.1: BVH and BruteForce, d = 3, 4 and 8"
if [ -x "$ARBORX" ]; then
  timeout $(( $(left) - 200 )) "$ARBORX" --n "$RN" --d 3,4,8 --rounds 5 > "$OUT/arborx.csv" 2> "$L/arborx.log"
  echo "arborx rc=$?" | note
else
  echo "arborx skipped ($ARBORX not found)" | note
fi

say "torch: chunked cdist"
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  timeout $(( $(left) - 120 )) python3 "$PEERS/torch_peers.py" --what nn,count --n 10000,100000 --d 3 --rounds 3 \
    --csv "$L/torch_d3.csv" > "$L/torch_d3.txt" 2>&1
  echo "torch d3 rc=$?" | note
  timeout $(( $(left) - 60 )) python3 "$PEERS/torch_peers.py" --what nn,count --n 1000000 --d 3 --methods cdist_mm \
    --rounds 3 --csv "$L/torch_1m.csv" > "$L/torch_1m.txt" 2>&1
  echo "torch 1m rc=$?" | note
  # The pairlaw group's kernel sum: n = 2^20, h = 0.1 (its weights aside: one exp a pair in both).
  timeout $(( $(left) - 20 )) python3 "$PEERS/torch_peers.py" --what kde --n 1048576 --d 3 --h 0.1 --rounds 3 \
    --csv "$L/torch_kde.csv" > "$L/torch_kde.txt" 2>&1
  echo "torch kde rc=$?" | note
  # One CSV: the first file's header, every file's rows.
  first=1
  for f in "$L"/torch_d3.csv "$L"/torch_1m.csv "$L"/torch_kde.csv; do
    [ -f "$f" ] || continue
    if [ $first = 1 ]; then cat "$f"; first=0; else tail -n +2 "$f"; fi
  done > "$OUT/torch.csv"
else
  echo "torch skipped (no CUDA torch)" | note
fi

say "table"
python3 "$(dirname "${BASH_SOURCE[0]}")/peers_table.py" "$OUT/pairlaw.json" --arborx "$OUT/arborx.csv" \
  --torch "$OUT/torch.csv" > "$OUT/peers.txt" 2>&1
echo "table rc=$?" | note
cat "$OUT/peers.txt"

say "done"
grep -E "rc=" "$LOG"
pack logs
