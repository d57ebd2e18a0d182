// The kernels of python/src/nbody.cpp, one translation unit per precision
// and map group (MapGroup, common.hpp), each an explicit instantiation of
// nbody_kernels.hpp's definitions that python/CMakeLists.txt generates:
// every map of with_map under every law is a set of kernels, and four
// smaller units compile side by side.
#ifndef TDMAPS_PYTHON_NBODY_COMPUTE_HPP
#define TDMAPS_PYTHON_NBODY_COMPUTE_HPP

#include "arrays.hpp"
#include "common.hpp"

#include <tdmaps/nbody/forces.hpp>

namespace tdmaps {
namespace python {

/// A checked request: the law and its parameters, the map.
struct NbodyRequest {
  tdmaps::nbody::ForceParams params;
  MapSpec spec;
  int block = 32;
  bool potential = false;
};

/// The bodies checked, then the accelerations (and shares) into out_a (and
/// out_e). A job of on_kokkos. G: the group of r.spec's map.
template <class Real, MapGroup G>
void nbody_compute(const NbodyRequest& r, const ArrayRef& x, const ArrayRef& m, const ArrayRef* q, index_t n,
                   const ArrayRef& out_a, const ArrayRef& out_e);

}  // namespace python
}  // namespace tdmaps

#endif
