#!/usr/bin/env bash
# Builds the compiled module _tdmaps for a Python this machine does not have
# (the GPU machine's, say), from a configured build tree of the same project:
# the tree's own compile and link commands for the target tdmaps_python, with
# that Python's headers and a pybind11 that supports it in place of the
# tree's, and its extension suffix. The result is a package folder beside the
# tree's own: <build>/python-<tag>/tdmaps/ (PYTHONPATH=<build>/python-<tag>).
#
#   bash python/scripts/cross_build.sh BUILD PY_INCLUDE PYBIND11_INCLUDE EXT_SUFFIX
#     BUILD             a build tree configured with -DTDMAPS_ENABLE_PYTHON=ON
#     PY_INCLUDE        the target's Python.h folder, e.g. <root>/python3.12, with
#                       its pyconfig.h include root beside it when split (Debian,
#                       Ubuntu: <root>/x86_64-linux-gnu/python3.12/pyconfig.h)
#     PYBIND11_INCLUDE  the folder holding pybind11/ (a version that supports
#                       the target Python)
#     EXT_SUFFIX        the target's sysconfig EXT_SUFFIX, e.g. .cpython-312-x86_64-linux-gnu.so
#
# Get the three values on the target with
#   python3 -c "import sysconfig; print(sysconfig.get_paths()['include'], sysconfig.get_config_var('EXT_SUFFIX'))"
# and copy the folders from there.
set -euo pipefail
if [[ $# -ne 4 ]]; then
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
build=$(cd "$1" && pwd)
pyinc=$(cd "$2" && pwd)
pb11=$(cd "$3" && pwd)
suffix=$4
[[ -f $pyinc/Python.h ]] || { echo "cross_build: $pyinc/Python.h not found" >&2; exit 2; }
[[ -f $pb11/pybind11/pybind11.h ]] || { echo "cross_build: $pb11/pybind11/pybind11.h not found" >&2; exit 2; }
[[ $suffix == .*.so ]] || { echo "cross_build: EXT_SUFFIX '$suffix' does not look like .cpython-3XY-<platform>.so" >&2; exit 2; }
tag=${suffix#.}; tag=${tag%.so}
out=$build/python-$tag
mkdir -p "$out/tdmaps" "$out/obj"

cmake "$build" >/dev/null                      # picks up new sources of the target
ninja -C "$build" -t commands tdmaps_python > "$out/commands.orig"
ours_inc=$(grep -o -- '-isystem [^ ]*/python3\.[0-9]*' "$out/commands.orig" | head -1 | cut -d' ' -f2)
[[ -n $ours_inc ]] || { echo "cross_build: no Python include folder in the tree's commands" >&2; exit 1; }
ours_so=$(grep -o -- "-o python/tdmaps/_tdmaps[^ ]*\.so" "$out/commands.orig" | head -1 | cut -d' ' -f2)
[[ -n $ours_so ]] || { echo "cross_build: no link command of _tdmaps in the tree's commands" >&2; exit 1; }
# -isystem for the target's headers and pybind11 (before the compiler's own
# folders, so before a pybind11 or Python of this machine's /usr/include);
# the root of a split pyconfig.h after them. /usr/include itself is never
# added (it is searched already; adding it breaks #include_next).
flags=""
[[ $pb11 == /usr/include ]] || flags="-isystem $pb11"
[[ $pyinc == /usr/include ]] || flags="$flags -isystem $pyinc"
pyroot=$(dirname "$pyinc")
[[ $pyroot == /usr/include ]] || flags="$flags -idirafter $pyroot"
# Only the module's own commands (the libraries it links are the tree's, built below).
grep -e 'tdmaps_python.dir/' -e "$ours_so" "$out/commands.orig" |
  sed -e "s|-isystem $ours_inc|$flags|" \
      -e "s|python/CMakeFiles/tdmaps_python.dir/|python-$tag/obj/|g" \
      -e "s|$ours_so|python-$tag/tdmaps/_tdmaps$suffix|" > "$out/commands.sh"
cd "$build"
grep -o -- ' -o [^ ]*' "$out/commands.sh" | cut -d' ' -f3 | xargs -n1 dirname | sort -u | xargs mkdir -p
# The compiles side by side, then the link (the last command).
head -n -1 "$out/commands.sh" | tr '\n' '\0' | xargs -0 -P "$(nproc)" -I{} bash -ec {}
tail -n 1 "$out/commands.sh" | bash -e
cp "$build/python/tdmaps/"*.py "$out/tdmaps/"
echo "cross_build: $out/tdmaps/_tdmaps$suffix (PYTHONPATH=$out)"
