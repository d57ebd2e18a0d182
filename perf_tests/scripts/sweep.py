#!/usr/bin/env python3
"""One-command benchmark sweep of tdmaps on any backend.

Runs tdmaps_bench_maps once per case group (dummy, sink, ceiling, launch,
edm, collision; 3-D: dummy3, sink3, launch3, atm) with
--benchmark_format=json, prints one progress line per case with an ETA, and
writes into --out:

  results.csv    one row per case: ms, GB/s, I = t_BB / t_map of the same run
                 (3-D: t_BB3 / t_map), the plain-CUDA ratio (launch groups),
                 the share of the write ceiling, pairs/s or triplets/s
  results.json   the same rows plus the run's context (device, Kokkos and
                 compiler versions, Kokkos configuration) and the command
  raw_<group>.json   Google Benchmark's own output of each group
  summary.txt    the table printed at the end (best map per test vs BB)

Python 3 standard library only (it runs on the GPU machine too). Plots:
perf_tests/scripts/plot.py (needs gnuplot). Examples:

  python3 perf_tests/scripts/sweep.py --bin build/cuda/bin/tdmaps_bench_maps --quick --out results
  OMP_NUM_THREADS=2 python3 perf_tests/scripts/sweep.py --bin build/host/bin/tdmaps_bench_maps \\
      --quick --out host_out -- --n=256,512,1024 --edm-n=512,1024
Arguments after "--" go to the benchmark binary unchanged (its --help lists them).

Exit status 1 when a group failed or a case wrote a wrong output, except
cases marked `inexact` (the papers' epsilon forms of lambda and lambda3,
wrong past their fp32 limit by design): their errors are listed in the
summary and the CSV, and do not fail the sweep.
"""

import argparse
import csv
import io
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

GROUPS = ["ceiling", "dummy", "sink", "launch", "edm", "collision", "dummy3", "sink3", "launch3", "atm"]
CSV_FIELDS = [
    "group", "test", "variant", "map", "rho", "n", "ms_median", "ms_min", "ms_mean", "iterations",
    "gb_per_s", "gpairs_per_s", "I", "vs_cuda", "pct_write_ceiling", "errors", "hits", "label", "skipped",
    "gtriplets_per_s", "inexact",
]
NAME_RE = re.compile(r"^([^/\s]+)/([^/\s]+)/([^/\s]+)/r(\d+)/n(\d+)")


def die(msg, code=2):
    print("sweep.py: error: " + msg, file=sys.stderr)
    sys.exit(code)


def atomic_write(path, text):
    """Writes text to path through a temporary file in the same folder and a rename."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp.", dir=folder)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; results are ordinary files
        with os.fdopen(fd, "w", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def fmt_duration(s):
    s = int(round(max(s, 0)))
    if s >= 3600:
        return "%dh%02dm" % (s // 3600, s % 3600 // 60)
    if s >= 60:
        return "%dm%02ds" % (s // 60, s % 60)
    return "%ds" % s


def parse_name(name):
    """'edm/packed_d4_tile/bb/r32/n8192/iterations:10/manual_time' -> fields."""
    m = NAME_RE.match(name)
    if not m:
        return None
    return {"test": m.group(1), "variant": m.group(2), "map": m.group(3), "rho": int(m.group(4)), "n": int(m.group(5))}


def list_cases(binary, group, bench_args, env):
    cmd = [binary, "--benchmark_list_tests=true", "--benchmark_filter=^%s/" % group] + bench_args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0:
        die("listing the cases of group '%s' failed (exit %d):\n%s" % (group, p.returncode, p.stderr[-3000:]), 1)
    return [l.strip() for l in p.stdout.splitlines() if parse_name(l.strip())]


class Interrupted(Exception):
    """SIGTERM or SIGINT (e.g. from `timeout`): finish with the groups done so far."""


def on_signal(signum, frame):
    raise Interrupted("signal %d" % signum)


def run_group(binary, group, bench_args, env, raw_path, progress):
    """Runs one group; returns Google Benchmark's JSON (dict) or raises RuntimeError."""
    cmd = [binary, "--benchmark_filter=^%s/" % group, "--benchmark_color=false",
           "--benchmark_out=%s" % raw_path, "--benchmark_out_format=json"] + bench_args
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, bufsize=1)
    try:
        return read_group(p, group, raw_path, progress)
    finally:
        if p.poll() is None:  # interrupted: do not leave the benchmark running on the GPU
            p.kill()
            p.wait()


