#ifndef TDMAPS_EDM_CLI_MODES_HPP
#define TDMAPS_EDM_CLI_MODES_HPP

// tdmaps-edm's modes beside the matrix in device memory: the matrix streamed
// in chunks (past --max-device-memory, or over MPI ranks) and the
// reductions (--reduce). Part of the CLI, not installed.

#include "cli_common.hpp"
#include "cli_reduce.hpp"
#include "cli_stream.hpp"
#include "common/cli.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"
#include "common/ranks.hpp"

#include <Kokkos_Core.hpp>
#include <tdmaps/tdmaps.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tdmaps {
namespace edm_cli {

/// What MPI ranks must agree on before any work (common/ranks.hpp): every
/// option that changes the result or the ranks' collectives, and the input.
/// The same names in every mode, so a mode that differs is named as such.
inline app::RunFacts run_facts(const Options& o, const std::string& precision, index_t n, index_t d) {
  const auto& r = o.reduce;
  const bool matrix = r.what.empty();
  const std::string unused = "not used";
  app::RunFacts f;
  f.add("--reduce", matrix ? std::string("not given") : r.what);
  if (r.what == "hist") f.add("--bins", r.bins).add_real("--rmax", r.rmax);
  else f.add("--bins", unused).add("--rmax", unused);
  if (r.what == "count") f.add_real("--radius", r.radius);
  else f.add("--radius", unused);
  f.add("--layout", matrix ? o.layout : unused).add("--symmetric", o.symmetric ? "yes" : "no");
  f.add("--kernel", matrix ? o.kernel : unused).add("--map", o.map.label()).add("--block", o.block);
  f.add("--precision", precision).add("--repeat", o.repeat).add("--reject-nonfinite", o.reject_nonfinite ? "yes" : "no");
  const std::string& output = matrix ? o.output : r.output;
  f.add("--output", output.empty() ? std::string("not given") : output);
  f.add("n", n).add("d", d);
  if (o.input.empty()) {
    f.add("input dtype", "random").add("--seed", std::to_string(o.seed)).add("input checksum", "none (--random)");
  } else {
    f.add("input dtype", app::is_npy_path(o.input) ? app::read_npy_header(o.input).descr : std::string("csv"));
    f.add("--seed", unused).add_file("input checksum", o.input);
  }
  return f;
}

/// The packed or condensed output in chunks (cli_stream.hpp), to --output
/// (one file; with MPI ranks each writes its slab) or to host memory.
template <class Real>
Timing stream_matrix(const Options& o, const app::Ranks& ranks, StreamPlan& plan,
                     const tdmaps::Domain2& domain, app::Matrix<Real>& pts, const std::string& source,
                     app::Progress& progress) {
  constexpr index_t rb = static_cast<index_t>(sizeof(Real));
  constexpr bool host_memory = std::is_same<MemSpace, Kokkos::HostSpace>::value;
  if (plan.layout == edm::Layout::full)
    throw app::UsageError("MPI ranks write slabs of the packed or condensed output; --layout full is one process's");
  if (o.kernel_given && o.kernel != "element")
    throw app::UsageError(plan.what + " is computed in chunks (" + app::format_bytes(plan.budget) +
                          " of device memory, or several ranks), which the element kernel does; --kernel " + o.kernel +
                          " does not stream");
  if (o.repeat > 1)
    throw app::UsageError("--repeat applies to outputs that fit device memory; " + plan.what +
                          " is streamed in chunks, once");
  if (o.map.map != "lambda" && o.map.map != "bb")
    throw app::UsageError(ranks.size() > 1 ? "MPI ranks write slabs of the " + o.layout + " output in chunks of block "
                                             "rows, which --map lambda and bb have; --map " + o.map.map + " does not"
                                           : plan.what + " is streamed in chunks of block rows, which --map lambda "
                                             "and bb have; --map " + o.map.map + " does not");
  // This rank's slab: equal element counts.
  const index_t q = plan.elements / ranks.size(), r = plan.elements % ranks.size();
  plan.e0 = q * ranks.rank() + std::min<index_t>(ranks.rank(), r);
  plan.e1 = plan.e0 + q + (ranks.rank() < r ? 1 : 0);
  const index_t share = plan.e1 - plan.e0;
  if (plan.budget <= plan.in_bytes)
    throw app::Error(app::format_bytes(plan.budget) + " of device memory does not hold even the points (" +
                     app::format_bytes(plan.in_bytes) + ")");
  // At most 1 GiB a chunk: a pipeline of many chunks overlaps compute and copies (a few huge ones would not).
  plan.chunk = std::max<index_t>(1, std::min<index_t>({(plan.budget - plan.in_bytes) / (2 * rb), share,
                                                       (index_t(1) << 30) / rb}));
  if (!host_memory) plan.chunk = std::min<index_t>(plan.chunk, std::max<index_t>(1, plan.host_free / (8 * rb)));
  plan.chunks = share > 0 ? (share + plan.chunk - 1) / plan.chunk : 0;
  index_t host_need = add_sat(plan.in_bytes, host_memory ? 2 * plan.chunk * rb : 2 * plan.chunk * rb);
  if (plan.output.empty()) host_need = add_sat(host_need, mul_sat(share, rb));
  if (host_need > plan.host_free)
    throw app::Error(plan.what + (plan.output.empty() ? " streamed to host memory" : " streamed to " + plan.output) +
                     " needs " + bytes_text(host_need) + " of host memory but only " +
                     app::format_bytes(plan.host_free) + " is available" +
                     (plan.output.empty() ? "; give --output FILE.npy" : ""));

  auto x = load_points<Real>(o, plan.n, plan.d, pts, source);
  ranks.agree();  // every check above passed on every rank; no work before
  Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace> cx = x;
  const std::vector<std::int64_t> shape{plan.elements};
  const std::string head = plan.output.empty() ? std::string() : app::npy_header<Real>(shape);
  const index_t hb = static_cast<index_t>(head.size());
  using host_mem = typename staging_space<ExecSpace>::type;
  Kokkos::View<Real*, host_mem> host_out;
  std::unique_ptr<app::OutputFile> file;
  std::unique_ptr<app::SlabFile> slab;
  if (plan.output.empty()) {
    host_out = Kokkos::View<Real*, host_mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::edm::host_out"),
                                             static_cast<std::size_t>(share));
  } else if (ranks.size() == 1) {
    file = std::make_unique<app::OutputFile>(plan.output, hb + plan.elements * rb);
    file->write(head.data(), hb);
  } else {
    slab = std::make_unique<app::SlabFile>(ranks, plan.output, hb + plan.elements * rb);
    if (ranks.root()) slab->write_at(0, head.data(), hb);
  }
  std::function<Real*(index_t, index_t)> dest = [&](index_t first, index_t) -> Real* {
    return plan.output.empty() ? host_out.data() + (first - plan.e0) : nullptr;
  };
  std::function<void(const Real*, index_t, index_t)> sink = [&](const Real* data, index_t first, index_t m) {
    if (file) file->write(data, m * rb);
    else if (slab) slab->write_at(hb + first * rb, data, m * rb);
  };
  // The device-to-host rate into the same host memory, for comparison: one
  // chunk copied to 8 places spread over the output, before the stream
  // (pages the device has not written yet, as the stream finds them) and
  // after it.
  auto d2h_rate = [&]() {
    const index_t m = std::min<index_t>(plan.chunk, index_t(1) << 28);
    Kokkos::View<Real*, MemSpace> dev("tdmaps::edm::d2h_dev", static_cast<std::size_t>(m));
    const index_t places = std::min<index_t>(8, std::max<index_t>(1, share / m));
    ExecSpace().fence();
    app::Timer c;
    for (index_t k = 0; k < places; ++k) {
      const index_t at = (share - m) / std::max<index_t>(1, places - 1) * k;
      Kokkos::deep_copy(Kokkos::subview(host_out, std::make_pair(at, at + m)), dev);
    }
    return app::gb_per_s(static_cast<double>(places * m * rb), c.seconds());
  };
  const bool measure = !host_memory && plan.output.empty() && plan.chunk > 0;
  if (measure) plan.d2h_cold_gbps = d2h_rate();
  ranks.barrier();
  app::Timer t;
  tdmaps::with_map(
      o.map, domain,
      [&](auto map) {
        using M = decltype(map);
        if constexpr (tdmaps::detail::is_lambda2<M>::value || std::is_same<M, tdmaps::BoundingBoxMap>::value)
          stream_chunks<ExecSpace>(map, cx, plan.layout, plan.e0, plan.e1, plan.chunk, dest, sink,
                                                    progress, o.hints);
      },
      true);
  if (file) file->commit();
  if (slab) slab->commit();
  ranks.barrier();
  Timing res;
  res.ms_mean = res.ms_min = 1e3 * t.seconds();
  if (measure) plan.d2h_gbps = d2h_rate();
  return res;
}

