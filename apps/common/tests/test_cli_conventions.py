#!/usr/bin/env python3
"""The conventions every tdmaps CLI follows (apps/common/cli.hpp), checked on
every tool.

Usage: test_cli_conventions.py PATH/TO/tdmaps-edm PATH/TO/tdmaps-collide [PATH/TO/tdmaps-triplets [PATH/TO/tdmaps-nbody]]

- An interrupt (SIGINT, SIGTERM, SIGHUP) during the write phase leaves no
  output and no temporary file, through the unnamed-file path (O_TMPFILE) and
  the named-temporary fallback (TDMAPS_NO_O_TMPFILE=1); the process dies of
  the signal.
- JSON: every line parses, one schema for all tools and modes
  (report_schema.json: the same keys, null for absent values: cli_reports.py,
  numbers as numbers, one rate key, warnings in an array), strings escaped
  (a tab in a file name). Parse errors and the input rule: cli_usage.py.
- No output ever replaces an input: every tool and mode refuses an --output
  that is the --input file (the same path, another path to it, a symlink, a
  hard link) before any work, leaving the input as it was.
- Values in messages as typed (--rmax -1e-9, not -0.000000; 1e+39 in a file
  overflows float32, not "inf").
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
import cli_reports  # noqa: E402
import cli_usage  # noqa: E402
from clitest import check, env_with, run  # noqa: E402

EDM = COLLIDE = TRIPLETS = NBODY = None

COMMON_KEYS = set(clitest.SCHEMA["required"])


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
    for k in ("ms_mean", "ms_min", "ms_total"):
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


def same_file_refused(tmp):
    """Every tool and mode refuses to write its output over its input, under any name of the input."""
    rng = np.random.default_rng(26)
    pts, sph, par = (os.path.join(tmp, f) for f in ("pts.npy", "sph.npy", "par.npy"))
    np.save(pts, rng.random((60, 3)))
    np.save(sph, np.hstack([rng.random((60, 3)), np.full((60, 1), 0.05)]).astype(np.float32))
    np.save(par, rng.random((30, 3)) * 4)
    os.mkdir(os.path.join(tmp, "sub"))
    modes = [(EDM, pts, []), (EDM, pts, ["--layout", "packed", "--max-device-memory", "16K"]),
             (EDM, pts, ["--reduce", "hist", "--rmax", 1]), (EDM, pts, ["--reduce", "nn"])]
    modes += [(COLLIDE, sph, ["--result", r]) for r in ("flags", "rowflags", "tileflags", "pairs", "intflags")]
    if TRIPLETS:
        modes += [(TRIPLETS, par, []), (TRIPLETS, par, ["--kernel", "dummy3"])]
    if NBODY:
        bod = os.path.join(tmp, "bod.npy")
        np.save(bod, np.hstack([rng.random((30, 3)) * 4, np.ones((30, 1))]))
        modes += [(NBODY, bod, []), (NBODY, bod, ["--steps", 2, "--dt", "0.01"])]
    for exe, inp, extra in modes:
        base = os.path.basename(inp)
        before = open(inp, "rb").read()
        link, hard = os.path.join(tmp, "link_" + base), os.path.join(tmp, "hard_" + base)
        for p in (link, hard):
            if os.path.lexists(p):
                os.remove(p)
        os.symlink(inp, link)
        os.link(inp, hard)
        # The same path, a path through "..", a relative one, a symlink and a hard link to the input.
        for out in (inp, os.path.join(tmp, "sub", "..", base), os.path.relpath(inp), link, hard):
            label = f"{os.path.basename(exe)} {' '.join(map(str, extra))} --input {base} --output {out}"
            t0 = time.monotonic()
            rc, _, err = run(exe, ["--input", inp, "--output", out] + extra)
            check(rc == 2 and "would overwrite" in err and err.startswith(os.path.basename(exe) + ": error: "),
                  f"{label}: rc {rc} {err.strip()!r}")
            check(time.monotonic() - t0 < 60, f"{label}: refused within a minute (a guard against a hang: the check runs before Kokkos starts)")
            check(open(inp, "rb").read() == before and os.path.islink(link), f"{label}: the input changed")
        # Two outputs of one run that are one file (neither exists yet).
    for exe in (COLLIDE,) + ((TRIPLETS,) if TRIPLETS else ()) + ((NBODY,) if NBODY else ()):
        args = ["--random", 20, "--save-input", os.path.join(tmp, "s.npy"), "--output",
                os.path.join(tmp, "sub", "..", "s.npy")] + (["--result", "flags"] if exe == COLLIDE else [])
        rc, _, err = run(exe, args)
        check(rc == 2 and "would overwrite" in err and not os.path.exists(os.path.join(tmp, "s.npy")),
              f"{os.path.basename(exe)} --save-input and --output one new file: rc {rc} {err.strip()!r}")


def values_as_typed(tmp):
    """Messages name values as the user typed them and say what is really wrong."""
    huge64 = os.path.join(tmp, "huge.npy")
    np.save(huge64, np.array([[0.0, 0, 0], [1e39, 0, 0], [1, 1, 1]]))
    huge_csv = os.path.join(tmp, "huge.csv")
    with open(huge_csv, "w") as f:
        f.write("0,0,0\n1e39,0,0\n1,1,1\n")
    spheres = os.path.join(tmp, "sph.npy")
    np.save(spheres, np.array([[0, 0, 0, 0.1], [1e39, 0, 0, 0.2]]))
    cases = [
        (EDM, ["--random", 10, "--reduce", "hist", "--rmax", "-1e-9"], 2, ["--rmax -1e-9", "> 0"], ["-0.0"]),
        (EDM, ["--random", 10, "--reduce", "hist", "--rmax", "1e-400"], 2, ["--rmax 1e-400"], []),
        (EDM, ["--random", 10, "--reduce", "count", "--radius", "0.2x"], 2, ["--radius 0.2x"], []),
        (EDM, ["--random", 10, "--reduce", "hist", "--rmax", 1, "--output", os.path.join(tmp, "nodir", "h.npy")], 1,
         ["does not exist"], ["free space"]),
        (EDM, ["--random", 10, "--reduce", "nn", "--map", "utm"], 2, ["--map utm", "thread-space", "count"],
         ["element kernel"]),
        (EDM, ["--input", huge64, "--precision", "fp32"], 1, ["1e+39", "overflows float32", "row 1"], [" inf"]),
        (EDM, ["--input", huge_csv, "--precision", "fp32"], 1, ["1e39", "overflows float32"], [" inf"]),
        (EDM, ["--input", huge64, "--reduce", "nn", "--precision", "fp32"], 1, ["1e+39", "overflows float32"], []),
        (COLLIDE, ["--input", spheres], 1, ["row 1", "x = 1e+39", "overflows float32"], ["is inf"]),
        (COLLIDE, ["--random", 10, "--rmin", "1e-9", "--rmax", "2"], 2, ["--rmax 2"], []),
    ]
    for exe, args, status, words, never in cases:
        tool = os.path.basename(exe)
        label = f"{tool} {' '.join(map(str, args))}"
        rc, out, err = run(exe, args)
        check(rc == status and err.startswith(f"{tool}: error: "), f"{label}: exit {rc}: {err.strip()!r}")
        check(all(w in err for w in words) and not any(w in err for w in never), f"{label}: {err.strip()!r}")
    # edm at fp64 reads the same file as it is.
    rc, out, err = run(EDM, ["--input", huge64, "--json"])
    check(rc == 0, f"edm fp64 1e39: rc {rc} {err}")


def main():
    global EDM, COLLIDE, TRIPLETS, NBODY
    if len(sys.argv) not in (3, 4, 5):
        print(__doc__)
        return 2
    EDM, COLLIDE = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    TRIPLETS = os.path.abspath(sys.argv[3]) if len(sys.argv) >= 4 else None
    NBODY = os.path.abspath(sys.argv[4]) if len(sys.argv) == 5 else None
    tools = ((EDM, "tdmaps-edm"), (COLLIDE, "tdmaps-collide")) + (((TRIPLETS, "tdmaps-triplets"),) if TRIPLETS else ())
    tools += ((NBODY, "tdmaps-nbody"),) if NBODY else ()

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
        same_file_refused(tmp)
    with tempfile.TemporaryDirectory() as tmp:
        values_as_typed(tmp)

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
        if NBODY:
            runs += [(NBODY, "tdmaps-nbody", ["--random", 100, "--json"]),
                     (NBODY, "tdmaps-nbody", ["--plummer", 100, "--json", "--output", tab, "--precision", "fp32"]),
                     (NBODY, "tdmaps-nbody", ["--random", 60, "--json", "--law", "lj", "--output", quote])]
        runs += [(EDM, "tdmaps-edm", ["--random", 300, "--json", "--layout", "packed", "--max-device-memory", "64K"]),
                 (EDM, "tdmaps-edm", ["--random", 200, "--json", "--reduce", "hist", "--rmax", 1]),
                 (EDM, "tdmaps-edm", ["--random", 200, "--json", "--reduce", "nn", "--output", tab]),
                 (EDM, "tdmaps-edm", ["--random", 200, "--json", "--reduce", "count", "--radius", 0.2]),
                 (COLLIDE, "tdmaps-collide", ["--random", 300, "--json", "--result", "tileflags", "--output", quote])]
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
        if NBODY:
            cases += [
                (NBODY, ["--random", "0"], 2, ["--random 0"]),
                (NBODY, ["--random", "10", "--G", "x"], 2, ["--G x"]),
                (NBODY, ["--random", "10", "--kokkos-frobnicate"], 2, ["--kokkos-frobnicate"]),
                (NBODY, ["--input", tmp], 1, ["is a directory"]),
                (NBODY, ["--random", "2000000000", "--output", big], 1, ["host memory", "available"]),
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

    if TRIPLETS and NBODY:
        # One key set in every line of every mode; the parser's errors in the tools' words; the input rule.
        for check_all in (cli_reports.same_keys_everywhere, cli_usage.usage_and_inputs):
            with tempfile.TemporaryDirectory() as tmp:
                check_all(EDM, COLLIDE, TRIPLETS, NBODY, tmp)

    with tempfile.TemporaryDirectory() as tmp:
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
