#ifndef TDMAPS_LAUNCH_DETAIL_PAIR_REDUCE_LAW_LAUNCH_HPP
#define TDMAPS_LAUNCH_DETAIL_PAIR_REDUCE_LAW_LAUNCH_HPP

// Not API (tdmaps::detail): the launches of reduce_pair_law and
// histogram_pair_law (launch/pair_reduce_law.hpp; the walks are
// launch/detail/pair_reduce_law_functor.hpp's): walkers per launch, the
// partials of a reduce law folded on the host in order, a histogram's bins
// in team scratch or (past a team's scratch) an atomic per pair.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/lanes.hpp>
#include <tdmaps/launch/detail/pair_reduce_law_functor.hpp>
#include <tdmaps/launch/detail/warp_walk.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/pair_law.hpp>
#include <tdmaps/launch/team_policy.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace detail {

/// Warps per team of a GPU histogram walk (they share the team's bins).
constexpr int bin_walk_warps = 4;

/// Blocks per walker: the hint, or enough walkers (of `lanes` lanes) to fill
/// the device `waves` times over; at most `most`.
inline index_t law_blocks_per_walker(const LaunchHints& hints, index_t blocks, int concurrency, int lanes, int waves,
                                     index_t most) {
  index_t k = hints.blocks_per_team;
  if (k <= 0) {
    const index_t walkers = std::max<index_t>(1, index_t(concurrency / lanes) * waves);
    k = std::max<index_t>(1, (blocks + walkers - 1) / walkers);
  }
  return std::max<index_t>(1, std::min<index_t>(k, most));
}

/// Runs walk f (members offset, count, per_team, first_slot) over omegas
/// [begin, end) in Kokkos launches of TeamPolicy(teams, walkers_per_team,
/// lanes) with `scratch` bytes per team; returns the walkers used (slots).
template <class Policy, class ExecSpace, class F>
index_t law_reduce_launches(const ExecSpace& space, F& f, index_t begin, index_t end, index_t per_walker,
                            int walkers_per_team, int lanes, std::size_t scratch, const std::string& label) {
  f.per_team = static_cast<int>(per_walker);
  const index_t per_team_blocks = per_walker * walkers_per_team;
  // At most 2^30 teams a launch (a CUDA grid's int).
  const index_t most =
      per_team_blocks < (index_t(1) << 32) ? (index_t(1) << 30) * per_team_blocks : std::numeric_limits<index_t>::max();
  index_t slots = 0;
  for (index_t at = begin; at<end; at = end - at> most ? at + most : end) {
    f.offset = at;
    f.count = std::min(most, end - at);
    f.first_slot = slots;
    const index_t teams = (f.count + per_team_blocks - 1) / per_team_blocks;
    Policy policy(space, static_cast<int>(teams), walkers_per_team, lanes);
    backend::check_vector_length(policy, lanes, label.c_str());
    if (scratch > 0) policy.set_scratch_size(0, Kokkos::PerTeam(scratch + tile_scratch_alignment));
    Kokkos::parallel_for(label, policy, f);
    slots += teams * walkers_per_team;
  }
  return slots;
}

/// The walkers a launch of omegas [begin, end) will use (the partials' size).
inline index_t law_walkers(index_t begin, index_t end, index_t per_walker, int walkers_per_team) {
  const index_t per_team_blocks = per_walker * walkers_per_team;
  const index_t teams = end > begin ? (end - begin + per_team_blocks - 1) / per_team_blocks : 0;
  return teams * walkers_per_team;
}

/// The law's partials (one value per walker) folded on the host in order.
template <class ExecSpace, class Law, class Partials>
void fold_partials(const ExecSpace& space, const Law& law, const Partials& partial, typename Law::value_type& total) {
  if (partial.extent(0) == 0) return;
  auto h = Kokkos::create_mirror_view(Kokkos::HostSpace(), partial);
  Kokkos::deep_copy(space, h, partial);
  space.fence();
  for (std::size_t s = 0; s < h.extent(0); ++s) law_join(law, total, h(s));
}

