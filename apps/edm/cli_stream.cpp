// tdmaps-edm past device memory: the packed or condensed output in chunks
// (tdmaps/edm/chunk.hpp) of at most `chunk` elements, double-buffered: chunk
// k + 1 is computed on one execution space instance while chunk k is copied
// to the host on another and chunk k - 1 is handed to the sink (a file
// write) on a host thread. With MPI ranks each rank streams its slab of one
// file. Part of the CLI (cli_common.hpp), not installed.

#include "cli_common.hpp"
#include "common/cli.hpp"
#include "common/memory.hpp"
#include "common/staging.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"
#include "common/ranks.hpp"

#include <tdmaps/edm/chunk.hpp>
#include <tdmaps/tdmaps.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace tdmaps {
namespace edm_cli {
namespace {

/// Two instances of ExecSpace: compute and copy (two streams on CUDA and
/// HIP; one instance twice on host backends, where nothing is copied):
/// tdmaps::backend::InstancePair.
template <class ExecSpace>
using Instances = backend::InstancePair<ExecSpace>;

/// A host thread running one job at a time (the sink), its error rethrown on wait().
class Writer {
 public:
  ~Writer() {
    if (t_.joinable()) t_.join();
  }
  void start(std::function<void()> job) {
    wait();
    t_ = std::thread([this, job = std::move(job)]() {
      try {
        job();
      } catch (...) {
        error_ = std::current_exception();
      }
    });
  }
  void wait() {
    if (t_.joinable()) t_.join();
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  std::thread t_;
  std::exception_ptr error_;
};

/// Computes output elements [begin, end) in chunks of at most `chunk` and
/// calls sink(host_data, first_element, count) for each, in order, on a
/// host thread. host_dest(first, count), when it returns non-null, is where
/// the chunk is to be copied to directly (the sink then only acknowledges).
template <class ExecSpace, class Map, class Real>
void stream_chunks(const Map& map, const Kokkos::View<const Real**, Kokkos::LayoutRight,
                                                     typename ExecSpace::memory_space>& x,
                   edm::Layout layout, index_t begin, index_t end, index_t chunk,
                   const std::function<Real*(index_t, index_t)>& host_dest,
                   const std::function<void(const Real*, index_t, index_t)>& sink, app::Progress& progress,
                   const LaunchHints& hints) {
  using mem = typename ExecSpace::memory_space;
  using host_mem = typename app::staging_space<ExecSpace>::type;
  constexpr bool on_host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, mem>::accessible;
  if (chunk < 1) throw app::Error("the streamed output needs chunks of at least one element");
  const index_t chunks = (end - begin + chunk - 1) / chunk;
  const index_t first_size = end - begin < chunk ? end - begin : chunk;
  Instances<ExecSpace> inst;
  Kokkos::View<Real*, mem> dbuf[2];
  Kokkos::View<Real*, host_mem> hbuf[2];
  for (int b = 0; b < 2 && b < chunks; ++b) {
    dbuf[b] = Kokkos::View<Real*, mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::edm::chunk"),
                                       static_cast<std::size_t>(first_size));
    if (!on_host)
      hbuf[b] = Kokkos::View<Real*, host_mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::edm::staging"),
                                              static_cast<std::size_t>(first_size));
  }
  auto range_of = [&](index_t k, index_t& o, index_t& m) {
    o = begin + k * chunk;
    m = end - o < chunk ? end - o : chunk;
  };
  auto compute = [&](index_t k) {
    index_t o, m;
    range_of(k, o, m);
    Real* direct = on_host ? host_dest(o, m) : nullptr;
    if constexpr (on_host) {
      if (direct) {
        edm::edm_chunk(inst.compute(), x, map, layout, o,
                       Kokkos::View<Real*, mem, Kokkos::MemoryUnmanaged>(direct, static_cast<std::size_t>(m)), hints);
        return;
      }
    }
    edm::edm_chunk(inst.compute(), x, map, layout, o, Kokkos::subview(dbuf[k % 2], std::make_pair(index_t(0), m)), hints);
  };
  Writer writer;
  const index_t bytes = static_cast<index_t>(sizeof(Real));
  progress.phase("compute and stream (" + std::to_string(chunks) + " chunks)", (end - begin) * bytes,
                 app::Progress::Unit::bytes);
  if (chunks > 0) compute(0);
  for (index_t k = 0; k < chunks; ++k) {
    index_t o, m;
    range_of(k, o, m);
    inst.compute().fence();  // chunk k is computed
    const Real* host_data;
    if constexpr (on_host) {
      Real* direct = host_dest(o, m);
      host_data = direct ? direct : dbuf[k % 2].data();
      writer.wait();  // the sink is done with chunk k - 1 (its buffer is next)
      writer.start([&sink, host_data, o, m]() { sink(host_data, o, m); });
      if (k + 1 < chunks) compute(k + 1);  // host backends compute synchronously: after the sink starts
    } else {
      Real* direct = host_dest(o, m);
      writer.wait();  // the sink is done with chunk k - 2's host buffer
      auto dst = direct ? Kokkos::View<Real*, host_mem, Kokkos::MemoryUnmanaged>(direct, static_cast<std::size_t>(m))
                        : Kokkos::View<Real*, host_mem, Kokkos::MemoryUnmanaged>(hbuf[k % 2].data(),
                                                                                static_cast<std::size_t>(m));
      Kokkos::deep_copy(inst.copy(), dst, Kokkos::subview(dbuf[k % 2], std::make_pair(index_t(0), m)));
      if (k + 1 < chunks) compute(k + 1);  // overlaps the copy (the other device buffer)
      inst.copy().fence();
      host_data = dst.data();
      writer.start([&sink, host_data, o, m]() { sink(host_data, o, m); });
    }
    progress.advance((o + m - begin) * bytes);
  }
  writer.wait();
  progress.done();
}

}  // namespace

