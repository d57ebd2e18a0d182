// The plain-CUDA twin of tdmaps' 3-D element path (cuda_reference.hpp,
// launch3): the dummy3 body under BB3 and exact lambda3, launched directly.
// Compiled by nvcc_wrapper as C++; nothing here goes through Kokkos' launch path.
#include "cuda_reference.hpp"

#if defined(KOKKOS_ENABLE_CUDA)

#include "kernel_bodies.hpp"

#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/bounding_box3.hpp>
#include <tdmaps/maps/lambda3.hpp>

#include <Kokkos_Core.hpp>
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tdmaps_bench {
namespace cuda_reference {

namespace {

using tdmaps::Block3;
using tdmaps::index_t;
using Lambda3Cbrt = tdmaps::Lambda3Map<tdmaps::CbrtFloat, tdmaps::SqrtRsqrt, tdmaps::Exact>;

// One CUDA block per omega, (rho, layers rho) threads: thread (x, y) keeps
// column k = k0 + x and row j = j0 + (y mod rho) and walks the layers
// i = i0 + y / rho, + layers, ... of the block that lie in the strict
// tetrahedron k < j < i < n; the walk of launch/detail/element_functor3.hpp. The
// launch bound is the one tdmaps gives its kernels.
template <class Map, class Body>
__global__ void __launch_bounds__(1024) element3_kernel(const Map map, const Body body, const int log2_rho) {
  Block3 b;
  if (!map.block(static_cast<index_t>(blockIdx.x), b)) return;
  const int rho = 1 << log2_rho;
  const index_t n = map.domain.n;
  const index_t i0 = b.bi * rho, j0 = b.bj * rho, k0 = b.bk * rho;
  const int ni = static_cast<int>(n - i0 < rho ? n - i0 : rho);
  const int tk = threadIdx.x, tj = threadIdx.y & (rho - 1);
  if (j0 + tj >= n || k0 + tk >= n) return;
  const index_t j = j0 + tj, k = k0 + tk;
  if (k + 1 > j) return;  // strict: k < j
  const int first = threadIdx.y >> log2_rho, step = blockDim.y >> log2_rho;
  const int start = tdmaps::first_row_from(first, step, static_cast<int>(j + 1 - i0));  // first layer with i > j
  index_t i = i0 + start;
  for (int ti = start; ti < ni; ti += step, i += step) body(i, j, k);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("tdmaps cuda_reference: ") + what + ": " + cudaGetErrorString(e));
}

template <class Map>
void run3(const Map& map, int layers, std::uint32_t* out) {
  const index_t league = map.league_size();
  if (league == 0) return;
  if (league > 0x7fffffff) throw std::runtime_error("tdmaps cuda_reference: 3-D league exceeds the grid limit");
  const int rho = map.domain.rho;
  element3_kernel<<<static_cast<unsigned>(league), dim3(rho, layers * rho), 0, Kokkos::Cuda().cuda_stream()>>>(
      map, Dummy3Store{out}, tdmaps::log2_block_side(rho));
  check(cudaGetLastError(), "3-D element kernel launch");
}

}  // namespace

const char* map3_label(RefMap3 m) { return m == RefMap3::bb3 ? "bb3" : "lambda3_cbrt"; }

void launch3(RefMap3 m, index_t n, int rho, int layers, std::uint32_t* out) {
  if (layers < 1 || layers > rho) throw std::invalid_argument("tdmaps cuda_reference: layers must be in 1..rho");
  const tdmaps::Domain3 d(n, rho, tdmaps::Triangle::strict_lower);
  if (m == RefMap3::bb3) run3(tdmaps::BoundingBox3Map(d), layers, out);
  else run3(Lambda3Cbrt(d), layers, out);
}

std::string attributes3(RefMap3 m) {
  cudaFuncAttributes a{};
  if (m == RefMap3::bb3)
    check(cudaFuncGetAttributes(&a, element3_kernel<tdmaps::BoundingBox3Map, Dummy3Store>), "cudaFuncGetAttributes");
  else
    check(cudaFuncGetAttributes(&a, element3_kernel<Lambda3Cbrt, Dummy3Store>), "cudaFuncGetAttributes");
  return "regs=" + std::to_string(a.numRegs) + " local_bytes=" + std::to_string(a.localSizeBytes);
}

}  // namespace cuda_reference
}  // namespace tdmaps_bench

#endif
