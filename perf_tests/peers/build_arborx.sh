#!/usr/bin/env bash
# Builds the ArborX peer benchmark for the GPU machine (CUDA, static), into
# .device/bin/arborx_bench. A peer measured beside tdmaps, not a dependency:
# nothing of tdmaps' own build or the README's commands needs it.
#
#   bash perf_tests/peers/build_arborx.sh [--arch HOPPER90] [--jobs N] [--vendor DIR] [--rebuild] [--host]
#
# Steps, each skipped when its result is already there (idempotent):
#   1. Kokkos 4.6.01 (vendor tarball + cmake/patches/kokkos-4.6.01/ for CUDA 13),
#      CUDA + Serial, C++20 (ArborX 2.1 needs it), static, Release
#      -> .cache/peers/kokkos-4.6.01-cuda-<arch>
#   2. ArborX 2.1 (header-only: configure + install) -> .cache/peers/arborx-2.1-cuda-<arch>
#   3. perf_tests/peers/arborx (cudart linked statically) -> .device/bin/arborx_bench
# Sources come from ../shared/vendor beside the checkout (--vendor or
# TDMAPS_VENDOR move it); nvcc from CUDACXX, PATH or /usr/local/cuda/bin.
# --host builds the same on the host instead (g++, Kokkos Serial + OpenMP, into
# .cache/peers/*-host and .cache/peers/build/arborx_bench-host/arborx_bench): a
# check of the benchmark's logic on a machine without a GPU, not a peer to time.
# On a shared machine run it niced: nice -n 19 bash perf_tests/peers/build_arborx.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VENDOR=${TDMAPS_VENDOR:-$ROOT/../shared/vendor}
ARCH=HOPPER90
JOBS=2
REBUILD=0
HOST=0

die() { echo "build_arborx.sh: error: $*" >&2; exit 1; }
say() { echo "build_arborx.sh: $*" >&2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --arch) [ $# -ge 2 ] || die "--arch needs a value (e.g. HOPPER90)"; ARCH=$2; shift 2 ;;
    --jobs|-j) [ $# -ge 2 ] || die "--jobs needs a value"; JOBS=$2; shift 2 ;;
    --vendor) [ $# -ge 2 ] || die "--vendor needs a directory"; VENDOR=$2; shift 2 ;;
    --rebuild) REBUILD=1; shift ;;
    --host) HOST=1; shift ;;
    -h|--help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (known: --arch ARCH, --jobs N, --vendor DIR, --rebuild, --host)" ;;
  esac
done
case "$ARCH" in TURING75|AMPERE80|AMPERE86|ADA89|HOPPER90) ;; *) die "unknown arch '$ARCH' (known: TURING75 AMPERE80 AMPERE86 ADA89 HOPPER90; CUDA 13 needs sm_75+)" ;; esac
case "$JOBS" in ''|*[!0-9]*) die "--jobs needs a positive integer, got '$JOBS'" ;; esac

KOKKOS_TGZ=$VENDOR/kokkos-4.6.01.tar.gz
ARBORX_TGZ=$VENDOR/arborx-2.1.tar.gz
for f in "$KOKKOS_TGZ" "$ARBORX_TGZ"; do [ -f "$f" ] || die "missing $f (set --vendor DIR or TDMAPS_VENDOR)"; done
if [ -f "$VENDOR/SHA256SUMS" ]; then
  (cd "$VENDOR" && grep -E ' (kokkos-4\.6\.01|arborx-2\.1)\.tar\.gz$' SHA256SUMS | sha256sum -c --quiet -) \
    || die "sha256 of the vendor tarballs does not match $VENDOR/SHA256SUMS"
fi

command -v cmake >/dev/null || die "cmake not found"
if [ "$HOST" = 0 ]; then
  NVCC=${CUDACXX:-}
  [ -n "$NVCC" ] || NVCC=$(command -v nvcc || true)
  [ -n "$NVCC" ] || { [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc; }
  [ -n "$NVCC" ] && [ -x "$NVCC" ] || die "nvcc not found (CUDACXX, PATH, /usr/local/cuda/bin)"
  export PATH="$(dirname "$NVCC"):$PATH"
  NVCC_WRAPPER_DEFAULT_ARCH="sm_${ARCH//[!0-9]/}"; export NVCC_WRAPPER_DEFAULT_ARCH
  TAG=cuda-$ARCH
  COMPILER_ID="$(g++ --version 2>/dev/null | head -1); $("$NVCC" --version 2>/dev/null | tail -1)"
else
  command -v g++ >/dev/null || die "g++ not found"
  TAG=host
  COMPILER_ID=$(g++ --version 2>/dev/null | head -1)
fi
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)

CACHE=$ROOT/.cache/peers
KSRC=$CACHE/src/kokkos-4.6.01-$TAG
ASRC=$CACHE/src/$TAG/ArborX-2.1
KPREFIX=$CACHE/kokkos-4.6.01-$TAG
APREFIX=$CACHE/arborx-2.1-$TAG
BLD=$CACHE/build
LOGS=$CACHE/logs
OUTBIN=$ROOT/.device/bin
mkdir -p "$CACHE/src" "$BLD" "$LOGS"

if [ "$REBUILD" = 1 ]; then rm -rf "$KPREFIX" "$APREFIX" "$BLD/arborx_bench-$TAG"; fi
if [ -f "$KPREFIX/.complete" ] && [ "$(cat "$KPREFIX/.complete")" != "$COMPILER_ID" ]; then
  say "$KPREFIX was built with another compiler: rebuilding"; rm -rf "$KPREFIX" "$APREFIX"
fi

run_logged() {  # run_logged LOG cmd...
  local log=$1; shift
  "$@" >> "$log" 2>&1 || { tail -40 "$log" >&2; die "failed: $* (log: $log)"; }
}

