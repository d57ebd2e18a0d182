#!/usr/bin/env bash
# tdmaps dependency bootstrap.
#
# Installs the Debian packages the project needs, obtains Kokkos 3.4.01 and
# Kokkos Kernels 3.4.01 from Debian's `trilinos` 13.2.0-4 source package,
# verifies its sha256, applies the project's patch files (cmake/patches/), and
# builds + installs one Kokkos prefix per preset into an ignored cache folder
# keyed by the tarball hash and the patch hash. A second run is free.
#
#   bash cmake/bootstrap.sh [--preset host|threads|cuda|hip] [--arch HOPPER90|AMD_GFX90A] [--no-apt]
#                           [--kokkos-source TARBALL [--kokkos-kernels-source TARBALL]]
#                           [--no-deprecated]
#
# After a successful run, .cache/kokkos-<preset> is a symbolic link to the
# installed prefix; CMakePresets.json points Kokkos_ROOT at it.
# Users with their own Kokkos skip all of this: cmake -DKokkos_ROOT=<prefix>.
# Presets: host (Serial + OpenMP, g++), threads (Serial + Threads, g++), cuda
# (Serial + CUDA, nvcc_wrapper; --arch one of the CUDA arches below) and hip
# (Serial + HIP, hipcc; --arch an AMD one, default AMD_GFX90A; Debian's
# hipcc, libamdhip64-dev and rocm-device-libs are installed; needs
# --kokkos-source, a Kokkos 4.x: this HIP is not tested with 3.4).
# TDMAPS_CACHE=<dir> keeps downloads, sources and prefixes elsewhere (e.g. one
# cache for many clones, as CI does); the links stay in this checkout's .cache.
# A prefix records the compiler it was built with and is rebuilt when that
# compiler changes.
#
# --kokkos-source builds another Kokkos release from its source tarball
# instead (e.g. ../shared/vendor/kokkos-4.6.01.tar.gz); Kokkos Kernels comes
# from kokkos-kernels-<version>.tar.gz beside it unless given. Each tarball is
# checked against a SHA256SUMS beside it when there is one; the patches in
# cmake/patches/kokkos-<version>/ (and kokkos-kernels-<version>/) are applied.
# The link is then .cache/kokkos-<preset>-k<major><minor> (kokkos-host-k46),
# so the default kokkos-<preset> stays the 3.4.01 one. --no-deprecated turns
# Kokkos_ENABLE_DEPRECATED_CODE_<major> off (needs --kokkos-source).
set -euo pipefail

die() { echo "tdmaps bootstrap: error: $*" >&2; exit 1; }
say() { echo "tdmaps bootstrap: $*" >&2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${TDMAPS_CACHE:-$ROOT/.cache}
PRESET=host
ARCH=""
APT=1
KSRC=""
KKSRC=""
NODEP=0
JOBS=${TDMAPS_JOBS:-$(nproc 2>/dev/null || echo 2)}

TARBALL=trilinos_13.2.0.orig.tar.gz
TARBALL_SHA=0ddb47784ba7b8a6b9a07a4822b33be508feb4ccd54301b2a5d10c9e54524b90
SRCPKG="trilinos=13.2.0-4"
# CUDA 13 compiles for sm_75 and newer only.
KNOWN_ARCHES="TURING75 AMPERE80 AMPERE86 HOPPER90"
# HIP: CDNA (64-lane wavefronts) and RDNA (32), as Kokkos names them.
KNOWN_HIP_ARCHES="AMD_GFX90A AMD_GFX942 AMD_GFX1100"

while [ $# -gt 0 ]; do
  case "$1" in
    --preset) [ $# -ge 2 ] || die "--preset needs a value (host, threads, cuda or hip)"; PRESET=$2; shift 2 ;;
    --preset=*) PRESET=${1#*=}; shift ;;
    --arch) [ $# -ge 2 ] || die "--arch needs a value (one of: $KNOWN_ARCHES $KNOWN_HIP_ARCHES)"; ARCH=$2; shift 2 ;;
    --arch=*) ARCH=${1#*=}; shift ;;
    --no-apt) APT=0; shift ;;
    --kokkos-source) [ $# -ge 2 ] || die "--kokkos-source needs a value (a Kokkos source .tar.gz)"; KSRC=$2; shift 2 ;;
    --kokkos-source=*) KSRC=${1#*=}; shift ;;
    --kokkos-kernels-source) [ $# -ge 2 ] || die "--kokkos-kernels-source needs a value (a Kokkos Kernels source .tar.gz)"; KKSRC=$2; shift 2 ;;
    --kokkos-kernels-source=*) KKSRC=${1#*=}; shift ;;
    --no-deprecated) NODEP=1; shift ;;
    -h|--help) sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (known: --preset host|threads|cuda|hip, --arch ARCH, --no-apt, --kokkos-source TARBALL, --kokkos-kernels-source TARBALL, --no-deprecated)" ;;
  esac
