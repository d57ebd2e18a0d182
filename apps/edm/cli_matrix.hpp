#ifndef TDMAPS_EDM_CLI_MATRIX_HPP
#define TDMAPS_EDM_CLI_MATRIX_HPP

// tdmaps-edm's distance matrix in device memory (or, where it does not fit
// or runs on MPI ranks, streamed: cli_stream.cpp). Every size is checked in
// saturating int64 arithmetic before anything is allocated. Included by
// cli_matrix_fp32.cpp and cli_matrix_fp64.cpp only, which instantiate it
// for one precision each (the kernels of every map and layout: the largest
// part of the CLI's compile). Part of the CLI, not installed.

#include "cli_common.hpp"
#include "common/cli.hpp"
#include "common/kokkos_run.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"
#include "common/ranks.hpp"

#include <tdmaps/edm.hpp>
#include <tdmaps/tdmaps.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

namespace tdmaps {
namespace edm_cli {
namespace {

// Called from the generic lambda of with_map: the kernels are instantiated
// here, in a named template, never in the generic lambda itself.
template <class Map, class Real>
app::Timing run_map(const Map& map, const Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace>& x,
                    const Kokkos::View<Real*, MemSpace>& out, edm::Layout layout, edm::Kernel kind, const Options& o,
                    const app::Ranks& ranks, app::Progress& progress) {
  ExecSpace space;
  return app::timed_runs("compute", o.run.repeat, true, ranks, progress, [&] {
    edm::edm(space, x, out, map, layout, kind, o.symmetric, o.run.hints);
    space.fence();
  });
}

template <class Map, class Real>
edm::Kernel resolve(const Map&, edm::Kernel kind, int d, int rho) {
  return edm::resolve_kernel<ExecSpace, Map, Real>(kind, d, rho);
}

}  // namespace

template <class Real>
int run_matrix(Run<Real>& r) {
  const Options& o = r.o;
  const app::Ranks& ranks = r.ranks;
  const index_t n = r.n, d = r.d;
  const std::string& precision = r.precision;
  const edm::Layout layout = *edm::layout_from_name(o.layout);  // CLI11 checked the names
  const edm::Kernel kind = *edm::kernel_from_name(o.kernel);
  const int rho = o.block;
  constexpr index_t real_bytes = static_cast<index_t>(sizeof(Real));
  if (o.symmetric && layout != edm::Layout::full) throw app::UsageError("--symmetric applies to --layout full only");
  if (kind == edm::Kernel::linear && layout == edm::Layout::full)
    throw app::UsageError("--kernel linear writes the packed and condensed layouts; --layout full takes "
                          "--kernel tile, element or auto");

  // Every size in saturating int64 arithmetic, checked in milliseconds,
  // before anything is allocated or generated.
  const index_t elements = edm::output_size(layout, n);
  const index_t out_bytes = mul_sat(elements, real_bytes);
  const index_t in_bytes = mul_sat(mul_sat(n, d), real_bytes);
  constexpr bool host_memory = std::is_same<MemSpace, Kokkos::HostSpace>::value;
  // Host: the points as read or generated, the Kokkos copy on host backends,
  // and the output on host backends or its host copy for the file.
  index_t host_need = in_bytes;
  if (host_memory) host_need = add_sat(host_need, add_sat(in_bytes, out_bytes));
  else if (!o.output.empty()) host_need = add_sat(host_need, out_bytes);
  const index_t host_free = app::host_available_bytes();
  std::string smaller_hint = "use fewer points";
  if (precision == "fp64") smaller_hint += ", --precision fp32";
  if (layout == edm::Layout::full) smaller_hint += ", --layout condensed";
  const std::string what = "the " + o.layout + " output of n = " + std::to_string(n) + " points (" +
                           std::to_string(elements) + " " + precision + " elements, " + bytes_text(out_bytes) + ")";
  // A packed or condensed output may still stream (below): judged there.
  if (host_need > host_free && (layout == edm::Layout::full || (host_memory && o.budget < 0)))
    throw app::Error(what + " and the input need " + bytes_text(host_need) + " of host memory but only " +
                     app::format_bytes(host_free) + " is available; " + smaller_hint);
  const index_t file_bytes = add_sat(out_bytes, 128);  // + the .npy header
  if (!o.output.empty()) app::check_filesystem_space(o.output, file_bytes, what);

  // Views below are destroyed before the guard finalizes Kokkos, also when
  // an exception leaves this function.
  const app::KokkosScope kokkos(r.argv0, r.kokkos_options);
  app::Progress progress(o.run.quiet || o.run.json);

  const tdmaps::Domain2 domain = edm::make_domain(n, rho, layout);
  const bool tile_only = kind == edm::Kernel::tile;
  edm::Kernel resolved = kind;
  tdmaps::with_map(
      o.map, domain, [&](auto map) { resolved = resolve<decltype(map), Real>(map, kind, static_cast<int>(d), rho); },
      tile_only);
  if (resolved == edm::Kernel::tile && !edm::tile_fits<ExecSpace, Real>(rho, static_cast<int>(d))) {
    std::string hint = "use --kernel auto or element";
    if (edm::has_gemm()) hint += " (or gemm)";
    for (int smaller : {16, 8})
      if (smaller < rho && edm::tile_fits<ExecSpace, Real>(smaller, static_cast<int>(d)))
        hint += ", or --block " + std::to_string(smaller) + " (its tile fits up to d = " +
                std::to_string(edm::largest_tile_d<ExecSpace, Real>(smaller)) + ")";
    throw app::UsageError("--kernel tile: the tile of " + std::to_string(rho) + " + " + std::to_string(rho) + " " +
                          precision + " points of d = " + std::to_string(d) + " needs " +
                          std::to_string(edm::tile_scratch_bytes<ExecSpace, Real>(rho, static_cast<int>(d))) +
                          " bytes of team scratch, more than " + ExecSpace::name() + " allows at block side " +
                          std::to_string(rho) + " (d <= " + std::to_string(edm::largest_tile_d<ExecSpace, Real>(rho)) +
                          "); " + hint);
  }
  if (resolved == edm::Kernel::gemm && !edm::has_gemm())
    throw app::Error("--kernel gemm needs Kokkos Kernels, which this build did not find; use --kernel auto");
  index_t device_need = add_sat(in_bytes, out_bytes);
  if (resolved == edm::Kernel::gemm)
    device_need = add_sat(device_need, edm::gemm_workspace_bytes<Real>(n, d));
  {
    const index_t device_free = host_memory ? host_free - in_bytes : app::free_memory_bytes<MemSpace>();
    const index_t budget = o.budget > 0 ? std::min(o.budget, device_free) : device_free;
    if (ranks.size() > 1 || (layout != edm::Layout::full && (device_need > budget || host_need > host_free))) {
      StreamPlan plan{n, d, layout, elements, in_bytes, budget, host_free, o.output, what};
      const app::Timing t = stream_matrix<Real>(r, plan, domain, progress);
      return report_stream(o, ranks, plan, precision, t, r.total_timer);
    }
    if (device_need > budget)
      throw app::Error(what + ", the input and the kernel's workspace need " + bytes_text(device_need) +
                       " of device memory, more than --max-device-memory " + app::format_bytes(budget) +
                       "; the packed and condensed layouts stream in chunks past it (--layout packed or condensed)");
  }
  if (!host_memory) {
    const index_t device_free = app::free_memory_bytes<MemSpace>();
    if (device_need > device_free)
      throw app::Error(what + ", the input and the kernel's workspace need " + bytes_text(device_need) + " of " +
                       MemSpace::name() + " memory but only " + app::format_bytes(device_free) +
                       " is free; " + smaller_hint);
  } else if (add_sat(host_need, device_need - in_bytes - out_bytes) > host_free) {
    throw app::Error(what + ", the input and the kernel's workspace need " +
                     bytes_text(add_sat(host_need, device_need - in_bytes - out_bytes)) + " of host memory but only " +
                     app::format_bytes(host_free) + " is available");
  }

  auto x = load_points<Real>(o, n, d, r.pts, r.source);
  // The full layout without --symmetric leaves the upper triangle alone:
  // zero it, so the file never holds uninitialised memory.
  Kokkos::View<Real*, MemSpace> out(Kokkos::view_alloc(ExecSpace(), Kokkos::WithoutInitializing, "tdmaps::edm::out"),
                                    static_cast<std::size_t>(elements));
  if (layout == edm::Layout::full && !o.symmetric) Kokkos::deep_copy(ExecSpace(), out, Real(0));

  app::Timing res;
  Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace> cx = x;
  tdmaps::with_map(
      o.map, domain, [&](auto map) { res = run_map(map, cx, out, layout, kind, o, ranks, progress); }, tile_only);

  if (!o.output.empty()) {
    app::Timer write_timer;
    app::write_view_npy(o.output, out, layout == edm::Layout::full ? std::vector<std::int64_t>{n, n}
                                                                   : std::vector<std::int64_t>{elements},
                        progress);
    progress.done();
    res.ms_write = 1e3 * write_timer.seconds();
  }

  const double gbps = app::gb_per_s(static_cast<double>(out_bytes), res.ms_mean * 1e-3);
  const double gbps_best = app::gb_per_s(static_cast<double>(out_bytes), res.ms_min * 1e-3);
  const double ms_total = 1e3 * r.total_timer.seconds();
  if (o.run.json) {
    const app::RunShape shape{n, d, precision, edm::kernel_name(resolved), elements};
    nlohmann::json j = app::report_json(report_header(o, ranks, shape, res, ms_total, o.output));
    j["mode"] = "matrix";
    j["layout"] = o.layout;
    j["symmetric"] = o.symmetric;
    j["bytes"] = out_bytes;
    j["gbps"] = gbps;
    j["gbps_best"] = gbps_best;
    app::print_json_line(j);
  } else {
    std::printf("tdmaps-edm: n = %lld, d = %lld, %s, map %s (block %d), %s kernel, %s layout%s, %s, %d thread(s)\n",
                static_cast<long long>(n), static_cast<long long>(d), precision.c_str(), o.map.label().c_str(), rho,
                edm::kernel_name(resolved), o.layout.c_str(), o.symmetric ? " (symmetric)" : "", ExecSpace::name(),
                ExecSpace().concurrency());
    std::printf("  output  %s\n", app::format_bytes(out_bytes).c_str());
    std::printf("  compute %.3f ms mean, %.3f ms best over %d repetition(s); warm-up %.3f ms\n", res.ms_mean, res.ms_min,
                o.run.repeat, res.ms_warmup);
    std::printf("  rate    %.2f GB/s mean, %.2f GB/s best (output bytes / compute time)\n", gbps, gbps_best);
    if (!o.output.empty()) std::printf("  write   %.3f ms: %s\n", res.ms_write, o.output.c_str());
    std::printf("  total   %.3f ms (reading or generating the input, compute with warm-up, write)\n", ms_total);
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace edm_cli
}  // namespace tdmaps

#endif