if [ "$HOST" = 0 ]; then
  KFLAGS=(-DCMAKE_CXX_COMPILER="$KSRC/bin/nvcc_wrapper" -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_CUDA=ON
          -DKokkos_ARCH_$ARCH=ON)
  CXX_AFTER=$KPREFIX/bin/nvcc_wrapper
  WHAT="CUDA $ARCH"
else
  KFLAGS=(-DCMAKE_CXX_COMPILER=g++ -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON)
  CXX_AFTER=g++
  WHAT="host: Serial + OpenMP"
fi

# ---------------------------------------------------------------- 1. Kokkos
if [ ! -f "$KPREFIX/.complete" ]; then
  say "building Kokkos 4.6.01 ($WHAT, C++20, static) -> $KPREFIX (log: $LOGS/kokkos-$TAG.log)"
  t0=$(date +%s)
  rm -rf "$KSRC" "$BLD/kokkos-$TAG" "$KPREFIX"; mkdir -p "$KSRC"
  tar -xzf "$KOKKOS_TGZ" -C "$KSRC"
  [ -f "$KSRC/CMakeLists.txt" ] || die "$KOKKOS_TGZ is not an unprefixed Kokkos source archive"
  for p in $(find "$ROOT/cmake/patches/kokkos-4.6.01" -name '*.patch' 2>/dev/null | LC_ALL=C sort); do
    patch -d "$KSRC" -p1 --forward --quiet < "$p" || die "patch $(basename "$p") does not apply"
  done
  : > "$LOGS/kokkos-$TAG.log"
  run_logged "$LOGS/kokkos-$TAG.log" cmake -S "$KSRC" -B "$BLD/kokkos-$TAG" "${GEN[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=20 -DCMAKE_CXX_EXTENSIONS=OFF \
    -DCMAKE_INSTALL_PREFIX="$KPREFIX" -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF \
    "${KFLAGS[@]}" -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF
  run_logged "$LOGS/kokkos-$TAG.log" cmake --build "$BLD/kokkos-$TAG" -j "$JOBS"
  run_logged "$LOGS/kokkos-$TAG.log" cmake --install "$BLD/kokkos-$TAG"
  rm -rf "$BLD/kokkos-$TAG" "$KSRC"
  echo "$COMPILER_ID" > "$KPREFIX/.complete"
  say "Kokkos built in $(( $(date +%s) - t0 )) s"
else
  say "Kokkos: using $KPREFIX"
fi

# ---------------------------------------------------------------- 2. ArborX
if [ ! -f "$APREFIX/.complete" ]; then
  say "installing ArborX 2.1 (header-only) -> $APREFIX"
  rm -rf "$(dirname "$ASRC")" "$BLD/arborx-$TAG" "$APREFIX"; mkdir -p "$(dirname "$ASRC")"
  tar -xzf "$ARBORX_TGZ" -C "$(dirname "$ASRC")"
  [ -f "$ASRC/CMakeLists.txt" ] || die "$ARBORX_TGZ did not unpack to ArborX-2.1/"
  : > "$LOGS/arborx-$TAG.log"
  run_logged "$LOGS/arborx-$TAG.log" cmake -S "$ASRC" -B "$BLD/arborx-$TAG" "${GEN[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX_AFTER" \
    -DKokkos_ROOT="$KPREFIX" -DCMAKE_INSTALL_PREFIX="$APREFIX" \
    -DARBORX_ENABLE_MPI=OFF -DARBORX_ENABLE_TESTS=OFF -DARBORX_ENABLE_EXAMPLES=OFF -DARBORX_ENABLE_BENCHMARKS=OFF
  run_logged "$LOGS/arborx-$TAG.log" cmake --build "$BLD/arborx-$TAG" -j "$JOBS"
  run_logged "$LOGS/arborx-$TAG.log" cmake --install "$BLD/arborx-$TAG"
  rm -rf "$BLD/arborx-$TAG" "$(dirname "$ASRC")"
  echo "$COMPILER_ID" > "$APREFIX/.complete"
else
  say "ArborX: using $APREFIX"
fi

# ---------------------------------------------------------------- 3. benchmark
BBLD=$BLD/arborx_bench-$TAG
say "building arborx_bench (log: $LOGS/arborx_bench-$TAG.log)"
: > "$LOGS/arborx_bench-$TAG.log"
run_logged "$LOGS/arborx_bench-$TAG.log" cmake -S "$ROOT/perf_tests/peers/arborx" -B "$BBLD" "${GEN[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX_AFTER" \
  -DKokkos_ROOT="$KPREFIX" -DArborX_ROOT="$APREFIX" -DARBORX_BENCH_CUDART_STATIC=$([ "$HOST" = 0 ] && echo ON || echo OFF)
run_logged "$LOGS/arborx_bench-$TAG.log" cmake --build "$BBLD" -j "$JOBS"
if [ "$HOST" = 1 ]; then
  say "built $BBLD/arborx_bench (host check build; not copied to .device/)"
  exit 0
fi
mkdir -p "$OUTBIN"
install -m 0755 "$BBLD/arborx_bench" "$OUTBIN/arborx_bench"

# The GPU machine has the driver only: no shared CUDA runtime, no Kokkos .so.
if command -v ldd >/dev/null; then
  bad=$(ldd "$OUTBIN/arborx_bench" | grep -E 'libcudart|libkokkos|libarborx' || true)
  [ -z "$bad" ] || die "arborx_bench needs shared libraries the GPU machine lacks: $bad"
fi
say "built $OUTBIN/arborx_bench ($(du -h "$OUTBIN/arborx_bench" | cut -f1))"
