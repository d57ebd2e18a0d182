// Plain-CUDA reference kernels (see cuda_reference.hpp). Compiled by
// nvcc_wrapper as C++; nothing here goes through Kokkos' launch path.
#include "cuda_reference.hpp"

#if defined(KOKKOS_ENABLE_CUDA)

#include "kernel_bodies.hpp"

#include <tdmaps/maps/bounding_box.hpp>
#include <tdmaps/maps/lambda.hpp>

#include <Kokkos_Core.hpp>
#include <cuda_runtime.h>

#include <stdexcept>

namespace tdmaps_bench {
namespace cuda_reference {

namespace {

using tdmaps::Block2;
using tdmaps::index_t;

// What the papers' code does: one block per omega, rho x rho threads,
// threadIdx.x along the row so the stores of a warp are contiguous. The launch
// bound matches the one tdmaps gives Kokkos (LaunchBounds<1024, 1>).
template <class Map, class Body>
__global__ void __launch_bounds__(1024) element_kernel(const Map map, const Body body) {
  Block2 b;
  if (!map.block(static_cast<index_t>(blockIdx.x), b)) return;
  const index_t i = b.bi * map.domain.rho + threadIdx.y;
  const index_t j = b.bj * map.domain.rho + threadIdx.x;
  if (i < map.domain.n && j <= i) body(i, j);
}

// The same with rho x rows threads: each thread walks rows ti, ti + rows, ...
template <class Map, class Body>
__global__ void __launch_bounds__(1024) element_kernel_rows(const Map map, const Body body) {
  Block2 b;
  if (!map.block(static_cast<index_t>(blockIdx.x), b)) return;
  const index_t j = b.bj * map.domain.rho + threadIdx.x;
  for (int ti = threadIdx.y; ti < map.domain.rho; ti += blockDim.y) {
    const index_t i = b.bi * map.domain.rho + ti;
    if (i < map.domain.n && j <= i) body(i, j);
  }
}

// The twin of tdmaps' GPU EDM tile kernel (cuda_reference.hpp, launch_tile).
template <int D>
struct alignas(sizeof(float) * (D == 3 ? 4 : D)) TilePoint {
  float c[D == 3 ? 4 : D];
};

template <class Map, int D, bool Full>
__device__ __forceinline__ void edm_tile_block(const Map& map, const Block2& b, const float* __restrict__ x,
                                               float* __restrict__ out, TilePoint<D>* rows) {
  constexpr int PD = D == 3 ? 4 : D;
  const int rho = map.domain.rho;
  const index_t n = map.domain.n;
  const index_t i0 = b.bi * rho, j0 = b.bj * rho;
  const int nrows = static_cast<int>(n - i0 < rho ? n - i0 : rho);
  const int ncols = static_cast<int>(n - j0 < rho ? n - j0 : rho);
  // Full: the block's rows; packed: also the window of 2 rho columns from j0 - rho.
  const int points = Full ? rho : 3 * rho;
  for (int q = threadIdx.y * blockDim.x + threadIdx.x; q < points * PD; q += blockDim.x * blockDim.y) {
    const int p = q / PD, k = q % PD;
    const index_t g = p < rho ? i0 + p : j0 - rho + (p - rho);
    rows[p].c[k] = (g >= 0 && g < n && k < D) ? x[g * D + k] : 0.0f;
  }
  __syncthreads();
  const int lane = threadIdx.x, first = threadIdx.y, step = blockDim.y;
  if (!Full) {
    // Packed, as edm's gpu_rows_aligned: row i takes the rho columns of the
    // aligned chunk j0 + c rho - r_i + lane, r_i = T(i) mod rho (out from
    // cudaMalloc: aligned), c = 0, and 1 on the diagonal block.
    const TilePoint<D>* window = rows + rho;
    const int chunks = i0 == j0 ? 2 : 1;
    for (int ti = first; ti < nrows; ti += step) {
      const index_t i = i0 + ti;
      const index_t at = tdmaps::tri(i);
      const int r = static_cast<int>(at & (rho - 1));
      for (int c = 0; c < chunks; ++c) {
        const int w = rho + c * rho - r + lane;
        const index_t j = j0 - rho + w;
        if (j < 0 || j > i) continue;
        const TilePoint<D> o = rows[ti], q = window[w];
        float s = 0.0f;
        for (int k = 0; k < D; ++k) {
          const float u = q.c[k] - o.c[k];
          s += u * u;
        }
        out[at + j] = sqrtf(s);
      }
    }
    return;
  }
  if (lane >= ncols) return;
  const index_t j = j0 + lane;
  float mine[D];
  for (int k = 0; k < D; ++k) mine[k] = x[j * D + k];
  int ti = first;
  if (i0 == j0 && lane > first) ti = first + (lane - first + step - 1) / step * step;
  const index_t i = i0 + ti;
  float* at = out + ((Full ? i * n : tdmaps::tri(i)) + j);
  index_t delta = Full ? index_t(step) * n : index_t(step) * i + tdmaps::tri(step);
  const index_t growth = Full ? 0 : index_t(step) * step;
  for (; ti < nrows; ti += step) {
    const TilePoint<D> o = rows[ti];
    float s = 0.0f;
    for (int k = 0; k < D; ++k) {
      const float u = mine[k] - o.c[k];
      s += u * u;
    }
    *at = sqrtf(s);
    at += delta;
    delta += growth;
  }
}

/// Blocks omega = blockIdx.x, blockIdx.x + gridDim.x, ... of the map's league
/// (the launch layer's order for LaunchHints::blocks_per_team).
template <class Map, int D, bool Full>
__global__ void __launch_bounds__(1024) edm_tile_kernel(const Map map, const float* __restrict__ x,
                                                        float* __restrict__ out) {
  __shared__ TilePoint<D> rows[3 * 32];  // rows, and the packed walk's window
  const index_t league = map.league_size();
  bool busy = false;
  for (index_t omega = blockIdx.x; omega < league; omega += gridDim.x) {
    Block2 b;
    if (!map.block(omega, b)) continue;
    if (busy) __syncthreads();  // the previous block's rows are read
    busy = true;
    edm_tile_block<Map, D, Full>(map, b, x, out, rows);
  }
}

__global__ void fill_kernel(std::uint32_t* out, std::size_t count, std::uint32_t value) {
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < count) out[k] = value;
}

__global__ void fill_kernel_vec4(uint4* out, std::size_t count4, std::uint32_t value) {
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < count4) out[k] = make_uint4(value, value, value, value);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("tdmaps cuda_reference: ") + what + ": " + cudaGetErrorString(e));
}

