"""A tool's MPI ranks under faults (common/ranks.hpp): an interrupted or
killed run leaves no file behind, ranks that disagree stop with one message,
and an error every rank finds is printed once.

    TDMAPS_TEST_MPIRUN=mpirun python3 test_mpi_faults.py <tdmaps-edm>

Every subprocess has a timeout and every wait is bounded: a hang is a failure,
never a stuck test. Without TDMAPS_TEST_MPIRUN (a build without MPI) it
checks nothing.
"""
import glob
import os
import signal
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402

EXE = sys.argv[1]
TOOL = os.path.basename(EXE)
MPIRUN = os.environ.get("TDMAPS_TEST_MPIRUN", "")
TMP = tempfile.mkdtemp(prefix="tdmaps_mpi_faults_")
MPI = clitest.mpirun_argv(MPIRUN)
ENV = clitest.env_with(clitest.MPIRUN_ENV, session_base=False)  # shared by concurrent mpirun
check = clitest.check
CLEAN_WITHIN_S = 5  # after the run has ended, every temporary is gone within this


def save(x, name):
    p = os.path.join(TMP, name)
    np.save(p, x)
    return p


def mpirun_many(runs, timeout=60, at_once=4):
    """mpirun with each args list of runs, a few at a time (a failing job
    spends a second or two in Open MPI's teardown, idle): a list of
    (returncode, stdout, stderr); a timeout is a failure (returncode None)."""
    results = []
    for b in range(0, len(runs), at_once):
        batch = [subprocess.Popen(MPI + [str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=ENV, start_new_session=True) for args in runs[b:b + at_once]]
        end = time.monotonic() + timeout
        for p in batch:
            try:
                so, se = p.communicate(timeout=max(1.0, end - time.monotonic()))
                results.append((p.returncode, so, se))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)  # its own session: mpirun and its ranks
                so, se = p.communicate(timeout=30)
                results.append((None, so, se))
    return results


def error_lines(text):
    return [line for line in text.splitlines() if line.startswith(f"{TOOL}: error:")]


