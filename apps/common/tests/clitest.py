"""What the apps' CLI tests share: running a tool in the tests' environment
and counting checks. Every JSON line a tool prints through run() or
run_process() is checked against the one report schema
(apps/common/report_schema.json, check_report), so no test can see a line
of another shape pass.

    sys.path.insert(0, "<apps>/common/tests")
    import clitest
    rc, out, err = clitest.run(exe, ["--random", 10, "--json"])
    clitest.check(rc == 0, "runs", err)
    sys.exit(clitest.summary())
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report_schema.json")
with open(SCHEMA_PATH) as _f:
    SCHEMA = json.load(_f)
REPORTS_CHECKED = 0

PASSED = 0
FAILED = []


def tool_argument(usage):
    """The tool's absolute path, the script's one argument; else prints
    `usage` and exits with status 2."""
    if len(sys.argv) != 2:
        print(usage)
        sys.exit(2)
    return os.path.abspath(sys.argv[1])


_SESSION_ROOT = None


def _session_root():
    """One temporary folder per test script for the Open MPI session
    directories of its tool runs (env_with), removed at exit."""
    global _SESSION_ROOT
    if _SESSION_ROOT is None:
        _SESSION_ROOT = tempfile.mkdtemp(prefix="tdmaps-ompi-")
        atexit.register(shutil.rmtree, _SESSION_ROOT, True)
    return _SESSION_ROOT


def env_with(extra=None, session_base=True):
    """The tools' environment: OpenMP threads unbound and two of them (the
    caller's own OMP_* settings win), then `extra`. Open MPI (a tool built
    with MPI): a run without mpirun, a singleton, starts no daemon
    (ess_singleton_isolated), and no rank loads a network transport (pml
    ob1: shared memory and TCP, all that ranks on one machine use); those
    take most of a short run's time otherwise. Every isolated singleton
    names its session directory <tmpdir>/ompi.<host>.<uid>/jf.0/1/0, the
    same for all of them, and one that starts while another creates or
    removes it fails in MPI_Init ("File exists"): each call gets a
    temporary directory of its own as the session base
    (orte_tmpdir_base), removed when the test script exits. Not with
    session_base=False: an environment shared by several mpirun at once,
    which would race to create the base's first directory (each mpirun
    job has a session directory of its own under the system's base). The
    caller's own OMPI_MCA_* settings win too."""
    env = dict(os.environ)
    env.setdefault("OMP_PROC_BIND", "false")
    env.setdefault("OMP_NUM_THREADS", "2")
    env.setdefault("OMPI_MCA_ess_singleton_isolated", "1")
    if session_base and "OMPI_MCA_orte_tmpdir_base" not in env:
        env["OMPI_MCA_orte_tmpdir_base"] = tempfile.mkdtemp(dir=_session_root())
    env.setdefault("OMPI_MCA_pml", "ob1")
    if extra:
        env.update(extra)
    return env


# mpirun as the MPI tests start it (mpirun_argv(path) + ["-n", ranks, exe,
# ...] with env_with(MPIRUN_ENV)): as root where the tests run as root, more
# ranks than cores, ranks that yield the core while they wait, one OpenMP
# thread each.
MPIRUN_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
              "OMPI_MCA_rmaps_base_oversubscribe": "1", "OMPI_MCA_mpi_yield_when_idle": "1", "OMP_NUM_THREADS": "1"}


def mpirun_argv(mpirun):
    return [mpirun, "--allow-run-as-root", "--oversubscribe", "--bind-to", "none"]


def _type_ok(v, t):
    if isinstance(t, list):
        return any(_type_ok(v, x) for x in t)
    return {"string": lambda: isinstance(v, str),
            "integer": lambda: isinstance(v, int) and not isinstance(v, bool),
            "number": lambda: isinstance(v, (int, float)) and not isinstance(v, bool),
            "null": lambda: v is None,
            "array": lambda: isinstance(v, list),
            "object": lambda: isinstance(v, dict),
            "boolean": lambda: isinstance(v, bool)}[t]()


def schema_errors(v, schema, where="$"):
    """What in v breaks schema (the JSON Schema keywords report_schema.json
    uses: type, enum, required, properties, additionalProperties: false,
    items, minimum)."""
    errs = []
    if "type" in schema and not _type_ok(v, schema["type"]):
        return [f"{where}: {v!r} is not {schema['type']}"]
    if "enum" in schema and v not in schema["enum"]:
        errs.append(f"{where}: {v!r} not in {schema['enum']}")
    if "minimum" in schema and isinstance(v, (int, float)) and not isinstance(v, bool) and v < schema["minimum"]:
        errs.append(f"{where}: {v!r} < {schema['minimum']}")
    if isinstance(v, dict):
        errs += [f"{where}: missing key {k!r}" for k in schema.get("required", []) if k not in v]
        if schema.get("additionalProperties") is False:
            errs += [f"{where}: key {k!r} not in the schema" for k in v if k not in schema.get("properties", {})]
        for k, sub in schema.get("properties", {}).items():
            if k in v:
                errs += schema_errors(v[k], sub, f"{where}.{k}")
    if isinstance(v, list) and "items" in schema:
        for i, x in enumerate(v):
            errs += schema_errors(x, schema["items"], f"{where}[{i}]")
    return errs


