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

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tdmaps/edm.hpp>
#include <tdmaps/version.hpp>

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <limits>

namespace py = pybind11;

namespace tdmaps {
namespace python {

std::int64_t host_available_bytes() {
  // MemAvailable counts reclaimable page cache, which _SC_AVPHYS_PAGES does
  // not (apps/common/npy.cpp counts the same way).
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  long long kb = 0;
  while (meminfo >> key >> kb >> unit)
    if (key == "MemAvailable:") return static_cast<std::int64_t>(kb) * 1024;
  const long pages = ::sysconf(_SC_AVPHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages < 0 || page < 0) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(pages) * static_cast<std::int64_t>(page);
}

std::int64_t free_memory_bytes() {
#if defined(KOKKOS_ENABLE_CUDA)
  // On the Kokkos thread: cudaMemGetInfo reports the calling thread's current device.
  std::size_t free_b = 0, total_b = 0;
  cudaError_t status = cudaSuccess;
  on_kokkos([&] { status = cudaMemGetInfo(&free_b, &total_b); });
  if (status != cudaSuccess) throw std::runtime_error("tdmaps: cudaMemGetInfo failed");
  return static_cast<std::int64_t>(free_b);
#else
  return host_available_bytes();
#endif
}

std::string format_bytes(std::int64_t bytes) {
  char buf[64];
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) std::snprintf(buf, sizeof buf, "%.2f GB", b * 1e-9);
  else if (b >= 1e6) std::snprintf(buf, sizeof buf, "%.2f MB", b * 1e-6);
  else if (b >= 1e3) std::snprintf(buf, sizeof buf, "%.2f kB", b * 1e-3);
  else std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  return std::string(buf) + " (" + std::to_string(bytes) + " bytes)";
}

index_t mul_sat(index_t a, index_t b) {
  return b != 0 && a > std::numeric_limits<index_t>::max() / b ? std::numeric_limits<index_t>::max() : a * b;
}
index_t add_sat(index_t a, index_t b) {
  return a > std::numeric_limits<index_t>::max() - b ? std::numeric_limits<index_t>::max() : a + b;
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
}