def read_group(p, group, raw_path, progress):
    stderr_chunks = []
    # Drain stderr beside stdout (the context and Kokkos' messages go there).
    drain = threading.Thread(target=lambda: stderr_chunks.append(p.stderr.read()), daemon=True)
    drain.start()
    for line in p.stdout:
        name = line.split()[0] if line.split() else ""
        fields = parse_name(name)
        if not fields:
            continue
        m = re.search(r"manual_time\s+([0-9.eE+-]+)\s+(\w+)", line)
        shown = "%s %s" % (m.group(1), m.group(2)) if m else ("SKIPPED " + line.split("ERROR OCCURRED:", 1)[-1].strip()
                                                              if "ERROR OCCURRED" in line else "?")
        progress(NAME_RE.match(name).group(0), shown)
    rc = p.wait()
    drain.join()
    if rc != 0:
        raise RuntimeError("group '%s' exited with %d:\n%s" % (group, rc, "".join(stderr_chunks)[-3000:]))
    with open(raw_path) as f:
        return json.load(f)


def rows_from_json(group, data):
    rows = []
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        fields = parse_name(b["name"])
        if not fields:
            continue
        unit = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}.get(b.get("time_unit", "ms"), 1.0)
        skipped = bool(b.get("error_occurred", False))
        row = dict(fields)
        row.update({
            "group": group,
            "ms_mean": b.get("real_time", 0.0) * unit if not skipped else None,
            "ms_median": b.get("ms_median") if not skipped else None,
            "ms_min": b.get("ms_min") if not skipped else None,
            "iterations": b.get("iterations"),
            "gb_per_s": b.get("bytes_per_s", 0.0) / 1e9 if not skipped else None,
            "gpairs_per_s": b.get("pairs_per_s", 0.0) / 1e9 if not skipped else None,
            "gtriplets_per_s": b.get("triplets_per_s", 0.0) / 1e9 if (not skipped and "triplets_per_s" in b) else None,
            "inexact": 1 if b.get("inexact") else None,
            "errors": int(b["errors"]) if "errors" in b else None,
            "hits": int(b["hits"]) if "hits" in b else None,
            "label": b.get("label", ""),
            "skipped": b.get("error_message", "") if skipped else "",
        })
        rows.append(row)
    return rows


# Launch group: each launch path against the plain-CUDA launch of the same team
# shape (papers' rho x rho, or tdmaps' rho x min(rho, 256 / rho)).
# tdmaps_t128 / t64 have no plain-CUDA twin: they are held against the papers' cuda.
LAUNCH_REFERENCE = {"cuda_t256": "cuda", "tdmaps": "cuda_t256", "team_flat": "cuda_t256",
                    "tdmaps_t1024": "cuda", "range": "cuda", "tdmaps_t128": "cuda", "tdmaps_t64": "cuda",
                    "prop_t256": "cuda_t256", "prop_t64": "cuda", "tdmaps_tile": "cuda_tile"}
# launch3: tdmaps' 3-D element path against its plain-CUDA twin (same block shape).
LAUNCH3_REFERENCE = {"tdmaps": "cuda"}
LAUNCH_ORDER = ["cuda", "cuda_t256", "tdmaps", "team_flat", "prop_t256", "tdmaps_t1024", "tdmaps_t128", "tdmaps_t64",
                "prop_t64", "range", "cuda_tile", "tdmaps_tile"]


def failures(rows):
    """Cases with a wrong output that counts (not marked inexact)."""
    return [r for r in rows if r.get("errors") and not r.get("inexact")]