def check_report(line, label="report"):
    """Parses one JSON line and checks it against the report schema; the object (None if unparsable)."""
    global REPORTS_CHECKED
    try:
        j = json.loads(line)
    except ValueError as e:
        check(False, f"{label}: not JSON ({e}): {line!r}")
        return None
    errs = schema_errors(j, SCHEMA)
    check(not errs, f"{label}: breaks report_schema.json", errs)
    if isinstance(j, dict) and j.get("elements_per_second") is not None and j.get("ms_min"):
        rate = j["elements"] / (j["ms_min"] * 1e-3)
        check(abs(j["elements_per_second"] - rate) <= 1e-9 * rate + 1e-9, f"{label}: elements_per_second", (j, rate))
    REPORTS_CHECKED += 1
    return j


def check_json_lines(text, label):
    """check_report on every line of a tool's stdout that is a JSON object."""
    for line in text.splitlines():
        if line.lstrip().startswith("{"):
            check_report(line, label)


def run_process(exe, args, extra=None, timeout=300):
    """Runs exe with args (str() of each) in env_with(extra): the CompletedProcess.
    Its JSON lines are checked against the report schema."""
    args = [str(a) for a in args]
    p = subprocess.run([exe] + args, capture_output=True, text=True, env=env_with(extra), timeout=timeout)
    if p.stdout:
        check_json_lines(p.stdout, f"{os.path.basename(exe)} {' '.join(args)}")
    return p


def run(exe, args, extra=None, timeout=300):
    """run_process as (returncode, stdout, stderr)."""
    p = run_process(exe, args, extra, timeout)
    return p.returncode, p.stdout, p.stderr


def run_npy(exe, args, out, extra=None):
    """Runs exe with args + ["--output", out]: (returncode, stdout, stderr,
    the array it wrote, None when it failed or wrote nothing)."""
    import numpy as np  # only the tests that read outputs need numpy

    rc, so, se = run(exe, list(args) + ["--output", out], extra)
    return rc, so, se, (np.load(out) if rc == 0 and os.path.exists(out) else None)


def expect_error(exe, tmp, args, words, label, code):
    """Exit status `code` (usage errors 2, runtime failures 1), "<tool>: error:"
    and `words` in the message, no output file and no temp file left in tmp
    ("@OUT" in args: a path there)."""
    tool = os.path.basename(exe)
    out_path = os.path.join(tmp, "err_out.npy")
    before = set(os.listdir(tmp))
    rc, out, err = run(exe, [str(a).replace("@OUT", out_path) for a in args])
    check(rc == code, f"{label}: exit code {rc}, expected {code} ({err.strip()!r})")
    check(err.startswith(f"{tool}: error: "), f"{label}: message {err.strip()!r} lacks the prefix")
    text = err.lower()
    check(all(w.lower() in text for w in words), f"{label}: message {err.strip()!r} lacks {words}")
    check(not os.path.exists(out_path), f"{label}: left an output file")
    check(set(os.listdir(tmp)) == before, f"{label}: left files {sorted(set(os.listdir(tmp)) - before)}")


def expect_errors(exe, tmp, cases, runtime, seconds=5):
    """expect_error for each (args, words, label) of cases, exit status 1 for
    the labels in `runtime` and 2 for the others, each failing within
    `seconds` (sizes, options and inputs are judged before any allocation)."""
    for args, words, label in cases:
        t0 = time.monotonic()
        expect_error(exe, tmp, args, words, label, 1 if label in runtime else 2)
        check(time.monotonic() - t0 < seconds, f"{label}: took {time.monotonic() - t0:.1f} s to fail")


def failing_run_keeps_output(exe, tmp, args):
    """A run of args + ["--output", <an existing file>] that fails leaves the file as it was."""
    import numpy as np

    keep = os.path.join(tmp, "keep.npy")
    np.save(keep, np.arange(3))
    with open(keep, "rb") as f:
        before = f.read()
    rc, _, _ = run(exe, list(args) + ["--output", keep])
    with open(keep, "rb") as f:
        check(rc != 0 and f.read() == before, "a failing run changed an existing output file")


def help_and_version(exe, mentions):
    """--help prints the usage line, the examples and each of `mentions`;
    --version starts with the tool's name."""
    tool = os.path.basename(exe)
    rc, out, _ = run(exe, ["--help"])
    check(rc == 0 and "Examples:" in out and all(m in out for m in mentions) and f"Usage: {tool} [OPTIONS]" in out,
          "--help")
    rc, out, _ = run(exe, ["--version"])
    check(rc == 0 and out.startswith(f"{tool} "), f"--version: {out!r}")


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
    print(f"{PASSED} passed, {len(FAILED)} failed ({REPORTS_CHECKED} JSON lines checked against report_schema.json)")
    return 1 if FAILED else 0