done
case "$PRESET" in host|threads|cuda|hip) ;; *) die "unknown preset '$PRESET' (known presets: host, threads, cuda, hip)" ;; esac
if [ "$PRESET" = hip ]; then
  [ -n "$ARCH" ] || ARCH=AMD_GFX90A
  case " $KNOWN_HIP_ARCHES " in *" $ARCH "*) ;; *) die "unknown HIP arch '$ARCH' (known: $KNOWN_HIP_ARCHES)" ;; esac
  [ -n "$KSRC" ] || die "preset 'hip' needs --kokkos-source (a Kokkos 4.x tarball, e.g. kokkos-4.6.01.tar.gz)"
else
  [ -n "$ARCH" ] || ARCH=HOPPER90
  case " $KNOWN_ARCHES " in *" $ARCH "*) ;; *) die "unknown CUDA arch '$ARCH' (known: $KNOWN_ARCHES)" ;; esac
fi
if [ -z "$KSRC" ]; then
  [ -z "$KKSRC" ] || die "--kokkos-kernels-source needs --kokkos-source (the default builds both from Debian's trilinos source)"
  [ "$NODEP" = 0 ] || die "--no-deprecated needs --kokkos-source (it is for Kokkos 4.x; the default is 3.4.01)"
else
  # Relative paths are the caller's, not the repository root's.
  abspath() { [ -f "$1" ] || die "$2 '$1': no such file"; echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
  KSRC=$(abspath "$KSRC" --kokkos-source)
  [ -z "$KKSRC" ] || KKSRC=$(abspath "$KKSRC" --kokkos-kernels-source)
fi

# ---------------------------------------------------------------- packages
PKGS="cmake g++ ninja-build make patch ca-certificates dpkg-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev gnuplot-nox python3 python3-numpy python3-scipy pybind11-dev python3-pybind11 python3-pytest python3-build python3-venv python3-mpi4py python3-mypy libopenmpi-dev openmpi-bin"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$APT" = 0 ]; then
    die "missing Debian packages:$missing (rerun without --no-apt as root, or install them)"
  fi
  [ "$(id -u)" = 0 ] || die "missing Debian packages:$missing; installing them needs root (run as root, or: sudo apt-get install$missing)"
  command -v apt-get >/dev/null || die "apt-get not found: this bootstrap needs a Debian machine (missing:$missing)"
  say "installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || die "apt-get update failed"
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null || die "apt-get install failed for:$missing"
fi

if [ "$PRESET" = hip ]; then
  hip_missing=""
  for p in hipcc libamdhip64-dev rocm-device-libs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || hip_missing="$hip_missing $p"
  done
  if [ -n "$hip_missing" ]; then
    [ "$APT" = 1 ] || die "preset 'hip' needs the Debian packages:$hip_missing (rerun without --no-apt as root)"
    [ "$(id -u)" = 0 ] || die "preset 'hip' needs the Debian packages:$hip_missing; installing them needs root"
    say "installing:$hip_missing"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $hip_missing >/dev/null || die "apt-get install failed for:$hip_missing"
  fi
  HIPCC=$(command -v hipcc || true)
  [ -n "$HIPCC" ] || die "preset 'hip' needs hipcc (Debian: hipcc), not found on PATH"
fi
if [ "$PRESET" = cuda ]; then
  NVCC=${CUDACXX:-}
  [ -n "$NVCC" ] || NVCC=$(command -v nvcc || true)
  [ -n "$NVCC" ] || { [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc; }
  [ -n "$NVCC" ] && [ -x "$NVCC" ] || die "preset 'cuda' needs nvcc (CUDA >= 11), not found on PATH or in /usr/local/cuda/bin; install the CUDA toolkit or set CUDACXX"
  export PATH="$(dirname "$NVCC"):$PATH"
fi

# ---------------------------------------------------------------- source
# sha256 of the *.patch files in the given folders of cmake/patches (those that exist).
patch_sha() {
  local d dirs=()
  for d in "$@"; do [ -d "$ROOT/cmake/patches/$d" ] && dirs+=("./$d"); done
  if [ ${#dirs[@]} -eq 0 ]; then printf '' | sha256sum | cut -c1-12; return; fi
  (cd "$ROOT/cmake/patches" && find "${dirs[@]}" -type f -name '*.patch' | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)
}
apply_patches() {  # apply_patches PATCHDIR SRCDIR
  local p
  [ -d "$ROOT/cmake/patches/$1" ] || return 0
  for p in $(find "$ROOT/cmake/patches/$1" -name '*.patch' | LC_ALL=C sort); do
    patch -d "$2" -p1 --forward --quiet < "$p" || die "patch $1/$(basename "$p") does not apply to $(basename "$2")"
  done
}

# A release tarball is `git archive` output (files at the top) or a GitHub
# release (one top folder). Prints the path of its top CMakeLists.txt.
tar_top_cmakelists() {
  local list m
  list=$(tar -tzf "$1" 2>/dev/null) || die "cannot read '$1' as a .tar.gz"
  m=$(grep -m1 -xE '(\./)?CMakeLists\.txt' <<<"$list" || true)
  if [ -z "$m" ] && [ "$(sed 's,^\./,,; s,/.*,,' <<<"$list" | sort -u | wc -l)" = 1 ]; then
    m=$(grep -m1 -xE '(\./)?[^/]+/CMakeLists\.txt' <<<"$list" || true)
  fi
  [ -n "$m" ] || die "'$1' does not look like a source tarball (no top-level CMakeLists.txt)"
  echo "$m"
}
# Version of package $2 (Kokkos or KokkosKernels) whose top CMakeLists.txt in
# tarball $1 is $3, as MAJOR.MINOR.PATCH with a two-digit patch, the spelling
# of its release tags.
tar_version() {
  local cml part v=()
  cml=$(tar -xzOf "$1" "$3")
  for part in MAJOR MINOR PATCH; do
    v+=("$(sed -n "s/^ *set *( *$2_VERSION_$part  *\([0-9][0-9]*\) *).*/\1/Ip" <<<"$cml" | sed -n 1p)")
  done
  [ -n "${v[0]}" ] && [ -n "${v[1]}" ] && [ -n "${v[2]}" ] || die "'$1' is not a $2 source tarball (no $2_VERSION in its CMakeLists.txt)"
  printf '%d.%d.%02d\n' "${v[0]}" "${v[1]}" "${v[2]}"
}
# Components to strip on extraction: 0 or 1, from the top CMakeLists.txt path.
strip_of() { local m=${1#./}; [ "$m" = CMakeLists.txt ] && echo 0 || echo 1; }
# sha256 of $1, checked against a SHA256SUMS beside it when there is one.
verified_sha() {
  local sums want got
  sums="$(dirname "$1")/SHA256SUMS"
  got=$(sha256sum "$1" | cut -d' ' -f1)
  if [ -f "$sums" ]; then
    want=$(awk -v n="$(basename "$1")" '{f=$2; sub(/^\*/, "", f)} f == n {print $1; exit}' "$sums")
    [ -n "$want" ] || die "$(basename "$1") is not listed in $sums"
    [ "$want" = "$got" ] || die "sha256 mismatch for $1 (SHA256SUMS: $want, file: $got)"
  else
    say "no SHA256SUMS beside $1: not verified"
  fi
  echo "$got"
}

if [ -z "$KSRC" ]; then
  mkdir -p "$CACHE/downloads"
  tarball="$CACHE/downloads/$TARBALL"
  if [ ! -f "$tarball" ] || ! echo "$TARBALL_SHA  $tarball" | sha256sum -c --status; then
    rm -f "$tarball"
    say "downloading Debian source package $SRCPKG"
    tmp=$(mktemp -d "$CACHE/downloads/tmp.XXXXXX")
    if ! (cd "$tmp" && apt-get source --download-only "$SRCPKG" >/dev/null 2>"$tmp/err"); then
      if [ "$(id -u)" = 0 ] && ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
        # Derive a deb-src entry from the machine's own Debian entry (no host name is written here).
        src=/etc/apt/sources.list.d/debian.sources
        [ -f "$src" ] || die "no deb-src entry and no $src to derive one from; add a deb-src line for bookworm"
        sed 's/^Types: deb$/Types: deb-src/' "$src" > /etc/apt/sources.list.d/tdmaps-deb-src.sources
        apt-get update -qq || die "apt-get update failed after adding deb-src"
        (cd "$tmp" && apt-get source --download-only "$SRCPKG" >/dev/null 2>"$tmp/err") \
          || { cat "$tmp/err" >&2; die "apt-get source $SRCPKG failed"; }
      else
        cat "$tmp/err" >&2
        die "apt-get source $SRCPKG failed (needs a deb-src entry for bookworm; as root this script adds one)"
      fi
    fi
    [ -f "$tmp/$TARBALL" ] || die "apt-get source did not produce $TARBALL"
    mv "$tmp/$TARBALL" "$tarball"; rm -rf "$tmp"
    echo "$TARBALL_SHA  $tarball" | sha256sum -c --status \
      || { rm -f "$tarball"; die "sha256 mismatch for $TARBALL (expected $TARBALL_SHA)"; }
  fi

  # cmake/patches/kokkos{,-kernels}/ hold the 3.4.01 patches; the folders of
  # other releases must not change this key.
  PATCH_SHA=$(patch_sha kokkos kokkos-kernels)
  KEY="${TARBALL_SHA:0:12}-$PATCH_SHA"
  SRC="$CACHE/src/$KEY"
  KMAJOR=3
  LINK="kokkos-$PRESET"
  if [ ! -f "$SRC/.complete" ]; then
    say "extracting Kokkos and Kokkos Kernels (key $KEY)"
    rm -rf "$SRC"; mkdir -p "$SRC"
    tar -xzf "$tarball" -C "$SRC" --strip-components=2 --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
    for pkg in kokkos kokkos-kernels; do
      apply_patches "$pkg" "$SRC/$pkg"
    done
    touch "$SRC/.complete"
  fi
else
  KCML=$(tar_top_cmakelists "$KSRC")
  KVER=$(tar_version "$KSRC" Kokkos "$KCML")
  if [ -z "$KKSRC" ]; then
    KKSRC="$(dirname "$KSRC")/kokkos-kernels-$KVER.tar.gz"
    [ -f "$KKSRC" ] || die "no Kokkos Kernels tarball $KKSRC beside the Kokkos one; pass --kokkos-kernels-source TARBALL"
  fi
  KKCML=$(tar_top_cmakelists "$KKSRC")
  KKVER=$(tar_version "$KKSRC" KokkosKernels "$KKCML")
  # Kokkos Kernels supports only the Kokkos release line of the same major.minor.
  [ "${KVER%.*}" = "${KKVER%.*}" ] || die "Kokkos $KVER and Kokkos Kernels $KKVER do not match (need the same major.minor)"
  KSHA=$(verified_sha "$KSRC")
  KKSHA=$(verified_sha "$KKSRC")
  KMAJOR=${KVER%%.*}
  KMINOR=${KVER#*.}; KMINOR=${KMINOR%%.*}
  [ $((KMAJOR * 100 + KMINOR)) -ge 304 ] || die "Kokkos $KVER is too old (tdmaps needs Kokkos >= 3.4)"
  PATCH_SHA=$(patch_sha "kokkos-$KVER" "kokkos-kernels-$KKVER")
  KEY="k$KVER-${KSHA:0:12}-${KKSHA:0:12}-$PATCH_SHA"
  SRC="$CACHE/src/$KEY"
  LINK="kokkos-$PRESET-k$KMAJOR$KMINOR"
  if [ ! -f "$SRC/.complete" ]; then
    say "extracting Kokkos $KVER and Kokkos Kernels $KKVER (key $KEY)"
    rm -rf "$SRC"; mkdir -p "$SRC/kokkos" "$SRC/kokkos-kernels"
    tar -xzf "$KSRC" -C "$SRC/kokkos" --strip-components="$(strip_of "$KCML")"
    tar -xzf "$KKSRC" -C "$SRC/kokkos-kernels" --strip-components="$(strip_of "$KKCML")"
    apply_patches "kokkos-$KVER" "$SRC/kokkos"
    apply_patches "kokkos-kernels-$KKVER" "$SRC/kokkos-kernels"
    touch "$SRC/.complete"
  fi
fi

# ---------------------------------------------------------------- build
# Kokkos is built position-independent: the Python module (python/) links its
# static libraries into a shared object. The "pic" in the name keeps a prefix
# built before that from being reused.
case "$PRESET" in
  host|threads) NAME="$KEY-pic-$PRESET" ;;
  *) NAME="$KEY-pic-$PRESET-$ARCH" ;;
esac
if [ "$NODEP" = 1 ]; then NAME="$NAME-nodep"; fi
PREFIX="$CACHE/install/$NAME"
# The compiler a prefix is built with is part of what it is: recorded in
# .complete, checked on reuse (an empty .complete predates the record).
case "$PRESET" in
  host|threads) COMPILER_ID=$(g++ --version 2>/dev/null | head -1) ;;
  hip) COMPILER_ID=$("$HIPCC" --version 2>/dev/null | grep -m1 -i "clang version") ;;
  *) COMPILER_ID="$(g++ --version 2>/dev/null | head -1); $("$NVCC" --version 2>/dev/null | tail -1)" ;;
esac
if [ -f "$PREFIX/.complete" ] && [ -s "$PREFIX/.complete" ] && [ "$(cat "$PREFIX/.complete")" != "$COMPILER_ID" ]; then
  say "$PREFIX was built with another compiler ($(cat "$PREFIX/.complete")): rebuilding"
  rm -f "$PREFIX/.complete"
fi
if [ ! -f "$PREFIX/.complete" ]; then
  BLD="$CACHE/build/$NAME"
  rm -rf "$BLD" "$PREFIX"
  mkdir -p "$BLD" "$CACHE/logs"
  LOG="$CACHE/logs/$NAME"
  common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
          -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_POSITION_INDEPENDENT_CODE=ON)
  if [ "$PRESET" = host ]; then
    kflags=(-DCMAKE_CXX_COMPILER=g++ -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON)
    kkflags=(-DCMAKE_CXX_COMPILER=g++)
  elif [ "$PRESET" = threads ]; then
    kflags=(-DCMAKE_CXX_COMPILER=g++ -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_THREADS=ON)
    kkflags=(-DCMAKE_CXX_COMPILER=g++)
  elif [ "$PRESET" = hip ]; then
    # rocThrust is not packaged by Debian; Kokkos uses it only for its sort.
    kflags=(-DCMAKE_CXX_COMPILER="$HIPCC" -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_HIP=ON -DKokkos_ARCH_$ARCH=ON
            -DKokkos_ENABLE_ROCTHRUST=OFF)
    kkflags=(-DCMAKE_CXX_COMPILER="$HIPCC" -DKokkosKernels_ENABLE_TPL_ROCBLAS=OFF -DKokkosKernels_ENABLE_TPL_ROCSPARSE=OFF
             -DKokkosKernels_ENABLE_TPL_ROCSOLVER=OFF)
  else
    NVCC_WRAPPER_DEFAULT_ARCH="sm_${ARCH//[!0-9]/}"; export NVCC_WRAPPER_DEFAULT_ARCH
    kflags=(-DCMAKE_CXX_COMPILER="$SRC/kokkos/bin/nvcc_wrapper" -DKokkos_ENABLE_SERIAL=ON
            -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ARCH_$ARCH=ON)
    kkflags=(-DCMAKE_CXX_COMPILER="$PREFIX/bin/nvcc_wrapper" -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF
             -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF)
    # Kokkos Kernels 4.x also turns cuSOLVER on with CUDA: keep the binaries
    # free of CUDA math libraries, as with 3.4.
    [ "$KMAJOR" -lt 4 ] || kkflags+=(-DKokkosKernels_ENABLE_TPL_CUSOLVER=OFF)
  fi
  [ "$NODEP" = 0 ] || kflags+=(-DKokkos_ENABLE_DEPRECATED_CODE_$KMAJOR=OFF)
  say "building Kokkos ($PRESET) -> $PREFIX"
  t0=$(date +%s)
  cmake -S "$SRC/kokkos" -B "$BLD/kokkos" "${common[@]}" "${kflags[@]}" > "$LOG.kokkos.log" 2>&1 \
    && cmake --build "$BLD/kokkos" -j "$JOBS" >> "$LOG.kokkos.log" 2>&1 \
    && cmake --install "$BLD/kokkos" >> "$LOG.kokkos.log" 2>&1 \
    || { tail -40 "$LOG.kokkos.log" >&2; die "Kokkos build failed (log: $LOG.kokkos.log)"; }
  say "building Kokkos Kernels ($PRESET, header-only)"
  cmake -S "$SRC/kokkos-kernels" -B "$BLD/kernels" "${common[@]}" "${kkflags[@]}" -DKokkos_ROOT="$PREFIX" \
        -DKokkosKernels_ADD_DEFAULT_ETI=OFF -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF \
        > "$LOG.kernels.log" 2>&1 \
    && cmake --build "$BLD/kernels" -j "$JOBS" >> "$LOG.kernels.log" 2>&1 \
    && cmake --install "$BLD/kernels" >> "$LOG.kernels.log" 2>&1 \
    || { tail -40 "$LOG.kernels.log" >&2; die "Kokkos Kernels build failed (log: $LOG.kernels.log)"; }
  rm -rf "$BLD"
  echo "$COMPILER_ID" > "$PREFIX/.complete"
  say "built $PRESET prefix in $(( $(date +%s) - t0 )) s"
fi
# CMakePresets.json finds the prefix through $ROOT/.cache/$LINK.
if [ "$CACHE" -ef "$ROOT/.cache" ]; then
  ln -sfn "install/$NAME" "$ROOT/.cache/$LINK"
else
  mkdir -p "$ROOT/.cache"
  ln -sfn "$PREFIX" "$ROOT/.cache/$LINK"
fi
echo "$PREFIX"
