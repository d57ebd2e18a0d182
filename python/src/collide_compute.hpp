// The kernels of python/src/collide.cpp, one translation unit per map group
// (MapGroup, common.hpp), each an explicit instantiation of
// collide_kernels.hpp's definitions that python/CMakeLists.txt generates.
#ifndef TDMAPS_PYTHON_COLLIDE_COMPUTE_HPP
#define TDMAPS_PYTHON_COLLIDE_COMPUTE_HPP

#include "arrays.hpp"
#include "common.hpp"

#include <tdmaps/collision.hpp>

namespace tdmaps {
namespace python {

/// A checked collide request.
struct Run {
  MapSpec spec;
  int block = 32;
  tdmaps::collision::Result result = tdmaps::collision::Result::count;
  tdmaps::collision::Kernel kernel = tdmaps::collision::Kernel::tile;
  index_t part = 0, parts = 0;  ///< parts > 0: the omega range `part` of `parts` only (count)
};

/// The collision test (a job of on_kokkos); out.pairs holds the list for
/// pairs. G: the group of r.spec's map.
template <MapGroup G>
index_t collide_compute(const ArrayRef& s, const ArrayRef& words, index_t n, const Run& r,
                        tdmaps::collision::Output<MemSpace>& out);

}  // namespace python
}  // namespace tdmaps

#endif
