#!/usr/bin/env bash
# The Python module's GPU batch (issue 19): run from the repository root on a
# GPU machine with the CUDA build of the module in $1 (a folder holding
# tdmaps/, built for that machine's Python, e.g. by python/scripts/cross_build.sh).
# Logs under $OUT (default ./out):
#   gpu_check.log   python/tests/gpu_check.py: device tensors against torch.pdist,
#                   SciPy and brute force; the profile; the n = 30720 timing
#   pytest.log      the host test suite on the CUDA build (NumPy inputs staged
#                   through the device), less the test that installs from the
#                   CMake build tree (a cross-built module has none there)
#   env.txt         GPU, Python, torch, CuPy, NumPy versions; commit
#   OUT=out bash perf_tests/scripts/device_python.sh build/py-cuda/python-cpython-312-x86_64-linux-gnu
set -uo pipefail
MOD=${1:?usage: device_python.sh MODULE_DIR}
OUT=${OUT:-out}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
{
  echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader
  $PY -c "import sys, numpy, scipy; print('python', sys.version.split()[0], 'numpy', numpy.__version__, 'scipy', scipy.__version__)"
  $PY -c "import torch; print('torch', torch.__version__)" 2>&1
  $PY -c "import cupy; print('cupy', cupy.__version__)" 2>&1 | tail -1
} > "$OUT/env.txt"
cat "$OUT/env.txt"
echo "+ PYTHONPATH=$MOD $PY python/tests/gpu_check.py --n 30720 --repeat 20" > "$OUT/commands.txt"
PYTHONPATH="$MOD" timeout 400 $PY python/tests/gpu_check.py --n 30720 --repeat 20 > "$OUT/gpu_check.log" 2>&1
echo "rc=$?" >> "$OUT/gpu_check.log"
tail -6 "$OUT/gpu_check.log"
PYTEST=(-m pytest python/tests -q -p no:cacheprovider --deselect python/tests/test_module.py::test_installed_prefix_imports)
echo "+ PYTHONPATH=$MOD $PY ${PYTEST[*]}" >> "$OUT/commands.txt"
PYTHONPATH="$MOD" PYTHONDONTWRITEBYTECODE=1 timeout 150 $PY "${PYTEST[@]}" > "$OUT/pytest.log" 2>&1
echo "rc=$?" >> "$OUT/pytest.log"
tail -4 "$OUT/pytest.log"
