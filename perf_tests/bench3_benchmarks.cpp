// The 3-D map groups of tdmaps_bench_maps (perf_tests/README.md):
//   dummy3   tdmaps::bench::Dummy3Kernel over the strict tetrahedron k < j < i < n
//            (one 4-byte store per triplet at its packed position) under BB3
//            and lambda3 (cube root x form, MapSpec3 labels): the 3-D map
//            plus its stores
//            (`store`), and the same values into the full n^3 array at
//            (i n + j) n + k (`full`: the authors' store pattern)
//   sink3    tdmaps::bench::Dummy3Sink: the 3-D map alone, no traffic
//   launch3  the same store body (kernel_bodies.hpp, Dummy3Store) under BB3
//            and exact lambda3 launched by tdmaps::for_each_element
//            (`dummy3.tdmaps`) and by plain CUDA with the same block shape
//            and walk (`dummy3.cuda`, cuda_reference3.cpp, CUDA builds):
//            t(tdmaps) / t(cuda) is the overhead of the 3-D element path
// Case names <test>/<variant>/<map>/r<rho>/n<n>, bb3 first in each group
// (sweep.py: I = t_BB3 / t_map). Outputs are poisoned before and checked
// after timing (`errors`); the papers' epsilon forms carry `inexact` = 1,
// and a wrong output there is their known limit, not a failure (sweep.py).
#include "bench_common.hpp"
#include "kernel_bodies.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include "cuda_reference.hpp"
#endif

#include <type_traits>

namespace tdmaps_bench {

namespace {

using OutView = Kokkos::View<std::uint32_t*, MemSpace>;
constexpr std::uint32_t poison = 0xffffffffu;

/// BB3 first (the reference of each group), then each cube root in both forms.
std::vector<tdmaps::MapSpec3> all_map3_specs() {
  std::vector<tdmaps::MapSpec3> specs{tdmaps::MapSpec3{"bb3", "", ""}};
  for (const auto& cbrt : tdmaps::cbrt_names())
    for (const auto& form : tdmaps::form_names()) specs.push_back(tdmaps::MapSpec3{"lambda3", cbrt, form});
  return specs;
}

/// Errors of the packed strict output against Dummy3Check (0: every triplet
/// written with its own value).
index_t check_dummy3(const OutView& out, index_t elements) {
  index_t errors = 0;
  Kokkos::parallel_reduce("tdmaps::bench::dummy3::check",
                          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(ExecSpace(), 0, elements),
                          Dummy3Check{out.data()}, errors);
  return errors;
}

template <class Map>
void run_dummy3(benchmark::State& state, const Options& o, const Map& map, const std::string& label, bool sink,
                bool inexact, bool full = false) {
  const index_t elements = map.domain.elements();
  const index_t n = map.domain.n;
  const double bytes = sink ? 0.0 : 4.0 * static_cast<double>(elements);
  const double held = full ? 4.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) : bytes;
  if (!fits_in_memory(state, held, {"out"})) return;
  OutView out = buffers().get<OutView>(
      "out", sink ? std::size_t(1) : static_cast<std::size_t>(full ? n * n * n : elements));
  const ExecSpace space;
  Kokkos::deep_copy(space, out, poison);
  if (full) {
    const Dummy3FullStore kernel{out.data(), n};
    time_launches(
        state, static_cast<double>(elements), bytes, [&] { tdmaps::for_each_element(space, map, kernel, label); },
        "triplets");
  } else if (sink) {
    const tdmaps::bench::Dummy3Sink<MemSpace> kernel{out, -1};
    time_launches(
        state, static_cast<double>(elements), bytes, [&] { tdmaps::for_each_element(space, map, kernel, label); },
        "triplets");
  } else {
    const tdmaps::bench::Dummy3Kernel<MemSpace> kernel{out, tdmaps::Triangle::strict_lower};
    time_launches(
        state, static_cast<double>(elements), bytes, [&] { tdmaps::for_each_element(space, map, kernel, label); },
        "triplets");
  }
  if (inexact) state.counters["inexact"] = 1;
  if (o.check) {
    index_t errors = 0;
    if (full) {
      Kokkos::parallel_reduce("tdmaps::bench::dummy3::check_full",
                              Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(ExecSpace(), 0, elements),
                              Dummy3FullCheck{out.data(), n}, errors);
    } else if (sink) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      errors = h(0) == poison ? 0 : 1;
    } else {
      errors = check_dummy3(out, elements);
    }
    state.counters["errors"] = static_cast<double>(errors);
  }
}