/// The lane walk of a reduce law over omegas [begin, end) of launch l of the
/// side-block map `macro`, its partials joined into total.
template <int W, int R, class ExecSpace, class Map, class Law>
void reduce_law_lanes(const ExecSpace& space, const Map& macro, int l, index_t begin, index_t end, index_t n,
                      bool with_diagonal, const Law& law, typename Law::value_type& total, const LaunchHints& hints,
                      const std::string& label) {
  if (end <= begin) return;
  using Partials = Kokkos::View<typename Law::value_type*, typename ExecSpace::memory_space>;
  using F = PairReduceLaneWalk<W, R, Map, Law, SumSink<Law, Partials>>;
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<W, 16>, Kokkos::IndexType<int>>;
  const index_t per =
      law_blocks_per_walker(hints, end - begin, space.concurrency(), W, 4, std::numeric_limits<int>::max());
  F f;
  f.map = macro;
  f.launch = l;
  f.n = n;
  f.with_diagonal = with_diagonal;
  f.law = law;
  f.sink.partial = Partials(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::reduce_pair_law::partials"),
                            static_cast<std::size_t>(law_walkers(begin, end, per, 1)));
  law_reduce_launches<Policy>(space, f, begin, end, per, 1, W, 0, label);
  fold_partials(space, law, f.sink.partial, total);
}

/// The host walk of a reduce law over omegas [begin, end) of launch l of the caller's map.
template <class ExecSpace, class Map, class Law>
void reduce_law_host(const ExecSpace& space, const Map& map, int l, index_t begin, index_t end, bool with_diagonal,
                     const Law& law, typename Law::value_type& total, const LaunchHints& hints,
                     const std::string& label) {
  if (end <= begin) return;
  using Partials = Kokkos::View<typename Law::value_type*, typename ExecSpace::memory_space>;
  using F = PairReduceHostWalk<Map, Law, SumSink<Law, Partials>>;
  const index_t per =
      law_blocks_per_walker(hints, end - begin, space.concurrency(), 1, 16, std::numeric_limits<int>::max());
  F f;
  f.map = map;
  f.launch = l;
  f.with_diagonal = with_diagonal;
  f.law = law;
  f.sink.partial = Partials(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::reduce_pair_law::partials"),
                            static_cast<std::size_t>(law_walkers(begin, end, per, 1)));
  law_reduce_launches<team_policy_t<ExecSpace>>(space, f, begin, end, per, 1, 1, 0, label);
  fold_partials(space, law, f.sink.partial, total);
}

/// reduce_pair_law over part `part` of `parts` (the top of this file).
template <class ExecSpace, class Map, class Law>
typename Law::value_type reduce_law_run(const ExecSpace& space, const Map& map, index_t part, index_t parts,
                                        const Law& law, PairDiagonal diagonal, const std::string& label,
                                        const LaunchHints& hints) {
  const bool with_diagonal = diagonal == PairDiagonal::include && map.domain.triangle == Triangle::lower;
  typename Law::value_type total = law_identity(law);
  constexpr int W = intrinsics::lane_width<ExecSpace>::value;
  if constexpr (W > 1) {
    constexpr int R = law_rows<Law>::value;
    const Map macro = warp_walk_map(map, W * R);
    each_part_range(macro, part, parts, [&](int l, index_t begin, index_t end) {
      reduce_law_lanes<W, R>(space, macro, l, begin, end, map.domain.n, with_diagonal, law, total, hints, label);
    });
  } else {
    each_part_range(map, part, parts, [&](int l, index_t begin, index_t end) {
      reduce_law_host(space, map, l, begin, end, with_diagonal, law, total, hints, label);
    });
  }
  return total;
}

/// The lane walk of a histogram law (T walkers a team, bins as Mode counts
/// them: BinSink) over omegas [begin, end) of launch l of the side-block map `macro`.
template <int W, int R, int T, BinMode Mode, class ExecSpace, class Map, class Law, class Counts>
void bin_law_lanes(const ExecSpace& space, const Map& macro, int l, index_t begin, index_t end, index_t n,
                   bool with_diagonal, const Law& law, const Counts& counts, const LaunchHints& hints,
                   const std::string& label) {
  if (end <= begin) return;
  using Sink = BinSink<Counts, Mode, W, T>;
  using F = PairReduceLaneWalk<W, R, Map, Law, Sink>;
  using Policy =
      Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<W * T, (16 / T > 0 ? 16 / T : 1)>, Kokkos::IndexType<int>>;
  const int bins = static_cast<int>(counts.extent(0));
  const index_t side = index_t(W) * R;
  // A team's uint32 bins take at most 2^32 - 1 pairs.
  const index_t most =
      Mode == BinMode::global ? std::numeric_limits<int>::max() : index_t(0xffffffffu) / (side * side * T);
  const index_t per = law_blocks_per_walker(hints, end - begin, space.concurrency(), W, 2, most);
  F f;
  f.map = macro;
  f.launch = l;
  f.n = n;
  f.with_diagonal = with_diagonal;
  f.law = law;
  f.sink.counts = counts;
  f.sink.bins = bins;
  law_reduce_launches<Policy>(space, f, begin, end, per, T, W, Sink::scratch_bytes(bins), label);
}

