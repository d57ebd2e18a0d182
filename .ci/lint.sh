#!/usr/bin/env bash
# The backend lint: no GPU backend is named outside the backend layer
# (lib/tdmaps/kokkos_ext/). Kernels, launches, apps, the Python module and the
# tests reach CUDA, HIP and SYCL through tdmaps::backend and
# tdmaps::intrinsics only, so that a new backend changes one folder.
# The CUDA and HIP runtimes' calls (cudaX(, hipX() count too.
# Comments are not exempt: a comment that names a backend's API is where the
# code that uses it should be.
#
#   bash .ci/lint.sh        # exit 0: clean; 1: each offending line printed
#
# Scope: lib/, apps/, python/src/, unit_tests/ (except unit_tests/backends/,
# which names each tested execution space by design). Out of scope:
# perf_tests/ (its plain-CUDA reference kernels and the peers are CUDA by
# design) and the docs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pattern='\bcuda[A-Z][A-Za-z]*\(|\bhip[A-Z][A-Za-z]*\(|Kokkos::Cuda\b|Kokkos::(Experimental::)?HIP\b|Kokkos::(Experimental::)?SYCL\b|__shfl|__ballot|threadIdx|blockIdx|blockDim|asm\(|__CUDA_ARCH__|__HIP_DEVICE_COMPILE__|__syncwarp'
hits=$(git ls-files -- lib apps python/src unit_tests | grep -E '\.(hpp|cpp|h|cu|inl)$' \
  | grep -v -E '^lib/tdmaps/kokkos_ext/|^unit_tests/backends/' \
  | xargs -r grep -s -n -E "$pattern" || true)
if [ -n "$hits" ]; then
  echo "lint: a GPU backend named outside lib/tdmaps/kokkos_ext/ (use tdmaps::backend / tdmaps::intrinsics):" >&2
  echo "$hits" >&2
  exit 1
fi
echo "lint: no GPU backend named outside lib/tdmaps/kokkos_ext/ ($(git ls-files -- lib apps python/src unit_tests | grep -c -E '\.(hpp|cpp|h|cu|inl)$') files)"
