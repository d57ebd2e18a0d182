"""PEP 517 build backend of tdmaps (pyproject.toml: backend-path).

It builds the wheel with the project's own CMake: configure (apps' kernel
targets on, their CLIs, the unit tests, benchmarks and MPI off), build the
target tdmaps_python, install the component python into a staging folder and
zip that. No dependency beyond the standard library, pybind11 (its CMake
config) and, before Python 3.11, tomli.

Kokkos: the environment's Kokkos_ROOT (and KokkosKernels_ROOT, default
Kokkos_ROOT) when set, else the prefix that `bash cmake/bootstrap.sh --preset
<preset>` builds once and caches under .cache/ (TDMAPS_CACHE moves it).

Settings, each a config setting (`pip install -C key=value`, `python3 -m build
-C key=value`) or else its environment variable:
  preset     TDMAPS_PYTHON_PRESET     host (OpenMP, g++; default) or cuda (nvcc_wrapper)
  cuda-arch  TDMAPS_CUDA_ARCH         the cuda preset's Kokkos arch (bootstrap --arch; HOPPER90)
  build-dir  TDMAPS_PYTHON_BUILD_DIR  the CMake tree; default build/wheel/<preset>-<key>, the key
                                      a hash of everything the configure depends on
  cmake-args TDMAPS_CMAKE_ARGS        more configure arguments (split as a shell does)
  jobs       TDMAPS_JOBS              build parallelism
CXX and CMAKE_CXX_COMPILER_LAUNCHER (e.g. ccache, also for nvcc_wrapper) apply as in any CMake build.
The module is built for the interpreter that runs the backend (sys.executable).
"""

import base64
import csv
import fcntl
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_PRESETS = ("host", "cuda")


