// The definitions of nbody_compute.hpp's nbody_compute, included by the
// units python/CMakeLists.txt generates only, which instantiate them
// (TDMAPS_PYTHON_NBODY_INSTANTIATE).
#ifndef TDMAPS_PYTHON_NBODY_KERNELS_HPP
#define TDMAPS_PYTHON_NBODY_KERNELS_HPP

#include "arrays.hpp"
#include "common.hpp"
#include "nbody_compute.hpp"

#include <tdmaps/maps/dispatch.hpp>
#include <tdmaps/maps/map_concept.hpp>
#include <tdmaps/nbody/accelerations.hpp>
#include <tdmaps/nbody/checks.hpp>
#include <tdmaps/nbody/forces.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tdmaps {
namespace python {
namespace nbody_detail {

namespace nb = tdmaps::nbody;

/// A's values as doubles on the host, as given (check_bodies judges them in
/// the run's precision and names a value that does not fit it as typed).
/// Inside a job.
template <class Src>
std::vector<double> host_values(const ExecSpace& space, const ArrayRef& a) {
  const std::size_t len = static_cast<std::size_t>(a.size());
  const Src* p = static_cast<const Src*>(a.data);
  std::vector<Src> staged;
  if (!host_backend && a.memory == Memory::device) {
    staged.resize(len);
    Kokkos::deep_copy(space, Kokkos::View<Src*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(staged.data(), len),
                      Kokkos::View<const Src*, MemSpace, Kokkos::MemoryUnmanaged>(p, len));
    space.fence();
    p = staged.data();
  }
  std::vector<double> v(len);
  for (std::size_t k = 0; k < len; ++k) v[k] = static_cast<double>(p[k]);
  return v;
}

inline std::vector<double> host_values(const ExecSpace& space, const ArrayRef& a) {
  return a.is('f', 4) ? host_values<float>(space, a) : host_values<double>(space, a);
}

template <class Real, class Src>
struct Convert {
  Kokkos::View<Real*, MemSpace> to;
  Kokkos::View<const Src*, MemSpace, Kokkos::MemoryUnmanaged> from;
  KOKKOS_FUNCTION void operator()(const index_t k) const { to(k) = static_cast<Real>(from(k)); }
};

/// m or q as a View of Real in MemSpace: in place where it lies there in
/// Real, else a converted (and staged) copy. Inside a job.
template <class Real, class Src>
Kokkos::View<const Real*, MemSpace> scalars_view(const ExecSpace& space, const ArrayRef& a, const char* label) {
  const index_t len = a.size();
  const Src* p = static_cast<const Src*>(a.data);
  const bool here = host_backend || a.memory == Memory::device;
  if constexpr (std::is_same<Real, Src>::value)
    if (here) return Kokkos::View<const Real*, MemSpace, Kokkos::MemoryUnmanaged>(p, len);
  Kokkos::View<Real*, MemSpace> d(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string(label)), len);
  if (here) {
    Kokkos::parallel_for("tdmaps::python::nbody_convert",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, len),
                         Convert<Real, Src>{d, Kokkos::View<const Src*, MemSpace, Kokkos::MemoryUnmanaged>(p, len)});
  } else {
    Kokkos::View<Real*, Kokkos::HostSpace> h(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), len);
    for (index_t k = 0; k < len; ++k) h(k) = static_cast<Real>(p[k]);
    Kokkos::deep_copy(space, d, h);
    space.fence();  // h ends here
  }
  return d;
}

template <class Real>
Kokkos::View<const Real*, MemSpace> scalars_view(const ExecSpace& space, const ArrayRef& a, const char* label) {
  return a.is('f', 4) ? scalars_view<Real, float>(space, a, label) : scalars_view<Real, double>(space, a, label);
}

/// The kernel's (n) Accel into the caller's (n, 3) accelerations and (n) shares.
template <class Real>
struct Split {
  Kokkos::View<const nb::Accel<Real>*, MemSpace> acc;
  Kokkos::View<Real*, MemSpace> a, e;
  bool shares;
  KOKKOS_FUNCTION void operator()(const index_t i) const {
    const nb::Accel<Real> v = acc(i);
    a(3 * i) = v.x;
    a(3 * i + 1) = v.y;
    a(3 * i + 2) = v.z;
    if (shares) e(i) = v.e;
  }
};

}  // namespace nbody_detail

