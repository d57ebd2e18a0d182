#ifndef TDMAPS_EDM_CLI_REDUCE_HPP
#define TDMAPS_EDM_CLI_REDUCE_HPP

// tdmaps-edm --reduce hist | nn | knn | count: the reductions of
// tdmaps/edm/reduce.hpp (knn: edm/knn.hpp) over the pairs i < j, without the
// matrix. With MPI
// ranks (common/ranks.hpp) each rank reduces its part (the _part forms: its
// omega_range, or its part of the GPU walk's league) and one MPI reduction
// finishes the result. Included by cli_reduce_fp32.cpp and
// cli_reduce_fp64.cpp only, which instantiate it for one precision each
// (every reduction on every map). Part of the CLI, not installed.

#include "cli_common.hpp"
#include "common/cli.hpp"
#include "common/kokkos_run.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"
#include "common/progress.hpp"
#include "common/ranks.hpp"

#include <tdmaps/edm/knn.hpp>
#include <tdmaps/edm/reduce.hpp>
#include <tdmaps/tdmaps.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace tdmaps {
namespace edm_cli {
namespace {

/// One reduction on one map: the warm-up, the timed runs, the ranks' results met.
template <class ExecSpace, class Map, class Real>
ReduceResult reduce_on(const Map& map, const Kokkos::View<const Real**, Kokkos::LayoutRight,
                                                           typename ExecSpace::memory_space>& x,
                        const ReduceOptions& o, const app::RunOptions& run, const app::Ranks& ranks,
                        app::Progress& progress) {
  using mem = typename ExecSpace::memory_space;
  ExecSpace space;
  const index_t n = static_cast<index_t>(x.extent(0));
  ReduceResult res;
  OmegaRange range;
  if constexpr (tdmaps::is_block_space_map_v<Map> && !tdmaps::is_multi_launch_map_v<Map>) {
    range = omega_range(map, ranks.rank(), ranks.size());
  } else {
    if (ranks.size() > 1)
      throw app::UsageError(std::string("--map ") + Map::name +
                            ": MPI ranks split the pairs into omega ranges of one launch, which --map lambda, bb and "
                            "rb have (rec and hadouken launch several times, utm has no blocks)");
  }
  ranks.agree();  // every check passed on every rank; no work before
  Kokkos::View<std::int64_t*, mem> hist;
  Kokkos::View<edm::NearestKey*, mem> keys, second;
  if (o.what == "hist") hist = Kokkos::View<std::int64_t*, mem>("tdmaps::edm::hist", static_cast<std::size_t>(o.bins));
  if (o.what == "nn") {
    keys = Kokkos::View<edm::NearestKey*, mem>("tdmaps::edm::nn", static_cast<std::size_t>(n));
    if (std::is_same<Real, double>::value)
      second = Kokkos::View<edm::NearestKey*, mem>("tdmaps::edm::nn_index", static_cast<std::size_t>(n));
  }
  bool nn_direct = false;  // decoded by edm::nearest_neighbour itself (multi-launch maps)
  Kokkos::View<index_t*, mem> nn_idx;
  Kokkos::View<double*, mem> nn_dist;
  Kokkos::View<index_t**, Kokkos::LayoutRight, mem> knn_idx;
  Kokkos::View<double**, Kokkos::LayoutRight, mem> knn_dist;
  if (o.what == "knn") {
    knn_idx = Kokkos::View<index_t**, Kokkos::LayoutRight, mem>("tdmaps::edm::knn_idx", static_cast<std::size_t>(n),
                                                                 static_cast<std::size_t>(o.k));
    knn_dist = Kokkos::View<double**, Kokkos::LayoutRight, mem>("tdmaps::edm::knn_dist", static_cast<std::size_t>(n),
                                                                 static_cast<std::size_t>(o.k));
  }
  // knn over MPI ranks: each rank's omega range, the rows merged between the passes.
  const bool knn_ranks = o.what == "knn" && ranks.size() > 1;
  Kokkos::View<edm::NearestKey**, Kokkos::LayoutRight, mem> knn_keys, knn_second;
  std::vector<std::uint64_t> knn_host;
  if (knn_ranks) {
    knn_keys = decltype(knn_keys)("tdmaps::edm::knn_keys", static_cast<std::size_t>(n), static_cast<std::size_t>(o.k));
    if (std::is_same<Real, double>::value)
      knn_second = decltype(knn_keys)("tdmaps::edm::knn_index", static_cast<std::size_t>(n), static_cast<std::size_t>(o.k));
    knn_host.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(o.k));
  }
  // A knn row merged over every rank (Ranks::min_k_u64), through host memory.
  const auto merge_rows = [&](const Kokkos::View<edm::NearestKey**, Kokkos::LayoutRight, mem>& rows) {
    const Kokkos::View<std::uint64_t**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(
        knn_host.data(), rows.extent(0), rows.extent(1));
    space.fence();
    Kokkos::deep_copy(h, rows);
    ranks.min_k_u64(knn_host.data(), n, o.k);
    Kokkos::deep_copy(rows, h);
  };
  (void)merge_rows;  // not taken by the multi-launch maps
  std::vector<std::uint64_t> key_host(o.what == "nn" ? static_cast<std::size_t>(n) : 0);
  std::vector<std::uint64_t> second_host(o.what == "nn" && std::is_same<Real, double>::value ? key_host.size() : 0);

