#ifndef TDMAPS_LAUNCH_PAIR_REDUCE_LAW_HPP
#define TDMAPS_LAUNCH_PAIR_REDUCE_LAW_HPP

// The reduce form of a pair law (launch/pair_law.hpp has the both-ends
// form): every pair adds to one result, a sum over all pairs or a
// histogram, and nothing is kept per point.
//
//   struct Within {                                    // a reduce law: pairs closer than r
//     using point_type = Kokkos::Array<float, 3>;
//     using value_type = tdmaps::index_t;              // the result
//     const float* x; float r2;
//     KOKKOS_FUNCTION point_type load(tdmaps::index_t i) const { return {x[3 * i], x[3 * i + 1], x[3 * i + 2]}; }
//     KOKKOS_FUNCTION void operator()(const point_type& a, const point_type& b, value_type& acc) const {
//       const float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
//       acc += dx * dx + dy * dy + dz * dz < r2;      // JOINS the pair into acc
//     }
//   };
//   index_t c = reduce_pair_law(space, map, Within{x, r * r});
//
//   struct Bin {                                       // a histogram law: a pair's bin
//     ... point_type, load as above ...
//     KOKKOS_FUNCTION int operator()(const point_type& a, const point_type& b) const;  // -1 (or >= bins): none
//   };
//   histogram_pair_law(space, map, Bin{...}, counts);  // counts(b) += pairs in bin b
//
// Reduce law: point_type and load(i) as a pair law's; value_type the
// result (trivially copyable, of whole 32-bit words); operator()(a, b, acc)
// or operator()(i, a, j, b, acc) joins the pair (i, j) into acc; optional
// identity() (else value_type's zero, pair_value_traits) and join(dst, src)
// (else dst += src, pair_value_traits' add), which must be associative and
// commutative: the walk joins per lane, then across lanes, then across
// teams (on the host, in a fixed order: the same launch gives the same
// result, an fp sum's rounding aside from one map or backend to another).
// reduce_pair_law returns identity joined with every pair's contribution.
//
// Histogram law: operator()(a, b) or operator()(i, a, j, b) -> int bin;
// counts is a 1-D View of 64-bit integers of 1 .. 2^31 - 1 bins, added into.
// A bin outside [0, bins) is not counted.
//
// Pairs, maps, parts (the _part forms) and the diagonal rule are
// for_each_pair_law's. On GPU backends the lane walk of lane_width x Rows
// points per block (Rows: the law's static member `rows`, else 4), a lane's
// rows and columns in registers, the columns rotated by lane shuffles; a
// reduce law's result per lane in registers, a histogram's counts in team
// scratch (4 warps a team) where bins x 4 bytes fit, else an atomic add
// per pair into counts. Host backends walk the map's own blocks.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/lanes.hpp>
#include <tdmaps/launch/detail/pair_reduce_law_launch.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/pair_law.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {

