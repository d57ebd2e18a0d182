#ifndef TDMAPS_LAUNCH_PAIR_LAW_HPP
#define TDMAPS_LAUNCH_PAIR_LAW_HPP

// A pair law: what a user's pair interaction says, so that tdmaps can walk
// it at the speed of a hand-written register-tiled kernel. Each unordered
// pair is evaluated once and its results are summed at both ends.
//
//   struct Gravity {                                  // a law
//     using point_type = Kokkos::Array<float, 4>;     // what a lane holds of a point (x, y, z, m)
//     using value_type = Kokkos::Array<float, 3>;     // what a point sums (its acceleration)
//     Kokkos::View<const float* [4]> xm;
//     KOKKOS_FUNCTION point_type load(tdmaps::index_t i) const { return {xm(i, 0), xm(i, 1), xm(i, 2), xm(i, 3)}; }
//     KOKKOS_FUNCTION void operator()(const point_type& a, const point_type& b, value_type& to_a, value_type& to_b) const {
//       ...  // adds what a receives into to_a and what b receives into to_b
//     }
//   };
//   for_each_pair_law(space, map, Gravity{xm}, acc);        // acc(i) += the sum of i's pairs
//   for_each_pair_law_part(space, map, p, P, law, acc);     // part p of P (chunks, MPI ranks)
//
// The law's members:
// - point_type: trivially copyable (arithmetic types, structs and
//   Kokkos::Arrays of them, of whole 32-bit words); load(i) reads point i.
// - value_type: a point's sum. Zero is pair_value_traits<value_type>::zero()
//   (value-initialisation) unless the law has `KOKKOS_FUNCTION value_type
//   identity() const` (a minimum's +inf, a key's "none"), and out(i) += sum
//   is pair_value_traits' atomic_add (launch/pair_both_ends.hpp), unless the
//   law has `KOKKOS_FUNCTION void flush(const Out& out, index_t i, const
//   value_type& sum) const`, which then joins a point's sum into out itself
//   (a conversion, a scale, an atomic minimum).
// - operator()(a, b, to_a, to_b), or operator()(i, a, j, b, to_a, to_b) with
//   the points' indices: JOINS into to_a and to_b (adds, for a sum; they
//   hold the running sums of the two points: never assign them outright).
//
// Pairs: every (i, j), i > j, of the map's domain, and (i, i) with
// PairDiagonal::include on a Triangle::lower domain (both of its results go
// to i). Maps: block-space maps (bb, lambda, rb, rec, hadouken), their kind
// deciding the order of the blocks; the _part form needs a one-launch map
// (bb, lambda), and its parts p = 0 .. P - 1 sum to the whole.
//
// Walks (launch/detail/pair_law_functor.hpp): on GPU backends a team of
// lane_width lanes (kokkos_ext/lanes.hpp; a CUDA warp) per block of
// lane_width x Rows points (Rows = the law's static member `rows` where it
// has one, else 4), rows and columns in registers, columns rotated by lane
// shuffles: the map's own block side does not apply there. Host backends
// walk the map's own blocks, a row at a time. Neither takes an atomic per
// pair.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/lanes.hpp>
#include <tdmaps/launch/detail/pair_law_functor.hpp>
#include <tdmaps/launch/detail/warp_walk.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/pair_both_ends.hpp>
#include <tdmaps/launch/reduce.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tdmaps {

