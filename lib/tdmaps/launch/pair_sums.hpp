#ifndef TDMAPS_LAUNCH_PAIR_SUMS_HPP
#define TDMAPS_LAUNCH_PAIR_SUMS_HPP

// tdmaps::for_each_pair_sums(space, map[, range], points, f[, label])
// tdmaps::reduce_pair_sums(space, map[, range], points, law, reducer[, label])
// tdmaps::histogram_pair_sums(space, map[, range], points, law, counts[, label])
// tdmaps::reduce_rows_pair_sums<Op>(space, map[, range], points, law, rows[, label])
//
// Points of any dimension d: each pair j < i of the map's triangle (or of
// the blocks of an omega range of a one-launch map) once, with its squared
// distance s = sum_k (x(i, k) - x(j, k))^2 summed in k order from s = 0
// (the element kernel's sum, edm/element.hpp, bit for bit: the sums of
// pair_min_keys), and what the caller makes of them:
//   for_each_pair_sums:  f(s, i, j) for every pair, and for the pairs (i, i)
//       where the map's triangle is Triangle::lower (a distance matrix);
//   reduce_pair_sums:    law(s, i, j, update) for every pair, update the
//       reducer's value_type (Kokkos::Sum, Min, Max, or a user's reducer);
//       the reducer holds the result on return;
//   histogram_pair_sums: counts(b) += #{pairs with law(s, i, j) == b}, b in
//       [0, counts.extent(0)); other values (a negative one: no bin) are
//       not counted. counts is added to, not reset.
//   reduce_rows_pair_sums<Op>: both ends of each pair, rows(i) joins
//       law(s, i, j) and rows(j) joins law(s, j, i) (Op as reduce_rows'
//       in launch/reduce.hpp: RowSum, RowMin, RowMax of a packed key, or a
//       user's). rows is joined into, not reset.
// The reductions never offer the diagonal pairs (i, i), whatever the map's
// triangle.
//
// The walk is pair_min_keys' (launch/detail/tiled_block_sums.hpp): a team
// takes blocks of rho x rho pairs (block side 16 or 32), each thread a 4 x 4
// micro-tile of sums in registers, the coordinates staged in team scratch
// 16 at a time on GPU backends, as a GEMM walks its k loop but with the
// exact difference form. Each thread reduces its pairs in registers (one
// join a thread per team, by Kokkos' team reduction); a row reduction's
// threads join their rows' and columns' values into the team's partials of
// the block in scratch, joined into rows once per block; a histogram's bins
// are a team's 32-bit counters in scratch, added to counts once per team,
// or, where they do not fit the scratch (or the team's share of it at the
// walk's occupancy), an atomic per pair into counts.
// The walks for points of 2 to 4 coordinates in registers are the pair-law
// walks (reduce_pair_law, histogram_pair_law); these serve any d.

#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/detail/pair_sums_walk.hpp>
#include <tdmaps/launch/detail/tiled_block_sums.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/reduce.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {

namespace detail {

/// The Kokkos launches of walk w over the omegas [begin, end) of its launch
/// (pair_sums_blocks_per_team blocks a team, each_launch): w's omegas set,
/// then go(policy, w), the policy's teams of tiled_team_size threads with
/// `bytes` of team scratch (and the alignment's slack).
template <class ExecSpace, class W, class Go>
void pair_sums_launches(const ExecSpace& space, index_t begin, index_t end, W& w, const std::size_t bytes,
                        const Go& go) {
  const int team_size = tiled_team_size<ExecSpace>(w.map.domain.rho);
  each_launch(begin, end, pair_sums_blocks_per_team<ExecSpace>, [&](index_t offset, index_t count, int teams) {
    w.offset = offset;
    w.count = count;
    tiled_policy_t<ExecSpace> policy(space, teams, team_size, 1);
    policy.set_scratch_size(0, Kokkos::PerTeam(bytes + tile_scratch_alignment));
    go(policy, w);
  });
}

template <class ExecSpace, class Map, class Points, class Law, class Reducer>
void pair_sums_reduce_launch(const ExecSpace& space, const Map& map, int l, index_t begin, index_t end,
                             const Points& points, const Law& law, const Reducer& reducer,
                             typename Reducer::value_type& total, const std::string& label) {
  using W = PairSumsReduceWalk<ExecSpace, Map, Points, Law, Reducer>;
  W w{{map, points, static_cast<int>(points.extent(1)), l, 0, 0}, law, reducer};
  pair_sums_launches(space, begin, end, w, W::scratch_bytes(), [&](const auto& policy, const W& walk) {
    typename Reducer::value_type part;
    reducer.init(part);
    Kokkos::parallel_reduce(label, policy, walk, Reducer(part));
    reducer.join(total, part);
  });
}

/// Mirrored: the pairs of the mirrored triangle (PairSumsBlocks::each_pair),
/// which for_each_pair_sums_mirrored offers.
template <bool Mirrored = false, class ExecSpace, class Map, class Points, class F>
void pair_sums_for_each_launch(const ExecSpace& space, const Map& map, int l, index_t begin, index_t end,
                               const Points& points, const F& f, const std::string& label) {
  using W = PairSumsForEachWalk<ExecSpace, Map, Points, F, Mirrored>;
  W w{{map, points, static_cast<int>(points.extent(1)), l, 0, 0}, f};
  pair_sums_launches(space, begin, end, w, W::scratch_bytes(),
                     [&](const auto& policy, const W& walk) { Kokkos::parallel_for(label, policy, walk); });
}

template <class ExecSpace, class Map, class Points, class Law, class Counts>
void pair_sums_histogram_launch(const ExecSpace& space, const Map& map, int l, index_t begin, index_t end,
                                const Points& points, const Law& law, const Counts& counts,
                                const std::string& label) {
  const int bins = static_cast<int>(counts.extent(0));
  const auto walk = [&](auto global) {
    return PairSumsHistogramWalk<ExecSpace, Map, Points, Law, Counts, decltype(global)::value>{
        {map, points, static_cast<int>(points.extent(1)), l, 0, 0}, law, counts, bins};
  };
  const auto run = [&](auto global) {
    auto w = walk(global);
    pair_sums_launches(space, begin, end, w, w.scratch_bytes(bins),
                       [&](const auto& policy, const auto& f) { Kokkos::parallel_for(label, policy, f); });
  };
  // Bins past a team's scratch, or past what its team may take (on CUDA
  // the policy's 16 teams an SM share an SM's shared memory): an atomic per
  // pair into counts.
  const auto scratch = walk(std::false_type());
  const std::size_t bytes = scratch.scratch_bytes(bins) + tile_scratch_alignment;
  bool fits = bytes <= static_cast<std::size_t>(tiled_policy_t<ExecSpace>::scratch_size_max(0));
  if (fits) {
    tiled_policy_t<ExecSpace> policy(space, 1, tiled_team_size<ExecSpace>(map.domain.rho), 1);
    policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
    fits = policy.team_size_max(scratch, Kokkos::ParallelForTag()) >= tiled_team_size<ExecSpace>(map.domain.rho);
  }
  if (fits) run(std::false_type());
  else run(std::true_type());
}

template <class Op, class ExecSpace, class Map, class Points, class Law, class Rows>
void pair_sums_rows_launch(const ExecSpace& space, const Map& map, int l, index_t begin, index_t end,
                           const Points& points, const Law& law, const Rows& rows, const std::string& label) {
  using W = PairSumsRowsWalk<ExecSpace, Map, Points, Law, Rows, Op>;
  W w{{map, points, static_cast<int>(points.extent(1)), l, 0, 0}, law, rows};
  pair_sums_launches(space, begin, end, w, W::scratch_bytes(map.domain.rho),
                     [&](const auto& policy, const W& walk) { Kokkos::parallel_for(label, policy, walk); });
}

/// Not API: for_each_pair_sums over the blocks of `range` of a one-launch
/// map as the blocks of the mirrored triangle: for the map's pair (i', j'),
/// f(s, a, b) with the points' pair (a, b) = (n - 1 - j', n - 1 - i'), a >=
/// b, and its sum s (bit for bit for_each_pair_sums' of (a, b)). The pairs
/// of a column of the map's triangle are then a row of the map's blocks:
/// edm_chunk's condensed chunks (apps/edm), whose rows are columns.
template <class ExecSpace, class Map, class Points, class F>
void for_each_pair_sums_mirrored(const ExecSpace& space, const Map& map, const OmegaRange& range,
                                 const Points& points, const F& f, const std::string& label) {
  static_assert(!is_multi_launch_map_v<Map>, "tdmaps: omega ranges of a one-launch map (bb, lambda, rb)");
  check_tiled(map, points, "tdmaps::for_each_pair_sums");
  check_omega_range(map, range, "tdmaps::for_each_pair_sums");
  pair_sums_for_each_launch<true>(space, map, 0, range.begin, range.end, points, f, label);
}

template <class Counts>
void check_pair_sums_counts(const Counts& counts) {
  static_assert(Kokkos::is_view<Counts>::value && Counts::rank == 1 &&
                    std::is_integral<typename Counts::value_type>::value &&
                    sizeof(typename Counts::value_type) == 8 && !std::is_const<typename Counts::value_type>::value,
                "tdmaps::histogram_pair_sums: counts is a writable 1-D View of 64-bit integers");
  if (counts.extent(0) < 1 || counts.extent(0) > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument("tdmaps::histogram_pair_sums: " + std::to_string(counts.extent(0)) +
                                " bins (need 1 .. 2^31 - 1)");
}

}  // namespace detail

/// reducer's result = the join of law(s, i, j, update) over each pair j < i
/// of `map`'s triangle, s the pair's squared distance summed in coordinate
/// order (the top of this file).
/// \tparam Map a block-space map (bb, lambda, rb, rec, hadouken) of block side 16 or 32
/// \param space the execution space instance the walk runs on
/// \param map the map over Domain2(n, rho, triangle) whose blocks are walked
/// \param points n x d, LayoutRight, in ExecSpace's memory (any d >= 1)
/// \param law `KOKKOS_FUNCTION void operator()(Real s, index_t i, index_t j, value_type& update) const`
/// \param reducer a Kokkos reducer (Kokkos::Sum<T>(result), ...): holds the result on return
/// \param label the launches' label (Kokkos tools)
/// \throws std::invalid_argument on a block side or points of the wrong shape
template <class ExecSpace, class Map, class Points, class Law, class Reducer>
void reduce_pair_sums(const ExecSpace& space, const Map& map, const Points& points, const Law& law,
                      const Reducer& reducer,
                      const std::string& label = std::string("tdmaps::reduce_pair_sums::") + Map::name) {
  detail::check_tiled(map, points, "tdmaps::reduce_pair_sums");
  typename Reducer::value_type total;
  reducer.init(total);
  for (int l = 0; l < detail::launches(map); ++l)
    detail::pair_sums_reduce_launch(space, map, l, 0, detail::league_size(map, l), points, law, reducer, total, label);
  reducer.reference() = total;
}

/// reduce_pair_sums over the blocks of the omegas of `range` of a one-launch
/// map (bb, lambda, rb): the ranges of a partition (MPI ranks, chunks)
/// joined give the whole triangle's result.
/// \throws std::invalid_argument as above, and on a range outside the league
template <class ExecSpace, class Map, class Points, class Law, class Reducer>
void reduce_pair_sums(const ExecSpace& space, const Map& map, const OmegaRange& range, const Points& points,
                      const Law& law, const Reducer& reducer,
                      const std::string& label = std::string("tdmaps::reduce_pair_sums::") + Map::name) {
  static_assert(!is_multi_launch_map_v<Map>, "tdmaps::reduce_pair_sums: omega ranges of a one-launch map (bb, lambda, rb)");
  detail::check_tiled(map, points, "tdmaps::reduce_pair_sums");
  check_omega_range(map, range, "tdmaps::reduce_pair_sums");
  typename Reducer::value_type total;
  reducer.init(total);
  detail::pair_sums_reduce_launch(space, map, 0, range.begin, range.end, points, law, reducer, total, label);
  reducer.reference() = total;
}

/// Both ends of each pair j < i of `map`'s triangle, s the pair's squared
/// distance summed in coordinate order (the top of this file):
/// rows(i) = Op::join(rows(i), law(s, i, j)) and rows(j) = Op::join(rows(j),
/// law(s, j, i)). The diagonal pairs (i, i) are never offered. rows is
/// joined into, not reset (fill it with Op::identity() first; several
/// ranges may then join theirs).
/// \tparam Op RowSum<T>, RowMin<T>, RowMax<T> (launch/reduce.hpp) or one with
///   their members (value_type, identity, join, atomic_join)
/// \tparam Map a block-space map (bb, lambda, rb, rec, hadouken) of block side 16 or 32
/// \param space the execution space instance the walk runs on (not fenced)
/// \param map the map over Domain2(n, rho, triangle) whose blocks are walked
/// \param points n x d, LayoutRight, in ExecSpace's memory (any d >= 1)
/// \param law `KOKKOS_FUNCTION Op::value_type operator()(Real s, index_t row, index_t other) const`:
///   the value the pair (row, other) joins into rows(row)
/// \param rows n values of Op::value_type, in ExecSpace's memory (joined into)
/// \param label the launches' label (Kokkos tools)
/// \throws std::invalid_argument on a block side, points or rows of the wrong shape
template <class Op, class ExecSpace, class Map, class Points, class Law, class Rows>
void reduce_rows_pair_sums(const ExecSpace& space, const Map& map, const Points& points, const Law& law,
                           const Rows& rows,
                           const std::string& label = std::string("tdmaps::reduce_rows_pair_sums::") + Map::name) {
  detail::check_tiled(map, points, "tdmaps::reduce_rows_pair_sums");
  detail::check_rows<Op>(map, rows, "tdmaps::reduce_rows_pair_sums");
  for (int l = 0; l < detail::launches(map); ++l)
    detail::pair_sums_rows_launch<Op>(space, map, l, 0, detail::league_size(map, l), points, law, rows, label);
}

/// reduce_rows_pair_sums over the blocks of the omegas of `range` of a
/// one-launch map (bb, lambda, rb): the ranges of a partition joined into
/// one rows give the whole triangle's.
/// \throws std::invalid_argument as above, and on a range outside the league
template <class Op, class ExecSpace, class Map, class Points, class Law, class Rows>
void reduce_rows_pair_sums(const ExecSpace& space, const Map& map, const OmegaRange& range, const Points& points,
                           const Law& law, const Rows& rows,
                           const std::string& label = std::string("tdmaps::reduce_rows_pair_sums::") + Map::name) {
  static_assert(!is_multi_launch_map_v<Map>,
                "tdmaps::reduce_rows_pair_sums: omega ranges of a one-launch map (bb, lambda, rb)");
  detail::check_tiled(map, points, "tdmaps::reduce_rows_pair_sums");
  detail::check_rows<Op>(map, rows, "tdmaps::reduce_rows_pair_sums");
  check_omega_range(map, range, "tdmaps::reduce_rows_pair_sums");
  detail::pair_sums_rows_launch<Op>(space, map, 0, range.begin, range.end, points, law, rows, label);
}

/// f(s, i, j) for each pair j < i of `map`'s triangle, and for each (i, i)
/// where the triangle is Triangle::lower, s the pair's squared distance
/// summed in coordinate order (the top of this file); each pair once, in no
/// set order, by many threads at once.
/// \tparam Map a block-space map (bb, lambda, rb, rec, hadouken) of block side 16 or 32
/// \param space the execution space instance the walk runs on (not fenced)
/// \param map the map over Domain2(n, rho, triangle) whose blocks are walked
/// \param points n x d, LayoutRight, in ExecSpace's memory (any d >= 1)
/// \param f `KOKKOS_FUNCTION void operator()(Real s, index_t i, index_t j) const`
/// \param label the launches' label (Kokkos tools)
/// \throws std::invalid_argument on a block side or points of the wrong shape
template <class ExecSpace, class Map, class Points, class F>
void for_each_pair_sums(const ExecSpace& space, const Map& map, const Points& points, const F& f,
                        const std::string& label = std::string("tdmaps::for_each_pair_sums::") + Map::name) {
  detail::check_tiled(map, points, "tdmaps::for_each_pair_sums");
  for (int l = 0; l < detail::launches(map); ++l)
    detail::pair_sums_for_each_launch(space, map, l, 0, detail::league_size(map, l), points, f, label);
}

/// for_each_pair_sums over the blocks of the omegas of `range` of a
/// one-launch map (bb, lambda, rb) (chunks, MPI ranks).
/// \throws std::invalid_argument as above, and on a range outside the league
template <class ExecSpace, class Map, class Points, class F>
void for_each_pair_sums(const ExecSpace& space, const Map& map, const OmegaRange& range, const Points& points,
                        const F& f,
                        const std::string& label = std::string("tdmaps::for_each_pair_sums::") + Map::name) {
  static_assert(!is_multi_launch_map_v<Map>,
                "tdmaps::for_each_pair_sums: omega ranges of a one-launch map (bb, lambda, rb)");
  detail::check_tiled(map, points, "tdmaps::for_each_pair_sums");
  check_omega_range(map, range, "tdmaps::for_each_pair_sums");
  detail::pair_sums_for_each_launch(space, map, 0, range.begin, range.end, points, f, label);
}

/// counts(b) += #{pairs j < i of `map`'s triangle with law(s, i, j) == b},
/// s the pair's squared distance summed in coordinate order (the top of this file).
/// \tparam Map a block-space map (bb, lambda, rb, rec, hadouken) of block side 16 or 32
/// \param space the execution space instance the walk runs on (not fenced)
/// \param map the map over Domain2(n, rho, triangle) whose blocks are walked
/// \param points n x d, LayoutRight, in ExecSpace's memory (any d >= 1)
/// \param law `KOKKOS_FUNCTION int operator()(Real s, index_t i, index_t j) const`: the pair's bin, or one outside [0, bins)
/// \param counts 1 .. 2^31 - 1 bins of 64-bit integers, in ExecSpace's memory (added to)
/// \param label the launches' label (Kokkos tools)
/// \throws std::invalid_argument on a block side, points or counts of the wrong shape
template <class ExecSpace, class Map, class Points, class Law, class Counts>
void histogram_pair_sums(const ExecSpace& space, const Map& map, const Points& points, const Law& law,
                         const Counts& counts,
                         const std::string& label = std::string("tdmaps::histogram_pair_sums::") + Map::name) {
  detail::check_tiled(map, points, "tdmaps::histogram_pair_sums");
  detail::check_pair_sums_counts(counts);
  for (int l = 0; l < detail::launches(map); ++l)
    detail::pair_sums_histogram_launch(space, map, l, 0, detail::league_size(map, l), points, law, counts, label);
}

/// histogram_pair_sums over the blocks of the omegas of `range` of a
/// one-launch map (bb, lambda, rb): the ranges of a partition added into
/// one counts give the whole triangle's.
/// \throws std::invalid_argument as above, and on a range outside the league
template <class ExecSpace, class Map, class Points, class Law, class Counts>
void histogram_pair_sums(const ExecSpace& space, const Map& map, const OmegaRange& range, const Points& points,
                         const Law& law, const Counts& counts,
                         const std::string& label = std::string("tdmaps::histogram_pair_sums::") + Map::name) {
  static_assert(!is_multi_launch_map_v<Map>,
                "tdmaps::histogram_pair_sums: omega ranges of a one-launch map (bb, lambda, rb)");
  detail::check_tiled(map, points, "tdmaps::histogram_pair_sums");
  detail::check_pair_sums_counts(counts);
  check_omega_range(map, range, "tdmaps::histogram_pair_sums");
  detail::pair_sums_histogram_launch(space, map, 0, range.begin, range.end, points, law, counts, label);
}

}  // namespace tdmaps

#endif
