// _tdmaps.pair_histogram, _tdmaps.nearest_neighbour, _tdmaps.count_within,
// _tdmaps.k_nearest_neighbours: the EDM app's reductions
// (apps/edm/include/tdmaps/edm/reduce.hpp, knn.hpp) over the pairs i < j of
// the rows of X, without the distance matrix. The points are
// read in place; the results are new arrays from the Python layer's
// allocator (NumPy, or the input's library on its device). The checks and
// their wording follow tdmaps-edm --reduce.
//
// The *_part entry points are the per-rank halves of comm= (python/tdmaps/
// _mpi.py): part `part` of `parts` of the league (omega_range) into host
// NumPy arrays, which Python all-reduces; nearest_decode turns the reduced
// keys into (dist, index) exactly as the one-process call does.
// k_nearest_neighbours runs on one process only (no _part form).

#include "arrays.hpp"
#include "common.hpp"
#include "reduce_compute.hpp"

#include <pybind11/pybind11.h>

#include <tdmaps/edm/reduce.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace py = pybind11;

namespace tdmaps {
namespace python {
namespace {

/// Throws TooLarge when the staged points (host arrays on a CUDA build), the
/// results and the workspace of the reduction do not fit.
void check_memory(const Request& r, const ArrayRef& x, index_t n, index_t d) {
  const index_t real_bytes = x.itemsize;
  const bool staged = !host_backend && x.memory == Memory::host;
  // nn: the results (distance + index) and one or two key arrays; knn: the same k times (n x k); hist: the bins.
  const index_t slots = r.what == What::knn ? mul_sat(n, r.k) : n;
  const bool nn = r.what == What::nn || r.what == What::knn;
  const index_t results = nn ? mul_sat(slots, real_bytes + 8) : r.what == What::hist ? mul_sat(r.bins, 8) : 0;
  const index_t work = nn ? mul_sat(slots, real_bytes == 8 ? 16 : 8) : 0;
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

/// The reduction (a job of on_kokkos), one unit per precision, reduction and
/// map group (reduce_compute.hpp).
template <class Real>
index_t run_whole(const Request& r, const ArrayRef& x, index_t n, index_t d, const ArrayRef& first,
                  const ArrayRef& second) {
  return by_map_group(r.spec, [&](auto group) {
    constexpr MapGroup G = decltype(group)::value;
    switch (r.what) {
      case What::hist: return compute_whole<Real, What::hist, G>(r, x, n, d, first, second);
      case What::nn: return compute_whole<Real, What::nn, G>(r, x, n, d, first, second);
      case What::knn:  // k = 1: nearest_neighbour's units, into the (n, 1) results
        return r.k == 1 ? compute_whole<Real, What::nn, G>(r, x, n, d, first, second)
                        : compute_whole<Real, What::knn, G>(r, x, n, d, first, second);
      case What::count: break;
    }
    return compute_whole<Real, What::count, G>(r, x, n, d, first, second);
  });
}

py::object reduce(const Request& r, py::handle X, const py::object& alloc) {
  index_t n = 0, d = 0;
  const ArrayRef x = read_points(X, n, d);
  const bool nn = r.what == What::nn || r.what == What::knn;
  if (nn && n < 2)
    throw py::value_error("X: " + std::string(what_name(r.what)) + " needs at least 2 points (n = " +
                          std::to_string(n) + (n == 1 ? " has no other point)" : ")"));
  if (r.what != What::count && canonical_map_name(r.spec.map) == "utm")
    throw py::value_error("map='utm' is a thread-space map; " + std::string(what_name(r.what)) +
                          " runs on the block-space maps (bb, hadouken, lambda, rb, rec)");
  if (r.what == What::knn && (r.k < 1 || r.k > n - 1))
    throw py::value_error("k = " + std::to_string(r.k) + " for n = " + std::to_string(n) +
                          " points (need 1 <= k <= n - 1)");
  // Small inputs (host builds): plain loops on this thread (small.cpp), the
  // kernels' values without the Kokkos thread, memory queries or dispatch.
  if (!nn && small_input(n, d)) {
    if (r.what == What::count) return py::int_(small_count(x, n, d, r.radius));
    py::object owner;
    const ArrayRef counts = allocate(alloc, {r.bins}, "int64", false, x, owner);
    small_histogram(x, n, d, r.rmax, r.bins, r.edges_in_dtype, static_cast<std::int64_t*>(counts.data));
    return owner;
  }
  check_memory(r, x, n, d);
  const bool fp32 = x.is('f', 4);
  py::object owner_a, owner_b;
  ArrayRef a, b;
  if (r.what == What::hist) {
    a = allocate(alloc, {r.bins}, "int64", false, x, owner_a);
  } else if (r.what == What::nn) {
    a = allocate(alloc, {n}, fp32 ? "float32" : "float64", false, x, owner_a);
    b = allocate(alloc, {n}, "int64", false, x, owner_b);
  } else if (r.what == What::knn) {
    a = allocate(alloc, {n, r.k}, fp32 ? "float32" : "float64", false, x, owner_a);
    b = allocate(alloc, {n, r.k}, "int64", false, x, owner_b);
  }
  index_t count = 0;
  on_kokkos([&] {
    wait_for_producers(x);
    count = fp32 ? run_whole<float>(r, x, n, d, a, b) : run_whole<double>(r, x, n, d, a, b);
  });
  if (r.what == What::hist) return owner_a;
  if (nn) return py::make_tuple(owner_a, owner_b);
  return py::int_(count);
}

void check_bins(std::int64_t bins, double rmax) {
  if (bins < 1 || bins > (std::int64_t(1) << 24))
    throw py::value_error("bins " + std::to_string(bins) + ": need 1 .. 2^24 bins");
  if (!(rmax > 0) || !std::isfinite(rmax))
    throw py::value_error("rmax " + std::to_string(rmax) + ": need a finite value > 0");
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
                          const std::string& sqrt, const std::string& form, int block, bool edges_in_dtype) {
  Request r = request(What::hist, map, sqrt, form, block);
  check_bins(bins, rmax);
  r.bins = bins;
  r.rmax = rmax;
  r.edges_in_dtype = edges_in_dtype;
  return reduce(r, X, alloc);
}

py::object nearest_neighbour(py::handle X, const py::object& alloc, const std::string& map, const std::string& sqrt,
                             const std::string& form, int block) {
  return reduce(request(What::nn, map, sqrt, form, block), X, alloc);
}

py::object k_nearest_neighbours(py::handle X, std::int64_t k, const py::object& alloc, const std::string& map,
                                const std::string& sqrt, const std::string& form, int block) {
  // Before map_spec: 8, a side the other reductions take, is refused here too (pair_min_k_keys' walk).
  if (block != 16 && block != 32)
    throw py::value_error("block " + std::to_string(block) + ": k_nearest_neighbours runs on blocks of side 16 or 32");
  Request r = request(What::knn, map, sqrt, form, block);
  r.k = k;
  return reduce(r, X, alloc);
}

py::object count_within(py::handle X, double radius, const std::string& map, const std::string& sqrt,
                        const std::string& form, int block) {
  Request r = request(What::count, map, sqrt, form, block);
  if (std::isnan(radius)) throw py::value_error("radius: NaN");
  r.radius = radius;
  return reduce(r, X, py::none());
}

/// One part of the league (a job of on_kokkos; reduce_compute.hpp).
template <class Real>
index_t run_part(const Request& r, const ArrayRef& x, index_t n, index_t d, index_t part, index_t parts,
                 const ArrayRef& out, const ArrayRef& best) {
  return by_map_group(r.spec, [&](auto group) {
    constexpr MapGroup G = decltype(group)::value;
    switch (r.what) {
      case What::hist: return compute_part<Real, What::hist, G>(r, x, n, d, part, parts, out, best);
      case What::nn: return compute_part<Real, What::nn, G>(r, x, n, d, part, parts, out, best);
      case What::knn: throw std::logic_error("tdmaps::python::run_part: k_nearest_neighbours has no parts");
      case What::count: break;
    }
    return compute_part<Real, What::count, G>(r, x, n, d, part, parts, out, best);
  });
}

void check_part(const Request& r, index_t part, index_t parts) {
  if (parts < 1 || part < 0 || part >= parts || parts > std::numeric_limits<int>::max())
    throw py::value_error("part " + std::to_string(part) + " of " + std::to_string(parts) +
                          ": need 1 <= parts < 2^31 and 0 <= part < parts");
  if (!one_launch(r.spec.map))
    throw py::value_error("map='" + r.spec.map + "': " + std::string(what_name(r.what)) +
                          " over parts (comm=) splits one launch of blocks into omega ranges, which map='lambda', "
                          "'bb' and 'rb' have ('rec' and 'hadouken' launch several times, 'utm' has no blocks)");
}

/// A writable host (NumPy) array from the Python layer's `alloc`.
ArrayRef host_array(const py::object& alloc, index_t size, const char* dtype, py::object& owner) {
  return allocate(alloc, {size}, dtype, false, ArrayRef(), owner);
}

/// The reduced first-pass keys of nearest_part (uint64 (n,) on the host), or an empty ArrayRef for None.
ArrayRef read_keys(py::handle keys, index_t n, const char* name) {
  if (keys.is_none()) return ArrayRef();
  ArrayRef k = read_array(keys, name, false);
  if (!k.is('u', 8) || k.shape != std::vector<std::int64_t>{n} || k.memory != Memory::host)
    throw py::value_error(std::string(name) + ": expected a host uint64 array of shape (" + std::to_string(n) +
                          ",), got " + k.dtype + " " + shape_text(k.shape));
  require_c_order(k, name);
  return k;
}

py::object reduce_part(const Request& r, py::handle X, index_t part, index_t parts, const py::object& alloc,
                       py::handle best_keys) {
  check_part(r, part, parts);
  index_t n = 0, d = 0;
  const ArrayRef x = read_points(X, n, d);
  if (r.what == What::nn && n < 2)
    throw py::value_error("X: nearest_neighbour needs at least 2 points (n = " + std::to_string(n) +
                          (n == 1 ? " has no other point)" : ")"));
  check_memory(r, x, n, d);
  const bool fp32 = x.is('f', 4);
  const ArrayRef best = read_keys(best_keys, n, "keys");
  if (best.data && fp32) throw py::value_error("keys: float32 points need one pass (the key holds the index)");
  py::object owner;
  ArrayRef out;
  if (r.what == What::hist) out = host_array(alloc, r.bins, "int64", owner);
  if (r.what == What::nn) out = host_array(alloc, n, "uint64", owner);
  index_t count = 0;
  if (r.what == What::hist && n < 2) std::fill_n(static_cast<std::int64_t*>(out.data), r.bins, std::int64_t(0));
  if (n >= 2)
    on_kokkos([&] {
      wait_for_producers(x);
      count = fp32 ? run_part<float>(r, x, n, d, part, parts, out, best)
                   : run_part<double>(r, x, n, d, part, parts, out, best);
    });
  if (r.what == What::count) return py::int_(count);
  if (r.what == What::nn) return py::make_tuple(owner, fp32);  // fp32: one pass; fp64: the index pass follows
  return owner;
}

/// (dist, index) from the all-reduced keys, as nearest_neighbour decodes them.
py::tuple nearest_decode(py::handle keys, py::handle index_keys, bool fp32, const py::object& alloc) {
  const ArrayRef probe = read_array(keys, "keys", false);
  if (probe.shape.size() != 1) throw py::value_error("keys: expected a 1-D array, got shape " + shape_text(probe.shape));
  const index_t n = probe.shape[0];
  const ArrayRef k = read_keys(keys, n, "keys");
  const ArrayRef second = read_keys(index_keys, n, "index_keys");
  if (fp32 != !second.data) throw py::value_error("index_keys: needed for float64 points only");
  py::object dist_owner, index_owner;
  const ArrayRef dist = host_array(alloc, n, fp32 ? "float32" : "float64", dist_owner);
  const ArrayRef index = host_array(alloc, n, "int64", index_owner);
  const auto* key = static_cast<const edm::NearestKey*>(k.data);
  const auto* pass2 = static_cast<const edm::NearestKey*>(second.data);
  auto* idx = static_cast<std::int64_t*>(index.data);
  for (index_t i = 0; i < n; ++i) {
    const bool none = key[i] == edm::nearest_init();
    idx[i] = none ? -1 : fp32 ? static_cast<std::int64_t>(key[i] & 0xffffffffull) : static_cast<std::int64_t>(pass2[i]);
    if (fp32)
      static_cast<float*>(dist.data)[i] =
          none ? std::numeric_limits<float>::infinity()
               : edm::detail::sqrt_real(from_ordered_bits(static_cast<std::uint32_t>(key[i] >> 32)));
    else
      static_cast<double*>(dist.data)[i] =
          none ? std::numeric_limits<double>::infinity() : edm::detail::sqrt_real(from_ordered_bits(key[i]));
  }
  return py::make_tuple(dist_owner, index_owner);
}

}  // namespace

bool one_launch(const std::string& map) {
  check_choice("map", map, accepted_map_names());
  MapSpec spec;
  spec.map = map;
  bool r = false;
  with_map(spec, Domain2(2, 8, Triangle::strict_lower), [&](auto m) { r = one_launch_v<decltype(m)>; });
  return r;
}

void bind_reduce(py::module_& m) {
  m.def("pair_histogram", &pair_histogram, py::arg("X"), py::arg("bins"), py::arg("rmax"), py::arg("alloc"),
        py::arg("map"), py::arg("sqrt"), py::arg("form"), py::arg("block"), py::arg("edges_in_dtype") = false,
        "Histogram of the pair distances of the rows of X; see tdmaps.pair_histogram. edges_in_dtype: the edges in "
        "X's dtype's arithmetic (NumPy 2's float32 edges), else in float64 rounded to it (NumPy 1's).");
  m.def("nearest_neighbour", &nearest_neighbour, py::arg("X"), py::arg("alloc"), py::arg("map"), py::arg("sqrt"),
        py::arg("form"), py::arg("block"), "Each row's nearest other row; see tdmaps.nearest_neighbour.");
  m.def("k_nearest_neighbours", &k_nearest_neighbours, py::arg("X"), py::arg("k"), py::arg("alloc"), py::arg("map"),
        py::arg("sqrt"), py::arg("form"), py::arg("block"),
        "Each row's k nearest other rows (n x k); see tdmaps.k_nearest_neighbours.");
  m.def("count_within", &count_within, py::arg("X"), py::arg("radius"), py::arg("map"), py::arg("sqrt"),
        py::arg("form"), py::arg("block"), "Pairs of rows closer than radius; see tdmaps.count_within.");
  // comm= (python/tdmaps/_mpi.py): one part of the league each, host NumPy results.
  m.def("one_launch", &one_launch, py::arg("map"),
        "Whether the map runs one launch of blocks (bb, lambda, rb): the maps comm= splits into omega ranges.");
  m.def(
      "pair_histogram_part",
      [](py::handle X, std::int64_t bins, double rmax, const py::object& alloc, const std::string& map,
         const std::string& sqrt, const std::string& form, int block, index_t part, index_t parts, bool edges_in_dtype) {
        Request r = request(What::hist, map, sqrt, form, block);
        check_bins(bins, rmax);
        r.bins = bins;
        r.rmax = rmax;
        r.edges_in_dtype = edges_in_dtype;
        return reduce_part(r, X, part, parts, alloc, py::none());
      },
      py::arg("X"), py::arg("bins"), py::arg("rmax"), py::arg("alloc"), py::arg("map"), py::arg("sqrt"),
      py::arg("form"), py::arg("block"), py::arg("part"), py::arg("parts"), py::arg("edges_in_dtype") = false,
      "pair_histogram of the pairs of part `part` of `parts` of the league (int64 NumPy counts).");
  m.def(
      "count_within_part",
      [](py::handle X, double radius, const std::string& map, const std::string& sqrt, const std::string& form,
         int block, index_t part, index_t parts) {
        Request r = request(What::count, map, sqrt, form, block);
        if (std::isnan(radius)) throw py::value_error("radius: NaN");
        r.radius = radius;
        return reduce_part(r, X, part, parts, py::none(), py::none());
      },
      py::arg("X"), py::arg("radius"), py::arg("map"), py::arg("sqrt"), py::arg("form"), py::arg("block"),
      py::arg("part"), py::arg("parts"), "count_within of the pairs of part `part` of `parts` of the league.");
  m.def(
      "nearest_part",
      [](py::handle X, py::handle keys, const py::object& alloc, const std::string& map, const std::string& sqrt,
         const std::string& form, int block, index_t part, index_t parts) {
        return reduce_part(request(What::nn, map, sqrt, form, block), X, part, parts, alloc, keys);
      },
      py::arg("X"), py::arg("keys"), py::arg("alloc"), py::arg("map"), py::arg("sqrt"), py::arg("form"),
      py::arg("block"), py::arg("part"), py::arg("parts"),
      "(keys, fp32): nearest_neighbour keys (uint64, min-reduce them) of part `part` of `parts`: the first pass "
      "(keys=None), or for float64 points the index pass at the reduced first-pass keys.");
  m.def("nearest_decode", &nearest_decode, py::arg("keys"), py::arg("index_keys"), py::arg("fp32"), py::arg("alloc"),
        "(dist, index) of the min-reduced keys of nearest_part.");
}

}  // namespace python
}  // namespace tdmaps
