#ifndef TDMAPS_KOKKOS_EXT_INTRINSICS_HPP
#define TDMAPS_KOKKOS_EXT_INTRINSICS_HPP

/// \file
/// \brief Device intrinsics (namespace tdmaps::intrinsics): CUDA and HIP
/// intrinsics in their device passes, their std:: equivalents on host
/// backends, and the unroll pragmas that differ between the passes.
///
/// The bottom layer of tdmaps (with kokkos_ext/backend.hpp, it includes only
/// Kokkos); with kokkos_ext/warp_math.hpp and kokkos_ext/lanes.hpp the only
/// headers that test the device passes (__CUDA_ARCH__,
/// __HIP_DEVICE_COMPILE__): core/, maps/, launch/ and the apps' kernels call
/// these instead of testing them themselves. Every function keeps one
/// accuracy promise on every backend: where a HIP intrinsic of the same name
/// as CUDA's is an approximation (__fsqrt_rn, __drcp_rn in HIP 5.2), the HIP
/// pass takes the correctly rounded form instead.
///
/// The "warp" helpers (warp_ballot, warp_sum, warp_max_nonneg) combine the 32
/// vector lanes of a tile kernel at block side 32: a CUDA warp, or half of a
/// 64-wide HIP wavefront (the two halves are two team threads' lanes, each
/// combined on its own).

#include <tdmaps/kokkos_ext/backend.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

/// \def TDMAPS_UNROLL
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

/// Expands to _Pragma("x") (TDMAPS_UNROLL_BY builds its pragma with it).
#define TDMAPS_PRAGMA(x) _Pragma(#x)
/// \def TDMAPS_UNROLL_BY(N)
/// Unrolls the loop that follows by a factor N (a literal), as TDMAPS_UNROLL.
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
/// \brief Device intrinsics with host equivalents (kokkos_ext/intrinsics.hpp).
namespace intrinsics {

/// IEEE round-to-nearest single-precision square root.
KOKKOS_FORCEINLINE_FUNCTION float sqrt_rn(float x) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(x);
#elif defined(__HIP_DEVICE_COMPILE__)
  return ::sqrtf(x);  // correctly rounded (HIP's __fsqrt_rn is not)
#else
  return std::sqrt(x);
#endif
}

/// Hardware reciprocal square root (approximate on CUDA: MUFU.RSQ).
KOKKOS_FORCEINLINE_FUNCTION float rsqrt(float x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return rsqrtf(x);
#else
  return 1.0f / std::sqrt(x);
#endif
}

/// Double-precision square root (correctly rounded on both sides).
KOKKOS_FORCEINLINE_FUNCTION double sqrt_d(double x) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(x);
#elif defined(__HIP_DEVICE_COMPILE__)
  return ::sqrt(x);  // correctly rounded
#else
  return std::sqrt(x);
#endif
}

/// Single-precision cube root (cbrtf on CUDA, std::cbrt on host).
KOKKOS_FORCEINLINE_FUNCTION float cbrt_f(float x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return cbrtf(x);
#else
  return std::cbrt(x);
#endif
}

/// Double-precision cube root.
KOKKOS_FORCEINLINE_FUNCTION double cbrt_d(double x) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return ::cbrt(x);
#else
  return std::cbrt(x);
#endif
}

/// The bits of x as a signed word (__float_as_int).
KOKKOS_FORCEINLINE_FUNCTION std::int32_t float_as_int(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_int(x);
#else
  std::int32_t i;
  __builtin_memcpy(&i, &x, sizeof i);
  return i;
#endif
}

/// *p += v for a counter in team scratch: the native shared-memory atomic on
/// CUDA, Kokkos' atomic elsewhere.
KOKKOS_FORCEINLINE_FUNCTION void scratch_add(std::uint32_t* p, std::uint32_t v) {
#if defined(__CUDA_ARCH__)
  // A reduction in the shared window by its shared address: nvcc cannot
  // tell that a generic pointer from Kokkos' team scratch is shared memory.
  const unsigned int a = static_cast<unsigned int>(__cvta_generic_to_shared(p));
  asm volatile("red.shared.add.u32 [%0], %1;" ::"r"(a), "r"(v) : "memory");
#else
  Kokkos::atomic_add(p, v);
#endif
}

