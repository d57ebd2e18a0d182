#ifndef TDMAPS_LAUNCH_DETAIL_PAIR_LAW_FUNCTOR_HPP
#define TDMAPS_LAUNCH_DETAIL_PAIR_LAW_FUNCTOR_HPP

// Not API (tdmaps::detail): the walks of for_each_pair_law (launch/pair_law.hpp).
//
// Lane walk (GPU backends: a team is one thread of W = lane_width lanes, a
// CUDA warp): blocks of side W R pairs (lane_walk_index.hpp). Lane t loads
// its R rows' points once per row segment and keeps their sums in
// registers; per block it loads R columns' points, and at each of W steps
// evaluates its R x R pairs, adding both ends' results into the row and
// column sums in registers, then takes the next lane's columns (points and
// sums) by lane shuffles. Each pair once, no atomic and no shared memory per
// pair: columns are flushed once per block, rows once per row segment.
//
// Host walk (a team of one thread): per block of the caller's own map, the
// columns' points loaded once into a local array, row by row, row i's sum in
// a local and the columns' sums in a local array, flushed once per block.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/kokkos_ext/lanes.hpp>
#include <tdmaps/launch/detail/lane_walk_index.hpp>
#include <tdmaps/launch/detail/make_tile.hpp>
#include <tdmaps/launch/detail/pair_both_ends_functor.hpp>
#include <tdmaps/launch/detail/warp_walk.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/detail/map_traits.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>
#include <utility>

namespace tdmaps {

// Declared by launch/pair_both_ends.hpp (its default Enable = void); named
// here with both arguments so that this header stands alone.
template <class Value, class Enable>
struct pair_value_traits;

namespace detail {

/// Law has a member flush(out, i, sum) (else the sum is added into out(i)).
template <class Law, class Out, class = void>
struct law_has_flush : std::false_type {};
template <class Law, class Out>
struct law_has_flush<Law, Out,
                     std::void_t<decltype(std::declval<const Law&>().flush(
                         std::declval<const Out&>(), index_t(0), std::declval<const typename Law::value_type&>()))>>
    : std::true_type {};

/// Law has a member identity() (else the sums start as pair_value_traits' zero).
template <class Law, class = void>
struct law_has_identity : std::false_type {};
template <class Law>
struct law_has_identity<Law, std::void_t<decltype(std::declval<const Law&>().identity())>> : std::true_type {};

/// What a point's sum starts as: law.identity(), or zero.
template <class Law>
KOKKOS_FORCEINLINE_FUNCTION typename Law::value_type law_identity(const Law& law) {
  if constexpr (law_has_identity<Law>::value)
    return law.identity();
  else
    return pair_value_traits<typename Law::value_type, void>::zero();
}

/// Law takes the points' indices too: law(i, a, j, b, to_a, to_b).
template <class Law>
using law_takes_indices =
    std::is_invocable<const Law&, index_t, const typename Law::point_type&, index_t, const typename Law::point_type&,
                      typename Law::value_type&, typename Law::value_type&>;

/// The pair (i, j): law(i, a, j, b, to_a, to_b) or law(a, b, to_a, to_b).
template <class Law>
KOKKOS_FORCEINLINE_FUNCTION void law_pair(const Law& law, index_t i, const typename Law::point_type& a, index_t j,
                                          const typename Law::point_type& b, typename Law::value_type& to_a,
                                          typename Law::value_type& to_b) {
  if constexpr (law_takes_indices<Law>::value)
    law(i, a, j, b, to_a, to_b);
  else
    law(a, b, to_a, to_b);
}

/// Law has a (non-template, non-overloaded) member named flush.
template <class Law, class = void>
struct law_names_flush : std::false_type {};
template <class Law>
struct law_names_flush<Law, std::void_t<decltype(&Law::flush)>> : std::true_type {};

/// Adds point i's sum v into out: law.flush(out, i, v), or out(i) += v atomically.
template <class Law, class Out>
KOKKOS_FORCEINLINE_FUNCTION void law_flush(const Law& law, const Out& out, index_t i,
                                           const typename Law::value_type& v) {
  static_assert(law_has_flush<Law, Out>::value || !law_names_flush<Law>::value,
                "tdmaps::for_each_pair_law: the law has a flush that does not take this out (flush(const Out& out, "
                "index_t i, const value_type& sum) const, Out = the View passed as out); without it out(i) would be "
                "added into instead");
  if constexpr (law_has_flush<Law, Out>::value)
    law.flush(out, i, v);
  else
    atomic_add_into<pair_value_traits<typename Law::value_type, void>>(out, i, v);
}

/// The lane walk of a law: W lanes, R rows and columns per lane (the top of this file).
template <int W, int R, class Map, class Law, class Out>
struct PairLawLaneWalk {
  using Index = LaneWalkIndex<W, R>;
  using P = typename Law::point_type;
  using V = typename Law::value_type;
  Map map;  ///< over side-blocks (warp_walk_map)
  int launch = 0;
  index_t offset = 0, count = 0;
  int per_team = 1;
  index_t n = 0;
  bool with_diagonal = false;
  Law law;
  Out out;

