#ifndef TDMAPS_KOKKOS_EXT_DIRECT_LAUNCH_HPP
#define TDMAPS_KOKKOS_EXT_DIRECT_LAUNCH_HPP

// Not API (tdmaps::detail): the element kernels' launch on Kokkos::Cuda, in
// the backend layer (kokkos_ext/) as CUDA code. Other GPU backends (HIP,
// SYCL) launch element functors through Kokkos' TeamPolicy.
//
// An element functor on a GPU uses nothing of its Kokkos team but the league
// rank (its block walk reads threadIdx through tdmaps::intrinsics), yet a
// Kokkos TeamPolicy launch makes every CUDA block pay for the team before the
// functor runs: the league loop, the team member (shared-memory and scratch
// pointers, the level-1 scratch index) and their registers. A block that
// has no work (BB's blocks outside the triangle, half of its league) pays it
// all. So run_league launches element functors on Kokkos::Cuda as a plain
// CUDA kernel on the instance's stream, with the team's block shape (times
// the functor's direct_group() along x: 3-D blocks side by side), launch
// bounds and Kokkos Tools hooks (begin / end parallel_for with the launch's
// label); the functor's run_direct() is the body. Every other launch (tile kernels, several blocks per team,
// host backends) goes through Kokkos. The `launch` group's `tdmaps` cases
// against `cuda_t256` show the difference.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tdmaps {
namespace detail {

/// Whether Functor has run_direct() (element functors) and ExecSpace is Kokkos::Cuda.
template <class ExecSpace, class Functor, class = void>
struct has_direct_launch : std::false_type {};

#if defined(KOKKOS_ENABLE_CUDA)

template <class Functor>
__global__ void __launch_bounds__(1024, 1) direct_element_kernel(const Functor f) {
  f.run_direct();
}

template <class Functor>
struct has_direct_launch<Kokkos::Cuda, Functor, std::void_t<decltype(std::declval<const Functor&>().run_direct())>>
    : std::true_type {};

/// Launches f.run_direct() on blocks (x, y) of `blocks` CUDA blocks on
/// space's stream, asynchronously as a Kokkos parallel_for; throws
/// std::runtime_error if the block does not fit the kernel or the launch fails.
template <class Functor>
void direct_launch(const Kokkos::Cuda& space, const std::string& label, std::int64_t blocks, int x, int y,
                   const Functor& f) {
  cudaFuncAttributes attr;
  cudaError_t e = cudaFuncGetAttributes(&attr, direct_element_kernel<Functor>);
  if (e != cudaSuccess) throw std::runtime_error(label + ": cudaFuncGetAttributes: " + cudaGetErrorString(e));
  if (x * y > attr.maxThreadsPerBlock)
    throw std::runtime_error(label + ": a block of " + std::to_string(y) + " x " + std::to_string(x) +
                             " threads does not fit this kernel on this GPU (at most " +
                             std::to_string(attr.maxThreadsPerBlock) + " threads); use a smaller block side");
  std::uint64_t id = 0;
  const bool tools = Kokkos::Tools::profileLibraryLoaded();
  if (tools) Kokkos::Tools::beginParallelFor(label, 0, &id);
  direct_element_kernel<Functor>
      <<<dim3(static_cast<unsigned>(blocks)), dim3(static_cast<unsigned>(x), static_cast<unsigned>(y)), 0,
         space.cuda_stream()>>>(f);
  e = cudaGetLastError();
  if (tools) Kokkos::Tools::endParallelFor(id);
  if (e != cudaSuccess) throw std::runtime_error(label + ": CUDA launch failed: " + cudaGetErrorString(e));
}

#endif

}  // namespace detail
}  // namespace tdmaps

#endif
