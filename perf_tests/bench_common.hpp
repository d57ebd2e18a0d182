#ifndef TDMAPS_PERF_TESTS_BENCH_COMMON_HPP
#define TDMAPS_PERF_TESTS_BENCH_COMMON_HPP

// Shared pieces of the tdmaps benchmarks (tdmaps_bench_maps):
//   Options          the benchmark's own command line (after Google
//                    Benchmark and Kokkos took theirs), see usage()
//   case_name(...)   "<test>/<variant>/<map>/r<rho>/n<n>": the one naming
//                    scheme sweep.py parses (every figure is compared with
//                    the "bb" row of the same test/variant/r/n)
//   time_launches    untimed warm-up launch, fence, then per iteration
//                    Kokkos::Timer, launch, fence, SetIterationTime; median
//                    and minimum as counters next to Google Benchmark's mean
//   BufferCache      device buffers reused across consecutive benchmarks of
//                    the same size, so a sweep does not reallocate 20 GB per case
//   fits_in_memory   skip (with a message) a case whose buffers cannot fit

#include <tdmaps/tdmaps.hpp>

#include <benchmark/benchmark.h>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <typeindex>
#include <vector>

namespace tdmaps_bench {

using tdmaps::index_t;
using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;

/// Whether the default execution space is a GPU (sizes and defaults differ).
constexpr bool on_gpu = tdmaps::is_gpu_space<ExecSpace>::value;

struct Options {
  std::vector<index_t> n;            ///< problem sides for the map tests (dummy, sink)
  std::vector<int> rho{8, 16, 32};   ///< block sides
  std::vector<std::string> maps;     ///< map labels (MapSpec::label()); empty: all
  std::size_t ceiling_bytes = 0;     ///< size of the write-ceiling fill
  std::vector<index_t> edm_n;        ///< sides for EDM
  std::vector<int> edm_d{1, 2, 3, 4};
  std::vector<std::string> edm_layouts{"packed", "condensed", "full"};
  std::vector<std::string> edm_kernels{"element", "tile", "linear"};
  std::vector<int> edm_rho;          ///< block sides for EDM (default: rho)
  std::vector<index_t> collision_n;  ///< sides for collision
  std::vector<int> collision_rho;    ///< block sides for collision (default: rho)
  std::vector<int> collision_dims{3, 1};
  std::vector<std::string> collision_results{"count", "intflags", "flags", "rowflags", "tileflags", "pairs"};
  std::vector<std::string> collision_kernels{"tile", "element", "linear"};
  std::vector<index_t> launch_n;     ///< sides for the launch-path comparison (plain CUDA vs Kokkos)
  std::vector<int> launch_rho;       ///< block sides for it
  std::vector<int> team_threads{0};  ///< GPU team sizes of the EDM and collision cases (0: the default)
  std::vector<int> blocks_per_team{0};  ///< blocks per team of the EDM and collision cases (0: the default)
  std::vector<index_t> n3;           ///< sides of the 3-D map tests (dummy3, sink3, launch3)
  std::vector<int> rho3{4, 8};       ///< 3-D block sides (of 2, 4, 8)
  std::vector<std::string> maps3;    ///< 3-D map labels (MapSpec3::label()); empty: all
  std::vector<index_t> atm_n;        ///< particle counts of the atm group
  std::vector<int> atm_rho{8, 4};    ///< 3-D block sides of the atm group
  std::vector<index_t> nbody_n;      ///< bodies of the nbody group
  std::vector<int> nbody_rho{32, 16};  ///< block sides of the nbody group's triangle variants
  std::vector<int> nbody_k{0};       ///< blocks per team of those (0: the library's default)
  int nbody_iters = 0;               ///< timed iterations of an nbody case (0: by its size)
  std::vector<index_t> reduce_n;     ///< points of the pairlaw group's nearest / count / histogram cases
  std::vector<bool> nbody_energy{true, false};  ///< the nbody group's terms: with energy (true), accelerations alone
  int iterations = 20;               ///< timed launches per case
  bool check = true;                 ///< verify outputs after timing (errors counter)
  bool quick = false;
};

/// Parses a list "a,b,c" whose items may be ranges "first:last:step".
std::vector<index_t> parse_index_list(const std::string& flag, const std::string& text);
std::vector<int> parse_int_list(const std::string& flag, const std::string& text);
std::vector<std::string> parse_name_list(const std::string& text);

/// Parses the arguments Kokkos and Google Benchmark left; throws
/// std::invalid_argument naming the offending option. Sets the defaults of
/// the backend (GPU or host) and of --quick for every list not given.
Options parse_options(int argc, char** argv, bool& show_help);
std::string usage();

/// Adds the Kokkos configuration, device, versions and compiler to the
/// benchmark context (the "context" stanza of --benchmark_format=json).
void add_context();

/// Whether `label` is selected by --maps (all when the list is empty).
bool map_selected(const Options& o, const std::string& label);
/// Whether a 3-D map `label` is selected by --maps3 (bb3 always; all when empty).
bool map3_selected(const Options& o, const std::string& label);

/// Variant suffix of a team size: "" for the default (0), "_t<threads>" else.
inline std::string team_suffix(int threads) { return threads == 0 ? std::string() : "_t" + std::to_string(threads); }

/// Variant suffix of launch hints: team_suffix, then "_k<blocks per team>" unless the default (0).
inline std::string hints_suffix(const tdmaps::LaunchHints& h) {
  return team_suffix(h.team_threads) +
         (h.blocks_per_team == 0 ? std::string() : "_k" + std::to_string(h.blocks_per_team));
}

/// Every (--team-threads, --blocks-per-team) pair of the options.
inline std::vector<tdmaps::LaunchHints> hints_list(const Options& o) {
  std::vector<tdmaps::LaunchHints> all;
  for (const int t : o.team_threads)
    for (const int k : o.blocks_per_team) {
      tdmaps::LaunchHints h;
      h.team_threads = t;
      h.blocks_per_team = k;
      all.push_back(h);
    }
  return all;
}

inline std::string case_name(const std::string& test, const std::string& variant, const std::string& map, int rho,
                             index_t n) {
  return test + "/" + variant + "/" + map + "/r" + std::to_string(rho) + "/n" + std::to_string(n);
}

/// A benchmark::Benchmark set up the one way every case here is: manual time,
/// milliseconds, a fixed iteration count (one call of the case function, so
/// its setup runs once), the case's own timing counters.
template <class F>
benchmark::internal::Benchmark* register_case(const std::string& name, const Options& o, F&& f) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(f))
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(o.iterations);
}

