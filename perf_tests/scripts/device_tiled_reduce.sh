#!/usr/bin/env bash
# The dimension-tiled walks past d = 4 on one GPU, in one call: the CUDA
# unit tests given (the walks and the EDM kernels that take them),
# tiled_reduce_probe (the element walk that count_within and
# pair_histogram took at d >= 5 against the dimension-tiled walk they take
# now, lambda and bounding box, the nearest neighbour beside them),
# rows_probe (a user's row laws, nearest key and neighbour count, by
# reduce_rows with its own distance kernel against reduce_rows_pair_sums),
# chunk_probe (a streamed chunk of the matrix, the element kernel against
# edm_chunk's walk), tiled_matrix_probe (the distance matrix's tile kernel before and now,
# the element kernel beside them, three layouts), and the nearest and k
# nearest neighbours of two knn_probe builds side by side (an A/B of a
# change to their walk: OLD first, then NEW, twice).
# Run from the repository root with the binaries in $1; logs, JSON lines
# and the commands under $OUT (default ./out).
#   OUT=out bash perf_tests/scripts/device_tiled_reduce.sh build/gpu
# $1 holds: tdmaps_unit_tests_cuda (or a subset of its objects linked as
# tdmaps_unit_tests_cuda_subset), tiled_reduce_probe, rows_probe,
# chunk_probe, tiled_matrix_probe,
# knn_probe_old, knn_probe_new
# (perf_tests/scripts/*.cpp say how each is built); a step whose binary
# is not there is skipped.
set -uo pipefail
BIN=${1:?usage: device_tiled_reduce.sh BIN_DIR}
OUT=${OUT:-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv | tee "$OUT/gpu.txt"
log() { echo "$*" | tee -a "$OUT/batch.log"; }
run() {  # run FILE CMD...: the command's stdout appended to FILE, the command to commands.txt
  local file=$1; shift
  echo "$*" >> "$OUT/commands.txt"
  "$@" >> "$OUT/$file" 2>> "$OUT/stderr.log"
  log "rc=$? $*"
}
for t in tdmaps_unit_tests_cuda tdmaps_unit_tests_cuda_subset; do
  [ -x "$BIN/$t" ] || continue
  log "== $t"
  timeout 240 "$BIN/$t" --gtest_brief=1 > "$OUT/$t.log" 2>&1
  log "rc=$? $t"
  tail -3 "$OUT/$t.log" | tee -a "$OUT/batch.log"
done
have() { [ -x "$BIN/$1" ] || { log "(no $BIN/$1: skipped)"; return 1; }; }
if have tiled_reduce_probe; then
log "== tiled_reduce_probe"
run tiled_reduce.jsonl "$BIN/tiled_reduce_probe" 100000 5,8,16,32,64,128 3
run tiled_reduce.jsonl "$BIN/tiled_reduce_probe" 100000 512 1
run tiled_reduce.jsonl "$BIN/tiled_reduce_probe" 100000 8,32,128 2 fp64
run tiled_reduce.jsonl "$BIN/tiled_reduce_probe" 300000 8,32 1
fi
if have rows_probe; then
log "== rows_probe"
run rows.jsonl "$BIN/rows_probe" 100000 5,8,16,32,64,128 3
run rows.jsonl "$BIN/rows_probe" 100000 512 1
run rows.jsonl "$BIN/rows_probe" 100000 8,32,128 2 fp64
fi
if have chunk_probe; then
log "== chunk_probe"
run chunk.jsonl "$BIN/chunk_probe" 100000 5,8,16,32,64,128,512 3
run chunk.jsonl "$BIN/chunk_probe" 100000 5,8,32,128 2 fp64
fi
if have tiled_matrix_probe; then
log "== tiled_matrix_probe"
run tiled_matrix.jsonl "$BIN/tiled_matrix_probe" 30720 5,8,16,32,64,128,512 3
run tiled_matrix.jsonl "$BIN/tiled_matrix_probe" 30720 8,32,128 2 fp64
fi
if have knn_probe_old && have knn_probe_new; then
log "== knn_probe A/B (old, new, old, new)"
for round in 1 2; do
  for v in old new; do
    echo "{\"build\": \"$v\", \"round\": $round}" >> "$OUT/knn_ab.jsonl"
    run knn_ab.jsonl "$BIN/knn_probe_$v" 100000 5,16,32,128,512 1,16 3
  done
done
fi
cat "$OUT"/tiled_*.jsonl "$OUT"/rows.jsonl "$OUT"/chunk.jsonl 2>/dev/null
