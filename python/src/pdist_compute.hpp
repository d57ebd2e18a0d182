// The kernels of python/src/pdist.cpp, one translation unit per precision
// and map group (MapGroup, common.hpp), each an explicit instantiation of
// pdist_kernels.hpp's definitions that python/CMakeLists.txt generates.
#ifndef TDMAPS_PYTHON_PDIST_COMPUTE_HPP
#define TDMAPS_PYTHON_PDIST_COMPUTE_HPP

#include "arrays.hpp"
#include "common.hpp"

#include <tdmaps/edm/driver.hpp>
#include <tdmaps/edm/layout.hpp>

namespace tdmaps {
namespace python {

/// A checked pdist request.
struct PdistOptions {
  edm::Layout layout = edm::Layout::condensed;
  edm::Kernel kernel = edm::Kernel::automatic;
  bool symmetric = false;
  bool squared = false;  // metric "sqeuclidean"
  bool reject_nonfinite = false;
  MapSpec spec;
  int block = 32;
};

/// The distances of x (n points, d coordinates) into out, a job of on_kokkos
/// (staged through the device for host arrays on a GPU build; the
/// non-finite check of reject_nonfinite; sqeuclidean's squares). G: the
/// group of o.spec's map.
template <class Real, MapGroup G>
void pdist_compute(const ArrayRef& x, const ArrayRef& out, index_t n, index_t d, const PdistOptions& o);

}  // namespace python
}  // namespace tdmaps

#endif