  auto once = [&]() {
    if (o.what == "hist") {
      Kokkos::deep_copy(space, hist, std::int64_t(0));
      if constexpr (tdmaps::is_block_space_map_v<Map>) {
        // Each rank its part (the GPU walk's league split, or its omega range; an empty part adds nothing).
        if constexpr (!tdmaps::is_multi_launch_map_v<Map>)
          edm::pair_histogram_part(space, x, map, ranks.rank(), ranks.size(), o.rmax, hist, run.hints);
        else
          edm::pair_histogram(space, x, map, o.rmax, hist, run.hints);
      }
      space.fence();
    } else if (o.what == "knn") {
      if constexpr (tdmaps::is_block_space_map_v<Map> && !tdmaps::is_multi_launch_map_v<Map>) {
        if (knn_ranks) {
          Kokkos::deep_copy(space, knn_keys, edm::nearest_init());
          edm::k_nearest_keys(space, x, map, range, knn_keys);
          merge_rows(knn_keys);
          if constexpr (std::is_same<Real, double>::value) {
            Kokkos::deep_copy(space, knn_second, edm::nearest_init());
            edm::k_nearest_index_pass(space, x, map, range, knn_keys, knn_second);
            merge_rows(knn_second);
          }
          edm::k_nearest_decode<Real>(space, knn_keys, knn_second, knn_idx, knn_dist);
        }
      }
      if constexpr (tdmaps::is_block_space_map_v<Map>)
        if (!knn_ranks) edm::k_nearest_neighbours(space, x, map, knn_idx, knn_dist);
      space.fence();
    } else if (o.what == "count") {
      if constexpr (tdmaps::is_block_space_map_v<Map> && !tdmaps::is_multi_launch_map_v<Map>)
        res.count = edm::count_within_part(space, x, map, ranks.rank(), ranks.size(), o.radius, run.hints);
      else
        res.count = edm::count_within(space, x, map, o.radius, run.hints);  // any map, utm included
    } else {
      Kokkos::deep_copy(space, keys, edm::nearest_init());
      if constexpr (tdmaps::is_block_space_map_v<Map>) {
        if constexpr (!tdmaps::is_multi_launch_map_v<Map>) {
          if constexpr (std::is_same<Real, float>::value)
            edm::nearest_neighbour_part(space, x, map, ranks.rank(), ranks.size(), keys, run.hints);
          else
            edm::nearest_neighbour(space, x, map, range, keys, run.hints);
          if constexpr (std::is_same<Real, double>::value) {
            // The second pass needs every rank's first: the smallest key of each row over all ranks.
            space.fence();
            Kokkos::deep_copy(Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                  key_host.data(), key_host.size()),
                              keys);
            ranks.min_u64(key_host.data(), static_cast<std::int64_t>(key_host.size()));
            Kokkos::deep_copy(keys, Kokkos::View<const std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                        key_host.data(), key_host.size()));
            Kokkos::deep_copy(space, second, edm::nearest_init());
            edm::nearest_index_pass(space, x, map, range, keys, second, run.hints);
          }
        } else {
          // rb, rec, hadouken: one process, the whole triangle.
          Kokkos::View<index_t*, mem> idx("tdmaps::edm::nn_idx", static_cast<std::size_t>(n));
          Kokkos::View<double*, mem> dist("tdmaps::edm::nn_dist", static_cast<std::size_t>(n));
          edm::nearest_neighbour(space, x, map, idx, dist, run.hints);
          nn_direct = true;
          nn_idx = idx;
          nn_dist = dist;
        }
      }
      space.fence();
    }
  };
  res.times = app::timed_runs("reduce", run.repeat, true, ranks, progress, once);

  // Finish: one MPI reduction (a no-op with one rank), results on every rank.
  app::Timer combine;
  if (o.what == "hist") {
    res.hist.resize(static_cast<std::size_t>(o.bins));
    Kokkos::deep_copy(Kokkos::View<std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(res.hist.data(),
                                                                                              res.hist.size()),
                      hist);
    ranks.sum_i64(res.hist.data(), static_cast<std::int64_t>(res.hist.size()));
  } else if (o.what == "count") {
    ranks.sum_i64(&res.count, 1);
  } else if (o.what == "knn") {
    const auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), knn_idx);
    const auto hd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), knn_dist);
    const std::size_t k = static_cast<std::size_t>(o.k);
    res.knn.resize(2 * k * static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i)
      for (std::size_t c = 0; c < k; ++c) {
        res.knn[2 * (i * k + c)] = static_cast<double>(hi(i, c));
        res.knn[2 * (i * k + c) + 1] = hd(i, c);
      }
  } else if (nn_direct) {
    auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nn_idx);
    auto hd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nn_dist);
    res.nn.resize(static_cast<std::size_t>(2 * n));
    for (index_t i = 0; i < n; ++i) {
      res.nn[std::size_t(2 * i)] = static_cast<double>(hi(i));
      res.nn[std::size_t(2 * i + 1)] = hd(i);
    }
  } else {
    Kokkos::deep_copy(
        Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(key_host.data(), key_host.size()), keys);
    ranks.min_u64(key_host.data(), static_cast<std::int64_t>(key_host.size()));
    if constexpr (std::is_same<Real, double>::value) {
      Kokkos::deep_copy(Kokkos::View<std::uint64_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(second_host.data(),
                                                                                               second_host.size()),
                        second);
      ranks.min_u64(second_host.data(), static_cast<std::int64_t>(second_host.size()));
    }
    res.nn.resize(static_cast<std::size_t>(2 * n));
    for (std::size_t i = 0; i < key_host.size(); ++i) {
      const std::uint64_t k = key_host[i];
      double idx = -1, dist = std::numeric_limits<double>::infinity();
      if (k != edm::nearest_init()) {
        if constexpr (std::is_same<Real, float>::value) {
          idx = static_cast<double>(k & 0xffffffffull);
          dist = static_cast<double>(std::sqrt(tdmaps::from_ordered_bits(static_cast<std::uint32_t>(k >> 32))));
        } else {
          idx = static_cast<double>(second_host[i]);
          dist = std::sqrt(tdmaps::from_ordered_bits(k));
        }
      }
      res.nn[2 * i] = idx;
      res.nn[2 * i + 1] = dist;
    }
  }
  res.times.ms_combine = 1e3 * combine.seconds();
  return res;
}

}  // namespace

