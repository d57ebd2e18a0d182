#!/usr/bin/env bash
# Builds every C++ block of README.md and docs/*.md against an installed
# tdmaps, in the project that docs/install.md describes (its CMakeLists.txt,
# main.cpp and commands, extracted from it), and runs each program: the
# examples check their results against a host loop. Any failure fails.
#
#   bash docs/snippets/check.sh TDMAPS_PREFIX KOKKOS_PREFIX [BUILD_DIR]
#
# TDMAPS_PREFIX: where `cmake --install` put tdmaps; KOKKOS_PREFIX: the
# Kokkos (and Kokkos Kernels) it was built with; BUILD_DIR (default
# build/docs-snippets) holds the generated project. CXX picks the compiler
# (default g++), CMAKE_GENERATOR the generator (default Ninja where it is).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
usage() { echo "usage: bash docs/snippets/check.sh TDMAPS_PREFIX KOKKOS_PREFIX [BUILD_DIR]" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 3 ] || usage
abs() { (cd "$1" 2>/dev/null && pwd) || { echo "docs/snippets/check.sh: error: no folder '$1'" >&2; exit 1; }; }
TDMAPS_PREFIX=$(abs "$1")
KOKKOS_PREFIX=$(abs "$2")
out=${3:-$ROOT/build/docs-snippets}
if ! ls -d "$TDMAPS_PREFIX"/lib*/cmake/tdmaps >/dev/null 2>&1; then
  echo "docs/snippets/check.sh: error: no tdmaps package in '$TDMAPS_PREFIX' (run cmake --install first)" >&2
  exit 1
fi
export TDMAPS_PREFIX KOKKOS_PREFIX
export CXX=${CXX:-g++}
if [ -z "${CMAKE_GENERATOR:-}" ] && command -v ninja >/dev/null; then export CMAKE_GENERATOR=Ninja; fi
# Warnings in the docs' code are errors here (the extracted CMakeLists.txt reads it).
export SNIPPETS_WERROR=${SNIPPETS_WERROR:-ON}

py=${PYTHON:-python3}
"$py" "$ROOT/docs/snippets/extract.py" --self-test
docs=("$ROOT/README.md")
for f in "$ROOT"/docs/*.md; do docs+=("$f"); done
mkdir -p "$out"
project=$(cd "$out" && pwd)/project
"$py" "$ROOT/docs/snippets/extract.py" --out "$project" "${docs[@]}"

# The docs' own commands (docs/install.md), as a user types them, in the project.
(cd "$project" && bash -e commands.sh)

failed=0 ran=0
while read -r what target where reason; do
  exe=$(find "$project" -path "$project/CMakeFiles" -prune -o -type f -name "$target" -perm -u+x -print | head -n1)
  [ -n "$exe" ] || { echo "docs/snippets/check.sh: error: $target ($where) was not built" >&2; exit 1; }
  if [ "$what" = compile-only ]; then
    echo "== $target ($where): compiled, not run: $reason"
    continue
  fi
  echo "== $target ($where)"
  if OMP_PROC_BIND=${OMP_PROC_BIND:-false} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} "$exe"; then
    ran=$((ran + 1))
  else
    echo "docs/snippets/check.sh: error: $target, the snippet at $where, failed" >&2
    failed=$((failed + 1))
  fi
done < "$project/programs.txt"
[ "$failed" = 0 ] || { echo "docs/snippets/check.sh: $failed program(s) failed" >&2; exit 1; }
echo "docs/snippets/check.sh: $ran programs of the docs built against $TDMAPS_PREFIX and passed"