/// The report of a streamed run (rank 0).
int report_stream(const Options& o, const app::Ranks& ranks, const StreamPlan& plan,
                  const std::string& precision, const Timing& t, const app::Timer& total_timer) {
  if (!ranks.root()) return 0;
  const index_t rb = precision == "fp32" ? 4 : 8;
  const double gbps = app::gb_per_s(static_cast<double>(plan.elements * rb), t.ms_mean * 1e-3);
  if (o.json) {
    app::ReportHeader h = report_header(o, ranks, plan.n, plan.d, precision, "element", plan.elements);
    h.ms_mean = h.ms_min = t.ms_mean;
    h.ms_total = 1e3 * total_timer.seconds();
    h.output = o.output;
    nlohmann::json j = app::report_json(h);
    j["mode"] = "stream";
    j["layout"] = o.layout;
    j["chunks"] = plan.chunks;
    j["chunk_bytes"] = plan.chunk * rb;
    j["bytes"] = plan.elements * rb;
    j["gbps"] = gbps;
    j["d2h_gbps"] = plan.d2h_gbps > 0 ? nlohmann::json(plan.d2h_gbps) : nlohmann::json(nullptr);
    j["d2h_cold_gbps"] = plan.d2h_cold_gbps > 0 ? nlohmann::json(plan.d2h_cold_gbps) : nlohmann::json(nullptr);
    app::print_json_line(j);
  } else {
    std::printf("tdmaps-edm: n = %lld, d = %lld, %s, map %s (block %d), element kernel, %s layout, %s, %d rank(s)\n",
                static_cast<long long>(plan.n), static_cast<long long>(plan.d), precision.c_str(),
                o.map.label().c_str(), o.block, o.layout.c_str(), ExecSpace::name(), ranks.size());
    std::printf("  output  %s in %lld chunks of at most %s per rank, to %s\n",
                app::format_bytes(plan.elements * rb).c_str(), static_cast<long long>(plan.chunks),
                app::format_bytes(plan.chunk * rb).c_str(), o.output.empty() ? "host memory" : o.output.c_str());
    std::printf("  stream  %.3f ms, %.2f GB/s (output bytes / time)\n", t.ms_mean, gbps);
    if (plan.d2h_gbps > 0)
      std::printf("  d2h     %.2f GB/s into pages not yet written, %.2f GB/s after the stream (same run)\n",
                  plan.d2h_cold_gbps, plan.d2h_gbps);
  }
  std::fflush(stdout);
  return 0;
}