// ---- launch3: the element path against plain CUDA --------------------------

enum class Launch3 { cuda, tdmaps };
const char* launch3_label(Launch3 l) { return l == Launch3::cuda ? "cuda" : "tdmaps"; }

template <class Map>
void run_launch3(benchmark::State& state, const Options& o, Launch3 l, const Map& map) {
  const index_t elements = map.domain.elements();
  const double bytes = 4.0 * static_cast<double>(elements);
  if (!fits_in_memory(state, bytes, {"out"})) return;
  OutView out = buffers().get<OutView>("out", static_cast<std::size_t>(elements));
  const ExecSpace space;
  Kokkos::deep_copy(space, out, poison);
  const Dummy3Store body{out.data()};
  const std::string label = std::string("tdmaps::bench::launch3::dummy3::") + launch3_label(l);
  if (l == Launch3::tdmaps) {
    time_launches(
        state, static_cast<double>(elements), bytes, [&] { tdmaps::for_each_element(space, map, body, label); },
        "triplets");
  } else {
#if defined(KOKKOS_ENABLE_CUDA)
    using cuda_reference::RefMap3;
    const RefMap3 ref = std::is_same<Map, tdmaps::BoundingBox3Map>::value ? RefMap3::bb3 : RefMap3::lambda3_cbrt;
    const int layers = tdmaps::team_layers3(tdmaps::LaunchHints{}, map.domain.rho);  // tdmaps' default shape
    time_launches(
        state, static_cast<double>(elements), bytes,
        [&] { cuda_reference::launch3(ref, map.domain.n, map.domain.rho, layers, out.data()); }, "triplets");
    state.SetLabel(cuda_reference::attributes3(ref));
#else
    throw std::logic_error("launch3 cuda: a CUDA build only");
#endif
  }
  if (o.check) state.counters["errors"] = static_cast<double>(check_dummy3(out, elements));
}

}  // namespace

void register_bench3_benchmarks(const Options& o) {
  const auto specs = all_map3_specs();
  for (const bool sink : {false, true})
    for (const bool full : {false, true}) {
      if (sink && full) continue;
      for (int rho : o.rho3)
        for (index_t n : o.n3)
          for (const auto& spec : specs) {
            const std::string map = spec.label();
            if (!map3_selected(o, map)) continue;
            const std::string test = sink ? "sink3" : "dummy3";
            register_case(case_name(test, full ? "full" : "store", map, rho, n), o,
                          [&o, spec, rho, n, sink, full, test](benchmark::State& state) {
                            const std::string label = "tdmaps::bench::" + test + "::" + spec.label();
                            const bool inexact = spec.form == "eps";
                            tdmaps::with_map3(spec, tdmaps::Domain3(n, rho, tdmaps::Triangle::strict_lower),
                                              [&](const auto& m) { run_dummy3(state, o, m, label, sink, inexact, full); });
                          });
          }
    }
  std::vector<Launch3> launches;
#if defined(KOKKOS_ENABLE_CUDA)
  launches.push_back(Launch3::cuda);
#endif
  launches.push_back(Launch3::tdmaps);
  for (int rho : o.rho3)
    for (index_t n : o.n3)
      for (const char* map : {"bb3", "lambda3_cbrt"}) {
        if (!map3_selected(o, map)) continue;
        for (Launch3 l : launches) {
          const bool bb = std::string(map) == "bb3";
          register_case(case_name("launch3", std::string("dummy3.") + launch3_label(l), map, rho, n), o,
                        [&o, l, rho, n, bb](benchmark::State& state) {
                          const tdmaps::Domain3 d(n, rho, tdmaps::Triangle::strict_lower);
                          if (bb) run_launch3(state, o, l, tdmaps::BoundingBox3Map(d));
                          else run_launch3(state, o, l,
                                           tdmaps::Lambda3Map<tdmaps::CbrtFloat, tdmaps::SqrtRsqrt, tdmaps::Exact>(d));
                        });
        }
      }
}

}  // namespace tdmaps_bench