template <class Real>
app::Timing stream_matrix(const Run<Real>& r, StreamPlan& plan, const tdmaps::Domain2& domain,
                          app::Progress& progress) {
  const Options& o = r.o;
  const app::Ranks& ranks = r.ranks;
  constexpr index_t rb = static_cast<index_t>(sizeof(Real));
  constexpr bool host_memory = std::is_same<MemSpace, Kokkos::HostSpace>::value;
  if (plan.layout == edm::Layout::full)
    throw app::UsageError("MPI ranks write slabs of the packed or condensed output; --layout full is one process's");
  if (o.kernel_given && o.kernel != "element")
    throw app::UsageError(plan.what + " is computed in chunks (" + app::format_bytes(plan.budget) +
                          " of device memory, or several ranks), each with the element kernel's values (its kernel, or on "
                          "GPUs the dimension-tiled walk from d = 8); --kernel " + o.kernel + " does not stream");
  if (o.run.repeat > 1)
    throw app::UsageError("--repeat applies to outputs that fit device memory; " + plan.what +
                          " is streamed in chunks, once");
  if (o.map.map != "lambda" && o.map.map != "bb")
    throw app::UsageError(ranks.size() > 1 ? "MPI ranks write slabs of the " + o.layout + " output in chunks of block "
                                             "rows, which --map lambda and bb have; --map " + o.map.map + " does not"
                                           : plan.what + " is streamed in chunks of block rows, which --map lambda "
                                             "and bb have; --map " + o.map.map + " does not");
  // This rank's slab: equal element counts.
  const index_t q = plan.elements / ranks.size(), rest = plan.elements % ranks.size();
  plan.e0 = q * ranks.rank() + std::min<index_t>(ranks.rank(), rest);
  plan.e1 = plan.e0 + q + (ranks.rank() < rest ? 1 : 0);
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

  auto x = load_points<Real>(o, plan.n, plan.d, r.pts, r.source);
  ranks.agree();  // every check above passed on every rank; no work before
  Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace> cx = x;
  const std::vector<std::int64_t> shape{plan.elements};
  const std::string head = plan.output.empty() ? std::string() : app::npy_header<Real>(shape);
  const index_t hb = static_cast<index_t>(head.size());
  using host_mem = typename app::staging_space<ExecSpace>::type;
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
        if constexpr (tdmaps::is_lambda_map_v<M> || std::is_same<M, tdmaps::BoundingBoxMap>::value)
          stream_chunks<ExecSpace>(map, cx, plan.layout, plan.e0, plan.e1, plan.chunk, dest, sink, progress,
                                   o.run.hints);
      },
      true);
  if (file) file->commit();
  if (slab) slab->commit();
  ranks.barrier();
  app::Timing res;
  res.ms_mean = res.ms_min = 1e3 * t.seconds();
  if (measure) plan.d2h_gbps = d2h_rate();
  return res;
}

int report_stream(const Options& o, const app::Ranks& ranks, const StreamPlan& plan, const std::string& precision,
                  const app::Timing& t, const app::Timer& total_timer) {
  if (!ranks.root()) return 0;
  const index_t rb = precision == "fp32" ? 4 : 8;
  const double gbps = app::gb_per_s(static_cast<double>(plan.elements * rb), t.ms_mean * 1e-3);
  if (o.run.json) {
    const app::RunShape shape{plan.n, plan.d, precision, "element", plan.elements};
    nlohmann::json j = app::report_json(report_header(o, ranks, shape, t, 1e3 * total_timer.seconds(), o.output));
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

template app::Timing stream_matrix<float>(const Run<float>&, StreamPlan&, const tdmaps::Domain2&, app::Progress&);
template app::Timing stream_matrix<double>(const Run<double>&, StreamPlan&, const tdmaps::Domain2&, app::Progress&);

}  // namespace edm_cli
}  // namespace tdmaps
