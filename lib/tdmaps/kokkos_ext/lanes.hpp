#ifndef TDMAPS_KOKKOS_EXT_LANES_HPP
#define TDMAPS_KOKKOS_EXT_LANES_HPP

/// \file
/// \brief Lanes of a register walk (namespace tdmaps::intrinsics, beside
/// kokkos_ext/warp_math.hpp): how many lanes an execution space runs in
/// lockstep, and the rotation of any trivially copyable value across them.
///
/// A lane walk's team is one thread of `lane_width<ExecSpace>` vector lanes:
/// a CUDA warp (32). Host backends run a team as one thread, a walk of
/// width 1, where a lane's shuffle returns its own value. The width is a
/// template parameter of everything that uses it (never a literal), so that
/// another backend's lanes (a 64-wide HIP wavefront) change one trait.

#include <tdmaps/kokkos_ext/warp_math.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tdmaps {
namespace intrinsics {

/// \brief Lanes of ExecSpace's lane walks: 32 (a CUDA warp), 1 on host backends.
template <class ExecSpace>
struct lane_width : std::integral_constant<int, 1> {};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct lane_width<Kokkos::Cuda> : std::integral_constant<int, 32> {};
#endif

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
    std::memcpy(w, &v, sizeof(T));
    for (int k = 0; k < words; ++k) w[k] = warp_shfl(w[k], from);
    T out;
    std::memcpy(&out, w, sizeof(T));
    return out;
  }
}

}  // namespace intrinsics
}  // namespace tdmaps

#endif