/// The bits of x as a signed 64-bit word (__double_as_longlong).
KOKKOS_FORCEINLINE_FUNCTION std::int64_t double_as_int64(double x) {
#if defined(__CUDA_ARCH__)
  return __double_as_longlong(x);
#else
  std::int64_t i;
  __builtin_memcpy(&i, &x, sizeof i);
  return i;
#endif
}

/// The double whose bits are i (__longlong_as_double).
KOKKOS_FORCEINLINE_FUNCTION double int64_as_double(std::int64_t i) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(i);
#else
  double x;
  __builtin_memcpy(&x, &i, sizeof x);
  return x;
#endif
}

/// The bits of x as an unsigned word (float_as_int's, unsigned).
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t float_bits(float x) { return static_cast<std::uint32_t>(float_as_int(x)); }

/// The float whose bits are i (__int_as_float).
KOKKOS_FORCEINLINE_FUNCTION float int_as_float(std::int32_t i) {
#if defined(__CUDA_ARCH__)
  return __int_as_float(i);
#else
  float x;
  __builtin_memcpy(&x, &i, sizeof x);
  return x;
#endif
}

/// sqrt_rn(x) for x in [2^-101, FLT_MAX] without the branch that IEEE
/// sqrt spends on the other inputs: on CUDA the fast path nvcc itself emits
/// for sqrt.rn.f32 (MUFU.RSQ, two multiplies, two FMAs: the same operations
/// in the same order, so the same bits), and `odd` is set (never cleared)
/// for x outside that range (zero, subnormal or tiny, negative, infinite,
/// NaN), where the value is not sqrt_rn(x) and the caller must recompute it
/// with sqrt_rn. A caller can thus test once for a run of values (one
/// predicate OR per value) and take the branch only when a rare input is
/// there. Host: std::sqrt, `odd` set as on CUDA.
KOKKOS_FORCEINLINE_FUNCTION float sqrt_rn_or_flag(float x, bool& odd) {
  odd |= float_bits(x) - 0x0d000000u > 0x727fffffu;  // bits outside [2^-101, FLT_MAX]
#if defined(__CUDA_ARCH__)
  float rs;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(rs) : "f"(x));
  const float y = __fmul_rn(x, rs), h = __fmul_rn(rs, 0.5f);
  return __fmaf_rn(__fmaf_rn(-y, y, x), h, y);
#else
  return sqrt_rn(x);
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

/// Whether this compilation pass is CUDA or HIP device code, where the 32
/// vector lanes of a tile kernel at block side 32 run in lockstep (a CUDA
/// warp, half a HIP wavefront) and warp_ballot / warp_sum combine them. Host
/// passes (host backends, SYCL) take the callers' per-lane path instead;
/// there the two helpers only see the calling lane.
KOKKOS_FORCEINLINE_FUNCTION constexpr bool warp_code() {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return true;
#else
  return false;
#endif
}

/// CUDA and HIP device passes: the calling thread's (threadIdx.x,
/// threadIdx.y) and blockDim.y; a Kokkos team of R threads x V vector lanes
/// is a block of (V, R) threads there. Host passes: 0, 0, 1 (callers take their Kokkos
/// loop instead, as for warp_ballot).
KOKKOS_FORCEINLINE_FUNCTION int thread_x() {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return static_cast<int>(threadIdx.x);
#else
  return 0;
#endif
}
/// CUDA device pass: blockIdx.x (the block of a direct launch,
/// kokkos_ext/direct_launch.hpp); host passes: 0.
KOKKOS_FORCEINLINE_FUNCTION int block_x() {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return static_cast<int>(blockIdx.x);
#else
  return 0;
#endif
}
/// CUDA device pass: threadIdx.y; host passes: 0 (see thread_x).
KOKKOS_FORCEINLINE_FUNCTION int thread_y() {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return static_cast<int>(threadIdx.y);
#else
  return 0;
#endif
}
/// CUDA device pass: blockDim.y; host passes: 1 (see thread_x).
KOKKOS_FORCEINLINE_FUNCTION int block_dim_y() {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  return static_cast<int>(blockDim.y);
#else
  return 1;
#endif
}

