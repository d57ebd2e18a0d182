// The definitions of pdist_compute.hpp's pdist_compute, included by the
// units python/CMakeLists.txt generates only, which instantiate them
// (TDMAPS_PYTHON_PDIST_INSTANTIATE).
#ifndef TDMAPS_PYTHON_PDIST_KERNELS_HPP
#define TDMAPS_PYTHON_PDIST_KERNELS_HPP

#include "arrays.hpp"
#include "common.hpp"
#include "pdist_compute.hpp"

#include <pybind11/pybind11.h>

#include <tdmaps/edm.hpp>

#include <Kokkos_Core.hpp>

#include <sstream>
#include <string>

namespace tdmaps {
namespace python {
namespace pdist_detail {

template <class Real>
using Points = Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace>;
template <class Real>
using Out = Kokkos::View<Real*, MemSpace>;

/// sqeuclidean: each written distance squared in place, so every kernel and
/// map serves it (the square of the correctly rounded root is within 2 ulp
/// of the direct sum of squares). The full layout without `symmetric` has
/// its lower triangle written only: the rest is the caller's and stays.
template <class Real>
struct SquareOut {
  Out<Real> out;
  index_t n;
  bool lower_only;
  KOKKOS_FUNCTION void operator()(const index_t k) const {
    if (lower_only && k % n > k / n) return;
    const Real v = out(k);
    out(k) = v * v;
  }
};

/// The first NaN or Inf coordinate (row-major index), for reject_nonfinite.
template <class Real>
struct FirstNonFinite {
  Kokkos::View<const Real*, MemSpace> x;
  KOKKOS_FUNCTION void operator()(const index_t k, index_t& first) const {
    const Real v = x(k);
    if (!(v - v == Real(0)) && k < first) first = k;  // NaN and Inf give NaN
  }
};

template <class Map, class Real>
void run_map(const Map& map, const Points<Real>& x, const Out<Real>& out, const PdistOptions& o) {
  ExecSpace space;
  edm::edm(space, x, out, map, o.layout, o.kernel, o.symmetric);
  space.fence();
}

}  // namespace pdist_detail

template <class Real, MapGroup G>
void pdist_compute(const ArrayRef& x, const ArrayRef& out, index_t n, index_t d, const PdistOptions& o) {
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  ExecSpace space;
  const index_t len = out.size();
  const bool staged = !host_backend && x.memory == Memory::host;  // CUDA build, host arrays
  pdist_detail::Points<Real> xv;
  pdist_detail::Out<Real> ov;
  if (staged) {
    Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace> xd(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::python::points"), n, d);
    Kokkos::deep_copy(space, xd,
                      Kokkos::View<const Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged>(
                          static_cast<const Real*>(x.data), n, d));
    xv = xd;
    ov = pdist_detail::Out<Real>(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::python::out"), len);
    // The full layout without symmetric keeps the caller's upper triangle.
    if (o.layout == edm::Layout::full && !o.symmetric)
      Kokkos::deep_copy(space, ov, Kokkos::View<Real*, Kokkos::HostSpace, Unmanaged>(static_cast<Real*>(out.data), len));
  } else {
    xv = Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace, Unmanaged>(static_cast<const Real*>(x.data), n, d);
    ov = Kokkos::View<Real*, MemSpace, Unmanaged>(static_cast<Real*>(out.data), len);
  }
  if (o.reject_nonfinite && n * d > 0) {
    index_t first = n * d;
    Kokkos::parallel_reduce("tdmaps::python::reject_nonfinite",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, n * d),
                            pdist_detail::FirstNonFinite<Real>{Kokkos::View<const Real*, MemSpace>(xv.data(), n * d)},
                            Kokkos::Min<index_t>(first));
    if (first < n * d) {
      Real v = 0;
      Kokkos::deep_copy(space, Kokkos::View<Real, Kokkos::HostSpace, Unmanaged>(&v),
                        Kokkos::View<const Real, MemSpace, Unmanaged>(xv.data() + first));
      space.fence();
      std::ostringstream s;
      s << v;
      throw pybind11::value_error("X: row " + std::to_string(first / d) + " (0-based), column " + std::to_string(first % d) +
                            " is " + s.str() + " (reject_nonfinite=True)");
    }
  }
  if (len > 0) {
    with_map_in<G>(
        o.spec, edm::make_domain(n, o.block, o.layout), [&](auto map) { pdist_detail::run_map(map, xv, ov, o); },
        o.kernel == edm::Kernel::tile);
    if (o.squared)
      Kokkos::parallel_for("tdmaps::python::square", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, len),
                           pdist_detail::SquareOut<Real>{ov, n, o.layout == edm::Layout::full && !o.symmetric});
  }
  if (staged)
    Kokkos::deep_copy(space, Kokkos::View<Real*, Kokkos::HostSpace, Unmanaged>(static_cast<Real*>(out.data), len), ov);
  space.fence();
}

}  // namespace python
}  // namespace tdmaps

/// The unit of one precision and map group.
#define TDMAPS_PYTHON_PDIST_INSTANTIATE(Real, G)                                                                     \
  namespace tdmaps {                                                                                                 \
  namespace python {                                                                                                 \
  template void pdist_compute<Real, MapGroup::G>(const ArrayRef&, const ArrayRef&, index_t, index_t,                 \
                                                 const PdistOptions&);                                               \
  }                                                                                                                  \
  }

#endif