def add_ratios(rows):
    """I = t_BB / t_map (same test/variant/rho/n, same run; bb3 for the 3-D
    tests); vs_cuda = t / t_ref (launch group: ref = the plain-CUDA launch of
    the same team shape, same body, map, rho, n; see LAUNCH_REFERENCE; launch3:
    LAUNCH3_REFERENCE); share of the write ceiling."""
    ms = {}
    for r in rows:
        if r["ms_median"]:
            ms[(r["test"], r["variant"], r["map"], r["rho"], r["n"])] = r["ms_median"]
    ceiling = max([r["gb_per_s"] for r in rows if r["test"] == "ceiling" and r["gb_per_s"]] or [0.0])
    for r in rows:
        t = r["ms_median"]
        bb = ms.get((r["test"], r["variant"], "bb", r["rho"], r["n"])) or ms.get(
            (r["test"], r["variant"], "bb3", r["rho"], r["n"]))
        r["I"] = bb / t if (t and bb and r["test"] != "ceiling") else None
        r["vs_cuda"] = None
        if r["test"] in ("launch", "launch3") and t and "." in r["variant"]:
            body, how = r["variant"].rsplit(".", 1)
            refs = LAUNCH_REFERENCE if r["test"] == "launch" else LAUNCH3_REFERENCE
            if how in refs:
                ref = ms.get((r["test"], body + "." + refs[how], r["map"], r["rho"], r["n"]))
                r["vs_cuda"] = t / ref if ref else None
        r["pct_write_ceiling"] = 100.0 * r["gb_per_s"] / ceiling if (ceiling and r["gb_per_s"]) else None
    return ceiling


def csv_text(rows):
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=CSV_FIELDS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else (("%.6g" % r[k]) if isinstance(r.get(k), float) else r[k]))
                    for k in CSV_FIELDS})
    return out.getvalue()


def json_text(doc):
    """doc as JSON, readable but compact: one line per case."""
    head = dict(doc)
    cases = head.pop("cases", [])
    text = json.dumps(head, indent=1)[:-2]  # without the closing brace
    body = ",\n".join("  " + json.dumps(c, separators=(",", ":")) for c in cases)
    return text + ',\n "cases": [\n' + body + "\n ]\n}\n"


def f3(x, spec="%.3f"):
    return "-" if x is None else spec % x


