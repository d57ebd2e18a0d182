// _tdmaps.pair_histogram, _tdmaps.nearest_neighbour, _tdmaps.count_within:
// the EDM app's reductions (apps/edm/include/tdmaps/edm/reduce.hpp) over the
// pairs i < j of the rows of X, without the distance matrix. The points are
// read in place; the results are new arrays from the Python layer's
// allocator (NumPy, or the input's library on its device). The checks and
// their wording follow tdmaps-edm --reduce.

#include "arrays.hpp"
#include "common.hpp"

#include <pybind11/pybind11.h>

#include <tdmaps/edm/reduce.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

namespace py = pybind11;

namespace tdmaps {
namespace python {
namespace {

using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
template <class Real>
using Points = Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace>;

enum class What { hist, nn, count };

const char* what_name(What w) { return w == What::hist ? "pair_histogram" : w == What::nn ? "nearest_neighbour" : "count_within"; }

struct Request {
  What what = What::count;
  MapSpec spec;
  int block = 32;
  std::int64_t bins = 0;
  double rmax = 0, radius = 0;
};

/// X checked as pdist checks it: (n, d) float32 / float64, C order, d >= 1.
ArrayRef read_points(py::handle X, index_t& n, index_t& d) {
  ArrayRef x = read_array(X, "X", false);
  require_ndim(x, "X", 2, "points x dims");
  if (!x.is('f', 4) && !x.is('f', 8))
    throw py::type_error("X: unsupported dtype '" + x.dtype +
                         "' (tdmaps reads float32 and float64 in place; convert with X.astype(np.float64), or pass "
                         "copy=True)");
  require_c_order(x, "X");
  n = x.shape[0];
  d = x.shape[1];
  if (d == 0) throw py::value_error("X: points have 0 dimensions (the input has 0 columns)");
  if (n > max_side)
    throw py::value_error("X: n = " + std::to_string(n) + " points exceed the largest supported side " +
                          std::to_string(max_side));
  if (d > (index_t(1) << 20)) throw py::value_error("X: d = " + std::to_string(d) + " dimensions exceed 2^20");
  return x;
}

/// Throws TooLarge when the staged points (host arrays on a CUDA build), the
/// results and the workspace of the reduction do not fit.
void check_memory(const Request& r, const ArrayRef& x, index_t n, index_t d) {
  const index_t real_bytes = x.itemsize;
  const bool staged = !host_backend && x.memory == Memory::host;
  // nn: the results (distance + index) and one or two key arrays; hist: the bins.
  const index_t results = r.what == What::nn ? mul_sat(n, real_bytes + 8) : r.what == What::hist ? mul_sat(r.bins, 8) : 0;
  const index_t work = r.what == What::nn ? mul_sat(n, real_bytes == 8 ? 16 : 8) : 0;
  // The results lie in MemSpace either way (the caller's device arrays, or device buffers copied back).
  const index_t device_need = add_sat(add_sat(work, results), staged ? mul_sat(mul_sat(n, d), real_bytes) : 0);
  const std::string what = std::string(what_name(r.what)) + " of n = " + std::to_string(n) + " points";
  const index_t free_b = free_memory_bytes();
  if (device_need > free_b)
    throw TooLarge(what + " needs " + format_bytes(device_need) + " of " + MemSpace::name() + " memory but only " +
                   format_bytes(free_b) + (host_backend ? " is available" : " is free") + "; use fewer points");
  if (!host_backend && x.memory == Memory::host && results > host_available_bytes())
    throw TooLarge(what + ": the result needs " + format_bytes(results) + " of host memory but only " +
                   format_bytes(host_available_bytes()) + " is available; use fewer points");
}

/// The points as a View of MemSpace: X in place, or a device copy of host X.
template <class Real>
Points<Real> points_view(const ExecSpace& space, const ArrayRef& x, index_t n, index_t d) {
  if (host_backend || x.memory == Memory::device)
    return Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace, Unmanaged>(static_cast<const Real*>(x.data), n, d);
  Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace> xd(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::python::points"), n, d);
  Kokkos::deep_copy(space, xd,
                    Kokkos::View<const Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged>(
                        static_cast<const Real*>(x.data), n, d));
  return xd;
}

/// A result array of `out` (the caller-visible array) as a View of MemSpace:
/// the array itself when it lies there, else a device buffer copied back by
/// copy_back.
template <class T>
Kokkos::View<T*, MemSpace> result_view(const ArrayRef& out, const char* label) {
  if (host_backend || out.memory == Memory::device)
    return Kokkos::View<T*, MemSpace, Unmanaged>(static_cast<T*>(out.data), out.size());
  return Kokkos::View<T*, MemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), out.size());
}

template <class T>
void copy_back(const ExecSpace& space, const ArrayRef& out, const Kokkos::View<T*, MemSpace>& v) {
  if (v.data() != out.data && out.size() > 0)
    Kokkos::deep_copy(space, Kokkos::View<T*, Kokkos::HostSpace, Unmanaged>(static_cast<T*>(out.data), out.size()), v);
}

template <class Map, class Real>
void hist_map(const ExecSpace& space, const Map& map, const Points<Real>& x, double rmax,
              const Kokkos::View<std::int64_t*, MemSpace>& counts) {
  if constexpr (is_block_space_map_v<Map>) edm::pair_histogram(space, x, map, rmax, counts);  // utm: refused before
}

template <class Map, class Real>
void nn_map(const ExecSpace& space, const Map& map, const Points<Real>& x, const Kokkos::View<index_t*, MemSpace>& index,
            const Kokkos::View<Real*, MemSpace>& dist) {
  if constexpr (is_block_space_map_v<Map>) edm::nearest_neighbour(space, x, map, index, dist);  // utm: refused before
}

template <class Map, class Real>
index_t count_map(const ExecSpace& space, const Map& map, const Points<Real>& x, double radius) {
  return edm::count_within(space, x, map, radius);  // any map, utm included
}

/// The reduction under the lock; `first` / `second` are the result arrays
/// (hist: counts; nn: distances, indices).
template <class Real>
index_t compute(const Request& r, const ArrayRef& x, index_t n, index_t d, const ArrayRef& first, const ArrayRef& second) {
  ExecSpace space;
  const Points<Real> xv = points_view<Real>(space, x, n, d);
  const Domain2 domain(n, r.block, Triangle::strict_lower);
  const bool block_space_only = r.what != What::count;
  index_t count = 0;
  if (r.what == What::hist) {
    const auto counts = result_view<std::int64_t>(first, "tdmaps::python::hist");
    Kokkos::deep_copy(space, counts, std::int64_t(0));
    if (n > 1) with_map(r.spec, domain, [&](auto map) { hist_map(space, map, xv, r.rmax, counts); }, block_space_only);
    copy_back(space, first, counts);
  } else if (r.what == What::nn) {
    const auto dist = result_view<Real>(first, "tdmaps::python::nn_dist");
    const auto index = result_view<index_t>(second, "tdmaps::python::nn_index");
    with_map(r.spec, domain, [&](auto map) { nn_map(space, map, xv, index, dist); }, block_space_only);
    copy_back(space, first, dist);
    copy_back(space, second, index);
  } else if (n > 1) {
    with_map(r.spec, domain, [&](auto map) { count = count_map(space, map, xv, r.radius); });
  }
  space.fence();
  return count;
}

py::object reduce(const Request& r, py::handle X, const py::object& alloc) {
  index_t n = 0, d = 0;
  const ArrayRef x = read_points(X, n, d);
  if (r.what == What::nn && n < 2)
    throw py::value_error("X: nearest_neighbour needs at least 2 points (n = " + std::to_string(n) +
                          (n == 1 ? " has no other point)" : ")"));
  if (r.what != What::count && canonical_map_name(r.spec.map) == "utm")
    throw py::value_error("map='utm' is a thread-space map; " + std::string(what_name(r.what)) +
                          " runs on the block-space maps (bb, hadouken, lambda, rb, rec)");
  check_memory(r, x, n, d);
  const bool fp32 = x.is('f', 4);
  py::object owner_a, owner_b;
  ArrayRef a, b;
  if (r.what == What::hist) {
    a = allocate(alloc, {r.bins}, "int64", false, x, owner_a);
  } else if (r.what == What::nn) {
    a = allocate(alloc, {n}, fp32 ? "float32" : "float64", false, x, owner_a);
    b = allocate(alloc, {n}, "int64", false, x, owner_b);
  }
  wait_for_producers(x);
  index_t count = 0;
  {
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(kokkos_mutex());
    count = fp32 ? compute<float>(r, x, n, d, a, b) : compute<double>(r, x, n, d, a, b);
  }
  if (r.what == What::hist) return owner_a;
  if (r.what == What::nn) return py::make_tuple(owner_a, owner_b);
  return py::int_(count);
}

Request request(What what, const std::string& map, const std::string& sqrt, const std::string& form, int block) {
  require_kokkos();
  Request r;
  r.what = what;
  r.spec = map_spec(map, sqrt, form, block);
  r.block = block;
  return r;
}

py::object pair_histogram(py::handle X, std::int64_t bins, double rmax, const py::object& alloc, const std::string& map,
                          const std::string& sqrt, const std::string& form, int block) {
  Request r = request(What::hist, map, sqrt, form, block);
  if (bins < 1 || bins > (std::int64_t(1) << 24))
    throw py::value_error("bins " + std::to_string(bins) + ": need 1 .. 2^24 bins");
  if (!(rmax > 0) || !std::isfinite(rmax))
    throw py::value_error("rmax " + std::to_string(rmax) + ": need a finite value > 0");
  r.bins = bins;
  r.rmax = rmax;
  return reduce(r, X, alloc);
}

py::object nearest_neighbour(py::handle X, const py::object& alloc, const std::string& map, const std::string& sqrt,
                             const std::string& form, int block) {
  return reduce(request(What::nn, map, sqrt, form, block), X, alloc);
}

py::object count_within(py::handle X, double radius, const std::string& map, const std::string& sqrt,
                        const std::string& form, int block) {
  Request r = request(What::count, map, sqrt, form, block);
  if (std::isnan(radius)) throw py::value_error("radius: NaN");
  r.radius = radius;
  return reduce(r, X, py::none());
}

}  // namespace

void bind_reduce(py::module_& m) {
  m.def("pair_histogram", &pair_histogram, py::arg("X"), py::arg("bins"), py::arg("rmax"), py::arg("alloc"),
        py::arg("map"), py::arg("sqrt"), py::arg("form"), py::arg("block"),
        "Histogram of the pair distances of the rows of X; see tdmaps.pair_histogram.");
  m.def("nearest_neighbour", &nearest_neighbour, py::arg("X"), py::arg("alloc"), py::arg("map"), py::arg("sqrt"),
        py::arg("form"), py::arg("block"), "Each row's nearest other row; see tdmaps.nearest_neighbour.");
  m.def("count_within", &count_within, py::arg("X"), py::arg("radius"), py::arg("map"), py::arg("sqrt"),
        py::arg("form"), py::arg("block"), "Pairs of rows closer than radius; see tdmaps.count_within.");
}

}  // namespace python
}  // namespace tdmaps