/// Bit L set where lane L of the (whole, converged) 32 lanes passes p.
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t warp_ballot(bool p) {
#if defined(__CUDA_ARCH__)
  return __ballot_sync(0xffffffffu, p);
#elif defined(__HIP_DEVICE_COMPILE__)
  // The wavefront's 64-bit ballot, the calling half's 32 bits (lanes 32 .. 63: the upper word).
  return static_cast<std::uint32_t>(__ballot(p) >> (__lane_id() & 32));
#else
  return p ? 1u : 0u;
#endif
}

/// Sum of v over the (whole, converged) 32 lanes, in every lane.
KOKKOS_FORCEINLINE_FUNCTION int warp_sum(int v) {
#if defined(__CUDA_ARCH__)
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
#elif defined(__HIP_DEVICE_COMPILE__)
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o, 32);
#endif
  return v;
}

/// Bits set in x.
KOKKOS_FORCEINLINE_FUNCTION int popcount(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __popc(x);
#else
  return __builtin_popcount(x);
#endif
}

/// Index of the lowest set bit of x; x != 0.
KOKKOS_FORCEINLINE_FUNCTION int lowest_bit(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __ffs(static_cast<int>(x)) - 1;
#else
  return __builtin_ctz(x);
#endif
}

/// |x| (FSETP and FADD take it as an operand modifier on CUDA).
KOKKOS_FORCEINLINE_FUNCTION float abs_f(float x) {
#if defined(__CUDA_ARCH__)
  return fabsf(x);
#else
  return std::fabs(x);
#endif
}

/// Maximum of v >= 0 (or -0) over the (whole, converged) 32 lanes, in every
/// lane: non-negative floats order as their bit patterns, so it is an
/// unsigned maximum of the bits with the sign cleared (-0 counts as +0),
/// one REDUX on sm_80 and later, 5 shuffle rounds before. NaN is not
/// handled (the callers' inputs are checked finite).
KOKKOS_FORCEINLINE_FUNCTION float warp_max_nonneg(float v) {
#if defined(__CUDA_ARCH__)
  unsigned u = __float_as_uint(v) & 0x7fffffffu;
#if __CUDA_ARCH__ >= 800
  u = __reduce_max_sync(0xffffffffu, u);
#else
  for (int o = 16; o > 0; o >>= 1) u = umax(u, __shfl_xor_sync(0xffffffffu, u, o));
#endif
  return __uint_as_float(u);
#elif defined(__HIP_DEVICE_COMPILE__)
  unsigned u = float_bits(v) & 0x7fffffffu;
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned w = static_cast<unsigned>(__shfl_xor(static_cast<int>(u), o, 32));
    u = w > u ? w : u;
  }
  return int_as_float(static_cast<std::int32_t>(u));
#else
  return abs_f(v);
#endif
}

/// (word << 1) | the sign bit of x: one funnel shift (SHF.L) on CUDA
/// instead of a mask and a shift. A word built from 32 such steps holds the
/// first x's sign at bit 31 and the last's at bit 0 (-0 and NaN with the
/// sign set count as negative).
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t shift_in_sign(std::uint32_t word, float x) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_l(__float_as_uint(x), word, 1);
#else
  return (word << 1) | (float_bits(x) >> 31);
#endif
}

/// a b + c with one rounding (FFMA on CUDA).
KOKKOS_FORCEINLINE_FUNCTION float fma_f(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

}  // namespace intrinsics
}  // namespace tdmaps

#endif
