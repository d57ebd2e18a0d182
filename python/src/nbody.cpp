// _tdmaps.nbody_accelerations: the accelerations and potential-energy shares
// of n bodies under a pair law of the N-body app
// (apps/nbody/include/tdmaps/nbody/forces.hpp, accelerations.hpp), each pair
// evaluated once (Forces::compute). The laws, their parameters and the
// refusals are the kernels' own (check_params, check_bodies in the run's
// precision; a result that is not finite from finite inputs:
// first_non_finite, non_finite_cause), as tdmaps-nbody applies them; the arrays follow the module's rules (arrays.hpp):
// X is read in place, m and q (float32 or float64, host or X's device) are converted to the run's precision on the way
// in, and the results are allocated where X lies (or written into out=).

#include "arrays.hpp"
#include "common.hpp"
#include "nbody_compute.hpp"

#include <pybind11/pybind11.h>

#include <tdmaps/maps/dispatch.hpp>
#include <tdmaps/maps/map_concept.hpp>
#include <tdmaps/nbody/accelerations.hpp>
#include <tdmaps/nbody/checks.hpp>
#include <tdmaps/nbody/forces.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace tdmaps {
namespace python {
namespace {

namespace nb = tdmaps::nbody;

NbodyRequest nbody_request(const std::string& law, double G, double softening, double sigma, double epsilon,
                           double cutoff, double k, bool potential, const std::string& map, int block) {
  require_kokkos();
  NbodyRequest r;
  std::vector<std::string> laws;
  for (nb::Law l : {nb::Law::gravity, nb::Law::lennard_jones, nb::Law::coulomb}) laws.push_back(nb::law_name(l));
  check_choice("law", law, laws);
  nb::law_from_name(law, r.params.law);
  r.spec = map_spec(map, "rsqrt", "exact", block);
  if (canonical_map_name(map) == "utm")
    throw py::value_error(
        "map 'utm' is a thread-space map; the pair walk needs blocks (bb, hadouken, lambda, rb, rec)");
  r.block = block;
  r.potential = potential;
  r.params.G = G;
  r.params.softening = softening;
  r.params.sigma = sigma;
  r.params.epsilon = epsilon;
  r.params.cutoff = cutoff;
  r.params.k = k;
  try {
    nb::check_params(r.params);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
  return r;
}

[[noreturn]] void bad_dtype(const std::string& name, const ArrayRef& a, const char* convert) {
  throw py::type_error(name + ": unsupported dtype '" + a.dtype + "' (float32 and float64 only; convert with " +
                       convert + ", or pass copy=True)");
}

/// X: (n, 3) float32 / float64, C order, 1 <= n <= max_side.
ArrayRef read_bodies(py::handle X, index_t& n) {
  ArrayRef x = read_array(X, "X", false);
  require_ndim(x, "X", 2, "bodies x (x, y, z)");
  if (!x.is('f', 4) && !x.is('f', 8)) bad_dtype("X", x, astype_fix(x, "X", "float64").c_str());
  if (x.shape[1] != 3)
    throw py::value_error("X: " + std::to_string(x.shape[1]) + " columns; expected 3 (x, y, z), got shape " +
                          shape_text(x.shape));
  require_c_order(x, "X");
  n = x.shape[0];
  if (n == 0) throw py::value_error("X: no bodies (shape " + shape_text(x.shape) + "); need at least 1");
  if (n > max_side)
    throw py::value_error("X: " + std::to_string(n) +
                          " bodies exceed the largest supported n = " + std::to_string(max_side));
  return x;
}

/// m or q: (n,) float32 / float64, C order, on the host or on Kokkos' device.
ArrayRef read_scalars(py::handle obj, const std::string& name, const char* what, const char* whats, index_t n) {
  ArrayRef a = read_array(obj, name, false);
  require_ndim(a, name, 1, std::string("one ") + what + " per body");
  if (!a.is('f', 4) && !a.is('f', 8)) bad_dtype(name, a, astype_fix(a, name, "float64").c_str());
  require_c_order(a, name);
  if (a.shape[0] != n)
    throw py::value_error(name + ": " + std::to_string(a.shape[0]) + " " + whats + " for " + std::to_string(n) +
                          " bodies (X has " + std::to_string(n) + " rows); expected one per body");
  return a;
}

py::object nbody(const NbodyRequest& r, py::handle X, py::handle M, const py::object& Q, const py::object& out_obj,
                 const py::object& alloc) {
  index_t n = 0;
  const ArrayRef x = read_bodies(X, n);
  const ArrayRef m = read_scalars(M, "m", "mass", "masses", n);
  const bool coulomb = r.params.law == nb::Law::coulomb;
  if (coulomb && Q.is_none())
    throw py::type_error("q: law='coulomb' needs the charges q, an (n,) float32 or float64 array");
  if (!coulomb && !Q.is_none())
    throw py::value_error(std::string("q: charges are taken by law='coulomb' only, not law='") +
                          nb::law_name(r.params.law) + "' (pass q=None)");
  ArrayRef q;
  if (coulomb) q = read_scalars(Q, "q", "charge", "charges", n);
  const bool fp32 = x.is('f', 4);
  const std::string dtype = fp32 ? "float32" : "float64";
  try {
    nb::check_params(r.params, fp32);  // in the run's precision, now known
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
  // Memory of MemSpace: the kernel's (n) Accel, m and q converted, 1 / m, the
  // outputs where this call allocates them, for host arrays on a CUDA build
  // the staged bodies and outputs.
  const bool staged = !host_backend && x.memory == Memory::host;
  const index_t need = mul_sat(n, (4 + 3 + 4 + (staged ? 7 : 0)) * x.itemsize);
  if (need > (index_t(1) << 20)) {
    const index_t free_b = free_memory_bytes();
    if (need > free_b)
      throw TooLarge("nbody_accelerations of n = " + std::to_string(n) + " bodies needs " + format_bytes(need) +
                     " of " + MemSpace::name() + " memory but only " + format_bytes(free_b) +
                     (host_backend ? " is available" : " is free") + "; use fewer bodies");
  }
  py::object owner_a, owner_e;
  ArrayRef out_a, out_e;
  if (out_obj.is_none()) {
    out_a = allocate(alloc, {n, 3}, dtype, false, x, owner_a);
  } else {
    out_a = read_array(out_obj, "out", true);
    require_output(out_a, {n, 3}, dtype, x);
    owner_a = out_obj;
  }
  if (r.potential) out_e = allocate(alloc, {n}, dtype, false, x, owner_e);
  on_kokkos([&] {
    wait_for_producers(x);  // a device-wide fence where any of the three lies on the device
    if (x.memory == Memory::host) wait_for_producers(coulomb && q.memory == Memory::device ? q : m);
    by_map_group(r.spec, [&](auto group) {
      constexpr MapGroup G = decltype(group)::value;
      if (fp32)
        nbody_compute<float, G>(r, x, m, coulomb ? &q : nullptr, n, out_a, out_e);
      else
        nbody_compute<double, G>(r, x, m, coulomb ? &q : nullptr, n, out_a, out_e);
    });
  });
  if (r.potential) return py::make_tuple(owner_a, owner_e);
  return owner_a;
}

}  // namespace

void bind_nbody(py::module_& m) {
  m.def(
      "nbody_accelerations",
      [](py::handle X, py::handle M, const py::object& Q, const std::string& law, double G, double softening,
         double sigma, double epsilon, double cutoff, double k, bool potential, const py::object& out,
         const py::object& alloc, const std::string& map, int block) {
        return nbody(nbody_request(law, G, softening, sigma, epsilon, cutoff, k, potential, map, block), X, M, Q, out,
                     alloc);
      },
      py::arg("X"), py::arg("m"), py::arg("q"), py::arg("law"), py::arg("G"), py::arg("softening"), py::arg("sigma"),
      py::arg("epsilon"), py::arg("cutoff"), py::arg("k"), py::arg("potential"), py::arg("out"), py::arg("alloc"),
      py::arg("map"), py::arg("block"),
      "The accelerations (and potential-energy shares) of the bodies X, m, q; see tdmaps.nbody_accelerations.");
}

}  // namespace python
}  // namespace tdmaps
