// _tdmaps.atm_energy: the Axilrod-Teller-Muto energy of the triplets app
// (apps/triplets/include/tdmaps/triplets/atm.hpp) on the rows of X, read in
// place. The options and their checks follow tdmaps-triplets
// (apps/triplets/tdmaps_triplets.cpp, cli_input.hpp), in Python's spelling.
//
// atm_energy_part is the per-rank half of comm= (python/tdmaps/_mpi.py): the
// energy (and shares) of part `part` of `parts` of the map's league
// (omega_range), which Python sums over the ranks as the CLI's ranks do.

#include "arrays.hpp"
#include "common.hpp"

#include <pybind11/pybind11.h>

#include <tdmaps/core/detail/number_text.hpp>
#include <tdmaps/maps/dispatch.hpp>
#include <tdmaps/triplets.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace py = pybind11;

namespace tdmaps {
namespace python {
namespace {

namespace tt = tdmaps::triplets;

struct AtmRequest {
  tt::AtmParams params;
  MapSpec3 spec;
  int block = 8;
  bool per_particle = false;
};

std::string number_text(double v) { return tdmaps::detail::number_text(v); }

/// The CLI's checks of --c9, --cutoff, --cutoff-triple (None: no cutoff).
AtmRequest atm_request(double c9, const py::object& cutoff, const py::object& cutoff_triple, bool per_particle,
                       const std::string& map, const std::string& cbrt, const std::string& form, int block) {
  require_kokkos();
  AtmRequest r;
  check_choice("map", map, map3_names());
  check_choice("cbrt", cbrt, cbrt_names());
  check_choice("form", form, form_names());
  if (block != 2 && block != 4 && block != 8)
    throw py::value_error("block " + std::to_string(block) + ": the block side of the 3-D maps must be 2, 4 or 8");
  r.spec.map = map;
  r.spec.cbrt = cbrt;
  r.spec.form = form;
  r.block = block;
  r.per_particle = per_particle;
  if (!(std::isfinite(c9) && c9 >= 0))
    throw py::value_error("c9 " + number_text(c9) + ": C9 must be a finite number >= 0");
  r.params.c9 = c9;
  const auto cut = [](const char* name, const py::object& v) {
    if (v.is_none()) return std::numeric_limits<double>::infinity();
    const double c = v.cast<double>();
    if (!(c > 0))
      throw py::value_error(std::string(name) + " " + number_text(c) +
                            ": the cutoff must be a number > 0 (inf or None: none)");
    return c;
  };
  r.params.cutoff = cut("cutoff", cutoff);
  r.params.cutoff_triple = cut("cutoff_triple", cutoff_triple);
  return r;
}

/// X: (n, 3) float32 / float64, C order, n <= max_side3.
ArrayRef read_particles(py::handle X, index_t& n) {
  ArrayRef x = read_array(X, "X", false);
  require_ndim(x, "X", 2, "particles x (x, y, z)");
  if (!x.is('f', 4) && !x.is('f', 8)) unsupported_dtype(x, "X", "tdmaps reads float32 and float64 in place", "float64");
  if (x.shape[1] != 3)
    throw py::value_error("X: " + std::to_string(x.shape[1]) + " columns; expected 3 (x, y, z), got shape " +
                          shape_text(x.shape));
  require_c_order(x, "X");
  n = x.shape[0];
  if (n > max_side3)
    throw py::value_error("X: " + std::to_string(n) + " particles exceed the largest supported n = " +
                          std::to_string(max_side3));
  return x;
}

/// The CLI's refusal of NaN and infinite coordinates (host arrays: read
/// here, before any work; device arrays: on the device, in the job).
template <class Real>
struct FirstNonFinite3 {
  Kokkos::View<const Real*, MemSpace> x;
  KOKKOS_FUNCTION void operator()(const index_t k, index_t& first) const {
    const Real v = x(k);
    if (!(v - v == Real(0)) && k < first) first = k;
  }
};

[[noreturn]] void bad_coordinate(index_t k, double v) {
  static const char* const axis[3] = {"x", "y", "z"};
  throw py::value_error("X: row " + std::to_string(k / 3) + " (0-based): " + axis[k % 3] + " is " + number_text(v) +
                        " (not finite)");
}

template <class Real>
void check_host_finite(const ArrayRef& x, index_t n) {
  const Real* p = static_cast<const Real*>(x.data);
  for (index_t k = 0; k < 3 * n; ++k)
    if (!std::isfinite(p[k])) bad_coordinate(k, static_cast<double>(p[k]));
}

/// The energy (a job of on_kokkos): part `part` of `parts` of the league
/// (parts = 1: the whole); `shares` (when not empty) receives the shares.
template <class Real>
double compute(const AtmRequest& r, const ArrayRef& x, index_t n, const ArrayRef& shares, index_t part, index_t parts,
               index_t& bad, double& bad_value) {
  ExecSpace space;
  using Points = Kokkos::View<const Real* [3], Kokkos::LayoutRight, MemSpace>;
  const PointsView<Real> pv = points_view<Real>(space, x, n, 3);
  if (!host_backend && x.memory == Memory::device && n > 0) {
    index_t first = 3 * n;
    Kokkos::parallel_reduce("tdmaps::python::atm_nonfinite",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, 3 * n),
                            FirstNonFinite3<Real>{Kokkos::View<const Real*, MemSpace>(pv.data(), 3 * n)},
                            Kokkos::Min<index_t>(first));
    if (first < 3 * n) {
      Real v = 0;
      Kokkos::deep_copy(space, Kokkos::View<Real, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&v),
                        Kokkos::View<const Real, MemSpace, Kokkos::MemoryUnmanaged>(pv.data() + first));
      space.fence();
      bad = first;
      bad_value = static_cast<double>(v);
      return 0;
    }
  }
  const Points xv(pv.data(), n);
  Kokkos::View<double*, MemSpace> sv;
  if (r.per_particle) sv = result_view<double>(shares, "tdmaps::python::atm_shares");
  const Domain3 domain(n, r.block, Triangle::strict_lower);
  double e = 0;
  with_map3(r.spec, domain, [&](auto map) {
    if (parts == 1 || n < 3) {  // n < 3: no triplets, 0 on every part
      e = tt::atm_energy<Real>(space, map, xv, r.params, sv);
    } else {
      const OmegaRange range = omega_range(map, part, parts);
      e = tt::atm_energy<Real>(space, map, range, xv, r.params, sv);
    }
  });
  if (sv.data() != nullptr) copy_back(space, shares, sv);
  space.fence();
  return e;
}

py::object atm(const AtmRequest& r, py::handle X, const py::object& alloc, index_t part, index_t parts) {
  if (parts < 1 || part < 0 || part >= parts)
    throw py::value_error("part " + std::to_string(part) + " of " + std::to_string(parts) +
                          ": need parts >= 1 and 0 <= part < parts");
  index_t n = 0;
  const ArrayRef x = read_particles(X, n);
  const bool fp32 = x.is('f', 4);
  if (x.memory == Memory::host) {
    if (fp32) check_host_finite<float>(x, n);
    else check_host_finite<double>(x, n);
  }
  // Memory: the shares (n doubles) and, for host arrays on a CUDA build, the staged particles.
  const bool staged = !host_backend && x.memory == Memory::host;
  const index_t need = add_sat(r.per_particle ? mul_sat(n, 8) : 0, staged ? mul_sat(n, 3 * x.itemsize) : 0);
  if (need > (index_t(1) << 20)) {
    const index_t free_b = free_memory_bytes();
    if (need > free_b)
      throw TooLarge("atm_energy of n = " + std::to_string(n) + " particles needs " + format_bytes(need) + " of " +
                     MemSpace::name() + " memory but only " + format_bytes(free_b) +
                     (host_backend ? " is available" : " is free") + "; use fewer particles");
  }
  py::object owner;
  ArrayRef shares;
  if (r.per_particle) {
    shares = parts == 1 ? allocate(alloc, {n}, "float64", false, x, owner)
                        : allocate(alloc, {n}, "float64", false, ArrayRef(), owner);  // comm=: host NumPy
  }
  double e = 0, bad_value = 0;
  index_t bad = -1;
  on_kokkos([&] {
    wait_for_producers(x);
    e = fp32 ? compute<float>(r, x, n, shares, part, parts, bad, bad_value)
             : compute<double>(r, x, n, shares, part, parts, bad, bad_value);
  });
  if (bad >= 0) bad_coordinate(bad, bad_value);
  if (r.per_particle) return py::make_tuple(py::float_(e), owner);
  return py::float_(e);
}

}  // namespace

