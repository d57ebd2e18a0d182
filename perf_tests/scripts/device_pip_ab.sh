#!/usr/bin/env bash
# The CUDA pip build of an older tree (A, a `git archive` tarball) and of this
# checkout (B), timed cold on every core (device_pip_time.sh), then the two
# modules side by side on the GPU (python_ab.py: the calls' times and
# outputs) and B's pytest suite on the GPU build. Logs under $OUT.
#
#   Kokkos_ROOT=<CUDA Kokkos prefix> OUT=out bash perf_tests/scripts/device_pip_ab.sh OLD.tar
set -u
OLD=${1:?usage: device_pip_ab.sh OLD.tar}
R=${OUT:-out}; mkdir -p "$R"
W=$(mktemp -d)
{ echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c "import torch; print('torch', torch.__version__)"; } > "$R/ab_env.txt" 2>&1
echo "+ TDMAPS_PIP_KEEP=$W Kokkos_ROOT=<prefix> OUT=$R bash perf_tests/scripts/device_pip_time.sh $OLD" > "$R/commands.txt"
TDMAPS_PIP_KEEP="$W" OUT="$R" bash perf_tests/scripts/device_pip_time.sh "$OLD"
for b in old new; do
  python3 -m pip install --no-deps --no-index --target "$W/py_$b" "$W/$b"/*.whl > "$R/install_$b.log" 2>&1 \
    || { echo "installing the $b wheel failed"; cat "$R/install_$b.log"; exit 1; }
done
echo "+ python3 perf_tests/scripts/python_ab.py --a <old module> --b <new module> --rounds 3 --repeat 5 --out $R/python_ab.jsonl" >> "$R/commands.txt"
timeout 200 python3 perf_tests/scripts/python_ab.py --a "$W/py_old" --b "$W/py_new" --rounds 3 --repeat 5 \
  --out "$R/python_ab.jsonl" | tee "$R/python_ab.md"
PYTEST=(-m pytest python/tests -q -p no:cacheprovider --deselect python/tests/test_module.py::test_installed_prefix_imports)
echo "+ PYTHONPATH=<new module> python3 ${PYTEST[*]}" >> "$R/commands.txt"
PYTHONPATH="$W/py_new" PYTHONDONTWRITEBYTECODE=1 timeout 120 python3 "${PYTEST[@]}" > "$R/pytest.log" 2>&1
echo "rc=$?" >> "$R/pytest.log"
tail -4 "$R/pytest.log"
