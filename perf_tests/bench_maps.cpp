// tdmaps_bench_maps: every map of tdmaps against the bounding box, measured
// in the same run, on the default Kokkos execution space (see
// perf_tests/README.md; sweep.py drives it and computes I = t_BB / t_map).
//
// Groups (the first field of a case name; --benchmark_filter=^<group>/ picks one):
//   dummy     tdmaps::bench::DummyKernel under every map and lambda variant: the map
//             plus one 4-byte store per element (bytes/s against the ceiling)
//   sink      tdmaps::bench::DummySink: the map alone, no traffic
//   ceiling   write-only fills (Kokkos RangePolicy, Kokkos::deep_copy, plain
//             CUDA one and four values per thread): the write ceiling
//   launch    plain CUDA vs tdmaps vs Kokkos launch variants (launch_variants.cpp)
//   edm, collision   the apps, where they are built (edm_benchmarks.cpp, ...)
//   dummy3, sink3, launch3   the 3-D maps (bench3_benchmarks.cpp)
//   atm       the three-body energy of apps/triplets, where it is built
//             (atm_benchmarks.cpp)
#include "bench_common.hpp"
#include "kernel_bodies.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include "cuda_reference.hpp"
#endif

#include <iostream>
#include <string>

namespace tdmaps_bench {

namespace {

using OutView = Kokkos::View<std::uint32_t*, MemSpace>;

/// Every MapSpec the dummy runs: bb first (the reference of each group),
/// then each lambda variant in both forms, then the other maps.
std::vector<tdmaps::MapSpec> all_map_specs() {
  std::vector<tdmaps::MapSpec> specs;
  specs.push_back(tdmaps::MapSpec{"bb", "", ""});
  for (const auto& sqrt : tdmaps::sqrt_names())
    for (const auto& form : tdmaps::form_names()) specs.push_back(tdmaps::MapSpec{"lambda", sqrt, form});
  for (const auto& m : tdmaps::map_names())
    if (m != "bb" && m != "lambda") specs.push_back(tdmaps::MapSpec{m, "rsqrt", "exact"});
  return specs;
}

template <class Map>
void run_dummy(benchmark::State& state, const Options& o, const Map& map, const std::string& label, bool sink,
               bool inexact) {
  const index_t elements = map.domain.elements();
  const double bytes = sink ? 0.0 : 4.0 * static_cast<double>(elements);
  if (!fits_in_memory(state, bytes, {"out"})) return;
  OutView out = buffers().get<OutView>("out", sink ? std::size_t(1) : static_cast<std::size_t>(elements));
  const ExecSpace space;
  // Poison, so the check after timing sees unwritten elements (dummy_value
  // wraps past i = 65535 and can meet the poison there, which only weakens
  // the check at those few elements).
  Kokkos::deep_copy(space, out, 0xffffffffu);
  if (sink) {
    const tdmaps::bench::DummySink<MemSpace> kernel{out, -1};
    time_launches(state, static_cast<double>(elements), bytes,
                  [&] { tdmaps::for_each_element(space, map, kernel, label); });
  } else {
    const tdmaps::bench::DummyKernel<MemSpace> kernel{out, tdmaps::Triangle::lower};
    time_launches(state, static_cast<double>(elements), bytes,
                  [&] { tdmaps::for_each_element(space, map, kernel, label); });
  }
  // The papers' epsilon forms are wrong past their fp32 limit by design:
  // sweep.py reports their errors without failing the sweep.
  if (inexact) state.counters["inexact"] = 1;
  if (o.check) {
    index_t errors = 0;
    if (sink) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      errors = h(0) == 0xffffffffu ? 0 : 1;
    } else {
      Kokkos::parallel_reduce("tdmaps::bench::dummy::check",
                              Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, elements),
                              DummyCheck{out.data()}, errors);
    }
    state.counters["errors"] = static_cast<double>(errors);
  }
}

// ---- write ceiling ---------------------------------------------------------
struct Fill {
  OutView out;
  std::uint32_t value;
  KOKKOS_FUNCTION void operator()(const index_t k) const { out(k) = value; }
};

struct FillCheck {
  OutView out;
  std::uint32_t value;
  KOKKOS_FUNCTION void operator()(const index_t k, index_t& wrong) const {
    if (out(k) != value) ++wrong;
  }
};

enum class FillKind { kokkos_range, kokkos_deep_copy, cuda, cuda_vec4 };