template <class Real, MapGroup G>
void nbody_compute(const NbodyRequest& r, const ArrayRef& x, const ArrayRef& m, const ArrayRef* q, index_t n,
                   const ArrayRef& out_a, const ArrayRef& out_e) {
  using namespace nbody_detail;
  ExecSpace space;
  const bool fp32 = std::is_same<Real, float>::value;
  // Kept for the cause of a result that is not finite (checks.hpp).
  const std::vector<double> xh = host_values(space, x), mh = host_values(space, m),
                            qh = q ? host_values(space, *q) : std::vector<double>();
  nb::check_bodies(xh, mh, qh, r.params, fp32);  // std::invalid_argument: ValueError
  const PointsView<Real> pv = points_view<Real>(space, x, n, 3);
  const typename nb::Forces<Real, ExecSpace>::positions_type xv(pv.data(), n);
  const Kokkos::View<const Real*, MemSpace> mv = scalars_view<Real>(space, m, "tdmaps::python::nbody_m");
  const Kokkos::View<const Real*, MemSpace> qv =
      q ? scalars_view<Real>(space, *q, "tdmaps::python::nbody_q") : Kokkos::View<const Real*, MemSpace>();
  Kokkos::View<nb::Accel<Real>*, MemSpace> acc(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::python::nbody_acc"), n);
  const nb::Forces<Real, ExecSpace> forces(space, r.params, mv, qv);
  const Domain2 domain(n, r.block, Triangle::strict_lower);
  with_map_in<G>(
      r.spec, domain,
      [&](auto map) {
        const nb::Terms terms = r.potential ? nb::Terms::accelerations_and_energy : nb::Terms::accelerations;
        if constexpr (is_block_space_map_v<decltype(map)> && !is_multi_launch_map_v<decltype(map)>) {
          // Ctrl-C is seen between parts (check_cancel): a fixed number of
          // them for n (so that the sums do not depend on timing), each a
          // fraction of a second, before anything reaches the caller's arrays.
          const double pairs = 0.5 * static_cast<double>(n) * static_cast<double>(n - 1);
          const double per_part = tdmaps::is_gpu_space<ExecSpace>::value ? 0x1p34 : 0x1p27;
          const int parts = static_cast<int>(std::min(4096.0, std::max(1.0, std::ceil(pairs / per_part))));
          Kokkos::deep_copy(space, acc, nb::Accel<Real>{Real(0), Real(0), Real(0), Real(0)});
          for (int p = 0; p < parts; ++p) {
            check_cancel();
            forces.add_part(map, p, parts, xv, acc, LaunchHints(), terms);
          }
        } else if constexpr (is_block_space_map_v<decltype(map)>) {
          check_cancel();
          forces.compute(map, xv, acc, LaunchHints(), terms);
        }
      },
      true);
  // Finite inputs, a result that is not: refused (ValueError) with its body
  // and cause, before anything reaches the caller's arrays.
  const index_t bad = nb::first_non_finite(space, acc);
  if (bad >= 0) {
    const auto one =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(acc, std::make_pair(bad, bad + 1)));
    const double a[4] = {double(one(0).x), double(one(0).y), double(one(0).z), double(one(0).e)};
    nb::Remedies fix;
    fix.softening = "a softening (softening=)", fix.fp64 = "precision='fp64'";
    throw std::invalid_argument(
        "tdmaps::nbody: " + nb::non_finite_cause(r.params, fp32, xh, mh, qh, static_cast<std::size_t>(bad), a, fix));
  }
  const Kokkos::View<Real*, MemSpace> av = result_view<Real>(out_a, "tdmaps::python::nbody_a");
  Kokkos::View<Real*, MemSpace> ev;
  if (r.potential) ev = result_view<Real>(out_e, "tdmaps::python::nbody_e");
  Kokkos::parallel_for("tdmaps::python::nbody_split",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, n),
                       Split<Real>{acc, av, ev, r.potential});
  copy_back(space, out_a, av);
  if (r.potential) copy_back(space, out_e, ev);
  space.fence();
}

}  // namespace python
}  // namespace tdmaps

/// The unit of one precision and map group.
#define TDMAPS_PYTHON_NBODY_INSTANTIATE(Real, G)                                                                   \
  namespace tdmaps {                                                                                               \
  namespace python {                                                                                               \
  template void nbody_compute<Real, MapGroup::G>(const NbodyRequest&, const ArrayRef&, const ArrayRef&,            \
                                                 const ArrayRef*, index_t, const ArrayRef&, const ArrayRef&);      \
  }                                                                                                                \
  }

#endif
