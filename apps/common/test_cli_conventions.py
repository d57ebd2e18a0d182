#!/usr/bin/env python3
"""The conventions every tdmaps CLI follows (apps/common/cli.hpp), checked on
every tool.

Usage: test_cli_conventions.py PATH/TO/tdmaps-edm PATH/TO/tdmaps-collide [PATH/TO/tdmaps-triplets]

- An interrupt (SIGINT, SIGTERM, SIGHUP) during the write phase leaves no
  output and no temporary file, through the unnamed-file path (O_TMPFILE) and
  the named-temporary fallback (TDMAPS_NO_O_TMPFILE=1); the process dies of
  the signal.
- JSON: every line parses, one schema for all tools (the same common keys,
  null for absent values, numbers as numbers), strings escaped (a tab in a
  file name).
- Errors: "tdmaps-<tool>: error: ..." and exit 2 for usage errors, 1 for
  runtime failures, with the value the user typed; sizes too large for
  memory refused within seconds; --version and the program name in --help.
- Progress: a bar with a fraction and an ETA on a terminal, plain lines
  otherwise, nothing with --quiet or --json; the JSON times split compute and
  write.
"""
import json
import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clitest  # noqa: E402
from clitest import check, env_with, run  # noqa: E402

EDM = COLLIDE = TRIPLETS = None

COMMON_KEYS = {"tool", "version", "input", "seed", "n", "d", "precision", "map", "block", "kernel", "backend",
               "concurrency", "repeat", "ms", "ms_min", "ms_warmup", "ms_write", "ms_total", "output"}


def default_signals():
    # The test runner may ignore SIGINT / SIGHUP; the child must see them as a user's shell would deliver them.
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


