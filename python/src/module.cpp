// The compiled half of the Python module tdmaps (python/tdmaps/__init__.py
// is the other): Kokkos' lifetime, the shared helpers, and the bindings.
//
// Lifetime (kokkos_thread.cpp): initialize() starts Kokkos on the module's
// own thread unless someone else has (then this module only uses it);
// finalize(), registered with atexit by the Python layer, ends it once, on
// that thread, and only if this module started it. No Kokkos View outlives
// a call (outputs are the caller's arrays), so nothing is left to free
// after finalize.

#include "arrays.hpp"
#include "common.hpp"
#include "common/memory.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tdmaps/edm.hpp>
#include <tdmaps/version.hpp>

#include <Kokkos_Core.hpp>

namespace py = pybind11;

namespace tdmaps {
namespace python {

std::int64_t free_memory_bytes() {
  if (host_backend) return app::free_memory_bytes<MemSpace>();
  // On the Kokkos thread: the GPU runtime reports the calling thread's current device.
  std::int64_t free_b = 0;
  on_kokkos([&] { free_b = app::free_memory_bytes<MemSpace>(); });
  return free_b;
}

void check_choice(const char* option, const std::string& value, const std::vector<std::string>& known) {
  for (const auto& k : known)
    if (k == value) return;
  throw py::value_error(std::string(option) + " '" + value + "': unknown (known: " + join_names(known) + ")");
}

MapSpec map_spec(const std::string& map, const std::string& sqrt, const std::string& form, int block) {
  check_choice("map", map, accepted_map_names());
  check_choice("sqrt", sqrt, sqrt_names());
  check_choice("form", form, form_names());
  if (!is_valid_block_side(block))
    throw py::value_error("block " + std::to_string(block) + ": the block side must be 8, 16 or 32");
  MapSpec s;
  s.map = map;
  s.sqrt = sqrt;
  s.form = form;
  return s;
}

void bind_lifecycle(py::module_& m) {
  bind_kokkos_thread(m);
  m.def(
      "info",
      []() {
        py::dict d;
        d["backend"] = ExecSpace::name();
        d["device"] = !host_backend;
        d["kokkos_version"] = std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) +
                              "." + std::to_string(KOKKOS_VERSION % 100);
        int concurrency = 0;
        if (Kokkos::is_initialized()) on_kokkos([&] { concurrency = ExecSpace().concurrency(); });
        d["concurrency"] = concurrency;
        d["maps"] = accepted_map_names();
        d["sqrt"] = sqrt_names();
        d["forms"] = form_names();
        d["gemm"] = edm::has_gemm();
        return d;
      },
      "The build: backend, Kokkos version, concurrency, map names, gemm kernel availability.");
  m.def("array_bytes", &array_bytes, py::arg("X"),
        "(layout, data) of an array as the module reads it: comm= compares them between ranks (tdmaps/_mpi.py).");
  m.def("pointer_memory", &pointer_memory, py::arg("ptr"),
        "Memory kind of a data pointer: 'device', 'managed', 'host' (pinned) or 'unregistered' (CUDA builds); "
        "'host' on host builds.");
}

}  // namespace python
}  // namespace tdmaps

PYBIND11_MODULE(_tdmaps, m) {
  m.doc() = "tdmaps' compiled bindings; use the package tdmaps (python/tdmaps/__init__.py).";
  m.attr("__version__") = tdmaps::version_string;  // the project's one version (project(VERSION) in CMake)
  py::register_exception<tdmaps::python::TooLarge>(m, "TooLarge", PyExc_MemoryError);
  tdmaps::python::bind_lifecycle(m);
  tdmaps::python::bind_pdist(m);
  tdmaps::python::bind_collide(m);
  tdmaps::python::bind_reduce(m);
  tdmaps::python::bind_triplets(m);
  tdmaps::python::bind_nbody(m);
  tdmaps::python::bind_small(m);
}
