# The shared preamble of the perf_tests scripts; sourced, never run:
#
#   . "$(dirname "${BASH_SOURCE[0]}")/common.sh"
#
# Scripts run from the repository root (binary folders on their command
# lines are relative to it). What this file sets:
#   PERF_SCRIPTS  this folder; REPO  the repository root
#   OUT           where a run writes ($OUT, else ./device_out): on the device
#                 machine the folder that comes back
#   BIN           set by use_bin: a binaries folder (default build/cuda/bin)
# and the helpers: use_bin, die, say, note, left, sweep, budget_sweep, machine,
# unit_tests, san, pack, and the ncu command and metric lists.

# shellcheck disable=SC2034  # the variables are for the scripts that source this file
# Not -e: a phase that fails is logged and the batch goes on to the next
# one, since a device call is too scarce to end at the first failure.
set -uo pipefail

PERF_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$PERF_SCRIPTS/../.." && pwd)
OUT=${OUT:-$PWD/device_out}  # created by the scripts that write there

# sweep.py's progress lines reach a log as they come, not when a pipe fills.
export PYTHONUNBUFFERED=1
# Host backends: spinning OpenMP threads that lose their core to another
# process turn a launch into a scheduler slice; unbound threads that wait
# passively keep host timings to the work. The CUDA builds have no OpenMP.
export OMP_PROC_BIND=${OMP_PROC_BIND:-false}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

# Every collision result the benchmark knows, for lists that cover them all.
ALL_RESULTS=count,intflags,flags,rowflags,tileflags

die() { echo "$(basename "$0"): error: $*" >&2; exit 2; }

# use_bin DIR: BIN=DIR (default build/cuda/bin), which must hold the
# benchmark; the cuda preset's binaries find libbenchmark beside them
# (RUNPATH $ORIGIN), so DIR is what travels to the device machine.
use_bin() {
  local missing
  BIN=${1:-build/cuda/bin}
  [ -x "$BIN/tdmaps_bench_maps" ] || die "$BIN/tdmaps_bench_maps not found (build target tdmaps_bench_maps)"
  # Found out here rather than by every phase of a device call failing.
  missing=$(ldd "$BIN/tdmaps_bench_maps" 2>/dev/null | awk '/not found/ {print $1}' | tr '\n' ' ')
  [ -z "$missing" ] || die "$BIN/tdmaps_bench_maps needs ${missing}beside it (e.g. cp -L /usr/lib/x86_64-linux-gnu/libbenchmark.so.1debian $BIN/)"
}

# Phases and budget. A batch runs inside one device call's time limit: each
# later phase shrinks or is skipped (BUDGET seconds from sourcing this file).
T0=$SECONDS
BUDGET=${BUDGET:-560}
LOG=      # the phase log, set by a script that keeps one
SAN_DIR=$OUT  # where san writes its logs
left() { echo $((BUDGET - (SECONDS - T0))); }
say() {
  if [ -n "$LOG" ]; then echo "== $* (t=$((SECONDS - T0)) s)" | tee -a "$LOG"
  else echo "== $* (t=$((SECONDS - T0)) s)"; fi
}
note() { if [ -n "$LOG" ]; then tee -a "$LOG"; else cat; fi; }
# use_logs: the batch's logs in L=$OUT/logs, phases in $L/batch.log, sanitizer logs beside them.
use_logs() {
  L=$OUT/logs
  mkdir -p "$L"
  LOG=$L/batch.log
  SAN_DIR=$L
}

sweep() { python3 "$PERF_SCRIPTS/sweep.py" "$@"; }
# budget_sweep RESERVE ARGS...: a sweep cut off RESERVE seconds before the
# budget ends, so that the phases after it keep their time (a sweep cut off
# keeps the groups it finished); skipped when no time is left for it.
budget_sweep() {
  local reserve=$1 limit
  shift
  limit=$(( $(left) - reserve ))
  if [ "$limit" -le 0 ]; then echo "skipped (budget): sweep.py $*" | note; return 1; fi
  timeout "$limit" python3 "$PERF_SCRIPTS/sweep.py" "$@"
}

# machine FILE: the GPU and the host's cores, beside the results.
machine() {
  { nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; nproc; } > "$1" 2>&1
}

# unit_tests DIR: the cuda unit tests, their log and JSON in DIR, the verdict
# (and the epsilon forms' first wrong block rows) in the phase log.
unit_tests() {
  "$BIN/tdmaps_unit_tests_cuda" --gtest_output=json:"$1/unit_tests_cuda.json" > "$1/unit_tests_cuda.log" 2>&1
  echo "unit tests rc=$?" | note
  grep -E "PASSED|FAILED|first wrong" "$1/unit_tests_cuda.log" | note
}

# san TOOL NAME COMMAND...: one compute-sanitizer run, its log in
# $SAN_DIR/san_TOOL_NAME.log and its summary line in the phase log; skipped
# when fewer than SAN_RESERVE seconds are left. racecheck and synccheck look
# at the tile kernels only (kns=TileFunctor): they are the kernels with team
# scratch and barriers, and Kokkos' own reductions draw warnings of their own.
SAN_RESERVE=${SAN_RESERVE:-120}
san() {
  local tool=$1 name=$2 only=()
  shift 2
  [ "$(left)" -gt "$SAN_RESERVE" ] || { echo "$tool $name skipped (budget)" | note; return; }
  [ "$tool" = memcheck ] || only=(--kernel-name kns=TileFunctor)
  timeout 60 compute-sanitizer --tool "$tool" "${only[@]}" --error-exitcode 9 --print-limit 20 "$@" \
    > "$SAN_DIR/san_${tool}_${name}.log" 2>&1
  echo "$tool $name rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$SAN_DIR/san_${tool}_${name}.log" | tail -1)" | note
}

# pack NAME...: each folder $OUT/NAME as $OUT/NAME.tgz (few files to fetch).
pack() {
  local d
  for d in "$@"; do
    [ -d "$OUT/$d" ] && tar czf "$OUT/$d.tgz" -C "$OUT" "$d" && rm -rf "${OUT:?}/$d"
  done
  return 0
}

# Nsight Compute. --clock-control none: the card's clocks stay as they are
# (never changed on the lent machines). One launch after the warm-up.
NCU=(ncu --clock-control none --kernel-name-base demangled)
NCU_ONE=(--launch-skip 1 --launch-count 1)
# Time, DRAM traffic, L2 write sectors and requests, warps active,
# instructions, SM throughput, shared and global store wavefronts / sectors.
NCU_METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum
NCU_METRICS=$NCU_METRICS,lts__t_requests_op_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active
NCU_METRICS=$NCU_METRICS,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
NCU_METRICS=$NCU_METRICS,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
# ncu_metric_lines: the metric lines of ncu's output, spaces squeezed.
ncu_metric_lines() { grep -E "^ +(gpu__|dram__|lts__|sm__|smsp__|l1tex__)${1:+|$1}" | sed 's/  */ /g'; }

# The benchmark's cases at n = 30720, block side 32 (the perf issue's size):
# the EDM at d = 4 in every layout and the 3-D collision; scripts add the
# kernels, maps and results they look at.
# shellcheck disable=SC2054  # commas inside the options' lists
CASES_30720=(--edm-n=30720 --edm-d=4 --edm-rho=32 --edm-layouts=packed,condensed,full
             --collision-n=30720 --collision-rho=32 --collision-dims=3)
