"""The type stubs (tdmaps/__init__.pyi, PEP 561's py.typed beside it) agree
with the built package: mypy's stubtest on the tdmaps that the tests import
(mypy is required: Debian's python3-mypy, which cmake/bootstrap.sh installs)."""

import os
import subprocess
import sys


from conftest import tdmaps


def test_stub_files_beside_the_package():
    here = os.path.dirname(tdmaps.__file__)
    for f in ("__init__.pyi", "py.typed"):
        assert os.path.isfile(os.path.join(here, f)), f + " is not installed beside tdmaps/__init__.py"


def test_stubtest(tmp_path):
    import importlib.util
    assert importlib.util.find_spec("mypy") is not None, \
        "mypy is not installed: apt-get install python3-mypy (cmake/bootstrap.sh installs it)"
    parent = os.path.dirname(os.path.dirname(tdmaps.__file__))
    env = dict(os.environ, PYTHONPATH=parent + os.pathsep + os.environ.get("PYTHONPATH", ""), OMP_PROC_BIND="false")
    # A build tree's package is found through MYPYPATH; an installed one (a
    # site-packages folder, which mypy refuses in MYPYPATH) by the interpreter.
    if os.path.basename(parent) not in ("site-packages", "dist-packages"):
        env["MYPYPATH"] = parent
    # The private modules beside the stub are read as source: their optional
    # imports (torch, cupy) need not be installed.
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nignore_missing_imports = True\ncache_dir = %s\n" % (tmp_path / "mypy_cache"))
    p = subprocess.run([sys.executable, "-m", "mypy.stubtest", "tdmaps", "--mypy-config-file", str(config)],
                       cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Success" in p.stdout, p.stdout


def test_docstrings():
    """Every public function documents its signature, errors and an example,
    and the examples run (doctest)."""
    import doctest

    for name in tdmaps.__all__:
        f = getattr(tdmaps, name)
        if not callable(f) or isinstance(f, type):
            continue
        doc = f.__doc__ or ""
        assert name + "(" in doc, name + ": no signature line"
        assert "Example" in doc and ">>> " in doc, name + ": no example"
        if name != "info":
            assert "Raises" in doc or "raise" in doc.lower(), name + ": no errors"
    result = doctest.testmod(tdmaps, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0, result