/// The host walk of a histogram law over omegas [begin, end) of launch l of the caller's map.
template <BinMode Mode, class ExecSpace, class Map, class Law, class Counts>
void bin_law_host(const ExecSpace& space, const Map& map, int l, index_t begin, index_t end, bool with_diagonal,
                  const Law& law, const Counts& counts, const LaunchHints& hints, const std::string& label) {
  if (end <= begin) return;
  using Sink = BinSink<Counts, Mode>;
  using F = PairReduceHostWalk<Map, Law, Sink>;
  const int bins = static_cast<int>(counts.extent(0));
  const index_t rho = map.domain.rho;
  const index_t most = Mode == BinMode::global ? std::numeric_limits<int>::max() : index_t(0xffffffffu) / (rho * rho);
  const index_t per = law_blocks_per_walker(hints, end - begin, space.concurrency(), 1, 4, most);
  F f;
  f.map = map;
  f.launch = l;
  f.with_diagonal = with_diagonal;
  f.law = law;
  f.sink.counts = counts;
  f.sink.bins = bins;
  law_reduce_launches<team_policy_t<ExecSpace>>(space, f, begin, end, per, 1, 1, Sink::scratch_bytes(bins), label);
}

/// histogram_pair_law over part `part` of `parts` (the top of this file):
/// GPU backends count in the team's bins (bin_walk_warps warps a team,
/// shared-memory atomics) where they fit a team's scratch, else by atomics
/// into counts; host backends (a team of one thread) in the team's own bins
/// with plain increments (BinMode::lanes of one lane), else by atomics. On
/// GPUs BinMode::lanes (a column of bins per lane, no atomic) measured
/// slower than the team's bins (perf_tests/README.md): it stays for host
/// teams and for the tests.
template <class ExecSpace, class Map, class Law, class Counts>
void bin_law_run(const ExecSpace& space, const Map& map, index_t part, index_t parts, const Law& law,
                 const Counts& counts, PairDiagonal diagonal, const std::string& label, const LaunchHints& hints) {
  const bool with_diagonal = diagonal == PairDiagonal::include && map.domain.triangle == Triangle::lower;
  const std::size_t max_scratch = static_cast<std::size_t>(team_policy_t<ExecSpace>::scratch_size_max(0));
  const int bins = static_cast<int>(counts.extent(0));
  const auto fits = [&](std::size_t bytes, std::size_t most) { return bytes + tile_scratch_alignment <= most; };
  constexpr int W = intrinsics::lane_width<ExecSpace>::value;
  if constexpr (W > 1) {
    constexpr int R = law_rows<Law>::value;
    const Map macro = warp_walk_map(map, W * R);
    const auto run = [&](auto mode, auto warps) {
      constexpr BinMode Mode = decltype(mode)::value;
      constexpr int T = decltype(warps)::value;
      each_part_range(macro, part, parts, [&](int l, index_t begin, index_t end) {
        bin_law_lanes<W, R, T, Mode>(space, macro, l, begin, end, map.domain.n, with_diagonal, law, counts, hints,
                                     label);
      });
    };
    using shared = std::integral_constant<BinMode, BinMode::shared>;
    using global = std::integral_constant<BinMode, BinMode::global>;
    using team = std::integral_constant<int, bin_walk_warps>;
    if (fits(BinSink<Counts, BinMode::shared>::scratch_bytes(bins), max_scratch))
      run(shared(), team());
    else
      run(global(), team());
  } else {
    const auto run = [&](auto mode) {
      constexpr BinMode Mode = decltype(mode)::value;
      each_part_range(map, part, parts, [&](int l, index_t begin, index_t end) {
        bin_law_host<Mode>(space, map, l, begin, end, with_diagonal, law, counts, hints, label);
      });
    };
    if (fits(BinSink<Counts, BinMode::lanes>::scratch_bytes(bins), max_scratch))
      run(std::integral_constant<BinMode, BinMode::lanes>());
    else
      run(std::integral_constant<BinMode, BinMode::global>());
  }
}

}  // namespace detail
}  // namespace tdmaps

#endif