template <class Real>
int run_reduce_mode(Run<Real>& run) {
  const Options& o = run.o;
  const app::Ranks& ranks = run.ranks;
  const index_t n = run.n, d = run.d;
  const std::string& source = run.source;
  const auto& r = o.reduce;
  const index_t in_bytes = mul_sat(mul_sat(n, d), static_cast<index_t>(sizeof(Real)));
  // knn: the result (index and distance, 8 bytes each) and the walk's keys (two passes for fp64).
  const index_t result_bytes = r.what == "nn"    ? mul_sat(n, 32)
                               : r.what == "knn" ? mul_sat(mul_sat(n, index_t(r.k)), 32)
                               : r.what == "hist" ? 8 * index_t(r.bins)
                                                  : 8;
  const index_t host_need = add_sat(mul_sat(in_bytes, 2), result_bytes);
  if (host_need > app::host_available_bytes())
    throw app::Error(source + ": the points and the result need " + bytes_text(host_need) + " of host memory but only " +
                     app::format_bytes(app::host_available_bytes()) + " is available");
  if (r.what == "nn" && n < 2) throw app::Error(source + ": --reduce nn needs at least 2 points (n = 1 has no other point)");
  if (r.what == "knn" && n <= r.k)
    throw app::Error(source + ": --reduce knn --k " + std::to_string(r.k) + " needs at least " +
                     std::to_string(r.k + 1) + " points (n = " + std::to_string(n) + ")");
  if (!r.output.empty()) app::check_filesystem_space(r.output, add_sat(result_bytes, 128), "the --reduce output");

  const app::KokkosScope kokkos(run.argv0, run.kokkos_options);
  app::Progress progress(o.run.quiet || o.run.json || !ranks.root());
  if (!std::is_same<MemSpace, Kokkos::HostSpace>::value) {
    const index_t device_need = add_sat(in_bytes, result_bytes);
    if (device_need > app::free_memory_bytes<MemSpace>())
      throw app::Error("the points and the result need " + bytes_text(device_need) + " of " + MemSpace::name() +
                       " memory but only " + app::format_bytes(app::free_memory_bytes<MemSpace>()) + " is free");
  }
  auto x = load_points<Real>(o, n, d, run.pts, source);
  Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace> cx = x;
  const tdmaps::Domain2 domain(n, o.block, tdmaps::Triangle::strict_lower);
  ReduceResult res;
  tdmaps::with_map(
      o.map, domain, [&](auto map) { res = reduce_on<ExecSpace>(map, cx, r, o.run, ranks, progress); },
      r.what != "count");

  const index_t pairs = n * (n - 1) / 2;
  if (ranks.root() && !r.output.empty()) {
    app::Timer write_timer;
    if (r.what == "hist") app::write_npy(r.output, res.hist.data(), {static_cast<std::int64_t>(r.bins)});
    else if (r.what == "nn") app::write_npy(r.output, res.nn.data(), {n, 2});
    else if (r.what == "knn") app::write_npy(r.output, res.knn.data(), {n, static_cast<std::int64_t>(r.k), 2});
    res.times.ms_write = 1e3 * write_timer.seconds();
  }
  if (!ranks.root()) return 0;
  const app::Timing& t = res.times;
  const double rate = t.ms_min > 0 ? static_cast<double>(pairs) / (t.ms_min * 1e-3) : 0.0;
  if (o.run.json) {
    // No matrix kernel: the reductions pick their own.
    const app::RunShape shape{n, d, run.precision, "", pairs};
    nlohmann::json j =
        app::report_json(report_header(o, ranks, shape, t, 1e3 * run.total_timer.seconds(), r.output));
    j["mode"] = "reduce";
    j["reduce"] = r.what;
    j["ms_combine"] = t.ms_combine;
    if (r.what == "hist") {
      j["bins"] = r.bins;
      j["rmax"] = r.rmax;
      index_t in = 0;
      for (auto c : res.hist) in += c;
      j["counted"] = in;
    }
    if (r.what == "knn") j["k"] = r.k;
    if (r.what == "count") {
      j["radius"] = r.radius;
      j["count"] = res.count;
    }
    app::print_json_line(j);
  } else {
    std::printf("tdmaps-edm: --reduce %s, n = %lld, d = %lld, %s, map %s (block %d), %s, %d rank(s)\n", r.what.c_str(),
                static_cast<long long>(n), static_cast<long long>(d), run.precision.c_str(), o.map.label().c_str(), o.block,
                ExecSpace::name(), ranks.size());
    if (r.what == "count")
      std::printf("  count   %lld of %lld pairs closer than %s\n", static_cast<long long>(res.count),
                  static_cast<long long>(pairs), app::number_text(r.radius).c_str());
    std::printf("  compute %.3f ms mean, %.3f ms best over %d repetition(s); %.3g pairs/s\n", t.ms_mean, t.ms_min,
                t.runs, rate);
    if (!r.output.empty()) std::printf("  output  %s\n", r.output.c_str());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace edm_cli
}  // namespace tdmaps

#endif
