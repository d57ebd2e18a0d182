#ifndef TDMAPS_CORE_INTRINSICS_HPP
#define TDMAPS_CORE_INTRINSICS_HPP

// The only header of tdmaps that tests __CUDA_ARCH__: device intrinsics on
// CUDA, their std:: equivalents on host backends.

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

/// Unrolls the loop that follows completely where its trip count is a
/// constant (device code: nvcc's unroll; host: GCC's, clang's; nothing in the
/// host pass of nvcc, whose front end knows neither GCC's pragma nor, for
/// g++ behind it, the plain one).
#if defined(__CUDA_ARCH__)
#define TDMAPS_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
#define TDMAPS_UNROLL
#elif defined(__clang__)
#define TDMAPS_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define TDMAPS_UNROLL _Pragma("GCC unroll 32")
#else
#define TDMAPS_UNROLL
#endif

/// Unrolls the loop that follows by a factor N (a literal), as TDMAPS_UNROLL.
#define TDMAPS_PRAGMA(x) _Pragma(#x)
#if defined(__CUDA_ARCH__)
#define TDMAPS_UNROLL_BY(N) TDMAPS_PRAGMA(unroll N)
#elif defined(__CUDACC__)
#define TDMAPS_UNROLL_BY(N)
#elif defined(__clang__)
#define TDMAPS_UNROLL_BY(N) TDMAPS_PRAGMA(unroll N)
#elif defined(__GNUC__)
#define TDMAPS_UNROLL_BY(N) TDMAPS_PRAGMA(GCC unroll N)
#else
#define TDMAPS_UNROLL_BY(N)
#endif

namespace tdmaps {
namespace intrinsics {

/// IEEE round-to-nearest single-precision square root.
KOKKOS_FORCEINLINE_FUNCTION float sqrt_rn(float x) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}

/// Hardware reciprocal square root (approximate on CUDA: MUFU.RSQ).
KOKKOS_FORCEINLINE_FUNCTION float rsqrt(float x) {
#if defined(__CUDA_ARCH__)
  return rsqrtf(x);
#else
  return 1.0f / std::sqrt(x);
#endif
}

/// Double-precision square root (correctly rounded on both sides).
KOKKOS_FORCEINLINE_FUNCTION double sqrt_d(double x) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}

KOKKOS_FORCEINLINE_FUNCTION std::int32_t float_as_int(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_int(x);
#else
  std::int32_t i;
  std::memcpy(&i, &x, sizeof i);
  return i;
#endif
}

KOKKOS_FORCEINLINE_FUNCTION float int_as_float(std::int32_t i) {
#if defined(__CUDA_ARCH__)
  return __int_as_float(i);
#else
  float x;
  std::memcpy(&x, &i, sizeof x);
  return x;
#endif
}

/// Number of significant bits of a 64-bit unsigned value (0 for 0).
KOKKOS_FORCEINLINE_FUNCTION int bit_length(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return 64 - __clzll(static_cast<long long>(x));
#else
  return x == 0 ? 0 : 64 - __builtin_clzll(x);
#endif
}

/// Whether this compilation pass is CUDA device code, where the 32 vector
/// lanes of a tile kernel at block side 32 are one warp and warp_ballot /
/// warp_sum combine them. Host passes (and host backends) take the callers'
/// per-lane path instead; there the two helpers only see the calling lane.
KOKKOS_FORCEINLINE_FUNCTION constexpr bool warp_code() {
#if defined(__CUDA_ARCH__)
  return true;
#else
  return false;
#endif
}

/// Bit L set where lane L of the (whole, converged) warp passes p.
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t warp_ballot(bool p) {
#if defined(__CUDA_ARCH__)
  return __ballot_sync(0xffffffffu, p);
#else
  return p ? 1u : 0u;
#endif
}

/// Sum of v over the (whole, converged) warp, in every lane.
KOKKOS_FORCEINLINE_FUNCTION int warp_sum(int v) {
#if defined(__CUDA_ARCH__)
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
#endif
  return v;
}

}  // namespace intrinsics
}  // namespace tdmaps

#endif
