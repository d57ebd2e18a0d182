#ifndef TDMAPS_EDM_CLI_REDUCE_HPP
#define TDMAPS_EDM_CLI_REDUCE_HPP

// tdmaps-edm --reduce hist | nn | count: the reductions of
// tdmaps/edm/reduce.hpp over the pairs i < j, without the matrix. Part of the
// CLI (tdmaps_edm.cpp), not installed. With MPI ranks (common/ranks.hpp) each
// rank reduces its omega_range and one MPI reduction finishes the result.

#include <tdmaps/edm/reduce.hpp>
#include <tdmaps/tdmaps.hpp>

#include "common/cli.hpp"
#include "common/npy.hpp"
#include "common/progress.hpp"
#include "common/ranks.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tdmaps {
namespace edm_cli {

struct ReduceOptions {
  std::string what;  // hist, nn, count
  int bins = 64;
  double rmax = 0;    // hist
  double radius = 0;  // count
  std::string output;
  int repeat = 1;
  LaunchHints hints;  // --team-threads, --blocks-per-team
};

/// What one reduction run gives (host side).
struct ReduceResult {
  std::vector<std::int64_t> hist;
  std::vector<double> nn;  // (n, 2): index, distance
  index_t count = 0;
  double ms_mean = 0, ms_min = 0, ms_warmup = 0;
  double ms_combine = 0;  // the results of the ranks met (copies and all-reductions)
};

template <class ExecSpace, class Map, class Real>
ReduceResult run_reduce(const Map& map, const Kokkos::View<const Real**, Kokkos::LayoutRight,
                                                           typename ExecSpace::memory_space>& x,
                        const ReduceOptions& o, const app::Ranks& ranks, app::Progress& progress) {
  using mem = typename ExecSpace::memory_space;
  ExecSpace space;
  const index_t n = static_cast<index_t>(x.extent(0));
  ReduceResult res;
  OmegaRange range;
  if constexpr (tdmaps::is_block_space_map_v<Map> && !tdmaps::detail::has_multi_launch<Map>::value) {
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
  std::vector<std::uint64_t> key_host(o.what == "nn" ? static_cast<std::size_t>(n) : 0);
  std::vector<std::uint64_t> second_host(o.what == "nn" && std::is_same<Real, double>::value ? key_host.size() : 0);

  auto once = [&]() {
    if (o.what == "hist") {
      Kokkos::deep_copy(space, hist, std::int64_t(0));
      if constexpr (tdmaps::is_block_space_map_v<Map>) {
        if (range.end > range.begin || ranks.size() == 1) {
          if constexpr (!tdmaps::detail::has_multi_launch<Map>::value) edm::pair_histogram(space, x, map, range, o.rmax, hist, o.hints);
          else edm::pair_histogram(space, x, map, o.rmax, hist, o.hints);
        }
      }
      space.fence();
    } else if (o.what == "count") {
      if constexpr (tdmaps::is_block_space_map_v<Map> && !tdmaps::detail::has_multi_launch<Map>::value)
        res.count = edm::count_within(space, x, map, range, o.radius, o.hints);
      else
        res.count = edm::count_within(space, x, map, o.radius, o.hints);  // any map, utm included
    } else {
      Kokkos::deep_copy(space, keys, edm::nearest_init());
      if constexpr (tdmaps::is_block_space_map_v<Map>) {
        if constexpr (!tdmaps::detail::has_multi_launch<Map>::value) {
          edm::nearest_neighbour(space, x, map, range, keys, o.hints);
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
            edm::nearest_index_pass(space, x, map, range, keys, second, o.hints);
          }
        } else {
          // rb, rec, hadouken: one process, the whole triangle.
          Kokkos::View<index_t*, mem> idx("tdmaps::edm::nn_idx", static_cast<std::size_t>(n));
          Kokkos::View<double*, mem> dist("tdmaps::edm::nn_dist", static_cast<std::size_t>(n));
          edm::nearest_neighbour(space, x, map, idx, dist, o.hints);
          nn_direct = true;
          nn_idx = idx;
          nn_dist = dist;
        }
      }
      space.fence();
    }
  };
  progress.phase("reduce (warm-up run)", 1, app::Progress::Unit::runs);
  app::Timer warm;
  once();
  res.ms_warmup = 1e3 * warm.seconds();
  progress.phase("reduce", o.repeat, app::Progress::Unit::runs, res.ms_warmup * 1e-3);
  double sum = 0, best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < o.repeat; ++k) {
    ranks.barrier();
    app::Timer t;
    once();
    ranks.barrier();  // the time of the slowest rank
    const double s = t.seconds();
    sum += s;
    best = std::min(best, s);
    progress.advance(k + 1);
  }
  progress.done();
  res.ms_mean = 1e3 * sum / o.repeat;
  res.ms_min = 1e3 * best;

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
  res.ms_combine = 1e3 * combine.seconds();
  return res;
}

}  // namespace edm_cli
}  // namespace tdmaps

#endif
