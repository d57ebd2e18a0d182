#!/usr/bin/env python3
"""Front-end check of a HIP build's remaining sources (CI, no AMD GPU).

Usage: hip_syntax.py BUILD_DIR CACHE_DIR [--skip OBJECT_PREFIX ...]

Every hipcc compile of BUILD_DIR's compile_commands.json whose object does
not start with one of the --skip prefixes (those the CI compiles whole)
runs with -fsyntax-only instead of -o: clang parses the source,
instantiates its templates and checks it for the host and for the device
(gfx90a), with the build's own flags (warnings as errors included), and
stops before code generation.

A source whose command and every file it read (its depfile, by content)
are unchanged since its last clean check is not checked again: the record
of each clean check is kept in CACHE_DIR, keyed by the command with the
checkout's root written as ".", so a fresh clone elsewhere reuses it.
Any error: the compiler's output, and exit 1.
"""
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    build, cache = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    skip = set()
    rest = argv[3:]
    if rest and rest[0] == "--skip":
        skip = {os.path.normpath(s) for s in rest[1:]}
    elif rest:
        print(f"hip_syntax.py: unknown argument '{rest[0]}'", file=sys.stderr)
        return 2
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    db = os.path.join(build, "compile_commands.json")
    if not os.path.isfile(db):
        print(f"hip_syntax.py: no {db} (configure with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)", file=sys.stderr)
        return 2
    os.makedirs(cache, exist_ok=True)
    jobs = []
    for e in json.load(open(db)):
        args = shlex.split(e["command"]) if "command" in e else list(e["arguments"])
        if args and os.path.basename(args[0]) == "ccache":
            args = args[1:]
        if not args or os.path.basename(args[0]) != "hipcc":
            continue
        out = e.get("output") or args[args.index("-o") + 1]
        if any(os.path.normpath(out).startswith(p) for p in skip):
            continue
        jobs.append((e["directory"], args, out))
    if not jobs:
        print("hip_syntax.py: no hipcc compile left to check", file=sys.stderr)
        return 1

    digests = {}

    def digest(path):
        if path not in digests:
            try:
                with open(path, "rb") as f:
                    digests[path] = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                digests[path] = "missing"
        return digests[path]

    def rel(path):
        return "." + path[len(root):] if path == root or path.startswith(root + os.sep) else path

    def check(job):
        directory, args, out = job
        depfile = os.path.join(build, ".hip_syntax", re.sub(r"[^A-Za-z0-9_.-]", "_", out) + ".d")
        os.makedirs(os.path.dirname(depfile), exist_ok=True)
        cmd, skip_next = [], 0
        for i, a in enumerate(args):
            if skip_next:
                skip_next -= 1
                continue
            if a in ("-o", "-MT", "-MF"):
                skip_next = 1
                continue
            if a == "-MD":
                continue
            cmd.append(a)
        # -c stays: without it hipcc adds its link flags, unused (an error with -Werror).
        cmd += ["-fsyntax-only", "-MD", "-MF", depfile]
        key = hashlib.sha256(" ".join(rel(a) for a in cmd if a != depfile).encode()).hexdigest()
        record = os.path.join(cache, key + ".json")
        if os.path.isfile(record):
            try:
                deps = json.load(open(record))
                if all(digest(p if os.path.isabs(p) else os.path.join(root, p)) == h for p, h in deps.items()):
                    return out, True, ""
            except (OSError, ValueError):
                pass
        r = subprocess.run(cmd, cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            return out, False, " ".join(shlex.quote(a) for a in cmd) + "\n" + r.stdout
        text = open(depfile).read().replace("\\\n", " ")
        files = set()
        for line in text.splitlines():
            if ":" in line:
                files.update(f for f in line.split(":", 1)[1].split() if f)
        paths = {os.path.normpath(os.path.join(directory, f)) for f in files}
        if not paths:
            return out, False, f"{depfile}: no dependencies written"
        deps = {rel(p): digest(p) for p in paths}
        tmp = record + f".{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump(deps, f)
        os.replace(tmp, record)
        return out, None, ""

    t0 = time.time()
    failed, cached, checked = [], 0, 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for out, ok, log in pool.map(check, jobs):
            if ok is False:
                failed.append((out, log))
            elif ok:
                cached += 1
            else:
                checked += 1
    for out, log in failed:
        print(f"hip_syntax.py: {out} failed the front-end check:\n{log}", file=sys.stderr)
    print(f"hip: {len(jobs)} more sources through hipcc's front end (host and gfx90a), {checked} checked, "
          f"{cached} unchanged since a clean check, {len(failed)} failed, in {time.time() - t0:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
