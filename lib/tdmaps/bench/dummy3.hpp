#ifndef TDMAPS_BENCH_DUMMY3_HPP
#define TDMAPS_BENCH_DUMMY3_HPP

// The dummy kernel of bench/dummy.hpp on a tetrahedron: no work of its
// own, so a launch measures the cost of the 3-D map.
//
//   Dummy3Kernel<MemorySpace>  writes dummy3_value(i, j, k) to
//       out(tet_index(i, j, k)) (the packed order of core/tetrahedral.hpp):
//       one 4-byte store per triplet, the figure to hold against the write
//       ceiling, and the output proves which triplet each thread computed.
//   Dummy3Sink<MemorySpace>    writes to out(0) only for the triplet whose
//       dummy3_key equals `sentinel` (-1 in a timed run: none): the map and
//       one compare per triplet, no traffic.
//
// Both are 3-D element kernels (operator()(i, j, k)) and run under every 3-D
// map through tdmaps::for_each_element.

#include <tdmaps/core/tetrahedral.hpp>
#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tdmaps {
namespace bench {

/// The value the 3-D dummy kernel writes for (i, j, k): a multiply-add chain,
/// distinct for every triplet with i, j, k < 1024, cheap next to any map.
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t dummy3_value(index_t i, index_t j, index_t k) {
  return (static_cast<std::uint32_t>(i) * 1024u + static_cast<std::uint32_t>(j)) * 1024u +
         static_cast<std::uint32_t>(k);
}

/// out(tet_index(i, j, k)) = dummy3_value(i, j, k); out holds domain.elements() values.
template <class MemorySpace>
struct Dummy3Kernel {
  Kokkos::View<std::uint32_t*, MemorySpace> out;  ///< the output
  Triangle triangle = Triangle::strict_lower;     ///< the domain's triangle (the packed order of out)

  /// The element kernel.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j, index_t k) const {
    out(tet_index(i, j, k, triangle)) = dummy3_value(i, j, k);
  }
};

/// The key the sink compares: (i << 42) | (j << 21) | k, distinct for every
/// triplet of every domain (n <= 2^21) and never negative.
KOKKOS_FORCEINLINE_FUNCTION std::int64_t dummy3_key(index_t i, index_t j, index_t k) {
  return (i << 42) | (j << 21) | k;
}

/// out(0) = dummy3_value(i, j, k) only for the triplet whose dummy3_key
/// equals `sentinel`: the map alone. The default sentinel (-1) matches none.
template <class MemorySpace>
struct Dummy3Sink {
  Kokkos::View<std::uint32_t*, MemorySpace> out;  ///< the output
  std::int64_t sentinel = -1;                     ///< the key of the one element written (-1: none)

  /// The element kernel.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j, index_t k) const {
    if (dummy3_key(i, j, k) == sentinel) out(0) = dummy3_value(i, j, k);
  }
};

}  // namespace bench
}  // namespace tdmaps

#endif