/// --reduce hist | nn | count (cli_reduce.hpp): no matrix, any n that fits the points.
template <class Real>
int run_reduce_mode(const Options& o, const app::Ranks& ranks, const std::vector<std::string>& kokkos_options,
                    const std::string& argv0, index_t n, index_t d, app::Matrix<Real>& pts, const std::string& source,
                    const std::string& precision, const app::Timer& total_timer) {
  const auto& r = o.reduce;
  const index_t in_bytes = mul_sat(mul_sat(n, d), static_cast<index_t>(sizeof(Real)));
  const index_t result_bytes = r.what == "nn" ? mul_sat(n, 32) : r.what == "hist" ? 8 * index_t(r.bins) : 8;
  const index_t host_need = add_sat(mul_sat(in_bytes, 2), result_bytes);
  if (host_need > app::host_available_bytes())
    throw app::Error(source + ": the points and the result need " + bytes_text(host_need) + " of host memory but only " +
                     app::format_bytes(app::host_available_bytes()) + " is available");
  if (r.what == "nn" && n < 2) throw app::Error(source + ": --reduce nn needs at least 2 points (n = 1 has no other point)");
  if (!r.output.empty()) app::check_filesystem_space(r.output, add_sat(result_bytes, 128), "the --reduce output");

  app::KokkosArgv kargs(argv0, kokkos_options);
  Kokkos::ScopeGuard guard(kargs.argc(), kargs.argv());
  app::Progress progress(o.quiet || o.json || !ranks.root());
  if (!std::is_same<MemSpace, Kokkos::HostSpace>::value) {
    const index_t device_need = add_sat(in_bytes, result_bytes);
    if (device_need > app::free_memory_bytes<MemSpace>())
      throw app::Error("the points and the result need " + bytes_text(device_need) + " of " + MemSpace::name() +
                       " memory but only " + app::format_bytes(app::free_memory_bytes<MemSpace>()) + " is free");
  }
  auto x = load_points<Real>(o, n, d, pts, source);
  Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace> cx = x;
  const tdmaps::Domain2 domain(n, o.block, tdmaps::Triangle::strict_lower);
  ReduceResult res;
  tdmaps::with_map(
      o.map, domain, [&](auto map) { res = run_reduce<ExecSpace>(map, cx, r, ranks, progress); },
      r.what != "count");

  const index_t pairs = n * (n - 1) / 2;
  double ms_write = -1;
  if (ranks.root() && !r.output.empty()) {
    app::Timer write_timer;
    if (r.what == "hist") app::write_npy(r.output, res.hist.data(), {static_cast<std::int64_t>(r.bins)});
    else if (r.what == "nn") app::write_npy(r.output, res.nn.data(), {n, 2});
    ms_write = 1e3 * write_timer.seconds();
  }
  if (!ranks.root()) return 0;
  const double rate = res.ms_min > 0 ? static_cast<double>(pairs) / (res.ms_min * 1e-3) : 0.0;
  if (o.json) {
    // No matrix kernel: the reductions pick their own.
    app::ReportHeader h = report_header(o, ranks, n, d, precision, "", pairs);
    h.repeat = r.repeat;
    h.ms_mean = res.ms_mean;
    h.ms_min = res.ms_min;
    h.ms_warmup = res.ms_warmup;
    h.ms_write = ms_write;
    h.ms_total = 1e3 * total_timer.seconds();
    h.output = r.output;
    nlohmann::json j = app::report_json(h);
    j["mode"] = "reduce";
    j["reduce"] = r.what;
    j["ms_combine"] = res.ms_combine;
    if (r.what == "hist") {
      j["bins"] = r.bins;
      j["rmax"] = r.rmax;
      index_t in = 0;
      for (auto c : res.hist) in += c;
      j["counted"] = in;
    }
    if (r.what == "count") {
      j["radius"] = r.radius;
      j["count"] = res.count;
    }
    app::print_json_line(j);
  } else {
    std::printf("tdmaps-edm: --reduce %s, n = %lld, d = %lld, %s, map %s (block %d), %s, %d rank(s)\n", r.what.c_str(),
                static_cast<long long>(n), static_cast<long long>(d), precision.c_str(), o.map.label().c_str(), o.block,
                ExecSpace::name(), ranks.size());
    if (r.what == "count")
      std::printf("  count   %lld of %lld pairs closer than %s\n", static_cast<long long>(res.count),
                  static_cast<long long>(pairs), app::number_text(r.radius).c_str());
    std::printf("  compute %.3f ms mean, %.3f ms best over %d repetition(s); %.3g pairs/s\n", res.ms_mean, res.ms_min,
                r.repeat, rate);
    if (!r.output.empty()) std::printf("  output  %s\n", r.output.c_str());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace edm_cli
}  // namespace tdmaps

#endif
