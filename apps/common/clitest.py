"""What the apps' CLI tests share: running a tool in the tests' environment
and counting checks. Every JSON line a tool prints through run() or
run_process() is checked against the one report schema
(report_schema.json, check_report), so no test can see a line of another
shape pass.

    sys.path.insert(0, "<apps>/common")
    import clitest
    rc, out, err = clitest.run(exe, ["--random", 10, "--json"])
    clitest.check(rc == 0, "runs", err)
    sys.exit(clitest.summary())
"""
import json
import os
import subprocess

SCHEMA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report_schema.json")
with open(SCHEMA_PATH) as _f:
    SCHEMA = json.load(_f)
REPORTS_CHECKED = 0

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
    uses: type, enum, required, properties, items, minimum)."""
    errs = []
    if "type" in schema and not _type_ok(v, schema["type"]):
        return [f"{where}: {v!r} is not {schema['type']}"]
    if "enum" in schema and v not in schema["enum"]:
        errs.append(f"{where}: {v!r} not in {schema['enum']}")
    if "minimum" in schema and isinstance(v, (int, float)) and not isinstance(v, bool) and v < schema["minimum"]:
        errs.append(f"{where}: {v!r} < {schema['minimum']}")
    if isinstance(v, dict):
        errs += [f"{where}: missing key {k!r}" for k in schema.get("required", []) if k not in v]
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