namespace detail {

/// The law's rows per lane: its static member `rows`, else 4.
template <class Law, class = void>
struct law_rows : std::integral_constant<int, 4> {};
template <class Law>
struct law_rows<Law, std::void_t<decltype(Law::rows)>> : std::integral_constant<int, Law::rows> {};

/// The lane walk's launch bounds (resident teams a multiprocessor must fit):
/// 16, at most 128 registers a lane, where the R rows' and R columns' points
/// and sums take at most 96 words; else 8 (up to 255), which keeps a walk of
/// wide points (doubles, more values) out of local memory.
template <class Law, int R>
struct law_min_blocks
    : std::integral_constant<int, 2 * R * ((sizeof(typename Law::point_type) + sizeof(typename Law::value_type)) / 4) <= 96
                                      ? 16
                                      : 8> {};

template <class Map, class Law, class Out>
void check_pair_law(const Map& map, const Law&, const Out& out, const char* who) {
  require_team_map<Map>();
  using P = typename Law::point_type;
  using V = typename Law::value_type;
  static_assert(std::is_trivially_copyable<P>::value && std::is_trivially_copyable<V>::value,
                "tdmaps::for_each_pair_law: the law's point_type and value_type are trivially copyable");
  static_assert(std::is_same<decltype(std::declval<const Law&>().load(index_t(0))), P>::value,
                "tdmaps::for_each_pair_law: the law has `KOKKOS_FUNCTION point_type load(index_t i) const`");
  static_assert(std::is_invocable<const Law&, const P&, const P&, V&, V&>::value || law_takes_indices<Law>::value,
                "tdmaps::for_each_pair_law: the law is callable as law(const point_type& a, const point_type& b, "
                "value_type& to_a, value_type& to_b) const, or law(index_t i, const point_type& a, index_t j, "
                "const point_type& b, value_type& to_a, value_type& to_b) const");
  static_assert(Kokkos::is_view<Out>::value && (Out::rank == 1 || law_has_flush<Law, Out>::value),
                "tdmaps::for_each_pair_law: out is a rank-1 View (one entry per point), or any View of n rows "
                "that the law's flush(out, i, sum) adds into");
  if (static_cast<index_t>(out.extent(0)) != map.domain.n)
    throw std::invalid_argument(std::string(who) + ": out has " + std::to_string(out.extent(0)) +
                                " entries, the domain " + std::to_string(map.domain.n) + " points");
}

/// The lane walk over omegas [begin, end) of launch l of the side-block map `macro`.
template <int W, int R, class ExecSpace, class Map, class Law, class Out>
void pair_law_lanes(const ExecSpace& space, const Map& macro, int l, index_t begin, index_t end, index_t n,
                    bool with_diagonal, const Law& law, const Out& out, const LaunchHints& hints,
                    const std::string& label) {
  if (hints.blocks_per_team < 0)
    throw std::invalid_argument("tdmaps::for_each_pair_law: blocks_per_team = " +
                                std::to_string(hints.blocks_per_team) + " must be >= 0 (0: the library's choice)");
  PairLawLaneWalk<W, R, Map, Law, Out> f;
  f.map = macro;
  f.launch = l;
  f.n = n;
  f.with_diagonal = with_diagonal;
  f.law = law;
  f.out = out;
  warp_walk_launch<W, law_min_blocks<Law, R>::value>(space, f, begin, end, hints.blocks_per_team, label);
}

/// The host walk over omegas [begin, end) of launch l of the caller's map.
template <class ExecSpace, class Map, class Law, class Out>
void pair_law_host(const ExecSpace& space, const Map& map, int l, index_t begin, index_t end, bool with_diagonal,
                   const Law& law, const Out& out, const LaunchHints& hints, const std::string& label) {
  using F = PairLawHostWalk<ExecSpace, Map, Law, Out>;
  const int per_team = reduce_blocks_per_team(hints, false);
  F f;
  f.map = map;
  f.launch = l;
  f.with_diagonal = with_diagonal;
  f.law = law;
  f.out = out;
  f.per_team = per_team;
  each_launch(begin, end, per_team, [&](index_t offset, index_t count, int teams) {
    f.offset = offset;
    f.count = count;
    Kokkos::parallel_for(label, team_policy_t<ExecSpace>(space, teams, 1, 1), f);
  });
}

/// f(l, begin, end) for the omegas of part `part` of `parts` of map's league
/// (parts > 1: a one-launch map), or for every launch of it (parts == 1).
template <class Map, class F>
void each_part_range(const Map& map, index_t part, index_t parts, F&& f) {
  if constexpr (!has_multi_launch<Map>::value) {
    if (parts > 1) {
      const OmegaRange r = omega_range(map, part, parts);
      f(0, r.begin, r.end);
      return;
    }
  }
  for (int l = 0; l < launches(map); ++l) f(l, index_t(0), league_size(map, l));
}

/// Part `part` of `parts` of the pairs (parts == 1: all of them, any block-space map; parts > 1: a one-launch map).
template <class ExecSpace, class Map, class Law, class Out>
void pair_law_run(const ExecSpace& space, const Map& map, index_t part, index_t parts, const Law& law, const Out& out,
                  PairDiagonal diagonal, const std::string& label, const LaunchHints& hints) {
  const index_t n = map.domain.n;
  const bool with_diagonal = diagonal == PairDiagonal::include && map.domain.triangle == Triangle::lower;
  constexpr int W = intrinsics::lane_width<ExecSpace>::value;
  if constexpr (W > 1) {
    constexpr int R = law_rows<Law>::value;
    const Map macro = warp_walk_map(map, W * R);
    each_part_range(macro, part, parts, [&](int l, index_t begin, index_t end) {
      pair_law_lanes<W, R>(space, macro, l, begin, end, n, with_diagonal, law, out, hints, label);
    });
  } else {
    each_part_range(map, part, parts, [&](int l, index_t begin, index_t end) {
      pair_law_host(space, map, l, begin, end, with_diagonal, law, out, hints, label);
    });
  }
}

}  // namespace detail

