#!/usr/bin/env bash
# The Python package's install round trip (pyproject.toml, offline):
#  1. python3 -m build --wheel --no-isolation builds the wheel;
#  2. it installs (pip --no-index) into a fresh virtual environment elsewhere
#     on disk (venv --system-site-packages: numpy, scipy, pytest from Debian);
#  3. the pytest suite runs there against the installed package (a copy of
#     python/tests in a folder where no source package is importable; tdmaps
#     must come from the venv, at the CMake project's version);
#  4. pip uninstall -y tdmaps leaves the venv's site-packages as before;
#  5. unless --wheel-only: pip install --no-build-isolation <repo> into a
#     second venv, imported, uninstalled the same way.
#
#   bash python/scripts/wheel_check.sh [--wheel-only] [--keep]
#
# Environment: PYTEST_ADDOPTS applies to the suite; TDMAPS_WHEEL_PYTHON (default /usr/bin/python3, Debian's, which
# has numpy, scipy, pytest, pybind11 and build); the backend's settings
# (Kokkos_ROOT, TDMAPS_PYTHON_PRESET, ..., see pyproject.toml) pass through.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PY=${TDMAPS_WHEEL_PYTHON:-/usr/bin/python3}
SOURCE=1
KEEP=0
for a in "$@"; do
  case "$a" in
    --wheel-only) SOURCE=0 ;;
    --keep) KEEP=1 ;;
    *) echo "wheel_check: unknown option '$a' (known: --wheel-only, --keep)" >&2; exit 2 ;;
  esac
done
die() { echo "wheel_check: FAIL: $*" >&2; exit 1; }
t0=$(date +%s)
step() { echo "== wheel_check: $* ($(( $(date +%s) - t0 )) s)"; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/tdmaps-wheel-check.XXXXXX")
if [ "$KEEP" = 0 ]; then trap 'rm -rf "$WORK"' EXIT; else echo "wheel_check: keeping $WORK"; fi
unset PYTHONPATH
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 OMP_PROC_BIND=${OMP_PROC_BIND:-false}
VERSION=$(sed -n 's/^ *project *( *tdmaps  *VERSION  *\([0-9.]*\).*/\1/Ip' "$ROOT/CMakeLists.txt" | sed -n 1p)
[ -n "$VERSION" ] || die "no project(tdmaps VERSION ...) in CMakeLists.txt"

# site_listing VENV: the entries of its site-packages (purelib and platlib), sorted.
site_listing() {
  "$1/bin/python" - <<'EOF'
import os, sysconfig
for d in sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}):
    for e in sorted(os.listdir(d)):
        print(os.path.join(d, e))
EOF
}
# check_import VENV: tdmaps imports from inside VENV (run from an empty folder) at VERSION.
check_import() {
  mkdir -p "$WORK/empty"
  (cd "$WORK/empty" && "$1/bin/python" - "$1" "$VERSION" <<'EOF'
import os, sys
import numpy as np
import tdmaps
venv, version = os.path.realpath(sys.argv[1]), sys.argv[2]
f = os.path.realpath(tdmaps.__file__)
assert f.startswith(venv + os.sep), "tdmaps imported from %s, not from the venv %s" % (f, venv)
assert tdmaps.__version__ == version, (tdmaps.__version__, version)
X = np.random.default_rng(1).random((50, 3))
d = tdmaps.pdist(X)
i, j = np.triu_indices(50, 1)
assert np.allclose(d, np.sqrt(((X[i] - X[j]) ** 2).sum(1)), rtol=1e-12, atol=0)
print("wheel_check: tdmaps", tdmaps.__version__, "from", f)
EOF
  )
}
# check_uninstall VENV BEFORE: pip uninstall leaves site-packages as BEFORE and no tdmaps file in the venv.
check_uninstall() {
  "$1/bin/python" -m pip uninstall -y tdmaps
  site_listing "$1" > "$WORK/after"
  diff -u "$2" "$WORK/after" || die "pip uninstall left site-packages different from before the install"
  left=$(find "$1" -iname '*tdmaps*' -print)
  [ -z "$left" ] || die "pip uninstall left: $left"
  if (cd "$WORK/empty" && "$1/bin/python" -c "import tdmaps" 2>/dev/null); then die "tdmaps still imports after uninstall"; fi
}

step "build the wheel: $PY -m build --wheel --no-isolation"
s=$(date +%s)
"$PY" -m build --wheel --no-isolation --outdir "$WORK/dist" "$ROOT"
echo "wheel_check: wheel built in $(( $(date +%s) - s )) s"
shopt -s nullglob
wheels=("$WORK"/dist/tdmaps-"$VERSION"-*.whl)
[ ${#wheels[@]} = 1 ] || die "expected one wheel tdmaps-$VERSION-*.whl, found: $(ls "$WORK/dist")"
WHL=${wheels[0]}
echo "wheel_check: $(basename "$WHL")"

step "fresh venv elsewhere, install the wheel"
V="$WORK/venv-wheel"
"$PY" -m venv --system-site-packages "$V"
site_listing "$V" > "$WORK/before"
"$V/bin/python" -m pip install "$WHL"
check_import "$V"

step "pytest suite against the installed package"
cp -r "$ROOT/python/tests" "$WORK/tests"
rm -rf "$WORK/tests/__pycache__"
(cd "$WORK/tests" && "$V/bin/python" - <<'EOF'
import os, sys, tdmaps
assert os.path.realpath(tdmaps.__file__).startswith(os.path.realpath(sys.prefix) + os.sep), tdmaps.__file__
EOF
)
s=$(date +%s)
# TDMAPS_TESTS_INSTALLED: the suite's build-tree checks (CMakeCache.txt, the CLIs
# beside the module) skip; TDMAPS_SOURCE_DIR: the source tree of the version check.
(cd "$WORK/tests" && TDMAPS_TESTS_INSTALLED=1 TDMAPS_SOURCE_DIR="$ROOT" PYTHONDONTWRITEBYTECODE=1 \
   "$V/bin/python" -m pytest -q -p no:cacheprovider .)
echo "wheel_check: pytest in $(( $(date +%s) - s )) s"

step "pip uninstall"
check_uninstall "$V" "$WORK/before"

if [ "$SOURCE" = 1 ]; then
  step "pip install --no-build-isolation <repository> into a second venv"
  V2="$WORK/venv-source"
  "$PY" -m venv --system-site-packages "$V2"
  site_listing "$V2" > "$WORK/before2"
  s=$(date +%s)
  "$V2/bin/python" -m pip install --no-build-isolation "$ROOT"
  echo "wheel_check: pip install . in $(( $(date +%s) - s )) s"
  check_import "$V2"
  check_uninstall "$V2" "$WORK/before2"
fi
step "passed"
