#ifndef TDMAPS_KOKKOS_EXT_WARP_MATH_HPP
#define TDMAPS_KOKKOS_EXT_WARP_MATH_HPP

/// \file
/// \brief More device intrinsics (namespace tdmaps::intrinsics, beside
/// kokkos_ext/intrinsics.hpp): fast reciprocals for pair kernels and the
/// warp shuffles of register-blocked GPU kernels, with host equivalents.
///
/// The shuffles serve kernels whose team is one CUDA warp or one HIP
/// wavefront (a team of one thread of lane_width vector lanes); their host
/// versions return the lane's own value, which is what a team of one lane sees.

#include <Kokkos_Core.hpp>

#include <cmath>

namespace tdmaps {
namespace intrinsics {

/// Double-precision reciprocal square root (CUDA's rsqrt, within 1 ulp;
/// host: 1 / sqrt).
KOKKOS_FORCEINLINE_FUNCTION double rsqrt_d(double x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return ::rsqrt(x);
#else
  return 1.0 / std::sqrt(x);
#endif
}

/// Single-precision reciprocal without the division's slow path (CUDA:
/// __fdividef(1, x), within 2 ulp for |x| below 2^126, 0 above; host: 1 / x).
KOKKOS_FORCEINLINE_FUNCTION float rcp(float x) {
#if defined(__CUDA_ARCH__)
  return __fdividef(1.0f, x);
#else
  return 1.0f / x;
#endif
}

/// Double-precision reciprocal, correctly rounded (CUDA: __drcp_rn, no
/// division; HIP and host: 1 / x, as HIP's __drcp_rn is an approximation).
KOKKOS_FORCEINLINE_FUNCTION double rcp_d(double x) {
#if defined(__CUDA_ARCH__)
  return __drcp_rn(x);
#else
  return 1.0 / x;
#endif
}

/// The calling thread's lane in its warp (threadIdx.x of a team of one
/// thread of 32 vector lanes on CUDA; threadIdx.x of a team of one thread of
/// a wavefront's lanes on HIP; 0 on host).
KOKKOS_FORCEINLINE_FUNCTION int warp_lane() {
#if defined(__CUDA_ARCH__)
  return static_cast<int>(threadIdx.x) & 31;
#elif defined(__HIP_DEVICE_COMPILE__)
  return static_cast<int>(threadIdx.x);
#else
  return 0;
#endif
}

/// The value v of lane `from` of the warp, all its lanes taking part
/// (CUDA: __shfl_sync over 32 lanes; HIP: __shfl over the wavefront; host: v).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T warp_shfl(T v, int from) {
#if defined(__CUDA_ARCH__)
  return __shfl_sync(0xffffffffu, v, from);
#elif defined(__HIP_DEVICE_COMPILE__)
  return __shfl(v, from);
#else
  (void)from;
  return v;
#endif
}

}  // namespace intrinsics
}  // namespace tdmaps

#endif