/// \brief Sums a pair law over every pair of the map's domain (the top of
/// this file): law(load(i), load(j), to_i, to_j) once for every pair i > j
/// (and i == j with PairDiagonal::include on a Triangle::lower domain), each
/// point's sum added into out(i) (or by the law's flush).
/// \tparam ExecSpace a Kokkos execution space
/// \tparam Map a block-space map (bb, lambda, rb, rec, hadouken)
/// \tparam Law a pair law (point_type, value_type, load, operator(); the top of this file)
/// \tparam Out a rank-1 View of n entries, accessible from ExecSpace
/// \param space the execution space instance the launches run on (not fenced)
/// \param map the map; its domain gives the points 0 .. n - 1
/// \param law the pair law
/// \param out n entries, added into (the caller zeroes or pre-fills them)
/// \param diagonal PairDiagonal::include also evaluates (i, i) on a Triangle::lower domain
/// \param label the Kokkos kernels' label
/// \param hints LaunchHints::blocks_per_team: consecutive blocks a team takes (0: the library's choice)
template <class ExecSpace, class Map, class Law, class Out>
void for_each_pair_law(const ExecSpace& space, const Map& map, const Law& law, const Out& out,
                       PairDiagonal diagonal = PairDiagonal::exclude,
                       const std::string& label = std::string("tdmaps::for_each_pair_law::") + Map::name,
                       const LaunchHints& hints = LaunchHints()) {
  detail::check_pair_law(map, law, out, "tdmaps::for_each_pair_law");
  detail::pair_law_run(space, map, 0, 1, law, out, diagonal, label, hints);
}

/// \brief Part `part` of `parts` of for_each_pair_law's pairs (a one-launch
/// map: bb, lambda): the parts p = 0 .. parts - 1 sum to the whole, each a
/// contiguous, balanced range of the walk's blocks (chunks, MPI ranks).
/// \tparam ExecSpace a Kokkos execution space
/// \tparam Map a one-launch block-space map (bb, lambda)
/// \tparam Law a pair law (the top of this file)
/// \tparam Out a rank-1 View of n entries, accessible from ExecSpace
/// \param space the execution space instance the launches run on (not fenced)
/// \param map the map; its domain gives the points 0 .. n - 1
/// \param part which part, 0 .. parts - 1
/// \param parts how many parts, >= 1
/// \param law the pair law
/// \param out n entries, added into (the caller zeroes or pre-fills them)
/// \param diagonal PairDiagonal::include also evaluates (i, i) on a Triangle::lower domain
/// \param label the Kokkos kernels' label
/// \param hints LaunchHints::blocks_per_team: consecutive blocks a team takes (0: the library's choice)
template <class ExecSpace, class Map, class Law, class Out>
void for_each_pair_law_part(const ExecSpace& space, const Map& map, index_t part, index_t parts, const Law& law,
                            const Out& out, PairDiagonal diagonal = PairDiagonal::exclude,
                            const std::string& label = std::string("tdmaps::for_each_pair_law::") + Map::name,
                            const LaunchHints& hints = LaunchHints()) {
  static_assert(!detail::has_multi_launch<Map>::value,
                "tdmaps::for_each_pair_law_part: parts need a one-launch block-space map (bb, lambda)");
  detail::check_pair_law(map, law, out, "tdmaps::for_each_pair_law_part");
  if (parts < 1 || part < 0 || part >= parts)
    throw std::invalid_argument("tdmaps::for_each_pair_law_part: part " + std::to_string(part) + " of " +
                                std::to_string(parts) + " (need 0 <= part < parts)");
  detail::pair_law_run(space, map, part, parts, law, out, diagonal, label, hints);
}

}  // namespace tdmaps

#endif