  KOKKOS_FORCEINLINE_FUNCTION P load(index_t i) const { return i < n ? law.load(i) : P{}; }
  KOKKOS_FORCEINLINE_FUNCTION void flush(index_t i, const V& v) const {
    if (i < n) law_flush(law, out, i, v);
  }

  template <bool Edge>
  KOKKOS_FORCEINLINE_FUNCTION void block_pairs(int lane, index_t i0, index_t j0, bool diag, const P (&rp)[R], V (&rs)[R],
                                               P (&cp)[R], V (&cs)[R]) const {
    for (int s = 0; s < W; ++s) {
TDMAPS_UNROLL
      for (int r = 0; r < R; ++r) {
TDMAPS_UNROLL
        for (int c = 0; c < R; ++c) {
          const index_t i = Index::row(i0, lane, r), j = Index::col(j0, lane, s, c);
          if (Edge && !Index::takes(i, j, n, diag, with_diagonal)) continue;
          law_pair(law, i, rp[r], j, cp[c], rs[r], cs[c]);
        }
      }
      if (W > 1) {
        const int from = Index::next_from(lane);
TDMAPS_UNROLL
        for (int c = 0; c < R; ++c) {
          cp[c] = intrinsics::lane_shfl(cp[c], from);
          cs[c] = intrinsics::lane_shfl(cs[c], from);
        }
      }
    }
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int lane = W > 1 ? intrinsics::warp_lane() & (W - 1) : 0;
    P rp[R];
    V rs[R];
    warp_walk_blocks<Index::side>(
        *this, team.league_rank(),
        [&](const index_t i0) {
TDMAPS_UNROLL
          for (int r = 0; r < R; ++r) {
            rp[r] = load(Index::row(i0, lane, r));
            rs[r] = law_identity(law);
          }
        },
        [&](const index_t i0, const index_t j0) {
          P cp[R];
          V cs[R];
TDMAPS_UNROLL
          for (int c = 0; c < R; ++c) {
            cp[c] = load(Index::col(j0, lane, 0, c));
            cs[c] = law_identity(law);
          }
          const bool diag = i0 == j0;
          if (diag || i0 + Index::side > n)
            block_pairs<true>(lane, i0, j0, diag, rp, rs, cp, cs);
          else
            block_pairs<false>(lane, i0, j0, diag, rp, rs, cp, cs);
TDMAPS_UNROLL
          for (int c = 0; c < R; ++c) flush(Index::col(j0, lane, 0, c), cs[c]);
        },
        [&](const index_t i0) {
TDMAPS_UNROLL
          for (int r = 0; r < R; ++r) flush(Index::row(i0, lane, r), rs[r]);
        });
  }
};

/// The host walk of a law over the caller's own map (the top of this file).
template <class ExecSpace, class Map, class Law, class Out>
struct PairLawHostWalk {
  using P = typename Law::point_type;
  using V = typename Law::value_type;
  Map map;
  int launch = 0;
  index_t offset = 0, count = 0;
  int per_team = 1;
  bool with_diagonal = false;
  Law law;
  Out out;

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    const index_t first = static_cast<index_t>(team.league_rank()) * per_team;
    const index_t last = first + per_team < count ? first + per_team : count;
    for (index_t k = first; k < last; ++k) {
      block_type_t<Map> b;
      if (detail::block(map, launch, offset + k, b)) walk(make_tile(map.domain, b));
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION void walk(const Tile& t) const {
    P cp[pair_max_rho];
    V cs[pair_max_rho];
    const int ncols = pair_cols_touched(t, with_diagonal);
    for (int tj = 0; tj < ncols; ++tj) {
      cp[tj] = law.load(t.j0 + tj);
      cs[tj] = law_identity(law);
    }
    for (int ti = 0; ti < t.rows; ++ti) {
      const index_t i = t.i0 + ti;
      const int end = pair_row_end(t, ti, with_diagonal);
      if (end <= 0) continue;
      const P pi = law.load(i);
      V row = law_identity(law);
      for (int tj = 0; tj < end; ++tj) law_pair(law, i, pi, t.j0 + tj, cp[tj], row, cs[tj]);
      law_flush(law, out, i, row);
    }
    for (int tj = 0; tj < ncols; ++tj) law_flush(law, out, t.j0 + tj, cs[tj]);
  }
};

}  // namespace detail
}  // namespace tdmaps

#endif