void run_fill(benchmark::State& state, std::size_t bytes, FillKind kind) {
  const std::size_t count = bytes / 4;
  if (!fits_in_memory(state, static_cast<double>(bytes), {"out"})) return;
  OutView out = buffers().get<OutView>("out", count);
  const ExecSpace space;
  std::uint32_t value = 0x3f800000u;  // 1.0f: not zero, not the poison
  time_launches(state, static_cast<double>(count), static_cast<double>(count) * 4.0, [&] {
    ++value;  // a different value each launch: no store can be skipped
    switch (kind) {
      case FillKind::kokkos_range:
        Kokkos::parallel_for("tdmaps::bench::ceiling::fill",
                             Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, static_cast<index_t>(count)),
                             Fill{out, value});
        break;
      case FillKind::kokkos_deep_copy: Kokkos::deep_copy(space, out, value); break;
      case FillKind::cuda:
      case FillKind::cuda_vec4:
#if defined(KOKKOS_ENABLE_CUDA)
        cuda_reference::fill(out.data(), count, value, kind == FillKind::cuda_vec4);
#endif
        break;
    }
  });
  // The last value must be everywhere (a fill that skipped stores would show).
  index_t wrong = 0;
  Kokkos::parallel_reduce(
      "tdmaps::bench::ceiling::check", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, static_cast<index_t>(count)),
      FillCheck{out, value}, wrong);
  state.counters["errors"] = static_cast<double>(wrong);
}

}  // namespace

void register_map_benchmarks(const Options& o) {
  const auto specs = all_map_specs();
  for (const bool sink : {false, true})
    for (int rho : o.rho)
      for (index_t n : o.n)
        for (const auto& spec : specs) {
          const std::string map = spec.label();
          if (!map_selected(o, map)) continue;
          const std::string test = sink ? "sink" : "dummy";
          register_case(case_name(test, "store", map, rho, n), o, [&o, spec, rho, n, sink, test](benchmark::State& state) {
            const std::string label = "tdmaps::bench::" + test + "::" + spec.label();
            const bool inexact = spec.map == "lambda" && spec.form == "eps";
            tdmaps::with_map(spec, tdmaps::Domain2(n, rho),
                             [&](const auto& m) { run_dummy(state, o, m, label, sink, inexact); });
          });
        }
  std::vector<std::pair<FillKind, const char*>> fills{{FillKind::kokkos_range, "kokkos_range"},
                                                      {FillKind::kokkos_deep_copy, "kokkos_deep_copy"}};
#if defined(KOKKOS_ENABLE_CUDA)
  fills.push_back({FillKind::cuda, "cuda"});
  fills.push_back({FillKind::cuda_vec4, "cuda_vec4"});
#endif
  const std::size_t bytes = o.ceiling_bytes;
  for (const auto& f : fills) {
    const FillKind kind = f.first;
    register_case(case_name("ceiling", "fill", f.second, 0, static_cast<index_t>(bytes / 4)), o,
                  [bytes, kind](benchmark::State& state) { run_fill(state, bytes, kind); });
  }
}

}  // namespace tdmaps_bench

// Weak defaults for the groups whose translation units are not built (no
// EDM / collision / triplets / nbody app yet, no CUDA).
#if !defined(TDMAPS_BENCH_HAVE_EDM)
void tdmaps_bench::register_edm_benchmarks(const Options&) {}
#endif
#if !defined(TDMAPS_BENCH_HAVE_COLLISION)
void tdmaps_bench::register_collision_benchmarks(const Options&) {}
#endif
#if !defined(TDMAPS_BENCH_HAVE_TRIPLETS)
void tdmaps_bench::register_atm_benchmarks(const Options&) {}
#endif
#if !defined(TDMAPS_BENCH_HAVE_NBODY)
void tdmaps_bench::register_nbody_benchmarks(const Options&) {}
void tdmaps_bench::register_pair_law_benchmarks(const Options&) {}
#endif

int main(int argc, char** argv) {
  // --help before Kokkos and Google Benchmark see it: each would print its own
  // flags (Google Benchmark then exits) and never this program's.
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--help" || a == "-h") {
      std::cout << tdmaps_bench::usage();
      return 0;
    }
  }
  Kokkos::initialize(argc, argv);
  int status = 0;
  {
    benchmark::Initialize(&argc, argv);
    bool help = false;
    tdmaps_bench::Options options;
    try {
      options = tdmaps_bench::parse_options(argc, argv, help);
    } catch (const std::exception& e) {
      std::cerr << "tdmaps_bench_maps: error: " << e.what() << "\n";
      status = 2;
    }
    if (status == 0 && help) {
      std::cout << tdmaps_bench::usage();
    } else if (status == 0) {
      try {
        tdmaps_bench::add_context();
        tdmaps_bench::register_map_benchmarks(options);
        tdmaps_bench::register_launch_benchmarks(options);
        tdmaps_bench::register_edm_benchmarks(options);
        tdmaps_bench::register_collision_benchmarks(options);
        tdmaps_bench::register_bench3_benchmarks(options);
        tdmaps_bench::register_atm_benchmarks(options);
        tdmaps_bench::register_nbody_benchmarks(options);
        tdmaps_bench::register_pair_law_benchmarks(options);
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
      } catch (const std::exception& e) {
        std::cerr << "tdmaps_bench_maps: error: " << e.what() << "\n";
        status = 1;
      }
    }
    tdmaps_bench::buffers().clear();
  }
  Kokkos::finalize();
  return status;
}