def summary_table(rows, ceiling, context):
    """Best map per test vs BB at the largest n (and largest rho) of each test/variant."""
    lines = []
    lines.append("device: %s | Kokkos %s (%s) | %s" % (context.get("device", "?"), context.get("kokkos_version", "?"),
                                                     context.get("execution_space", "?"), context.get("compiler", "?")))
    if ceiling:
        fills = ", ".join("%s %.0f GB/s" % (r["map"], r["gb_per_s"]) for r in rows if r["test"] == "ceiling" and r["gb_per_s"])
        lines.append("write ceiling: %.0f GB/s (%s)" % (ceiling, fills))
    errs = failures(rows)
    if errs:
        lines.append("CHECK FAILURES: %d cases wrote wrong results, e.g. %s (errors=%d)" % (
            len(errs), "/".join(str(errs[0][k]) for k in ("test", "variant", "map")), errs[0]["errors"]))
    known = [r for r in rows if r.get("errors") and r.get("inexact")]
    if known:
        first = {}
        for r in known:
            key = (r["test"], r["map"], r["rho"])
            first[key] = min(first.get(key, r["n"]), r["n"])
        lines.append("inexact forms (expected, not failures): wrong from " + ", ".join(
            "%s %s r%d n%d" % (t, m, rho, n) for (t, m, rho), n in sorted(first.items())))
    lines.append("")
    lines.append("%-34s %6s %4s %10s  %-18s %10s %6s %8s" % ("test/variant", "n", "rho", "BB ms", "best map", "map ms", "I",
                                                             "%ceil"))
    groups = {}
    for r in rows:
        if r["test"] in ("ceiling", "launch", "launch3") or not r["ms_median"]:
            continue
        groups.setdefault((r["test"], r["variant"]), []).append(r)
    for (test, variant), rs in groups.items():
        if test == "edm" and "_d4_" not in variant and "_d2_" not in variant:
            continue  # d = 1, 3 are in the CSV; the table keeps d = 2, 4
        n = max(r["n"] for r in rs)
        rho = max(r["rho"] for r in rs if r["n"] == n)
        at = [r for r in rs if r["n"] == n and r["rho"] == rho]
        bb = [r for r in at if r["map"] in ("bb", "bb3")]
        others = [r for r in at if r["map"] not in ("bb", "bb3") and r["I"] is not None and not r.get("errors")]
        if not bb or not others:
            continue
        best = max(others, key=lambda r: r["I"])
        lines.append("%-34s %6d %4d %10.4f  %-18s %10.4f %6.2f %8s" % (
            test + "/" + variant, n, rho, bb[0]["ms_median"], best["map"], best["ms_median"], best["I"],
            f3(best["pct_write_ceiling"], "%.0f%%")))
    launch = [r for r in rows if r["test"] == "launch" and r["ms_median"]]
    if launch:
        lines.append("")
        lines.append("launch paths (ms; in brackets t / t of plain CUDA of the same team shape: tdmaps, team_flat vs")
        lines.append("cuda_t256; tdmaps_t1024, range vs cuda; tdmaps_tile vs cuda_tile; same kernel body, map, rho;")
        lines.append("largest n):")
        n = max(r["n"] for r in launch)
        table = {}
        for r in launch:
            if r["n"] != n:
                continue
            body, how = r["variant"].rsplit(".", 1)
            table.setdefault((body, r["map"], r["rho"]), {})[how] = r
        hows = [h for h in LAUNCH_ORDER if any(h in d for d in table.values())]
        lines.append("%-14s %-12s %3s %6s " % ("body", "map", "rho", "n") + " ".join("%14s" % h for h in hows))
        for (body, m, rho), d in sorted(table.items()):
            cells = []
            for h in hows:
                r = d.get(h)
                if r is None:
                    cells.append("%14s" % "-")
                elif r["vs_cuda"] is None:
                    cells.append("%14s" % ("%.3f" % r["ms_median"]))
                else:
                    cells.append("%14s" % ("%.3f (%.2f)" % (r["ms_median"], r["vs_cuda"])))
            lines.append("%-14s %-12s %3d %6d " % (body, m, rho, n) + " ".join(cells))
    launch3 = [r for r in rows if r["test"] == "launch3" and r["ms_median"]]
    if launch3:
        lines.append("")
        lines.append("3-D element path (ms; in brackets t / t of its plain-CUDA twin, same block shape; largest n):")
        n = max(r["n"] for r in launch3)
        table = {}
        for r in launch3:
            if r["n"] == n:
                body, how = r["variant"].rsplit(".", 1)
                table.setdefault((body, r["map"], r["rho"]), {})[how] = r
        lines.append("%-14s %-14s %3s %6s %14s %14s %10s" % ("body", "map", "rho", "n", "cuda", "tdmaps", "Gtrip/s"))
        for (body, m, rho), d in sorted(table.items()):
            c, t = d.get("cuda"), d.get("tdmaps")
            lines.append("%-14s %-14s %3d %6d %14s %14s %10s" % (
                body, m, rho, n, f3(c and c["ms_median"]),
                "-" if not t else ("%.3f" % t["ms_median"] + (" (%.2f)" % t["vs_cuda"] if t["vs_cuda"] else "")),
                f3(t and t.get("gtriplets_per_s"), "%.1f")))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="tdmaps_bench_maps binary (default: build/cuda or build/host of this checkout)")
    ap.add_argument("--out", default="perf_results", help="output folder (created; files replaced atomically)")
    ap.add_argument("--quick", action="store_true", help="small case lists (the binary's --quick)")
    ap.add_argument("--groups", default=",".join(GROUPS), help="comma-separated groups (default: %(default)s)")
    ap.add_argument("bench_args", nargs="*", help="after --: arguments for the binary")
    a = ap.parse_args()

    binary = a.bin
    if not binary:
        # This file is perf_tests/scripts/sweep.py: the checkout is three levels up.
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        for cand in ("build/cuda/bin/tdmaps_bench_maps", "build/host/bin/tdmaps_bench_maps"):
            if os.access(os.path.join(root, cand), os.X_OK):
                binary = os.path.join(root, cand)
                break
        if not binary:
            die("no --bin given and no build/cuda or build/host binary found; build target tdmaps_bench_maps first")
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        die("--bin %s is not an executable file" % binary)
    groups = [g for g in a.groups.split(",") if g]
    for g in groups:
        if g not in GROUPS:
            die("unknown group '%s' (known: %s)" % (g, ", ".join(GROUPS)))
    bench_args = (["--quick"] if a.quick else []) + a.bench_args
    os.makedirs(a.out, exist_ok=True)
    if not os.access(a.out, os.W_OK):
        die("output folder %s is not writable" % a.out)
    env = dict(os.environ)

    # Count every case first: the progress lines carry an ETA over the whole sweep.
    cases = {g: list_cases(binary, g, bench_args, env) for g in groups}
    total = sum(len(v) for v in cases.values())
    if total == 0:
        die("no case selected (groups %s, arguments %s)" % (",".join(groups), " ".join(bench_args)))
    print("sweep: %d cases in %s (%s)" % (total, ", ".join("%s %d" % (g, len(cases[g])) for g in groups), binary), flush=True)

    start = time.time()
    done = [0]

    def progress(name, shown):
        done[0] += 1
        elapsed = time.time() - start
        eta = elapsed / done[0] * (total - done[0])
        print("[%*d/%d] %-56s %14s  elapsed %s  ETA %s" % (len(str(total)), done[0], total, name, shown,
                                                            fmt_duration(elapsed), fmt_duration(eta)), flush=True)

    rows, context, failed = [], {}, []
    # The command as it could be typed again from the current folder (no
    # absolute paths of this machine in the results).
    cwd = os.getcwd() + os.sep
    command = " ".join(["python3"] + [x.replace(cwd, "") for x in sys.argv])

    def write_outputs():
        # Rewritten (atomically) after every group: an interrupted sweep keeps
        # complete files for the groups it finished.
        ceiling = add_ratios(rows)
        table = summary_table(rows, ceiling, context)
        doc = {
            "command": command,
            "binary": binary.replace(cwd, ""),
            "groups": groups,
            "failed_groups": failed,
            "write_ceiling_gb_per_s": ceiling,
            "context": context,
            "elapsed_s": time.time() - start,
            "cases": [{k: r.get(k) for k in CSV_FIELDS} for r in rows],
        }
        atomic_write(os.path.join(a.out, "results.csv"), csv_text(rows))
        atomic_write(os.path.join(a.out, "results.json"), json_text(doc))
        atomic_write(os.path.join(a.out, "summary.txt"), table)
        return table

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    interrupted = False
    for g in groups:
        if not cases[g]:
            continue
        raw = os.path.join(a.out, "raw_%s.json" % g)
        tmp_raw = raw + ".part"
        try:
            data = run_group(binary, g, bench_args, env, tmp_raw, progress)
            os.replace(tmp_raw, raw)
        except (RuntimeError, ValueError, OSError, Interrupted) as e:
            if os.path.exists(tmp_raw):
                os.unlink(tmp_raw)
            print("sweep: group %s: %s" % (g, e), file=sys.stderr, flush=True)
            failed.append(g)
            if isinstance(e, Interrupted):
                interrupted = True
                break
            continue
        ctx = data.get("context", {})
        context = dict(ctx, **context) if context else dict(ctx)
        rows.extend(rows_from_json(g, data))
        write_outputs()

    table = write_outputs()
    print("\n" + table, end="")
    print("sweep: %d cases in %s -> %s/results.csv, results.json" % (len(rows), fmt_duration(time.time() - start), a.out))
    if failed:
        print("sweep: FAILED%s groups: %s" % (" (interrupted)" if interrupted else "", ", ".join(failed)), file=sys.stderr)
        return 1
    return 1 if failures(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
