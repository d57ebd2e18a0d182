#ifndef TDMAPS_KOKKOS_EXT_LANES_HPP
#define TDMAPS_KOKKOS_EXT_LANES_HPP

/// \file
/// \brief Lanes of a register walk (namespace tdmaps::intrinsics, beside
/// kokkos_ext/warp_math.hpp): how many lanes an execution space runs in
/// lockstep, and the rotation of any trivially copyable value across them.
///
/// A lane walk's team is one thread of `lane_width<ExecSpace>` vector lanes:
/// a CUDA warp (32), a HIP wavefront (64 on CDNA). Host backends run a team as one thread, a walk of
/// width 1, where a lane's shuffle returns its own value. The width is a
/// template parameter of everything that uses it (never a literal), so that
/// another backend's lanes (a 64-wide HIP wavefront) change one trait.

#include <tdmaps/kokkos_ext/backend.hpp>
#include <tdmaps/kokkos_ext/warp_math.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tdmaps {
namespace intrinsics {

/// \brief Lanes of ExecSpace's lane walks: backend::lane_width (32 on CUDA,
/// the wavefront on HIP, 1 on host backends and SYCL).
template <class ExecSpace>
struct lane_width : backend::lane_width<ExecSpace> {};

/// \brief v of lane `from` of the walk's lanes, all lanes taking part; any
/// trivially copyable T of whole 32-bit words (arithmetic types and structs
/// of them, Kokkos::Array), rotated word by word. Host: v.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T lane_shfl(const T& v, int from) {
  if constexpr (std::is_arithmetic<T>::value) {
    return warp_shfl(v, from);
  } else {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) % sizeof(std::uint32_t) == 0,
                  "tdmaps: a lane walk rotates values of trivially copyable types made of 32-bit words "
                  "(float, double, int, structs and Kokkos::Arrays of them)");
    constexpr int words = static_cast<int>(sizeof(T) / sizeof(std::uint32_t));
    std::uint32_t w[words];
    __builtin_memcpy(w, &v, sizeof(T));
    for (int k = 0; k < words; ++k) w[k] = warp_shfl(w[k], from);
    T out;
    __builtin_memcpy(&out, w, sizeof(T));
    return out;
  }
}

/// \brief Orders the lanes' team-scratch writes before their next reads, for
/// lanes that step together through ThreadVectorRange loops (each lane
/// reading what another wrote in the previous loop). CUDA: nothing to do, as
/// Kokkos ends every ThreadVectorRange with a warp synchronisation there;
/// HIP: a wavefront barrier between a release and an acquire fence (Kokkos'
/// HIP ThreadVectorRange has none, and the compiler may otherwise move the
/// reads above the writes); host backends: nothing (one lane).
KOKKOS_FORCEINLINE_FUNCTION void lane_fence() {
#if defined(__HIP_DEVICE_COMPILE__)
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#endif
}

}  // namespace intrinsics
}  // namespace tdmaps

#endif
