// _tdmaps.pdist: scipy.spatial.distance.pdist's result from the EDM app's
// kernels (apps/edm), the points read in place and the distances written in
// place into the caller's (or the Python layer's newly allocated) array.
// The checks and their wording follow tdmaps-edm (apps/edm/tdmaps_edm.cpp).

#include "arrays.hpp"
#include "common.hpp"
#include "pdist_compute.hpp"

#include <pybind11/pybind11.h>

#include <tdmaps/edm.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>

namespace py = pybind11;

namespace tdmaps {
namespace python {
namespace {


// Resolved in a named template, never in with_map's generic lambda (as the
// CLIs do).
template <class Map, class Real>
edm::Kernel resolve(const Map&, edm::Kernel kind, int d, int rho) {
  return edm::resolve_kernel<ExecSpace, Map, Real>(kind, d, rho);
}

/// The kernel that will run, checked as tdmaps-edm checks it.
template <class Real>
edm::Kernel resolved_kernel(const PdistOptions& o, index_t n, int d) {
  const char* precision = std::is_same<Real, float>::value ? "fp32" : "fp64";
  edm::Kernel kind = o.kernel;
  with_map(
      o.spec, edm::make_domain(n, o.block, o.layout),
      [&](auto map) { kind = resolve<decltype(map), Real>(map, o.kernel, d, o.block); }, o.kernel == edm::Kernel::tile);
  const int rho = o.block;
  if (kind == edm::Kernel::tile && !edm::tile_fits<ExecSpace, Real>(rho, d)) {
    std::string hint = "use kernel='auto' or 'element'";
    if (edm::has_gemm()) hint += " (or 'gemm')";
    for (int smaller : {16, 8})
      if (smaller < rho && edm::tile_fits<ExecSpace, Real>(smaller, d))
        hint += ", or block=" + std::to_string(smaller) + " (its tile fits up to d = " +
                std::to_string(edm::largest_tile_d<ExecSpace, Real>(smaller)) + ")";
    throw py::value_error("kernel='tile': the tile of " + std::to_string(rho) + " + " + std::to_string(rho) + " " +
                          precision + " points of d = " + std::to_string(d) + " needs " +
                          std::to_string(edm::tile_scratch_bytes<ExecSpace, Real>(rho, d)) +
                          " bytes of team scratch, more than " + ExecSpace::name() + " allows at block side " +
                          std::to_string(rho) + " (d <= " + std::to_string(edm::largest_tile_d<ExecSpace, Real>(rho)) +
                          "); " + hint);
  }
  if (kind == edm::Kernel::gemm && !edm::has_gemm())
    throw py::value_error("kernel='gemm' needs Kokkos Kernels, which this build did not find; use kernel='auto'");
  return kind;
}

/// Throws TooLarge (MemoryError) when what this call allocates does not fit.
template <class Real>
void check_memory(const PdistOptions& o, index_t n, index_t d, edm::Kernel kind, bool allocating, bool staged) {
  const index_t real_bytes = static_cast<index_t>(sizeof(Real));
  const index_t elements = edm::output_size(o.layout, n);
  const index_t out_bytes = mul_sat(elements, real_bytes);
  const index_t in_bytes = mul_sat(mul_sat(n, d), real_bytes);
  const index_t workspace = kind == edm::Kernel::gemm ? edm::gemm_workspace_bytes<Real>(n, d) : 0;
  const bool fp64 = std::is_same<Real, double>::value;
  std::string hint = "use fewer points";
  if (fp64) hint += ", float32 points";
  if (o.layout == edm::Layout::full) hint += ", layout='condensed'";
  const std::string what = std::string("the ") + edm::layout_name(o.layout) + " output of n = " + std::to_string(n) +
                           " points (" + std::to_string(elements) + (fp64 ? " fp64" : " fp32") + " elements, " +
                           format_bytes(out_bytes) + ")";
  // Host: the output where this call allocates it on the host; device (CUDA):
  // the staged copies of host arrays, the output it allocates there, the workspace.
  index_t host_need = allocating && (host_backend || staged) ? out_bytes : 0;
  index_t device_need = workspace;
  if (host_backend) host_need = add_sat(host_need, workspace);
  else device_need = add_sat(device_need, staged ? add_sat(in_bytes, out_bytes) : (allocating ? out_bytes : 0));
  const std::string extra = workspace > 0 ? " and the gemm kernel's workspace" : "";
  if (host_need > 0) {
    const index_t free_b = host_available_bytes();
    if (host_need > free_b)
      throw TooLarge(what + extra + " need " + format_bytes(host_need) + " of host memory but only " +
                     format_bytes(free_b) + " is available; " + hint);
  }
  if (!host_backend && device_need > 0) {
    const index_t free_b = free_memory_bytes();
    if (device_need > free_b)
      throw TooLarge(what + extra + " need " + format_bytes(device_need) + " of " + MemSpace::name() +
                     " memory but only " + format_bytes(free_b) + " is free; " + hint);
  }
}

edm::Layout parse_layout(const std::string& s) {
  check_choice("layout", s, edm::layout_names());
  return *edm::layout_from_name(s);
}

edm::Kernel parse_kernel(const std::string& s) {
  check_choice("kernel", s, edm::kernel_names());
  return *edm::kernel_from_name(s);
}

py::object pdist(py::handle X, const py::object& out_obj, const py::object& alloc, const py::object& metric,
                 const std::string& layout, const std::string& map, const std::string& sqrt, const std::string& form,
                 int block, const std::string& kernel, const py::object& symmetric, bool reject_nonfinite) {
  require_kokkos();
  PdistOptions o;
  if (!py::isinstance<py::str>(metric))
    throw py::value_error("metric: tdmaps computes 'euclidean' and 'sqeuclidean' (given by name), not a callable");
  const std::string m = py::str(metric);
  if (m != "euclidean" && m != "sqeuclidean")
    throw py::value_error("Unknown Distance Metric: " + m + " (tdmaps computes 'euclidean' and 'sqeuclidean')");
  o.squared = m == "sqeuclidean";
  o.layout = parse_layout(layout);
  o.kernel = parse_kernel(kernel);
  o.spec = map_spec(map, sqrt, form, block);
  o.block = block;
  o.symmetric = symmetric.is_none() ? o.layout == edm::Layout::full : symmetric.cast<bool>();
  o.reject_nonfinite = reject_nonfinite;
  if (o.symmetric && o.layout != edm::Layout::full) throw py::value_error("symmetric=True applies to layout='full' only");
  if (o.kernel == edm::Kernel::linear && o.layout == edm::Layout::full)
    throw py::value_error("kernel='linear' writes the packed and condensed layouts; layout='full' takes kernel='tile', "
                          "'element' or 'auto'");

  index_t n = 0, d = 0;
  const ArrayRef x = read_points(X, n, d);
  const bool fp32 = x.is('f', 4);

  const std::string dtype = fp32 ? "float32" : "float64";
  const index_t elements = edm::output_size(o.layout, n);
  const std::vector<std::int64_t> shape =
      o.layout == edm::Layout::full ? std::vector<std::int64_t>{n, n} : std::vector<std::int64_t>{elements};
  // Small inputs (host builds): the kernels' values by plain loops on this
  // thread (small.cpp), without the Kokkos thread, the memory queries and
  // the parallel dispatch. The direct formula only: kernel 'auto' or 'element'.
  const bool small = o.layout == edm::Layout::condensed &&
                     (o.kernel == edm::Kernel::automatic || o.kernel == edm::Kernel::element) && small_input(n, d);
  if (small) {
    if (o.reject_nonfinite) {
      for (index_t k = 0; k < n * d; ++k) {
        const double v = fp32 ? static_cast<const float*>(x.data)[k] : static_cast<const double*>(x.data)[k];
        if (!std::isfinite(v)) {
          std::ostringstream s;
          s << (fp32 ? static_cast<double>(static_cast<const float*>(x.data)[k]) : v);
          throw py::value_error("X: row " + std::to_string(k / d) + " (0-based), column " + std::to_string(k % d) +
                                " is " + s.str() + " (reject_nonfinite=True)");
        }
      }
    }
    py::object owner = out_obj;
    ArrayRef out;
    if (out_obj.is_none()) {
      out = allocate(alloc, shape, dtype, false, x, owner);
    } else {
      out = read_array(out_obj, "out", true);
      require_output(out, shape, dtype, x);
    }
    small_pdist(x, out, n, d, o.squared);
    return owner;
  }
  edm::Kernel kind = o.kernel;
  if (n > 0)  // the maps and the scratch limits are Kokkos'
    on_kokkos([&] {
      kind = fp32 ? resolved_kernel<float>(o, n, static_cast<int>(d)) : resolved_kernel<double>(o, n, static_cast<int>(d));
    });
  const bool staged = !host_backend && x.memory == Memory::host;
  if (fp32) check_memory<float>(o, n, d, kind, out_obj.is_none(), staged);
  else check_memory<double>(o, n, d, kind, out_obj.is_none(), staged);

  py::object owner = out_obj;
  ArrayRef out;
  if (out_obj.is_none()) {
    // Zeroed where the kernels leave elements alone: full without symmetric.
    out = allocate(alloc, shape, dtype, o.layout == edm::Layout::full && !o.symmetric, x, owner);
  } else {
    out = read_array(out_obj, "out", true);
    require_output(out, shape, dtype, x);
  }
  on_kokkos([&] {
    wait_for_producers(x);
    wait_for_producers(out);
    by_map_group(o.spec, [&](auto group) {
      constexpr MapGroup G = decltype(group)::value;
      if (fp32) pdist_compute<float, G>(x, out, n, d, o);
      else pdist_compute<double, G>(x, out, n, d, o);
    });
  });
  return owner;
}

}  // namespace

void bind_pdist(py::module_& m) {
  m.def("pdist", &pdist, py::arg("X"), py::arg("out"), py::arg("alloc"), py::arg("metric"), py::arg("layout"),
        py::arg("map"), py::arg("sqrt"), py::arg("form"), py::arg("block"), py::arg("kernel"), py::arg("symmetric"),
        py::arg("reject_nonfinite"),
        "Distances of the rows of X into out (or a new array from alloc(shape, dtype, zero)); see tdmaps.pdist.");
}

}  // namespace python
}  // namespace tdmaps
