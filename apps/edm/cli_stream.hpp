#ifndef TDMAPS_EDM_CLI_STREAM_HPP
#define TDMAPS_EDM_CLI_STREAM_HPP

// tdmaps-edm past device memory: the packed or condensed output in chunks
// (tdmaps/edm/chunk.hpp) of at most `chunk` elements, double-buffered: chunk
// k + 1 is computed on one execution space instance while chunk k is copied
// to the host on another and chunk k - 1 is handed to the sink (a file
// write) on a host thread. Part of the CLI (tdmaps_edm.cpp), not installed.

#include <tdmaps/edm/chunk.hpp>
#include <tdmaps/tdmaps.hpp>

#include "common/cli.hpp"
#include "common/progress.hpp"

#include <Kokkos_Core.hpp>

#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>

namespace tdmaps {
namespace edm_cli {

/// What a streamed run was given (tdmaps_edm.cpp fills it).
struct StreamPlan {
  index_t n = 0, d = 0;
  edm::Layout layout = edm::Layout::packed;
  index_t elements = 0;  ///< of the whole output
  index_t in_bytes = 0;
  index_t budget = 0;     ///< device bytes the run may use
  index_t host_free = 0;  ///< host bytes available
  std::string output;     ///< empty: host memory
  std::string what;       ///< "the packed output of n = ... points (...)"
  // filled by the run
  index_t e0 = 0, e1 = 0;  ///< this rank's elements
  index_t chunk = 0;       ///< elements per chunk
  index_t chunks = 0;
  double d2h_gbps = 0;       ///< device-to-host copy rate into the output after the stream (device backends, to memory)
  double d2h_cold_gbps = 0;  ///< the same before the stream, into pages not yet written
};

/// Host memory the device copies into at full speed (pinned on CUDA).
template <class ExecSpace>
struct staging_space {
  using type = Kokkos::HostSpace;
};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct staging_space<Kokkos::Cuda> {
  using type = Kokkos::CudaHostPinnedSpace;
};
#endif

/// Two instances of ExecSpace: compute and copy (two CUDA streams; one
/// instance twice on host backends, where nothing is copied).
template <class ExecSpace>
struct Instances {
  ExecSpace compute, copy;
};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct Instances<Kokkos::Cuda> {
  cudaStream_t s[2] = {nullptr, nullptr};
  Kokkos::Cuda compute, copy;
  static cudaStream_t make() {
    cudaStream_t st;
    if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess)
      throw app::Error("cannot create a CUDA stream for the streamed output");
    return st;
  }
  Instances() : s{make(), make()}, compute(s[0]), copy(s[1]) {}
  ~Instances() {
    compute = Kokkos::Cuda();
    copy = Kokkos::Cuda();
    cudaStreamDestroy(s[0]);
    cudaStreamDestroy(s[1]);
  }
};
#endif

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
  using host_mem = typename staging_space<ExecSpace>::type;
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
        edm::edm_chunk(inst.compute, x, map, layout, o,
                       Kokkos::View<Real*, mem, Kokkos::MemoryUnmanaged>(direct, static_cast<std::size_t>(m)), hints);
        return;
      }
    }
    edm::edm_chunk(inst.compute, x, map, layout, o, Kokkos::subview(dbuf[k % 2], std::make_pair(index_t(0), m)), hints);
  };
  Writer writer;
  const index_t bytes = static_cast<index_t>(sizeof(Real));
  progress.phase("compute and stream (" + std::to_string(chunks) + " chunks)", (end - begin) * bytes,
                 app::Progress::Unit::bytes);
  if (chunks > 0) compute(0);
  for (index_t k = 0; k < chunks; ++k) {
    index_t o, m;
    range_of(k, o, m);
    inst.compute.fence();  // chunk k is computed
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
      Kokkos::deep_copy(inst.copy, dst, Kokkos::subview(dbuf[k % 2], std::make_pair(index_t(0), m)));
      if (k + 1 < chunks) compute(k + 1);  // overlaps the copy (the other device buffer)
      inst.copy.fence();
      host_data = dst.data();
      writer.start([&sink, host_data, o, m]() { sink(host_data, o, m); });
    }
    progress.advance((o + m - begin) * bytes);
  }
  writer.wait();
  progress.done();
}

}  // namespace edm_cli
}  // namespace tdmaps

#endif
