#!/usr/bin/env bash
# tdmaps dependency bootstrap.
#
# Installs the Debian packages the project needs, obtains Kokkos 3.4.01 and
# Kokkos Kernels 3.4.01 from Debian's `trilinos` 13.2.0-4 source package,
# verifies its sha256, applies the project's patch files (cmake/patches/), and
# builds + installs one Kokkos prefix per preset into an ignored cache folder
# keyed by the tarball hash and the patch hash. A second run is free.
#
#   bash cmake/bootstrap.sh [--preset host|cuda] [--arch HOPPER90] [--no-apt]
#
# After a successful run, .cache/kokkos-<preset> is a symbolic link to the
# installed prefix; CMakePresets.json points Kokkos_ROOT at it.
# Users with their own Kokkos skip all of this: cmake -DKokkos_ROOT=<prefix>.
set -euo pipefail

die() { echo "tdmaps bootstrap: error: $*" >&2; exit 1; }
say() { echo "tdmaps bootstrap: $*" >&2; }

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${TDMAPS_CACHE:-$ROOT/.cache}
PRESET=host
ARCH=HOPPER90
APT=1
JOBS=${TDMAPS_JOBS:-$(nproc 2>/dev/null || echo 2)}

TARBALL=trilinos_13.2.0.orig.tar.gz
TARBALL_SHA=0ddb47784ba7b8a6b9a07a4822b33be508feb4ccd54301b2a5d10c9e54524b90
SRCPKG="trilinos=13.2.0-4"
# CUDA 13 compiles for sm_75 and newer only.
KNOWN_ARCHES="TURING75 AMPERE80 AMPERE86 HOPPER90"

while [ $# -gt 0 ]; do
  case "$1" in
    --preset) [ $# -ge 2 ] || die "--preset needs a value (host or cuda)"; PRESET=$2; shift 2 ;;
    --preset=*) PRESET=${1#*=}; shift ;;
    --arch) [ $# -ge 2 ] || die "--arch needs a value (one of: $KNOWN_ARCHES)"; ARCH=$2; shift 2 ;;
    --arch=*) ARCH=${1#*=}; shift ;;
    --no-apt) APT=0; shift ;;
    -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (known: --preset host|cuda, --arch ARCH, --no-apt)" ;;
  esac
done
case "$PRESET" in host|cuda) ;; *) die "unknown preset '$PRESET' (known presets: host, cuda)" ;; esac
case " $KNOWN_ARCHES " in *" $ARCH "*) ;; *) die "unknown CUDA arch '$ARCH' (known: $KNOWN_ARCHES)" ;; esac

# ---------------------------------------------------------------- packages
PKGS="cmake g++ ninja-build make patch ca-certificates dpkg-dev libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev gnuplot-nox python3 python3-numpy python3-scipy"
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

if [ "$PRESET" = cuda ]; then
  NVCC=${CUDACXX:-}
  [ -n "$NVCC" ] || NVCC=$(command -v nvcc || true)
  [ -n "$NVCC" ] || { [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc; }
  [ -n "$NVCC" ] && [ -x "$NVCC" ] || die "preset 'cuda' needs nvcc (CUDA >= 11), not found on PATH or in /usr/local/cuda/bin; install the CUDA toolkit or set CUDACXX"
  export PATH="$(dirname "$NVCC"):$PATH"
fi

# ---------------------------------------------------------------- source
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

PATCH_SHA=$(cd "$ROOT/cmake/patches" && find . -type f -name '*.patch' | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)
KEY="${TARBALL_SHA:0:12}-$PATCH_SHA"
SRC="$CACHE/src/$KEY"
if [ ! -f "$SRC/.complete" ]; then
  say "extracting Kokkos and Kokkos Kernels (key $KEY)"
  rm -rf "$SRC"; mkdir -p "$SRC"
  tar -xzf "$tarball" -C "$SRC" --strip-components=2 --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
  for pkg in kokkos kokkos-kernels; do
    [ -d "$ROOT/cmake/patches/$pkg" ] || continue
    for p in $(find "$ROOT/cmake/patches/$pkg" -name '*.patch' | LC_ALL=C sort); do
      patch -d "$SRC/$pkg" -p1 --forward --quiet < "$p" || die "patch $(basename "$p") does not apply to $pkg"
    done
  done
  touch "$SRC/.complete"
fi

# ---------------------------------------------------------------- build
if [ "$PRESET" = host ]; then
  NAME="$KEY-host"
else
  NAME="$KEY-cuda-$ARCH"
fi
PREFIX="$CACHE/install/$NAME"
if [ ! -f "$PREFIX/.complete" ]; then
  BLD="$CACHE/build/$NAME"
  rm -rf "$BLD" "$PREFIX"
  mkdir -p "$BLD" "$CACHE/logs"
  LOG="$CACHE/logs/$NAME"
  common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 -DCMAKE_CXX_EXTENSIONS=OFF
          -DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LIBDIR=lib)
  if [ "$PRESET" = host ]; then
    kflags=(-DCMAKE_CXX_COMPILER=g++ -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON)
    kkflags=(-DCMAKE_CXX_COMPILER=g++)
  else
    NVCC_WRAPPER_DEFAULT_ARCH="sm_${ARCH//[!0-9]/}"; export NVCC_WRAPPER_DEFAULT_ARCH
    kflags=(-DCMAKE_CXX_COMPILER="$SRC/kokkos/bin/nvcc_wrapper" -DKokkos_ENABLE_SERIAL=ON
            -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ARCH_$ARCH=ON)
    kkflags=(-DCMAKE_CXX_COMPILER="$PREFIX/bin/nvcc_wrapper" -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF
             -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF)
  fi
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
  touch "$PREFIX/.complete"
  say "built $PRESET prefix in $(( $(date +%s) - t0 )) s"
fi
ln -sfn "install/$NAME" "$CACHE/kokkos-$PRESET"
echo "$PREFIX"