cudaStream_t stream() { return Kokkos::Cuda().cuda_stream(); }

template <class Map, class Body>
void run(const Map& map, int rows, const Body& body) {
  const index_t league = map.league_size();
  if (league == 0) return;
  if (league > 0x7fffffff) throw std::runtime_error("tdmaps cuda_reference: league exceeds the grid limit");
  const int rho = map.domain.rho;
  if (rows == rho) element_kernel<<<static_cast<unsigned>(league), dim3(rho, rho), 0, stream()>>>(map, body);
  else element_kernel_rows<<<static_cast<unsigned>(league), dim3(rho, rows), 0, stream()>>>(map, body);
  check(cudaGetLastError(), "element kernel launch");
}

template <class Body>
void run_map(RefMap m, index_t n, int rho, int rows, const Body& body) {
  if (rows < 1 || rows > rho) throw std::invalid_argument("tdmaps cuda_reference: rows must be in 1..rho");
  if (m == RefMap::bb) run(tdmaps::BoundingBoxMap(n, rho), rows, body);
  else run(tdmaps::LambdaMap<tdmaps::SqrtRsqrt, tdmaps::Exact>(n, rho), rows, body);
}

template <class Map, class Body>
cudaFuncAttributes attributes_of() {
  cudaFuncAttributes a{};
  check(cudaFuncGetAttributes(&a, element_kernel<Map, Body>), "cudaFuncGetAttributes");
  return a;
}

template <class Body>
cudaFuncAttributes attributes_for(RefMap m) {
  if (m == RefMap::bb) return attributes_of<tdmaps::BoundingBoxMap, Body>();
  return attributes_of<tdmaps::LambdaMap<tdmaps::SqrtRsqrt, tdmaps::Exact>, Body>();
}

}  // namespace

const char* map_label(RefMap m) { return m == RefMap::bb ? "bb" : "lambda_rsqrt"; }

const char* body_label(RefBody b) {
  switch (b) {
    case RefBody::dummy: return "dummy";
    case RefBody::dummy_full: return "dummy_full";
    case RefBody::edm_packed_d2: return "edm_packed_d2";
    case RefBody::edm_full_d2: return "edm_full_d2";
    case RefBody::edm_packed_d4: return "edm_packed_d4";
    case RefBody::edm_full_d4: return "edm_full_d4";
  }
  return "?";
}

