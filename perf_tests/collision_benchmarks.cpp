// Collision benchmarks ("collision/<dims>d_<result>_<kernel>/<map>/r<rho>/n<n>"):
// tdmaps::collision::collide on n random spheres (3-D) or intervals (1-D) of
// the "dense" preset (the papers' regime), for every result (count, flags,
// rowflags, tileflags, pairs, intflags) and kernel (tile, element), under the maps of
// app_maps.hpp. The time is the whole collide() call as a user sees it
// (input check, zeroing, the kernel(s), the reduction; for pairs both passes
// and the sort). The count of colliding pairs must agree between all cases of
// the same dims and n in a run ("errors" counts disagreements).
#include "app_maps.hpp"
#include "bench_common.hpp"

#include <tdmaps/collision.hpp>

#include <map>

namespace tdmaps_bench {

namespace {

namespace col = tdmaps::collision;

/// First count seen per (dims, n) in this run: every later case must match it.
std::map<std::pair<int, index_t>, index_t>& reference_counts() {
  static std::map<std::pair<int, index_t>, index_t> counts;
  return counts;
}

double result_bytes(col::Result r, index_t n, index_t hits) {
  const double pairs = static_cast<double>(col::pair_count(n));
  switch (r) {
    case col::Result::count: return 0.0;
    case col::Result::flags: return pairs / 8.0;
    case col::Result::rowflags: return 4.0 * static_cast<double>(col::row_flag_words(n));
    case col::Result::tileflags: return 4.0 * static_cast<double>(col::tile_flag_words(n));
    case col::Result::intflags: return 4.0 * pairs;
    case col::Result::pairs: return 16.0 * static_cast<double>(hits);
  }
  return 0.0;
}

template <class Map>
void run_collision(benchmark::State& state, const Options& o, const Map& map, int dims, col::Result result,
                   col::Kernel kernel, const tdmaps::LaunchHints& hints) {
  const index_t n = map.domain.n;
  const double need = 16.0 * static_cast<double>(n) +
                      (result == col::Result::intflags ? 4.0 * static_cast<double>(col::pair_count(n))
                       : result == col::Result::flags  ? 4.0 * static_cast<double>(col::flag_words(n))
                       : result == col::Result::rowflags ? 4.0 * static_cast<double>(col::row_flag_words(n))
                       : result == col::Result::tileflags ? 4.0 * static_cast<double>(col::tile_flag_words(n))
                       : result == col::Result::pairs  ? 0.1 * 24.0 * static_cast<double>(col::pair_count(n))
                                                       : 0.0);
  if (!fits_in_memory(state, need, {"spheres", "flags", "rowflags", "tileflags", "intflags"})) return;
  const ExecSpace space;
  // Spheres: cached per (dims, n) in the "spheres" slot (the same data for every map).
  auto spheres = buffers().get<col::Spheres<MemSpace>>("spheres", static_cast<std::size_t>(n));
  {
    const auto host = col::random_spheres_host(n, dims, col::default_radii(dims, col::Density::dense), 20261122u);
    Kokkos::View<const float* [4], Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(host.data(), n);
    Kokkos::deep_copy(spheres, h);
  }
  col::Output<MemSpace> out;  // its counters are allocated by the warm-up call and reused by the timed ones
  if (result == col::Result::flags) out.flags = buffers().get<Kokkos::View<std::uint32_t*, MemSpace>>("flags", col::flag_words(n));
  if (result == col::Result::rowflags)
    out.rowflags = buffers().get<Kokkos::View<std::uint32_t*, MemSpace>>("rowflags", col::row_flag_words(n));
  if (result == col::Result::tileflags)
    out.tileflags = buffers().get<Kokkos::View<std::uint32_t*, MemSpace>>("tileflags", col::tile_flag_words(n));
  if (result == col::Result::intflags)
    out.intflags = buffers().get<Kokkos::View<std::int32_t*, MemSpace>>("intflags", col::pair_count(n));
  index_t hits = 0;
  const col::ConstSpheres<MemSpace> s = spheres;
  time_launches(state, static_cast<double>(col::pair_count(n)), 0.0,
                [&] { hits = col::collide(space, s, map, result, kernel, out, hints); });
  out.pairs = col::PairList<MemSpace>();  // free the list before the next case
  const double bytes = result_bytes(result, n, hits);
  state.counters["bytes"] = bytes;
  state.counters["bytes_per_s"] = state.counters["ms_median"] > 0 ? bytes / (state.counters["ms_median"] * 1e-3) : 0.0;
  state.counters["hits"] = static_cast<double>(hits);
  if (o.check) {
    auto& ref = reference_counts();
    const auto key = std::make_pair(dims, n);
    if (ref.find(key) == ref.end()) ref[key] = hits;
    state.counters["errors"] = ref[key] == hits ? 0.0 : 1.0;
  }
}

col::Result parse_result(const std::string& s) {
  if (s == "count") return col::Result::count;
  if (s == "flags") return col::Result::flags;
  if (s == "pairs") return col::Result::pairs;
  if (s == "intflags") return col::Result::intflags;
  if (s == "rowflags") return col::Result::rowflags;
  if (s == "tileflags") return col::Result::tileflags;
  throw std::invalid_argument("unknown collision result '" + s + "'");
}

}  // namespace

void register_collision_benchmarks(const Options& o) {
  for (const int dims : o.collision_dims)
    for (const std::string& r : o.collision_results)
      for (const std::string& kname : o.collision_kernels)
        for (const tdmaps::LaunchHints& hints : hints_list(o))
          for (const int rho : o.collision_rho)
            for (const index_t n : o.collision_n)
              for (const auto& label : app_map_labels()) {
                if (!map_selected(o, label)) continue;
                const col::Kernel kernel = kname == "tile"     ? col::Kernel::tile
                                           : kname == "linear" ? col::Kernel::linear
                                                               : col::Kernel::element;
                // The linear kernel walks the pairs in packed order and uses no map's blocks:
                // one case, under lambda_rsqrt's label.
                if (kernel == col::Kernel::linear && label != "lambda_rsqrt") continue;
                if (kernel == col::Kernel::tile && is_thread_space_label(label)) continue;
                if (hints.team_threads != 0 && hints.team_threads < rho) continue;  // less than one row of the block
                const col::Result result = parse_result(r);
                const std::string variant = std::to_string(dims) + "d_" + r + "_" + col::name(kernel) + hints_suffix(hints);
                register_case(case_name("collision", variant, label, rho, n), o,
                              [&o, label, dims, result, kernel, rho, n, hints](benchmark::State& state) {
                                with_app_map(label, tdmaps::Domain2(n, rho, tdmaps::Triangle::strict_lower),
                                             [&](const auto& map) {
                                               run_collision(state, o, map, dims, result, kernel, hints);
                                             });
                              });
              }
}

}  // namespace tdmaps_bench