def _say(msg):
    print("tdmaps build: " + msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------- metadata
def _pyproject():
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def _version():
    """project(tdmaps VERSION x.y.z ...) of the top CMakeLists.txt: the one version source."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^\s*project\s*\(\s*tdmaps\s+VERSION\s+([0-9]+(?:\.[0-9]+)*)", text, re.M | re.I)
    if not m:
        raise RuntimeError("tdmaps build: no project(tdmaps VERSION x.y.z) in CMakeLists.txt")
    return m.group(1)


def _metadata():
    """Core metadata 2.1 (METADATA / PKG-INFO) from pyproject's [project]."""
    proj = dict(_pyproject()["project"])
    name = proj.pop("name")
    dynamic = proj.pop("dynamic", [])
    if dynamic != ["version"] or "version" in proj:
        raise RuntimeError("tdmaps build: [project] must declare dynamic = ['version'] (CMakeLists.txt holds it)")
    lines = ["Metadata-Version: 2.1", "Name: " + name, "Version: " + _version()]
    body = None
    if "description" in proj:
        lines.append("Summary: " + proj.pop("description"))
    if "keywords" in proj:
        lines.append("Keywords: " + ",".join(proj.pop("keywords")))
    for c in proj.pop("classifiers", []):
        lines.append("Classifier: " + c)
    if "requires-python" in proj:
        lines.append("Requires-Python: " + proj.pop("requires-python"))
    for d in proj.pop("dependencies", []):
        lines.append("Requires-Dist: " + d)
    for extra, deps in proj.pop("optional-dependencies", {}).items():
        lines.append("Provides-Extra: " + extra)
        for d in deps:
            marker = ' and extra == "%s"' % extra if ";" in d else '; extra == "%s"' % extra
            lines.append("Requires-Dist: " + d + marker)
    if "readme" in proj:
        readme = proj.pop("readme")
        if isinstance(readme, str):
            readme = {"file": readme}
        ctype = readme.get("content-type") or ("text/markdown" if readme["file"].endswith(".md") else "text/plain")
        with open(os.path.join(ROOT, readme["file"]), encoding="utf-8") as f:
            body = f.read()
        lines.append("Description-Content-Type: " + ctype)
    if proj:
        raise RuntimeError("tdmaps build: [project] keys this backend does not write: %s" % sorted(proj))
    text = "\n".join(lines) + "\n"
    if body is not None:
        text += "\n" + body
    return name, text


def _tag():
    """cp311-cp311-linux_x86_64: the module is compiled for this interpreter and platform."""
    impl = {"cpython": "cp", "pypy": "pp"}.get(sys.implementation.name, sys.implementation.name)
    ver = "%d%d" % sys.version_info[:2]
    abi = impl + ver + getattr(sys, "abiflags", "") if impl == "cp" else \
        (sysconfig.get_config_var("SOABI") or "none").split("-")[0].replace(".", "_")
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s%s-%s-%s" % (impl, ver, abi, plat)


def _dist_info_name(name):
    return "%s-%s.dist-info" % (re.sub(r"[-_.]+", "_", name).lower(), _version())


def _write_dist_info(folder, name, metadata):
    di = os.path.join(folder, _dist_info_name(name))
    os.makedirs(di, exist_ok=True)
    with open(os.path.join(di, "METADATA"), "w", encoding="utf-8") as f:
        f.write(metadata)
    with open(os.path.join(di, "WHEEL"), "w", encoding="utf-8") as f:
        f.write("Wheel-Version: 1.0\nGenerator: tdmaps_backend\nRoot-Is-Purelib: false\nTag: %s\n" % _tag())
    return os.path.basename(di)


# --------------------------------------------------------------- settings
def _setting(cfg, key, env, default=None):
    v = (cfg or {}).get(key)
    if isinstance(v, list):
        v = v[-1] if v else None
    if v is None or v == "":
        v = os.environ.get(env) or default
    return v


def _cmake_version(cmake):
    try:
        out = subprocess.run([cmake, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    m = re.search(r"version\s+([0-9]+)\.([0-9]+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _kokkos(preset, arch):
    """(Kokkos_ROOT, KokkosKernels_ROOT): the environment's, else the bootstrap's cached prefix."""
    kroot = os.environ.get("Kokkos_ROOT")
    if kroot:
        kk = os.environ.get("KokkosKernels_ROOT") or kroot
        _say("Kokkos from Kokkos_ROOT=" + kroot)
        return os.path.realpath(kroot), os.path.realpath(kk)
    cmd = ["bash", os.path.join(ROOT, "cmake", "bootstrap.sh"), "--preset", preset]
    if arch:
        cmd += ["--arch", arch]
    _say("Kokkos from " + " ".join(shlex.quote(c) for c in cmd[1:]) + " (cached after the first run)")
    r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    lines = r.stdout.strip().splitlines()
    if r.returncode != 0 or not lines or not os.path.isdir(lines[-1]):
        raise RuntimeError("tdmaps build: cmake/bootstrap.sh --preset %s failed (exit %d); set Kokkos_ROOT to "
                           "an installed Kokkos >= 3.4 to skip it" % (preset, r.returncode))
    prefix = os.path.realpath(lines[-1])
    return prefix, prefix


def _kokkos_compiler(kroot):
    """Kokkos_CXX_COMPILER of an installed Kokkos (its KokkosConfigCommon.cmake), when it exists."""
    for lib in ("lib", "lib64"):
        f = os.path.join(kroot, lib, "cmake", "Kokkos", "KokkosConfigCommon.cmake")
        if os.path.isfile(f):
            with open(f, encoding="utf-8") as fh:
                m = re.search(r'^\s*SET\(\s*Kokkos_CXX_COMPILER\s+"([^"]+)"', fh.read(), re.M | re.I)
            if m and os.access(m.group(1), os.X_OK):
                return m.group(1)
    return None


def _pybind11_dir():
    try:
        import pybind11
    except ImportError as e:
        raise RuntimeError("tdmaps build: pybind11 is not importable by %s (Debian: python3-pybind11 "
                           "pybind11-dev; or build with isolation)" % sys.executable) from e
    return pybind11.get_cmake_dir()


def _configure_args(cfg):
    preset = _setting(cfg, "preset", "TDMAPS_PYTHON_PRESET", "host")
    if preset not in _PRESETS:
        raise RuntimeError("tdmaps build: unknown preset %r (known: host, cuda)" % preset)
    arch = _setting(cfg, "cuda-arch", "TDMAPS_CUDA_ARCH")
    if arch and preset != "cuda":
        raise RuntimeError("tdmaps build: cuda-arch / TDMAPS_CUDA_ARCH needs preset cuda")
    env = dict(os.environ)
    if preset == "cuda":
        nvcc = os.environ.get("CUDACXX") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        if os.access(nvcc, os.X_OK):
            env["PATH"] = os.path.dirname(nvcc) + os.pathsep + env.get("PATH", "")
        os.environ["PATH"] = env["PATH"]  # the bootstrap looks for nvcc too
        env["NVCC_WRAPPER_DEFAULT_ARCH"] = "sm_" + re.sub(r"\D", "", arch or "HOPPER90")
    kroot, kkroot = _kokkos(preset, arch)
    if os.environ.get("CXX"):
        cxx = os.environ["CXX"]
    elif preset == "cuda":
        cxx = os.path.join(kroot, "bin", "nvcc_wrapper")
    else:
        # The compiler Kokkos was built with (the bootstrap's: g++, the host preset's).
        cxx = _kokkos_compiler(kroot) or (None if os.environ.get("Kokkos_ROOT") else shutil.which("g++"))
    args = ["-DCMAKE_BUILD_TYPE=Release",
            "-DKokkos_ROOT=" + kroot, "-DKokkosKernels_ROOT=" + kkroot,
            "-DTDMAPS_ENABLE_PYTHON=ON", "-DTDMAPS_PYTHON_TESTS=OFF",
            # The module links the apps' kernel targets (tdmaps::edm, tdmaps::collision),
            # defined under apps/; only the target tdmaps_python is built.
            "-DTDMAPS_ENABLE_APPS=ON", "-DTDMAPS_ENABLE_TESTS=OFF", "-DTDMAPS_ENABLE_PERF_TESTS=OFF",
            "-DTDMAPS_ENABLE_MPI=OFF",
            "-DPython_EXECUTABLE=" + sys.executable,
            "-Dpybind11_DIR=" + _pybind11_dir(),
            "-DTDMAPS_PYTHON_INSTALL_DIR=."]
    if cxx:
        args.append("-DCMAKE_CXX_COMPILER=" + cxx)
    if preset == "cuda":
        args.append("-DTDMAPS_CUDART_STATIC=ON")
    args += shlex.split(_setting(cfg, "cmake-args", "TDMAPS_CMAKE_ARGS", ""))
    if shutil.which("ninja", path=env.get("PATH")):
        gen = ["-G", "Ninja"]
    else:
        gen = []
    return preset, args, gen, env


def _build_dir(cfg, preset, args, gen):
    given = _setting(cfg, "build-dir", "TDMAPS_PYTHON_BUILD_DIR")
    if given:
        return os.path.abspath(given)
    # What the configure depends on beyond the source tree: the arguments, the
    # interpreter's ABI and headers (not its path: venvs of one Python share a tree).
    key = json.dumps({"args": [a for a in args if not a.startswith("-DPython_EXECUTABLE=")], "gen": gen,
                      "python": [sys.implementation.cache_tag, sysconfig.get_config_var("EXT_SUFFIX"),
                                 sysconfig.get_paths()["include"], os.path.realpath(sys.executable)],
                      "cxx": os.environ.get("CXX", "")}, sort_keys=True)
    return os.path.join(ROOT, "build", "wheel", "%s-%s" % (preset, hashlib.sha256(key.encode()).hexdigest()[:12]))


def _run(cmd, env):
    _say(" ".join(shlex.quote(c) for c in cmd))
    subprocess.run(cmd, env=env, check=True, stdout=sys.stderr)


def _build_module(cfg, stage):
    """Configure, build tdmaps_python, install the component python under stage."""
    cmake = shutil.which("cmake")
    if not cmake or (_cmake_version(cmake) or (0, 0)) < (3, 18):
        raise RuntimeError("tdmaps build: needs cmake >= 3.18 on PATH (Debian: cmake)")
    preset, args, gen, env = _configure_args(cfg)
    bld = _build_dir(cfg, preset, args, gen)
    os.makedirs(bld, exist_ok=True)
    jobs = _setting(cfg, "jobs", "TDMAPS_JOBS", str(os.cpu_count() or 2))
    with open(os.path.join(bld, ".tdmaps-wheel.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time in one tree
        cache = os.path.join(bld, "CMakeCache.txt")
        if gen and os.path.exists(cache):
            gen = []  # the tree keeps its generator
        _run([cmake, "-S", ROOT, "-B", bld] + gen + args, env)
        _run([cmake, "--build", bld, "--target", "tdmaps_python", "-j", str(jobs)], env)
        _run([cmake, "--install", bld, "--component", "python", "--prefix", stage], env)
    pkg = os.path.join(stage, "tdmaps")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    if not os.path.isfile(os.path.join(pkg, "__init__.py")) or not os.path.isfile(os.path.join(pkg, "_tdmaps" + suffix)):
        raise RuntimeError("tdmaps build: the install of component python gave no tdmaps/__init__.py and "
                           "tdmaps/_tdmaps%s under %s: %s" % (suffix, stage, sorted(os.listdir(stage))))


# --------------------------------------------------------------- wheel
def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _zip_write(zf, arcname, data, mode=0o644):
    info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)


def _pack_wheel(wheel_directory, tree, dist_info):
    name, version = dist_info[:-len(".dist-info")].rsplit("-", 1)
    path = os.path.join(wheel_directory, "%s-%s-%s.whl" % (name, version, _tag()))
    files = []
    for d, dirs, fs in os.walk(tree):
        dirs.sort()
        if "__pycache__" in dirs:
            dirs.remove("__pycache__")
        for f in sorted(fs):
            full = os.path.join(d, f)
            files.append((os.path.relpath(full, tree).replace(os.sep, "/"), full))
    record_name = dist_info + "/RECORD"
    files = [x for x in files if x[0] != record_name]
    files.sort(key=lambda x: (x[0].startswith(dist_info + "/"), x[0]))  # dist-info last
    rows = []
    with zipfile.ZipFile(path, "w") as zf:
        for arc, full in files:
            with open(full, "rb") as f:
                data = f.read()
            _zip_write(zf, arc, data, 0o755 if os.access(full, os.X_OK) else 0o644)
            rows.append((arc, _record_hash(data), str(len(data))))
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerows(rows + [(record_name, "", "")])
        _zip_write(zf, record_name, buf.getvalue().encode())
    return os.path.basename(path)


# --------------------------------------------------------------- PEP 517 hooks
def get_requires_for_build_wheel(config_settings=None):
    # cmake from the index only where the machine has none recent enough.
    cmake = shutil.which("cmake")
    if not cmake or (_cmake_version(cmake) or (0, 0)) < (3, 18):
        return ["cmake>=3.18"]
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    name, metadata = _metadata()
    return _write_dist_info(metadata_directory, name, metadata)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name, metadata = _metadata()
    os.makedirs(wheel_directory, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tdmaps-wheel-") as tmp:
        stage = os.path.join(tmp, "stage")
        _build_module(config_settings, stage)
        dist_info = _write_dist_info(stage, name, metadata)
        whl = _pack_wheel(wheel_directory, stage, dist_info)
    _say("wrote " + whl)
    return whl


_SDIST_SKIP_TOP = {"build", ".cache", ".device", ".whl", ".gl", ".git", "dist"}


def build_sdist(sdist_directory, config_settings=None):
    """The source tree without build outputs and caches (git's file list where there is one)."""
    name, metadata = _metadata()
    base = "%s-%s" % (name, _version())
    files = None
    if os.path.isdir(os.path.join(ROOT, ".git")) and shutil.which("git"):
        r = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True)
        if r.returncode == 0:
            files = sorted({f for f in r.stdout.decode().split("\0") if f and os.path.isfile(os.path.join(ROOT, f))})
    if files is None:
        files = []
        for d, dirs, fs in os.walk(ROOT):
            rel = os.path.relpath(d, ROOT)
            dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not (rel == "." and x in _SDIST_SKIP_TOP))
            files += [os.path.normpath(os.path.join(rel, f)) for f in sorted(fs) if not f.endswith(".pyc")]
    os.makedirs(sdist_directory, exist_ok=True)
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tf:
        for f in files:
            tf.add(os.path.join(ROOT, f), arcname=base + "/" + f, recursive=False)
        data = metadata.encode()
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size, info.mode = len(data), 0o644
        tf.addfile(info, io.BytesIO(data))
    return os.path.basename(path)