namespace detail {

template <class Map, class Law>
void check_reduce_law_types(const Map&, const Law&) {
  require_team_map<Map>();
  using P = typename Law::point_type;
  static_assert(std::is_trivially_copyable<P>::value,
                "tdmaps::reduce_pair_law / histogram_pair_law: the law's point_type is trivially copyable");
  static_assert(std::is_same<decltype(std::declval<const Law&>().load(index_t(0))), P>::value,
                "tdmaps::reduce_pair_law / histogram_pair_law: the law has `KOKKOS_FUNCTION point_type "
                "load(index_t i) const`");
}

inline void check_reduce_part(index_t part, index_t parts, const LaunchHints& hints, const char* who) {
  if (parts < 1 || part < 0 || part >= parts)
    throw std::invalid_argument(std::string(who) + ": part " + std::to_string(part) + " of " + std::to_string(parts) +
                                " (need 0 <= part < parts)");
  if (hints.blocks_per_team < 0)
    throw std::invalid_argument(std::string(who) + ": blocks_per_team = " + std::to_string(hints.blocks_per_team) +
                                " must be >= 0 (0: the library's choice)");
}

template <class Counts>
void check_bin_counts(const Counts& counts, const char* who) {
  static_assert(Kokkos::is_view<Counts>::value && Counts::rank == 1 &&
                    std::is_integral<typename Counts::value_type>::value && sizeof(typename Counts::value_type) == 8,
                "tdmaps::histogram_pair_law: counts is a writable 1-D View of 64-bit integers");
  if (counts.extent(0) < 1 || counts.extent(0) > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument(std::string(who) + ": counts has " + std::to_string(counts.extent(0)) +
                                " bins (need 1 .. 2^31 - 1)");
}

}  // namespace detail

/// \brief Joins a reduce law over every pair of the map's domain (the top of
/// this file): law(load(i), load(j), acc) once for every pair i > j (and
/// i == j with PairDiagonal::include on a Triangle::lower domain).
/// \tparam ExecSpace a Kokkos execution space
/// \tparam Map a block-space map (bb, lambda, rb, rec, hadouken)
/// \tparam Law a reduce law (point_type, value_type, load, operator()(a, b, acc); the top of this file)
/// \param space the execution space instance the launches run on (fenced: the result is on the host)
/// \param map the map; its domain gives the points 0 .. n - 1
/// \param law the reduce law
/// \param diagonal PairDiagonal::include also evaluates (i, i) on a Triangle::lower domain
/// \param label the Kokkos kernels' label
/// \param hints LaunchHints::blocks_per_team: consecutive blocks a walker takes (0: the library's choice)
/// \return the law's identity joined with every pair's contribution
template <class ExecSpace, class Map, class Law>
typename Law::value_type reduce_pair_law(const ExecSpace& space, const Map& map, const Law& law,
                                         PairDiagonal diagonal = PairDiagonal::exclude,
                                         const std::string& label = std::string("tdmaps::reduce_pair_law::") +
                                                                    Map::name,
                                         const LaunchHints& hints = LaunchHints()) {
  detail::check_reduce_law_types(map, law);
  static_assert(detail::reduce_law_takes_indices<Law>::value ||
                    std::is_invocable<const Law&, const typename Law::point_type&, const typename Law::point_type&,
                                      typename Law::value_type&>::value,
                "tdmaps::reduce_pair_law: the law is callable as law(const point_type& a, const point_type& b, "
                "value_type& acc) const, or law(index_t i, const point_type& a, index_t j, const point_type& b, "
                "value_type& acc) const");
  detail::check_reduce_part(0, 1, hints, "tdmaps::reduce_pair_law");
  return detail::reduce_law_run(space, map, 0, 1, law, diagonal, label, hints);
}

/// \brief Part `part` of `parts` of reduce_pair_law (a one-launch map: bb,
/// lambda): the parts' results joined give the whole one.
/// \tparam ExecSpace a Kokkos execution space
/// \tparam Map a one-launch block-space map (bb, lambda)
/// \tparam Law a reduce law (the top of this file)
/// \param space the execution space instance (fenced)
/// \param map the map
/// \param part which part, 0 .. parts - 1
/// \param parts how many parts, >= 1
/// \param law the reduce law
/// \param diagonal PairDiagonal::include also evaluates (i, i) on a Triangle::lower domain
/// \param label the Kokkos kernels' label
/// \param hints LaunchHints::blocks_per_team: consecutive blocks a walker takes (0: the library's choice)
/// \return the law's identity joined with the part's pairs' contributions
template <class ExecSpace, class Map, class Law>
typename Law::value_type reduce_pair_law_part(const ExecSpace& space, const Map& map, index_t part, index_t parts,
                                              const Law& law, PairDiagonal diagonal = PairDiagonal::exclude,
                                              const std::string& label = std::string("tdmaps::reduce_pair_law::") +
                                                                         Map::name,
                                              const LaunchHints& hints = LaunchHints()) {
  static_assert(!detail::has_multi_launch<Map>::value,
                "tdmaps::reduce_pair_law_part: parts need a one-launch block-space map (bb, lambda)");
  detail::check_reduce_law_types(map, law);
  detail::check_reduce_part(part, parts, hints, "tdmaps::reduce_pair_law_part");
  return detail::reduce_law_run(space, map, part, parts, law, diagonal, label, hints);
}

/// \brief counts(b) += the pairs of the map's domain whose histogram law
/// gives b (the top of this file); other results are not counted.
/// \tparam ExecSpace a Kokkos execution space
/// \tparam Map a block-space map (bb, lambda, rb, rec, hadouken)
/// \tparam Law a histogram law (point_type, load, int operator()(a, b); the top of this file)
/// \tparam Counts a 1-D View of 64-bit integers, accessible from ExecSpace
/// \param space the execution space instance the launches run on (not fenced)
/// \param map the map; its domain gives the points 0 .. n - 1
/// \param law the histogram law
/// \param counts 1 .. 2^31 - 1 bins, added into
/// \param diagonal PairDiagonal::include also evaluates (i, i) on a Triangle::lower domain
/// \param label the Kokkos kernels' label
/// \param hints LaunchHints::blocks_per_team: consecutive blocks a walker takes (0: the library's choice)
template <class ExecSpace, class Map, class Law, class Counts>
void histogram_pair_law(const ExecSpace& space, const Map& map, const Law& law, const Counts& counts,
                        PairDiagonal diagonal = PairDiagonal::exclude,
                        const std::string& label = std::string("tdmaps::histogram_pair_law::") + Map::name,
                        const LaunchHints& hints = LaunchHints()) {
  detail::check_reduce_law_types(map, law);
  static_assert(
      detail::bin_law_takes_indices<Law>::value ||
          std::is_invocable_r<int, const Law&, const typename Law::point_type&, const typename Law::point_type&>::value,
      "tdmaps::histogram_pair_law: the law is callable as int law(const point_type& a, const point_type& "
      "b) const, or int law(index_t i, const point_type& a, index_t j, const point_type& b) const");
  detail::check_bin_counts(counts, "tdmaps::histogram_pair_law");
  detail::check_reduce_part(0, 1, hints, "tdmaps::histogram_pair_law");
  detail::bin_law_run(space, map, 0, 1, law, counts, diagonal, label, hints);
}

/// \brief Part `part` of `parts` of histogram_pair_law (a one-launch map:
/// bb, lambda): the parts' counts added give the whole histogram.
/// \tparam ExecSpace a Kokkos execution space
/// \tparam Map a one-launch block-space map (bb, lambda)
/// \tparam Law a histogram law (the top of this file)
/// \tparam Counts a 1-D View of 64-bit integers
/// \param space the execution space instance (not fenced)
/// \param map the map
/// \param part which part, 0 .. parts - 1
/// \param parts how many parts, >= 1
/// \param law the histogram law
/// \param counts 1 .. 2^31 - 1 bins, added into
/// \param diagonal PairDiagonal::include also evaluates (i, i) on a Triangle::lower domain
/// \param label the Kokkos kernels' label
/// \param hints LaunchHints::blocks_per_team: consecutive blocks a walker takes (0: the library's choice)
template <class ExecSpace, class Map, class Law, class Counts>
void histogram_pair_law_part(const ExecSpace& space, const Map& map, index_t part, index_t parts, const Law& law,
                             const Counts& counts, PairDiagonal diagonal = PairDiagonal::exclude,
                             const std::string& label = std::string("tdmaps::histogram_pair_law::") + Map::name,
                             const LaunchHints& hints = LaunchHints()) {
  static_assert(!detail::has_multi_launch<Map>::value,
                "tdmaps::histogram_pair_law_part: parts need a one-launch block-space map (bb, lambda)");
  detail::check_reduce_law_types(map, law);
  detail::check_bin_counts(counts, "tdmaps::histogram_pair_law_part");
  detail::check_reduce_part(part, parts, hints, "tdmaps::histogram_pair_law_part");
  detail::bin_law_run(space, map, part, parts, law, counts, diagonal, label, hints);
}

}  // namespace tdmaps

#endif