/// Runs launch() once untimed, then once per benchmark iteration between two
/// fences under a Kokkos::Timer. Sets counters: ms_median, ms_min, and, from
/// the median, pairs_per_s and bytes_per_s (also as Google Benchmark rate
/// counters, pairs/s and bytes/s, from its mean). `unit` names the elements:
/// "pairs" (2-D) or "triplets" (3-D: triplets_per_s, triplets/s, triplets).
template <class Launch>
void time_launches(benchmark::State& state, double pairs, double bytes, Launch&& launch,
                   const std::string& unit = "pairs") {
  const ExecSpace space;
  launch();  // warm-up: module load, first-touch, caches of the launch path
  space.fence();
  std::vector<double> seconds;
  seconds.reserve(static_cast<std::size_t>(state.max_iterations));
  Kokkos::Timer timer;
  for (auto _ : state) {
    timer.reset();
    launch();
    space.fence();
    const double s = timer.seconds();
    state.SetIterationTime(s);
    seconds.push_back(s);
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds.empty() ? 0.0 : seconds[seconds.size() / 2];
  state.counters["ms_median"] = median * 1e3;
  state.counters["ms_min"] = seconds.empty() ? 0.0 : seconds.front() * 1e3;
  state.counters[unit + "_per_s"] = median > 0 ? pairs / median : 0.0;
  state.counters["bytes_per_s"] = median > 0 ? bytes / median : 0.0;
  state.counters[unit + "/s"] = benchmark::Counter(pairs, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes/s"] = benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters[unit] = pairs;
  state.counters["bytes"] = bytes;
}

/// Bytes the execution space's memory can still give (device: cudaMemGetInfo;
/// host: available physical memory).
std::size_t free_bytes();

/// True when buffers of `bytes` in all fit (with 5% headroom), counting what
/// the cache slots named in `reused` hold as free (they are replaced or
/// reused); otherwise marks the case skipped with a message naming both numbers.
bool fits_in_memory(benchmark::State& state, double bytes, const std::vector<std::string>& reused);

/// Named slots of device buffers: a request for the same type and extents as
/// the slot holds returns the same buffer, anything else frees the slot first
/// and allocates (without initialization). clear() before Kokkos::finalize.
class BufferCache {
 public:
  template <class View, class... Extents>
  View get(const std::string& slot, Extents... extents) {
    auto it = slots_.find(slot);
    std::vector<std::size_t> key{static_cast<std::size_t>(extents)...};
    if (it != slots_.end()) {
      if (it->second.type == std::type_index(typeid(View)) && it->second.extents == key)
        return *std::static_pointer_cast<View>(it->second.view);
      slots_.erase(it);  // free before the new allocation
    }
    auto v =
        std::make_shared<View>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::bench::" + slot), extents...);
    slots_[slot] = Slot{std::static_pointer_cast<void>(v), std::type_index(typeid(View)), key,
                        v->span() * sizeof(typename View::value_type)};
    return *v;
  }
  void clear() { slots_.clear(); }
  void release(const std::string& slot) { slots_.erase(slot); }
  /// Bytes held by a slot (0 when empty).
  std::size_t held_bytes(const std::string& slot) const {
    auto it = slots_.find(slot);
    return it == slots_.end() ? 0 : it->second.bytes;
  }

 private:
  struct Slot {
    std::shared_ptr<void> view;
    std::type_index type = std::type_index(typeid(void));
    std::vector<std::size_t> extents;
    std::size_t bytes = 0;
  };
  std::map<std::string, Slot> slots_;
};

BufferCache& buffers();

// ---- registration of each test group (one translation unit each) ----------
void register_map_benchmarks(const Options& o);        // dummy, sink, ceiling (bench_maps.cpp)
void register_launch_benchmarks(const Options& o);     // Kokkos launch variants (launch_variants.cpp)
void register_cuda_reference_benchmarks(const Options& o);  // plain CUDA (cuda_reference.cpp)
void register_edm_benchmarks(const Options& o);        // apps/edm (edm_benchmarks.cpp)
void register_collision_benchmarks(const Options& o);  // apps/collision (collision_benchmarks.cpp)
void register_bench3_benchmarks(const Options& o);     // dummy3, sink3, launch3 (bench3_benchmarks.cpp)
void register_atm_benchmarks(const Options& o);        // apps/triplets (atm_benchmarks.cpp)
void register_nbody_benchmarks(const Options& o);      // apps/nbody (nbody_benchmarks.cpp)
void register_pair_law_benchmarks(const Options& o);   // user laws beside apps/nbody (pair_law_benchmarks.cpp)

}  // namespace tdmaps_bench

#endif
