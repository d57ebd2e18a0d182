// EDM benchmarks ("edm/<layout>_d<d>_<kernel>/<map>/r<rho>/n<n>"):
// tdmaps::edm::edm of n random fp32 points in d = 1..4 dimensions, each
// layout (packed, condensed, full without mirror), element and tile kernels,
// under the maps of app_maps.hpp; BB of the same layout/d/kernel/r/n is
// measured in the same run. Outputs are checked against an fp64 recomputation.
#include "app_maps.hpp"
#include "bench_common.hpp"

#include <tdmaps/edm.hpp>

#include <cmath>
#include <limits>
#include <random>

namespace tdmaps_bench {

namespace {

namespace edm = tdmaps::edm;
using Points = Kokkos::View<float**, Kokkos::LayoutRight, MemSpace>;
using Out = Kokkos::View<float*, MemSpace>;

/// Wrong elements of the layout: poison left, or off the fp64 distance.
/// Counts them; EdmAppFirst finds the smallest wrong p.
struct EdmAppCheck {
  Kokkos::View<const float**, Kokkos::LayoutRight, MemSpace> x;
  Kokkos::View<const float*, MemSpace> out;
  index_t n;
  int d;
  edm::Layout layout;

  KOKKOS_FUNCTION void element(const index_t p, index_t& i, index_t& j) const {
    if (layout == edm::Layout::condensed) {  // domain order T(i - 1) + j, j < i
      const index_t r = tdmaps::tri_root(p);
      i = r + 1;
      j = p - tdmaps::tri(r);
    } else {
      i = tdmaps::tri_root(p);
      j = p - tdmaps::tri(i);
    }
  }
  KOKKOS_FUNCTION index_t position(index_t p, index_t i, index_t j) const {
    return layout == edm::Layout::packed ? p : layout == edm::Layout::condensed ? edm::condensed_index(n, i, j) : i * n + j;
  }
  KOKKOS_FUNCTION double reference(index_t i, index_t j) const {
    double s = 0.0;
    for (int k = 0; k < d; ++k) {
      const double t = static_cast<double>(x(i, k)) - static_cast<double>(x(j, k));
      s += t * t;
    }
    return tdmaps::intrinsics::sqrt_d(s);
  }
  KOKKOS_FUNCTION bool wrong(const index_t p) const {
    index_t i, j;
    element(p, i, j);
    const double ref = reference(i, j);
    const double got = static_cast<double>(out(position(p, i, j)));
    const double diff = got > ref ? got - ref : ref - got;
    return !(diff <= 1e-5 * ref + 1e-6);
  }
  KOKKOS_FUNCTION void operator()(const index_t p, index_t& errors) const {
    if (wrong(p)) ++errors;
  }
};

/// The smallest wrong p (with a Min reducer).
struct EdmAppFirst {
  EdmAppCheck c;
  KOKKOS_FUNCTION void operator()(const index_t p, index_t& first) const {
    if (p < first && c.wrong(p)) first = p;
  }
};

/// "first wrong (i, j) at out[q]: got g, want w" for the smallest wrong p.
std::string first_error(const EdmAppCheck& c, index_t elements) {
  index_t p = elements;
  Kokkos::parallel_reduce("tdmaps::bench::edm::first_error",
                          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(0, elements), EdmAppFirst{c},
                          Kokkos::Min<index_t>(p));
  if (p >= elements) return "";
  index_t i, j;
  c.element(p, i, j);
  const index_t q = c.position(p, i, j);
  float got = 0;
  Kokkos::deep_copy(got, Kokkos::subview(c.out, q));
  auto xi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(c.x, i, Kokkos::ALL));
  auto xj = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(c.x, j, Kokkos::ALL));
  double s = 0;
  for (int k = 0; k < c.d; ++k) s += (double(xi(k)) - double(xj(k))) * (double(xi(k)) - double(xj(k)));
  return "first wrong (" + std::to_string(i) + "," + std::to_string(j) + ") at out[" + std::to_string(q) +
         "]: got " + std::to_string(got) + ", want " + std::to_string(std::sqrt(s));
}

