#ifndef TDMAPS_BENCH_DUMMY_HPP
#define TDMAPS_BENCH_DUMMY_HPP

// The papers' dummy kernel (test (1) of sec. 5 of the journal paper): it does
// no work of its own, so a launch measures the cost of the map.
//
//   DummyKernel<MemorySpace>  writes dummy_value(i, j) to out(packed(i, j)):
//       every element is stored at its own place, so the compiler cannot drop
//       the map, and the output proves which (i, j) each thread computed.
//       Moves 4 bytes per element: the figure to hold against the write ceiling.
//   DummySink<MemorySpace>    writes dummy_value(i, j) to out(0) only when
//       dummy_key(i, j) equals `sentinel`, a run-time value (-1 in a timed
//       run) that no element produces but the compiler cannot rule out: the
//       map and one compare per element, no traffic. The papers write i + j
//       to a fixed location instead; a store of every thread to one address
//       serialises in L2 on newer GPUs, which would measure the store, not
//       the map.
//
// Both are element kernels (operator()(i, j)) and run under every map through
// tdmaps::for_each_element.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

/// \namespace tdmaps::bench
/// \brief The papers' dummy kernels, for benchmarks and tests (not in <tdmaps/tdmaps.hpp>).
namespace tdmaps {
namespace bench {

/// The value the dummy kernel writes for (i, j): a multiply-add that is
/// distinct for every (i, j) with i, j < 65599 (so tests can tell elements
/// apart) and cheap next to any map.
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t dummy_value(index_t i, index_t j) {
  return static_cast<std::uint32_t>(i) * 65599u + static_cast<std::uint32_t>(j);
}

/// out(packed_index(i, j)) = dummy_value(i, j); out holds domain.elements() values.
template <class MemorySpace>
struct DummyKernel {
  Kokkos::View<std::uint32_t*, MemorySpace> out;  ///< the output
  Triangle triangle = Triangle::lower;            ///< the domain's triangle (the packed order of out)

  /// The element kernel.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j) const {
    out(packed_index(i, j, triangle)) = dummy_value(i, j);
  }
};

/// The key the sink compares: (i << 32) | j, distinct for every element of
/// every domain (i, j < 2^31) and never negative.
KOKKOS_FORCEINLINE_FUNCTION std::int64_t dummy_key(index_t i, index_t j) { return (i << 32) | j; }

/// out(0) = dummy_value(i, j) only for the element whose dummy_key equals
/// `sentinel`: the map alone. The default sentinel (-1) matches no element.
template <class MemorySpace>
struct DummySink {
  Kokkos::View<std::uint32_t*, MemorySpace> out;  ///< the output
  std::int64_t sentinel = -1;                     ///< the key of the one element written (-1: none)

  /// The element kernel.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j) const {
    if (dummy_key(i, j) == sentinel) out(0) = dummy_value(i, j);
  }
};

}  // namespace bench
}  // namespace tdmaps

#endif