void launch(RefMap m, RefBody b, index_t n, int rho, int rows, const float* x, void* out) {
  float* f = static_cast<float*>(out);
  switch (b) {
    case RefBody::dummy: run_map(m, n, rho, rows, DummyStore{static_cast<std::uint32_t*>(out)}); break;
    case RefBody::dummy_full: run_map(m, n, rho, rows, DummyFullStore{static_cast<std::uint32_t*>(out), n}); break;
    case RefBody::edm_packed_d2: run_map(m, n, rho, rows, EdmBody<2, false>{x, f, n}); break;
    case RefBody::edm_full_d2: run_map(m, n, rho, rows, EdmBody<2, true>{x, f, n}); break;
    case RefBody::edm_packed_d4: run_map(m, n, rho, rows, EdmBody<4, false>{x, f, n}); break;
    case RefBody::edm_full_d4: run_map(m, n, rho, rows, EdmBody<4, true>{x, f, n}); break;
  }
}

namespace {
template <class Map, int D, bool Full>
void run_tile(const Map& map, int rows, int per_block, const float* x, float* out) {
  const index_t league = map.league_size();
  if (league == 0) return;
  const index_t grid = (league + per_block - 1) / per_block;
  if (grid > 0x7fffffff) throw std::runtime_error("tdmaps cuda_reference: league exceeds the grid limit");
  edm_tile_kernel<Map, D, Full>
      <<<static_cast<unsigned>(grid), dim3(map.domain.rho, rows), 0, stream()>>>(map, x, out);
  check(cudaGetLastError(), "edm tile kernel launch");
}
template <int D, bool Full>
void run_tile_map(RefMap m, index_t n, int rho, int rows, int per_block, const float* x, float* out) {
  if (rows < 1 || rows > rho) throw std::invalid_argument("tdmaps cuda_reference: rows must be in 1..rho");
  if (per_block < 1) throw std::invalid_argument("tdmaps cuda_reference: blocks per CUDA block must be >= 1");
  if (m == RefMap::bb) run_tile<tdmaps::BoundingBoxMap, D, Full>(tdmaps::BoundingBoxMap(n, rho), rows, per_block, x, out);
  else run_tile<tdmaps::LambdaMap<tdmaps::SqrtRsqrt, tdmaps::Exact>, D, Full>(
      tdmaps::LambdaMap<tdmaps::SqrtRsqrt, tdmaps::Exact>(n, rho), rows, per_block, x, out);
}
}  // namespace

void launch_tile(RefMap m, RefBody b, index_t n, int rho, int rows, int per_block, const float* x, float* out) {
  switch (b) {
    case RefBody::dummy:
    case RefBody::dummy_full: throw std::invalid_argument("tdmaps cuda_reference: launch_tile runs the EDM bodies only");
    case RefBody::edm_packed_d2: run_tile_map<2, false>(m, n, rho, rows, per_block, x, out); break;
    case RefBody::edm_full_d2: run_tile_map<2, true>(m, n, rho, rows, per_block, x, out); break;
    case RefBody::edm_packed_d4: run_tile_map<4, false>(m, n, rho, rows, per_block, x, out); break;
    case RefBody::edm_full_d4: run_tile_map<4, true>(m, n, rho, rows, per_block, x, out); break;
  }
}

void fill(std::uint32_t* out, std::size_t count, std::uint32_t value, bool vec4) {
  const std::size_t items = vec4 ? count / 4 : count;
  if (vec4 && (count % 4 != 0 || reinterpret_cast<std::uintptr_t>(out) % 16 != 0))
    throw std::invalid_argument("tdmaps cuda_reference: vec4 fill needs 16-byte alignment and a multiple of 4 values");
  const unsigned threads = 1024;
  const std::size_t blocks = (items + threads - 1) / threads;
  if (blocks == 0) return;
  if (vec4) fill_kernel_vec4<<<static_cast<unsigned>(blocks), threads, 0, stream()>>>(reinterpret_cast<uint4*>(out), items, value);
  else fill_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream()>>>(out, items, value);
  check(cudaGetLastError(), "fill kernel launch");
}

std::string attributes(RefMap m, RefBody b) {
  cudaFuncAttributes a{};
  switch (b) {
    case RefBody::dummy: a = attributes_for<DummyStore>(m); break;
    case RefBody::dummy_full: a = attributes_for<DummyFullStore>(m); break;
    case RefBody::edm_packed_d2: a = attributes_for<EdmBody<2, false>>(m); break;
    case RefBody::edm_full_d2: a = attributes_for<EdmBody<2, true>>(m); break;
    case RefBody::edm_packed_d4: a = attributes_for<EdmBody<4, false>>(m); break;
    case RefBody::edm_full_d4: a = attributes_for<EdmBody<4, true>>(m); break;
  }
  return "regs=" + std::to_string(a.numRegs) + " local_bytes=" + std::to_string(a.localSizeBytes);
}

}  // namespace cuda_reference
}  // namespace tdmaps_bench

#endif