edm::Layout parse_layout(const std::string& s) {
  if (s == "packed") return edm::Layout::packed;
  if (s == "condensed") return edm::Layout::condensed;
  if (s == "full") return edm::Layout::full;
  throw std::invalid_argument("--edm-layouts: unknown layout '" + s + "' (known: packed, condensed, full)");
}
edm::Kernel parse_kernel(const std::string& s) {
  if (s == "element") return edm::Kernel::element;
  if (s == "tile") return edm::Kernel::tile;
  if (s == "linear") return edm::Kernel::linear;
  throw std::invalid_argument("--edm-kernels: unknown kernel '" + s + "' (known: element, tile, linear)");
}

template <class Map>
void run_edm(benchmark::State& state, const Options& o, const Map& map, int d, edm::Layout layout, edm::Kernel kernel,
             const tdmaps::LaunchHints& hints) {
  const index_t n = map.domain.n;
  const index_t size = edm::output_size(layout, n);
  const double pairs = static_cast<double>(map.domain.elements());
  const double bytes = 4.0 * pairs + 4.0 * static_cast<double>(n * d);  // each output written once, points read once
  if (!fits_in_memory(state, 4.0 * static_cast<double>(size) + 4.0 * static_cast<double>(n * d), {"out", "points"})) return;
  const ExecSpace space;
  Points x = buffers().get<Points>("points", static_cast<std::size_t>(n), static_cast<std::size_t>(d));
  {
    std::mt19937 gen(20261122u);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    auto h = Kokkos::create_mirror_view(x);
    for (index_t i = 0; i < n; ++i)
      for (int k = 0; k < d; ++k) h(i, k) = u(gen);
    Kokkos::deep_copy(x, h);
  }
  Out out = buffers().get<Out>("out", static_cast<std::size_t>(size));
  Kokkos::deep_copy(space, out, std::numeric_limits<float>::quiet_NaN());  // poison
  time_launches(state, pairs, bytes, [&] { edm::edm(space, x, out, map, layout, kernel, false, hints); });
  if (o.check) {
    index_t errors = 0;
    const EdmAppCheck check{x, out, n, d, layout};
    Kokkos::parallel_reduce("tdmaps::bench::edm::check",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, map.domain.elements()),
                            check, errors);
    state.counters["errors"] = static_cast<double>(errors);
    if (errors > 0) state.SetLabel(first_error(check, map.domain.elements()));
  }
}

}  // namespace

void register_edm_benchmarks(const Options& o) {
  std::vector<edm::Layout> layouts;
  std::vector<edm::Kernel> kernels;
  for (const auto& s : o.edm_layouts) layouts.push_back(parse_layout(s));
  for (const auto& s : o.edm_kernels) kernels.push_back(parse_kernel(s));
  for (const edm::Layout layout : layouts)
    for (const int d : o.edm_d)
      for (const edm::Kernel kernel : kernels)
        for (const tdmaps::LaunchHints& hints : hints_list(o))
          for (const int rho : o.edm_rho)
            for (const index_t n : o.edm_n)
              for (const auto& label : app_map_labels()) {
                if (!map_selected(o, label)) continue;
                if (kernel == edm::Kernel::tile && is_thread_space_label(label)) continue;
                // The linear kernel walks the output in its memory order (lambda at element
                // granularity) and uses no map's blocks: one case, under lambda_rsqrt's label;
                // the full layout is not in memory order.
                if (kernel == edm::Kernel::linear && (label != "lambda_rsqrt" || layout == edm::Layout::full)) continue;
                if (hints.team_threads != 0 && hints.team_threads < rho) continue;  // less than one row of the block
                const std::string variant = std::string(edm::layout_name(layout)) + "_d" + std::to_string(d) + "_" +
                                            edm::kernel_name(kernel) + hints_suffix(hints);
                register_case(case_name("edm", variant, label, rho, n), o,
                              [&o, label, layout, kernel, d, rho, n, hints](benchmark::State& state) {
                                with_app_map(label, edm::make_domain(n, rho, layout), [&](const auto& map) {
                                  run_edm(state, o, map, d, layout, kernel, hints);
                                });
                              });
              }
}

}  // namespace tdmaps_bench
