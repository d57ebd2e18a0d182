#!/usr/bin/env bash
# Makes one run the reference results of its machine: replaces every file of
# DEST but its README.md with the files worth keeping, flat, and writes
# commands.txt (the commit, the machine, each sweep's exact command). Git
# keeps the previous reference; the README (figures, commit) is edited by hand.
#
#   [COMMIT=hash] bash perf_tests/scripts/keep_reference.sh SRC [DEST]
#
# SRC: a device batch's $OUT (logs.tgz, quick.tgz, targets_*.tgz, team_size.tgz;
#      check.tgz and ncu_call.txt when device_check.sh / ncu_call.sh ran in the
#      same call): DEST defaults to perf_tests/results/h100;
#   or a sweep.py folder (host_sweep.sh's): DEST must be given (a host sweep is a
#   pipeline check on a shared machine, not a reference the project keeps).
# COMMIT: the commit the binaries were built from (default: HEAD of this checkout).
#
# Kept: the quick sweep's results.csv / results.json / summary.txt and plots,
# the target sweeps' CSVs, the targets report, the batch log, the unit tests'
# log, the main job's output, the sanitizer summary, Nsight's split of a
# collide() call and the check's counters. Left out: Google Benchmark's raw
# JSON (results.json holds its context), the other sweeps' JSON (the same
# context), per-run sanitizer logs (their summary lines are kept), SASS.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
SRC=${1:?usage: keep_reference.sh SRC [DEST]}
[ -d "$SRC" ] || die "$SRC is not a folder"
COMMIT=${COMMIT:-$(git -C "$REPO" rev-parse --short HEAD)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -f "$SRC/logs.tgz" ] || [ -d "$SRC/logs" ]; then
  kind="batch"
  DEST=${2:-$REPO/perf_tests/results/h100}
  for d in logs quick targets_apps targets_launch team_size check; do
    [ -d "$SRC/$d" ] && cp -r "$SRC/$d" "$tmp/"
    [ -f "$SRC/$d.tgz" ] && tar xzf "$SRC/$d.tgz" -C "$tmp"
  done
  [ -f "$SRC/ncu_call.txt" ] && cp "$SRC/ncu_call.txt" "$tmp/"
  [ -f "$tmp/quick/results.csv" ] || die "$SRC holds no quick sweep (quick.tgz)"
  sweep_dir=$tmp/quick
elif [ -f "$SRC/results.csv" ]; then
  kind="sweep"
  DEST=${2:?a sweep folder needs DEST (host sweeps are not kept as references)}
  sweep_dir=$SRC
else
  die "$SRC is neither a device batch's output (logs.tgz) nor a sweep folder (results.csv)"
fi

# Only a results folder is emptied: one that is new, empty, or already holds
# results or a README.
if [ -d "$DEST" ] && [ -n "$(ls -A "$DEST")" ] && [ ! -f "$DEST/results.csv" ] && [ ! -f "$DEST/README.md" ]; then
  die "$DEST holds neither results.csv nor README.md: not a results folder"
fi
mkdir -p "$DEST"
find "$DEST" -mindepth 1 ! -path "$DEST/README.md" -delete
cp "$sweep_dir"/results.csv "$sweep_dir"/results.json "$sweep_dir"/summary.txt "$DEST/"
if ls "$sweep_dir"/*.png > /dev/null 2>&1; then cp "$sweep_dir"/*.png "$DEST/"
else python3 "$PERF_SCRIPTS/plot.py" "$DEST/results.csv" --out "$DEST"; fi

if [ "$kind" = batch ]; then
  for d in targets_apps targets_launch team_size; do
    [ -f "$tmp/$d/results.csv" ] && cp "$tmp/$d/results.csv" "$DEST/$d.csv"
  done
  for f in batch.log unit_tests_cuda.log demo_cuda.txt targets_report.md; do
    [ -f "$tmp/logs/$f" ] && cp "$tmp/logs/$f" "$DEST/"
  done
  [ -f "$tmp/ncu_call.txt" ] && cp "$tmp/ncu_call.txt" "$DEST/"
  [ -f "$tmp/check/ncu.txt" ] && cp "$tmp/check/ncu.txt" "$DEST/check_ncu.txt"
  # The sanitizer summary: runs and failures per tool, then each run's line.
  if [ -f "$tmp/logs/batch.log" ]; then
    {
      for tool in memcheck racecheck synccheck; do
        runs=$(grep -c "^$tool .* rc=" "$tmp/logs/batch.log")
        bad=$(grep "^$tool .* rc=" "$tmp/logs/batch.log" | grep -vc " rc=0 ")
        echo "$tool: $runs runs, $bad with errors or a non-zero exit"
      done
      echo
      grep -E "^(memcheck|racecheck|synccheck) " "$tmp/logs/batch.log"
    } > "$DEST/sanitizer.txt"
  fi
fi

# commands.txt: what produced each kept file.
python3 - "$kind" "$COMMIT" "$tmp" "$sweep_dir" > "$DEST/commands.txt" <<'EOF'
import json, os, sys
kind, commit, tmp, sweep_dir = sys.argv[1:]
quick = json.load(open(os.path.join(sweep_dir, "results.json")))
ctx = quick.get("context", {})
print("commit measured: %s" % commit)
print("date: %s" % ctx.get("date", "?"))
print("device: %s | Kokkos %s (%s) | %s" % (ctx.get("device", "?"), ctx.get("kokkos_version", "?"),
                                          ctx.get("execution_space", "?"), ctx.get("compiler", "?")))
machine = os.path.join(tmp, "logs", "machine.txt")
if kind == "batch" and os.path.exists(machine):
    print("machine (nvidia-smi, nproc): " + " | ".join(l.strip() for l in open(machine) if l.strip()))
if kind == "batch":
    log = os.path.join(tmp, "logs", "batch.log")
    lines = [l.strip() for l in open(log)] if os.path.exists(log) else []
    batch = [l[len("command: "):] for l in lines if l.startswith("command: ")]
    print("\nbatch (from the repository root on the device machine): %s" % (batch[0] if batch else "see README.md"))
if kind == "batch":
    print("\nsweeps (from the repository root; $OUT: the device machine's output folder):")
else:
    print("\nsweep (as typed, relative to the folder it ran in):")
files = [("results.csv, results.json, summary.txt", sweep_dir)]
if kind == "batch":
    files += [("%s.csv" % d, os.path.join(tmp, d)) for d in ("targets_apps", "targets_launch", "team_size")]
for name, folder in files:
    path = os.path.join(folder, "results.json")
    if os.path.exists(path):
        print("  %s:\n    %s" % (name, json.load(open(path))["command"]))
print("\nplots: python3 perf_tests/scripts/plot.py results.csv")
if kind == "batch":
    print("targets_report.md: python3 perf_tests/scripts/targets.py targets_apps.csv targets_launch.csv team_size.csv")
EOF
echo "kept in $DEST: $(find "$DEST" -type f | wc -l) files, $(du -sh "$DEST" | cut -f1)"
