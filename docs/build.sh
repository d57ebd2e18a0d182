#!/usr/bin/env bash
# Builds the API reference (docs/Doxyfile) into build/docs/html and fails on
# any Doxygen warning (an undocumented public entry point, a broken command).
# Run from anywhere; installs Debian's doxygen when it is missing and this
# runs as root.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v doxygen >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends doxygen >/dev/null
  else
    echo "docs/build.sh: doxygen not found (install it, e.g. apt-get install doxygen)" >&2
    exit 1
  fi
fi

mkdir -p build/docs
log=build/docs/warnings.log
# FAIL_ON_WARNINGS needs doxygen >= 1.9.2; older ones take YES (stop at the first).
config=$(cat docs/Doxyfile)
version=$(doxygen --version | awk '{print $1}')
if [ "$(printf '%s\n1.9.2\n' "$version" | sort -V | head -n1)" != 1.9.2 ]; then
  config=${config//FAIL_ON_WARNINGS/YES}
fi
status=0
printf '%s\nWARN_LOGFILE = %s\n' "$config" "$log" | doxygen - || status=$?
if [ -s "$log" ]; then
  cat "$log" >&2
  echo "docs/build.sh: $(grep -c . "$log") Doxygen warning line(s)" >&2
  exit 1
fi
if [ "$status" != 0 ]; then
  echo "docs/build.sh: doxygen failed ($status)" >&2
  exit "$status"
fi
# Doxygen counts a member documented by any comment; the reference asks for
# a brief description of every entry point (JAVADOC_AUTOBRIEF: the first
# sentence of a /// comment, or its \brief).
if command -v python3 >/dev/null 2>&1; then
  python3 - build/docs/xml <<'PY'
import glob, sys, xml.etree.ElementTree as ET
missing = set()
for f in glob.glob(sys.argv[1] + "/*.xml"):
    if f.endswith("index.xml"):
        continue
    for c in ET.parse(f).getroot().iter("compounddef"):
        name = c.findtext("compoundname")
        if c.get("kind") in ("class", "struct", "union", "namespace") and name != "std":
            if not "".join(c.find("briefdescription").itertext()).strip():
                missing.add(f"{c.get('kind')} {name}")
        for m in c.iter("memberdef"):
            if not "".join(m.find("briefdescription").itertext()).strip():
                loc = m.find("location")
                where = f"{loc.get('file')}:{loc.get('line')}: " if loc is not None else ""
                missing.add(f"{where}{m.get('kind')} {name}::{m.findtext('name')}")
for x in sorted(missing):
    print(f"no brief description: {x}", file=sys.stderr)
sys.exit(1 if missing else 0)
PY
fi
echo "docs/build.sh: API reference in build/docs/html/index.html"
