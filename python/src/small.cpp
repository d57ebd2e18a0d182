// The small-input path of pdist, pair_histogram and count_within (host
// builds): plain loops on the calling thread, with the GIL released, and no
// Kokkos at all: no hop to the Kokkos thread, no parallel dispatch, no
// free-memory query, no allocation beyond the result. Each value is the
// kernels' own: the squared distance summed over the coordinates in order
// (sq_dist_rows, ColumnPoint::sq), its correctly rounded square root
// (direct_dist), the histogram's HistBins and count_within's sq_threshold,
// so a result is bit for bit the one of the Kokkos path (test_small.py).
// Below small_path_limit() pair-coordinates (pairs x d), the fixed cost of
// the Kokkos path outweighs its parallel loop; bench_pdist.py --overhead
// measures both sides (python/bench_overhead.txt).

#include "common.hpp"

#include <pybind11/pybind11.h>

#include <tdmaps/edm/reduce.hpp>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>

namespace py = pybind11;

namespace tdmaps {
namespace python {
namespace {

/// The crossover in pair-coordinates, n (n - 1) / 2 * d; see small_path_limit().
std::atomic<std::int64_t> limit{small_path_default};

/// Squared distance of rows i and j (the kernels' order: k = 0 .. d - 1).
template <int D, class Real>
inline Real sq(const Real* x, index_t i, index_t j, int d) {
  const int dd = D > 0 ? D : d;
  const Real* pi = x + i * dd;
  const Real* pj = x + j * dd;
  Real s = 0;
  for (int k = 0; k < dd; ++k) {
    const Real t = pi[k] - pj[k];
    s += t * t;
  }
  return s;
}

template <int D, class Real>
void pdist_rows(const Real* x, Real* out, index_t n, int d, bool squared) {
  index_t p = 0;
  for (index_t u = 0; u < n; ++u)
    for (index_t v = u + 1; v < n; ++v, ++p) {
      const Real r = edm::detail::sqrt_real(sq<D>(x, v, u, d));
      out[p] = squared ? r * r : r;
    }
}

template <int D, class Real>
std::int64_t count_rows(const Real* x, index_t n, int d, Real threshold) {
  std::int64_t c = 0;
  for (index_t u = 0; u < n; ++u)
    for (index_t v = u + 1; v < n; ++v) c += sq<D>(x, v, u, d) < threshold ? 1 : 0;
  return c;
}

template <int D, class Real>
void histogram_rows(const Real* x, index_t n, int d, const edm::detail::HistBins<Real>& bin, std::int64_t* counts) {
  for (index_t u = 0; u < n; ++u)
    for (index_t v = u + 1; v < n; ++v) {
      const int b = bin(edm::detail::sqrt_real(sq<D>(x, v, u, d)));
      if (b >= 0) ++counts[b];
    }
}

/// f(std::integral_constant<int, D>()) for d = 2, 3, 4, else D = 0.
template <class F>
void with_d(index_t d, F&& f) {
  if (d == 2) f(std::integral_constant<int, 2>());
  else if (d == 3) f(std::integral_constant<int, 3>());
  else if (d == 4) f(std::integral_constant<int, 4>());
  else f(std::integral_constant<int, 0>());
}

}  // namespace

std::int64_t small_path_limit() { return limit.load(); }

bool small_input(index_t n, index_t d) {
  if (!host_backend) return false;
  const index_t pairs = n < 2 ? 0 : n * (n - 1) / 2;
  const std::int64_t l = limit.load();
  return l > 0 && pairs <= l / (d > 0 ? d : 1);
}

void small_pdist(const ArrayRef& x, const ArrayRef& out, index_t n, index_t d, bool squared) {
  py::gil_scoped_release nogil;
  with_d(d, [&](auto D) {
    if (x.itemsize == 4)
      pdist_rows<decltype(D)::value>(static_cast<const float*>(x.data), static_cast<float*>(out.data), n,
                                     static_cast<int>(d), squared);
    else
      pdist_rows<decltype(D)::value>(static_cast<const double*>(x.data), static_cast<double*>(out.data), n,
                                     static_cast<int>(d), squared);
  });
}

std::int64_t small_count(const ArrayRef& x, index_t n, index_t d, double radius) {
  std::int64_t c = 0;
  py::gil_scoped_release nogil;
  with_d(d, [&](auto D) {
    if (x.itemsize == 4)
      c = count_rows<decltype(D)::value>(static_cast<const float*>(x.data), n, static_cast<int>(d),
                                         edm::detail::sq_threshold(static_cast<float>(radius)));
    else
      c = count_rows<decltype(D)::value>(static_cast<const double*>(x.data), n, static_cast<int>(d),
                                         edm::detail::sq_threshold(radius));
  });
  return c;
}

void small_histogram(const ArrayRef& x, index_t n, index_t d, double rmax, std::int64_t bins, bool edges_in_dtype,
                     std::int64_t* counts) {
  const auto edges = edges_in_dtype ? edm::EdgeArithmetic::points : edm::EdgeArithmetic::fp64;
  py::gil_scoped_release nogil;
  for (std::int64_t b = 0; b < bins; ++b) counts[b] = 0;
  with_d(d, [&](auto D) {
    if (x.itemsize == 4)
      histogram_rows<decltype(D)::value>(static_cast<const float*>(x.data), n, static_cast<int>(d),
                                         edm::detail::make_bins<float>(rmax, static_cast<int>(bins), edges), counts);
    else
      histogram_rows<decltype(D)::value>(static_cast<const double*>(x.data), n, static_cast<int>(d),
                                         edm::detail::make_bins<double>(rmax, static_cast<int>(bins), edges), counts);
  });
}

void bind_small(py::module_& m) {
  m.def("small_path_limit", &small_path_limit,
        "The small-input path's crossover: pdist, pair_histogram and count_within of n points in d dimensions run "
        "as plain loops on the calling thread while n (n - 1) / 2 * d <= this (host builds).");
  m.def(
      "_set_small_path_limit",
      [](std::int64_t v) { return limit.exchange(v); },
      py::arg("limit"), "Tests only: sets the crossover (0: the Kokkos path always) and returns the old one.");
}

}  // namespace python
}  // namespace tdmaps
