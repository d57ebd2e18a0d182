"""What the apps' CLI tests share: running a tool in the tests' environment
and counting checks.

    sys.path.insert(0, "<apps>/common")
    import clitest
    rc, out, err = clitest.run(exe, ["--random", 10, "--json"])
    clitest.check(rc == 0, "runs", err)
    sys.exit(clitest.summary())
"""
import os
import subprocess

PASSED = 0
FAILED = []


def env_with(extra=None):
    """The tools' environment: OpenMP threads unbound and two of them (the
    caller's own OMP_* settings win), then `extra`."""
    env = dict(os.environ)
    env.setdefault("OMP_PROC_BIND", "false")
    env.setdefault("OMP_NUM_THREADS", "2")
    if extra:
        env.update(extra)
    return env


def run_process(exe, args, extra=None, timeout=300):
    """Runs exe with args (str() of each) in env_with(extra): the CompletedProcess."""
    return subprocess.run([exe] + [str(a) for a in args], capture_output=True, text=True, env=env_with(extra),
                          timeout=timeout)


def run(exe, args, extra=None, timeout=300):
    """run_process as (returncode, stdout, stderr)."""
    p = run_process(exe, args, extra, timeout)
    return p.returncode, p.stdout, p.stderr


def check(cond, what, detail=None):
    """Counts a passed check, or records and prints a failed one."""
    global PASSED
    if cond:
        PASSED += 1
    else:
        FAILED.append(what)
        print("FAIL:", what if detail is None else f"{what}: {detail}", flush=True)


def summary():
    """Prints "N passed, M failed"; the exit status: 1 on any failure."""
    print(f"{PASSED} passed, {len(FAILED)} failed")
    return 1 if FAILED else 0
