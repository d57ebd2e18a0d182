#ifndef TDMAPS_LAUNCH_DETAIL_THREAD_FUNCTOR_HPP
#define TDMAPS_LAUNCH_DETAIL_THREAD_FUNCTOR_HPP

// Not API (tdmaps::detail): what for_each_element runs for a thread-space
// map, one element per RangePolicy index.

#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace detail {

template <class Map, class Kernel>
struct ThreadFunctor {
  Map map;
  Kernel kernel;
  KOKKOS_FUNCTION void operator()(const index_t k) const {
    index_t i, j;
    map.element(k, i, j);
    kernel(i, j);
  }
};

}  // namespace detail
}  // namespace tdmaps

#endif