def children(pid):
    """The pids whose parent is pid."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(d))
            except (OSError, ValueError, IndexError):
                pass
    return out


def world_rank(pid):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            for var in f.read().split(b"\0"):
                if var.startswith(b"OMPI_COMM_WORLD_RANK="):
                    return int(var.split(b"=")[1])
    except OSError:
        pass
    return None


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_until(cond, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def interrupted_runs_leave_nothing():
    # Chunks of a few elements: the stream takes tens of seconds, the signal
    # comes while every rank writes its slab of the 16 MB file.
    n, d = 2000, 3
    inp = save(np.random.default_rng(5).random((n, d)), "points.npy")
    budget = n * d * 8 + 100
    cases = [("SIGTERM to rank 1", "rank", 1, signal.SIGTERM), ("SIGTERM to rank 0", "rank", 0, signal.SIGTERM),
             ("SIGINT to rank 0", "rank", 0, signal.SIGINT), ("SIGINT to mpirun", "mpirun", None, signal.SIGINT),
             ("SIGTERM to mpirun", "mpirun", None, signal.SIGTERM), ("kill -9 of rank 1", "rank", 1, signal.SIGKILL),
             ("kill -9 of rank 0", "rank", 0, signal.SIGKILL),
             # No handler runs anywhere: only the ranks' watchdogs can clean up.
             ("kill -9 of every rank", "all", None, signal.SIGKILL)]
    for k, (what, target, rank, sig) in enumerate(cases):
        out = os.path.join(TMP, f"k{k}.npy")
        p = subprocess.Popen(MPI + ["-n", "2", EXE, "--input", inp, "--max-device-memory", str(budget), "--output", out,
                                    "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=ENV,
                             start_new_session=True)
        try:
            started = wait_until(lambda: glob.glob(out + ".tmp.*") and len(children(p.pid)) >= 2, 30)
            ranks = {world_rank(c): c for c in children(p.pid)}
            watchdogs = [w for c in ranks.values() for w in children(c)]
            check(started and sorted(ranks) == [0, 1], f"{what}: the run started writing", ranks)
            check(len(watchdogs) == 2, f"{what}: one watchdog per rank", watchdogs)
            if target == "mpirun":
                os.kill(p.pid, sig)
            elif target == "all":
                for pid in ranks.values():
                    os.kill(pid, sig)
            elif rank in ranks:
                os.kill(ranks[rank], sig)
            try:
                rc = p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                rc = None
            check(rc is not None and rc != 0, f"{what}: mpirun ends, not 0", rc)
            left = lambda: glob.glob(out + "*")  # noqa: E731
            check(wait_until(lambda: not left(), CLEAN_WITHIN_S), f"{what}: no file left", left())
            check(wait_until(lambda: not any(alive(w) for w in watchdogs), CLEAN_WITHIN_S),
                  f"{what}: the watchdogs exit", [w for w in watchdogs if alive(w)])
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)  # our own session: mpirun and its ranks
                p.wait(timeout=30)
            p.stdout.close()
        for f in glob.glob(out + "*"):
            os.unlink(f)


def disagreeing_ranks_stop():
    g = np.random.default_rng(6)
    a = save(g.random((200, 3)), "a.npy")
    b = save(g.random((200, 3)), "b.npy")  # same n, d and dtype: only the bytes differ
    c = save(g.random((150, 3)), "c.npy")
    out = os.path.join(TMP, "dis.npy")
    cases = [
        ("matrix, different inputs", ["--input", a, "--output", out], ["--input", b, "--output", out],
         "input checksum: "),
        ("count, different n", ["--input", a, "--reduce", "count", "--radius", 0.2],
         ["--input", c, "--reduce", "count", "--radius", 0.2], "n: 200 (rank 0), 150 (rank 1)"),
        ("hist, --bins 10 and 20", ["--input", a, "--reduce", "hist", "--rmax", 1, "--bins", 10],
         ["--input", a, "--reduce", "hist", "--rmax", 1, "--bins", 20], "--bins: 10 (rank 0), 20 (rank 1)"),
        ("count and nn", ["--input", a, "--reduce", "count", "--radius", 0.2], ["--input", a, "--reduce", "nn"],
         "--reduce: count (rank 0), nn (rank 1)"),
        ("different output paths", ["--input", a, "--output", out], ["--input", a, "--output", out + "2.npy"],
         "--output: "),
        ("fp32 and fp64", ["--input", a, "--precision", "fp32"], ["--input", a, "--precision", "fp64"],
         "--precision: fp32 (rank 0), fp64 (rank 1)"),
    ]
    # One agreeing run beside them: the check is not too strict (3 ranks, 3 equal commands).
    agreeing = ["-n", 3, EXE, "--input", a, "--reduce", "count", "--radius", 0.2, "--quiet"]
    done = mpirun_many([["-n", 1, EXE] + first + [":", "-n", 1, EXE] + second for _, first, second, _ in cases] +
                       [agreeing])
    rc, so, se = done.pop()
    check(rc == 0 and not error_lines(se), "3 agreeing ranks run", se[-1500:])
    for (what, first, second, names), (rc, so, se) in zip(cases, done):
        errs = error_lines(se)
        check(rc == 1, f"disagree, {what}: exit 1", (rc, se[-1500:]))
        check(len(errs) == 1 and "ranks disagree: " in errs[0] and names in errs[0], f"disagree, {what}: one message",
              errs or se[-1500:])
        check("MPI_ERR" not in se + so and "MPI_ABORT" not in se, f"disagree, {what}: no MPI error", se[-1500:])
        check(not glob.glob(out + "*"), f"disagree, {what}: no file", glob.glob(out + "*"))


def errors_printed_once():
    a = save(np.random.default_rng(7).random((50, 2)), "e.npy")
    missing = os.path.join(TMP, "missing.npy")
    cases = [
        ("usage error, 2 ranks", ["-n", 2, EXE, "--random", "12abc"], 2, "--random 12abc"),
        ("usage error, 3 ranks", ["-n", 3, EXE, "--input", a, "--reduce", "hist"], 2, "--rmax"),
        ("input error, 2 ranks", ["-n", 2, EXE, "--input", missing], 1, "missing.npy"),
        # Found by rank 1 alone: rank 0 reports it, nobody waits.
        ("input error on rank 1 only", ["-n", 1, EXE, "--input", a, ":", "-n", 1, EXE, "--input", missing], 1,
         "rank 1 of 2: "),
    ]
    for (what, args, status, text), (rc, so, se) in zip(cases, mpirun_many([c[1] for c in cases])):
        errs = error_lines(se)
        check(rc == status, f"{what}: exit {status}", (rc, se[-1500:]))
        check(len(errs) == 1 and text in errs[0], f"{what}: printed once", errs or se[-1500:])
        check("MPI_ABORT" not in se and "MPI_Abort" not in se, f"{what}: no MPI_Abort", se[-1500:])


if not MPIRUN:
    print("no TDMAPS_TEST_MPIRUN: a build without MPI, nothing to check")
    sys.exit(0)
try:
    errors_printed_once()
    disagreeing_ranks_stop()
    interrupted_runs_leave_nothing()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
sys.exit(clitest.summary())
