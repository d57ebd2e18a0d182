#!/usr/bin/env bash
# tdmaps one-command driver (the README's two commands call it).
#
#   bash cmake/run.sh main  [--preset host|cuda]   set up, build the apps, run the main job
#   bash cmake/run.sh test  [--preset host|cuda]   set up, build, run the unit tests
#   bash cmake/run.sh build [--preset host|cuda]   set up and build only
#
# Set-up (Debian packages, Kokkos) is cmake/bootstrap.sh: idempotent and
# cached, so the second command reuses what the first one built.
# Environment: TDMAPS_WERROR=ON builds the project's targets with -Werror;
# TDMAPS_JOBS sets the build parallelism; TDMAPS_CMAKE_ARGS adds configure
# arguments (split at white space), e.g. -DTDMAPS_HOST_OPTIMIZATION=-O0.
set -euo pipefail

die() { echo "tdmaps: error: $*" >&2; exit 1; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

[ $# -ge 1 ] || die "usage: bash cmake/run.sh main|test|build [--preset host|cuda] [--arch ARCH]"
ACTION=$1; shift
case "$ACTION" in main|test|build) ;; *) die "unknown action '$ACTION' (known: main, test, build)" ;; esac
PRESET=host
BOOT=()
while [ $# -gt 0 ]; do
  case "$1" in
    --preset) [ $# -ge 2 ] || die "--preset needs a value (host or cuda)"; PRESET=$2; shift 2 ;;
    --preset=*) PRESET=${1#*=}; shift ;;
    --arch) [ $# -ge 2 ] || die "--arch needs a value"; BOOT+=(--arch "$2"); shift 2 ;;
    *) die "unknown option '$1' (known: --preset host|cuda, --arch ARCH)" ;;
  esac
done
case "$PRESET" in host|cuda) ;; *) die "unknown preset '$PRESET' (known presets: host, cuda)" ;; esac

bash "$ROOT/cmake/bootstrap.sh" --preset "$PRESET" "${BOOT[@]}" >/dev/null
[ "$PRESET" != cuda ] || export PATH="$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"):$PATH"

mkdir -p "$ROOT/build"
JOBS=${TDMAPS_JOBS:-$(nproc 2>/dev/null || echo 2)}
read -r -a EXTRA <<< "${TDMAPS_CMAKE_ARGS:-}"
cmake --preset "$PRESET" -DTDMAPS_WERROR="${TDMAPS_WERROR:-OFF}" "${EXTRA[@]}" >"$ROOT/build/.configure-$PRESET.log" 2>&1 \
  || { mkdir -p build; cat "$ROOT/build/.configure-$PRESET.log" >&2 2>/dev/null; die "configure of preset '$PRESET' failed"; }
# The main job needs the three apps only; the tests and benchmarks are built by
# 'test' and 'build'.
if [ "$ACTION" = main ]; then
  cmake --build --preset "$PRESET" -j "$JOBS" --target tdmaps-edm tdmaps-collide tdmaps-triplets
else
  cmake --build --preset "$PRESET" -j "$JOBS"
fi

BIN="$ROOT/build/$PRESET/bin"
case "$ACTION" in
  build) ;;
  test)
    [ "$PRESET" = host ] || die "the '$PRESET' tests need its device: run the executables build/$PRESET/bin/tdmaps_unit_tests_* there"
    export OMP_PROC_BIND=${OMP_PROC_BIND:-false}
    ctest --test-dir "build/$PRESET" --output-on-failure -j "$JOBS" --timeout 900
    ;;
  main)
    export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
    python3 "$ROOT/apps/demo.py" --bin "$BIN"
    ;;
esac