def writing(pid, tmp):
    """True once the process has an output file open in tmp (named temporary or unnamed)."""
    if any(".tmp." in f for f in os.listdir(tmp)):
        return True
    fd_dir = f"/proc/{pid}/fd"
    try:
        for fd in os.listdir(fd_dir):
            try:
                target = os.readlink(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if target.startswith(tmp) and "(deleted)" in target or target.startswith(tmp + "/#"):
                return True
    except OSError:
        pass
    return False


def interrupt_during_write(tmp, exe, args, sig, fallback, label):
    out = os.path.join(tmp, "big.npy")
    extra = {"TDMAPS_NO_O_TMPFILE": "1"} if fallback else {}
    p = subprocess.Popen([exe] + [str(a) for a in args] + ["--output", out, "--quiet"], env=env_with(extra),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=default_signals)
    t0 = time.monotonic()
    seen = False
    while p.poll() is None and time.monotonic() - t0 < 120:
        if writing(p.pid, tmp):
            seen = True
            break
        time.sleep(0.002)
    if seen:
        p.send_signal(sig)
    p.wait(timeout=120)
    err = p.stderr.read().decode(errors="replace")
    left = sorted(os.listdir(tmp))
    check(seen, f"{label}: never saw the write phase (rc {p.returncode}, {err.strip()})")
    check(p.returncode == -sig, f"{label}: exit {p.returncode}, expected death by signal {sig}")
    check(left == [], f"{label}: left {left}")
    for f in left:
        os.remove(os.path.join(tmp, f))


def json_line(label, out):
    lines = [l for l in out.splitlines() if l.strip()]
    check(len(lines) == 1, f"{label}: {len(lines)} output lines, expected one JSON line: {out!r}")
    try:
        return json.loads(lines[-1])
    except (ValueError, IndexError) as e:
        check(False, f"{label}: not JSON ({e}): {out!r}")
        return None


def check_schema(label, j, tool):
    if j is None:
        return
    check(COMMON_KEYS <= set(j), f"{label}: missing keys {sorted(COMMON_KEYS - set(j))}")
    check(j.get("tool") == tool, f"{label}: tool {j.get('tool')!r}")
    for k in ("n", "d", "block", "repeat", "concurrency"):
        check(isinstance(j.get(k), int) and not isinstance(j.get(k), bool), f"{label}: {k} = {j.get(k)!r} not an int")
    for k in ("ms", "ms_min", "ms_total"):
        check(isinstance(j.get(k), (int, float)) and j[k] >= 0, f"{label}: {k} = {j.get(k)!r} not a number")
    check(j.get("ms_warmup") is None or isinstance(j["ms_warmup"], (int, float)), f"{label}: ms_warmup")
    check(j.get("ms_write") is None if j.get("output") is None else isinstance(j.get("ms_write"), (int, float)),
          f"{label}: ms_write {j.get('ms_write')!r} with output {j.get('output')!r}")
    check((j.get("seed") is None) == (j.get("input") is not None), f"{label}: seed / input {j.get('seed')!r} {j.get('input')!r}")


def pty_run(exe, args, extra):
    """Runs exe with stderr on a pseudo-terminal; returns (rc, stderr text)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([exe] + [str(a) for a in args], env=env_with(extra), stdout=subprocess.DEVNULL,
                         stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif p.poll() is not None:
            break
    p.wait(timeout=120)
    os.close(master)
    return p.returncode, b"".join(chunks).decode(errors="replace")


def main():
    global EDM, COLLIDE, TRIPLETS
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        return 2
    EDM, COLLIDE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    TRIPLETS = os.path.abspath(sys.argv[3]) if len(sys.argv) == 4 else None
    tools = ((EDM, "tdmaps-edm"), (COLLIDE, "tdmaps-collide")) + (((TRIPLETS, "tdmaps-triplets"),) if TRIPLETS else ())

    # ---- interrupts during the write phase
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "out")
        os.mkdir(work)
        edm_args = ["--random", 9000, "--dims", 4, "--precision", "fp64", "--layout", "full"]
        collide_args = ["--random", 16000, "--result", "intflags"]
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            for fallback in (False, True):
                how = "named temporary" if fallback else "unnamed file"
                interrupt_during_write(work, EDM, edm_args, sig, fallback, f"tdmaps-edm, {how}, signal {sig}")
                interrupt_during_write(work, COLLIDE, collide_args, sig, fallback,
                                       f"tdmaps-collide, {how}, signal {sig}")
                if TRIPLETS:
                    interrupt_during_write(work, TRIPLETS, ["--random", 600, "--kernel", "dummy3"], sig, fallback,
                                           f"tdmaps-triplets, {how}, signal {sig}")
        # Uninterrupted, both paths give a complete file and nothing else.
        for fallback in (False, True):
            out = os.path.join(work, "d.npy")
            rc, _, err = run(EDM, ["--random", 300, "--layout", "packed", "--output", out],
                             {"TDMAPS_NO_O_TMPFILE": "1"} if fallback else None)
            check(rc == 0 and np.load(out).shape == (300 * 301 // 2,) and os.listdir(work) == ["d.npy"],
                  f"complete write, fallback {fallback}: rc {rc} {err} {os.listdir(work)}")
            os.remove(out)

    with tempfile.TemporaryDirectory() as tmp:
        # ---- JSON: one schema, parsed
        tab = os.path.join(tmp, "a\tb.npy")
        quote = os.path.join(tmp, 'q"\\x.npy')
        runs = [
            (EDM, "tdmaps-edm", ["--random", 200, "--json"]),
            (EDM, "tdmaps-edm", ["--random", 200, "--json", "--output", tab, "--layout", "full", "--repeat", 2]),
            (EDM, "tdmaps-edm", ["--random", 50, "--dims", 130, "--json", "--output", quote, "--precision", "fp32"]),
            (COLLIDE, "tdmaps-collide", ["--random", 300, "--json"]),
            (COLLIDE, "tdmaps-collide", ["--random", 300, "--json", "--result", "pairs", "--output", tab]),
        ]
        if TRIPLETS:
            runs += [(TRIPLETS, "tdmaps-triplets", ["--random", 100, "--json"]),
                     (TRIPLETS, "tdmaps-triplets", ["--random", 100, "--json", "--output", quote, "--precision", "fp32"]),
                     (TRIPLETS, "tdmaps-triplets", ["--random", 60, "--json", "--kernel", "dummy3", "--output", tab])]
        for exe, tool, args in runs:
            label = f"{tool} {' '.join(map(str, args))}"
            rc, out, err = run(exe, args)
            check(rc == 0, f"{label}: rc {rc} {err}")
            j = json_line(label, out)
            check_schema(label, j, tool)
            if j is not None and "--output" in args:
                check(j["output"] == args[args.index("--output") + 1], f"{label}: output {j['output']!r}")
            check(err == "", f"{label}: stderr not empty with --json: {err!r}")
        saved = os.path.join(tmp, "in.npy")
        np.save(saved, np.random.default_rng(3).random((40, 3)))
        rc, out, _ = run(EDM, ["--input", saved, "--json"])
        j = json_line("edm --input --json", out)
        check_schema("edm --input --json", j, "tdmaps-edm")
        check(j is not None and j["input"] == saved and j["seed"] is None, "edm --input: input / seed")

        # ---- errors: prefix, exit status, the value typed
        big = os.path.join(tmp, "big.npy")
        os.mkfifo(os.path.join(tmp, "fifo.npy"))
        cases = [
            # (tool, args, status, words)
            (EDM, ["--random", "0"], 2, ["--random 0"]),
            (EDM, ["--random", "-1"], 2, ["--random -1", "from 1 to 2147483648"]),
            (EDM, ["--random", "99999999999999999999"], 2, ["--random 99999999999999999999"]),
            (EDM, ["--random", "10", "--seed", "-1"], 2, ["--seed -1"]),
            (EDM, ["--random", "10", "--dims", "0"], 2, ["--dims 0"]),
            (EDM, ["--random", "10", "--kokkos-frobnicate"], 2, ["--kokkos-frobnicate"]),
            (EDM, ["--random", "10", "--layout", "nope"], 2, ["--layout"]),
            (EDM, ["--random", "10", "--symmetric"], 2, ["--symmetric"]),
            (EDM, ["--random", "10", "--kernel", "linear", "--layout", "full"], 2, ["linear"]),
            (EDM, ["--random", "10", "--dims", "130", "--kernel", "tile"], 2, ["--kernel tile", "d = 130", "--kernel auto"]),
            (EDM, ["--random", "10", "--output", "x.txt"], 2, ["x.txt", ".npy"]),
            (EDM, ["--input", saved, "--output", saved], 2, ["would overwrite"]),
            (EDM, ["--input", tmp], 1, ["is a directory"]),
            (EDM, ["--input", "/dev/null"], 1, ["not a regular file"]),
            (EDM, ["--random", "10", "--output", os.path.join(tmp, "fifo.npy")], 1, ["not a regular file"]),
            (EDM, ["--random", "100000000"], 1, ["host memory", "available"]),
            (EDM, ["--random", "3000000", "--layout", "full", "--output", big], 1, ["host memory", "available"]),
            (COLLIDE, ["--random", "0"], 2, ["--random 0"]),
            (COLLIDE, ["--random", "10", "--kokkos-threads"], 2, ["--kokkos-threads", "needs a value"]),
            (COLLIDE, ["--random", "500000000", "--result", "flags", "--output", big], 1, ["flags output", "host memory"]),
            (COLLIDE, ["--random", "10", "--save-input", big, "--result", "flags", "--output", big], 2,
             ["would overwrite"]),
        ]
        if TRIPLETS:
            cases += [
                (TRIPLETS, ["--random", "0"], 2, ["--random 0"]),
                (TRIPLETS, ["--random", "10", "--c9", "x"], 2, ["--c9 x"]),
                (TRIPLETS, ["--random", "10", "--kokkos-frobnicate"], 2, ["--kokkos-frobnicate"]),
                (TRIPLETS, ["--input", tmp], 1, ["is a directory"]),
                (TRIPLETS, ["--random", "2000000", "--kernel", "dummy3", "--output", big], 1,
                 ["dummy3 output", "host memory"]),
            ]
        for exe, args, status, words in cases:
            tool = os.path.basename(exe)
            label = f"{tool} {' '.join(args)}"
            t0 = time.monotonic()
            rc, out, err = run(exe, args)
            took = time.monotonic() - t0
            check(rc == status, f"{label}: exit {rc}, expected {status}: {err.strip()!r}")
            check(err.startswith(f"{tool}: error: "), f"{label}: no '{tool}: error:' prefix: {err.strip()!r}")
            check(all(w in err for w in words), f"{label}: {err.strip()!r} lacks {words}")
            check(took < 5, f"{label}: took {took:.1f} s to fail")
            check(not os.path.exists(big), f"{label}: left {big}")
        for exe, tool in tools:
            rc, out, _ = run(exe, ["--version"])
            check(rc == 0 and out.strip().startswith(tool + " "), f"{tool} --version: {out!r}")
            rc, out, _ = run(exe, ["--help"])
            check(rc == 0 and f"Usage: {tool} [OPTIONS]" in out and "Exit status" in out, f"{tool} --help")
            # --kokkos-threads and --kokkos-num-threads both work (the spelling this Kokkos reads).
            for opt in ("--kokkos-threads=1", "--kokkos-num-threads=1"):
                rc, out, err = run(exe, ["--random", 100, "--json", opt])
                j = json_line(f"{tool} {opt}", out) if rc == 0 else None
                check(rc == 0 and j is not None and j["concurrency"] == 1 and "warning" not in err.lower(),
                      f"{tool} {opt}: rc {rc} {out!r} {err!r}")

        # ---- progress
        fast = {"TDMAPS_PROGRESS_AFTER_S": "0"}
        out = os.path.join(tmp, "p.npy")
        rc, _, err = run(EDM, ["--random", 3000, "--layout", "full", "--repeat", 30, "--output", out], fast)
        check(rc == 0 and "tdmaps-edm: compute" in err and "tdmaps-edm: write " + out in err,
              f"plain progress lines: rc {rc} {err!r}")
        rc, _, err = run(EDM, ["--random", 3000, "--layout", "full", "--repeat", 30, "--output", out, "--quiet"], fast)
        check(rc == 0 and err == "", f"--quiet: {err!r}")
        rc, text = pty_run(COLLIDE, ["--random", 3000, "--repeat", 40], fast)
        check(rc == 0 and "\r" in text and "run " in text and " of 40" in text and "ETA" in text and "done" in text,
              f"terminal progress bar: rc {rc} {text!r}")
        rc, text = pty_run(EDM, ["--random", 3000, "--layout", "full", "--output", out], fast)
        check(rc == 0 and "[" in text and "%" in text and "GB/s" in text, f"terminal write bar: rc {rc} {text!r}")

    return clitest.summary()


if __name__ == "__main__":
    sys.exit(main())
