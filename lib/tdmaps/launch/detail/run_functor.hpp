#ifndef TDMAPS_LAUNCH_DETAIL_RUN_FUNCTOR_HPP
#define TDMAPS_LAUNCH_DETAIL_RUN_FUNCTOR_HPP

// Not API (tdmaps::detail): what for_each_run runs, one Run per RangePolicy
// index.

#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/run.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace detail {

template <int Width, class Kernel>
struct RunFunctor {
  Kernel kernel;
  index_t n;
  Triangle triangle;
  RunOrder order;
  index_t total;
  KOKKOS_FUNCTION void operator()(const index_t t) const {
    Run r;
    r.k0 = t * Width;
    r.count = total - r.k0 < Width ? static_cast<int>(total - r.k0) : Width;
    run_start(n, triangle, order, r.k0, r.i, r.j);
    kernel(r);
  }
};

}  // namespace detail
}  // namespace tdmaps

#endif
