"""The module as a user gets it: Kokkos started once on import and ended
once at exit, and the package found from an installed prefix."""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tdmaps


def run_python(code, env_path, cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(env_path), OMP_PROC_BIND="false", PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


PACKAGE_DIR = Path(tdmaps.__file__).resolve().parent.parent

LIFECYCLE = """
    import atexit, importlib, sys
    import numpy as np

    def after_tdmaps():
        k = sys.modules["tdmaps._tdmaps"]
        print("at exit: initialised", k.is_initialized(), "finalize again", k.finalize(), flush=True)

    # atexit runs the last registered first: registered before the import,
    # this hook runs after tdmaps' own.
    atexit.register(after_tdmaps)
    import tdmaps
    from tdmaps import _tdmaps
    assert _tdmaps.is_initialized() and _tdmaps.owns_kokkos()
    assert _tdmaps.initialize() is False  # running already: not started twice
    importlib.reload(tdmaps)
    assert _tdmaps.initialize() is False
    d = tdmaps.pdist(np.array([[0.0, 0.0], [3.0, 4.0]]))
    print("distance", d[0], flush=True)
"""


def test_kokkos_starts_once_and_ends_once_at_exit(tmp_path):
    r = run_python(LIFECYCLE, PACKAGE_DIR, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["distance 5.0", "at exit: initialised False finalize again False"], r.stdout
    assert r.stderr == "", r.stderr


def test_calls_after_finalize_raise(tmp_path):
    code = """
        import numpy as np, tdmaps
        from tdmaps import _tdmaps
        assert _tdmaps.finalize() is True and _tdmaps.finalize() is False
        try:
            tdmaps.pdist(np.zeros((3, 2)))
        except RuntimeError as e:
            print(e)
        try:
            _tdmaps.initialize()
        except RuntimeError as e:
            print(e)
    """
    r = run_python(code, PACKAGE_DIR, tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("tdmaps: Kokkos is not initialised"), r.stdout
    assert lines[1].startswith("tdmaps: Kokkos was finalised already"), r.stdout
    assert r.stderr == "", r.stderr


def build_tree():
    """The build tree that made this module: the directory with CMakeCache.txt above it.
    An installed package (python/scripts/wheel_check.sh sets TDMAPS_TESTS_INSTALLED=1) has
    none: the tests that need one skip there."""
    for d in Path(tdmaps.__file__).resolve().parents:
        if (d / "CMakeCache.txt").is_file():
            return d
    if os.environ.get("TDMAPS_TESTS_INSTALLED") == "1":
        pytest.skip("an installed package: no build tree (its install rule is checked from the build tree)")
    raise AssertionError("tdmaps was not imported from a build tree (%s): run the tests with "
                         "PYTHONPATH=<build>/python (ctest -L python does)" % tdmaps.__file__)


def cache_value(build, key):
    m = re.search(r"^%s:[A-Z]+=(.*)$" % re.escape(key), (build / "CMakeCache.txt").read_text(), re.M)
    assert m, "%s not in %s/CMakeCache.txt" % (key, build)
    return m.group(1)


def test_installed_prefix_imports(tmp_path):
    build = build_tree()
    prefix = tmp_path / "prefix"
    r = subprocess.run([cache_value(build, "CMAKE_COMMAND"), "--install", str(build), "--prefix", str(prefix),
                        "--component", "python"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    site = prefix / cache_value(build, "TDMAPS_PYTHON_INSTALL_DIR")
    code = """
        import numpy as np, tdmaps
        from scipy.spatial.distance import pdist
        X = np.random.default_rng(5).random((300, 3))
        assert np.array_equal(tdmaps.pdist(X), pdist(X))
        print(tdmaps.__file__)
    """
    r = run_python(code, site, tmp_path)
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()).resolve() == (site / "tdmaps" / "__init__.py").resolve()
    assert sorted(p.name.split(".")[0] for p in (site / "tdmaps").iterdir()) == ["__init__", "__init__", "_apps", "_args", "_edm", "_mpi", "_tdmaps", "py"]  # py.typed, __init__.pyi


def test_version_is_the_projects_one():
    """__version__ comes from project(VERSION) through <tdmaps/version.hpp>, as the CLIs' --version."""
    from tdmaps import _tdmaps

    assert tdmaps.__version__ == _tdmaps.__version__
    src = os.environ.get("TDMAPS_SOURCE_DIR")
    top = (Path(src) if src else Path(__file__).resolve().parents[2]) / "CMakeLists.txt"
    m = re.search(r"project\(\s*tdmaps\s+VERSION\s+([0-9.]+)", top.read_text())
    assert m and tdmaps.__version__ == m.group(1), (tdmaps.__version__, m and m.group(1))
    source = (top.parent / "python" / "tdmaps" / "__init__.py").read_text()
    assert not re.search(r"__version__\s*=\s*['\"]", source), "a version literal in python/tdmaps/__init__.py"
    cli = build_tree() / "bin" / "tdmaps-edm"
    if cache_value(build_tree(), "TDMAPS_ENABLE_APPS") in ("ON", "1", "TRUE"):
        r = subprocess.run([str(cli), "--version"], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == "tdmaps-edm " + tdmaps.__version__, r.stdout
