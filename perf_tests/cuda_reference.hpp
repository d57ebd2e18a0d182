#ifndef TDMAPS_PERF_TESTS_CUDA_REFERENCE_HPP
#define TDMAPS_PERF_TESTS_CUDA_REFERENCE_HPP

// The plain-CUDA reference: the dummy and EDM element kernels (kernel_bodies.hpp)
// launched directly with <<<league, dim3(rho, rho)>>>, blockIdx.x = omega,
// threadIdx.x along j, as the papers' code does, under the BB and lambda
// (rsqrt, exact) maps of tdmaps (the same map code as the Kokkos path), plus
// the write-ceiling fill. Built only with Kokkos_ENABLE_CUDA; it runs on the
// stream of the default Kokkos::Cuda instance, so the benchmarks fence and
// time it exactly like the Kokkos launches beside it.

#include <Kokkos_Macros.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include <tdmaps/core/types.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace tdmaps_bench {
namespace cuda_reference {

enum class RefMap { bb, lambda_rsqrt };
enum class RefBody { dummy, dummy_full, edm_packed_d2, edm_full_d2, edm_packed_d4, edm_full_d4 };

const char* map_label(RefMap m);    ///< "bb", "lambda_rsqrt": MapSpec labels
const char* body_label(RefBody b);  ///< "dummy", "edm_packed_d4", ...

/// Launches `body` over the lower triangle (diagonal included) of side n with
/// block side rho under `map`, asynchronously. x: n x d fp32 points (EDM only);
/// out: uint32 packed (dummy) or full n x n (dummy_full), fp32 packed T(n)
/// or full n x n (EDM).
/// rows = rho: blocks of rho x rho threads, one element each (the papers');
/// rows < rho: blocks of rho x rows threads, each thread walks rho / rows rows
/// of its block (the shape tdmaps' launch layer gives Kokkos teams).
/// Throws std::runtime_error on a launch error.
void launch(RefMap map, RefBody body, tdmaps::index_t n, int rho, int rows, const float* x, void* out);

/// The EDM bodies (not the dummy) as tdmaps' GPU tile kernel computes them
/// (apps/edm/include/tdmaps/edm/tile_gpu.hpp, TileKernel::gpu_rows / gpu_rows_aligned): blocks of
/// rho x rows threads, the block's row points staged in shared memory
/// (padded to 2 or 4 floats); full: each thread keeps its column point in
/// registers and walks rows ti, ti + rows, ..., the output position
/// advancing by a running difference; packed: each row's aligned chunk of
/// rho columns, the column points from a staged window of 2 rho; a grid
/// of ceil(league / per_block) CUDA blocks, block b taking omegas b, b +
/// gridDim.x, ... (LaunchHints::blocks_per_team, as tdmaps' launch layer). The plain-CUDA twin of
/// `edm(..., Kernel::tile)`, to measure what Kokkos costs that kernel.
void launch_tile(RefMap map, RefBody body, tdmaps::index_t n, int rho, int rows, int per_block, const float* x,
                 float* out);

/// Write-only fill of count uint32 values: one element per thread, or four
/// per thread with 16-byte stores (count a multiple of 4, out 16-byte aligned).
void fill(std::uint32_t* out, std::size_t count, std::uint32_t value, bool vec4);

/// Registers per thread and local memory (stack) bytes of the kernel.
std::string attributes(RefMap map, RefBody body);

// ---- 3-D (cuda_reference3.cpp) ---------------------------------------------

enum class RefMap3 { bb3, lambda3_cbrt };
const char* map3_label(RefMap3 m);  ///< "bb3", "lambda3_cbrt": MapSpec3 labels

/// The 3-D dummy body (kernel_bodies.hpp, Dummy3Store: one 4-byte store per
/// strict triplet k < j < i < n at its packed position) under `map` (BB3, or
/// lambda3 with the single-precision cube root, exact), asynchronously:
/// <<<league, dim3(rho, layers rho)>>>, blockIdx.x = omega, threadIdx.x the
/// column k, threadIdx.y = row j + rho x phase, each thread walking the
/// block's layers i = phase, phase + layers, ... (the block shape and walk of
/// tdmaps' 3-D element path, launch/hints.hpp team_layers3). Throws
/// std::runtime_error on a launch error.
void launch3(RefMap3 map, tdmaps::index_t n, int rho, int layers, std::uint32_t* out);

/// Registers per thread and local memory bytes of launch3's kernel.
std::string attributes3(RefMap3 map);

}  // namespace cuda_reference
}  // namespace tdmaps_bench

#endif
#endif