void bind_triplets(py::module_& m) {
  m.def(
      "atm_energy",
      [](py::handle X, double c9, const py::object& cutoff, const py::object& cutoff_triple, bool per_particle,
         const py::object& alloc, const std::string& map, const std::string& cbrt, const std::string& form, int block) {
        return atm(atm_request(c9, cutoff, cutoff_triple, per_particle, map, cbrt, form, block), X, alloc, 0, 1);
      },
      py::arg("X"), py::arg("c9"), py::arg("cutoff"), py::arg("cutoff_triple"), py::arg("per_particle"),
      py::arg("alloc"), py::arg("map"), py::arg("cbrt"), py::arg("form"), py::arg("block"),
      "The Axilrod-Teller-Muto energy of the rows of X (and the shares); see tdmaps.atm_energy.");
  m.def(
      "atm_energy_part",
      [](py::handle X, double c9, const py::object& cutoff, const py::object& cutoff_triple, bool per_particle,
         const py::object& alloc, const std::string& map, const std::string& cbrt, const std::string& form, int block,
         index_t part, index_t parts) {
        return atm(atm_request(c9, cutoff, cutoff_triple, per_particle, map, cbrt, form, block), X, alloc, part,
                   parts);
      },
      py::arg("X"), py::arg("c9"), py::arg("cutoff"), py::arg("cutoff_triple"), py::arg("per_particle"),
      py::arg("alloc"), py::arg("map"), py::arg("cbrt"), py::arg("form"), py::arg("block"), py::arg("part"),
      py::arg("parts"),
      "atm_energy of the triplets of part `part` of `parts` of the league (shares: host NumPy); comm= sums them.");
}

}  // namespace python
}  // namespace tdmaps
