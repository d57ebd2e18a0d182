#ifndef TDMAPS_LAUNCH_DETAIL_PAIR_REDUCE_LAW_FUNCTOR_HPP
#define TDMAPS_LAUNCH_DETAIL_PAIR_REDUCE_LAW_FUNCTOR_HPP

// Not API (tdmaps::detail): the walks of reduce_pair_law and
// histogram_pair_law (launch/pair_reduce_law.hpp), the reduce form of the
// pair-law walks (launch/detail/pair_law_functor.hpp): a pair adds to one
// result, not to its two ends, so nothing is kept per point.
//
// Lane walk (GPU backends): the blocks, rows and columns of the pair-law
// lane walk (lane_walk_index.hpp: blocks of side W R, R rows and R columns
// of points per lane in registers, the columns' points rotated by lane
// shuffles), a warp per walker; a team is T walkers (T warps) that share
// the team's sink. Host walk (a team of one thread): the caller's map's
// blocks, a row at a time.
//
// Sinks: what a pair's result goes into.
// - SumSink: a value per lane in registers (the law's identity, then
//   law(a, b, acc) per pair), joined across the lanes once per team and
//   written to the team's slot of a partials View (the caller folds them).
// - BinSink: counts per bin in team scratch (uint32), added to the output
//   once per team and nonzero bin: BinMode::shared, the team's bins, a
//   shared-memory atomic add per pair; BinMode::lanes, a column of bins per
//   lane, each lane incrementing its own (one bank per lane, no atomic; a
//   host team's own bins); past a team's scratch, BinMode::global, an
//   atomic add per pair into the output.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/kokkos_ext/lanes.hpp>
#include <tdmaps/launch/detail/lane_walk_index.hpp>
#include <tdmaps/launch/detail/make_tile.hpp>
#include <tdmaps/launch/detail/pair_both_ends_functor.hpp>
#include <tdmaps/launch/detail/pair_law_functor.hpp>
#include <tdmaps/launch/detail/warp_walk.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/detail/map_traits.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace tdmaps {
namespace detail {

/// A reduce law takes the points' indices too: law(i, a, j, b, acc).
template <class Law>
using reduce_law_takes_indices = std::is_invocable<const Law&, index_t, const typename Law::point_type&, index_t,
                                                   const typename Law::point_type&, typename Law::value_type&>;

/// A histogram law takes the points' indices too: law(i, a, j, b) -> bin.
template <class Law>
using bin_law_takes_indices = std::is_invocable_r<int, const Law&, index_t, const typename Law::point_type&, index_t,
                                                  const typename Law::point_type&>;

/// Law has a member join(dst, src) (else pair_value_traits' add).
template <class Law, class = void>
struct law_has_join : std::false_type {};
template <class Law>
struct law_has_join<Law,
                    std::void_t<decltype(std::declval<const Law&>().join(
                        std::declval<typename Law::value_type&>(), std::declval<const typename Law::value_type&>()))>>
    : std::true_type {};

/// dst = dst joined with src: law.join(dst, src), or dst += src.
template <class Law>
KOKKOS_FORCEINLINE_FUNCTION void law_join(const Law& law, typename Law::value_type& dst,
                                          const typename Law::value_type& src) {
  if constexpr (law_has_join<Law>::value)
    law.join(dst, src);
  else
    pair_value_traits<typename Law::value_type, void>::add(dst, src);
}

/// SumSink: a value per lane, joined across the W lanes once per walker and
/// written to partial(slot) by lane 0 (the team's walkers: slot T k + rank).
template <class Law, class Partials>
struct SumSink {
  using V = typename Law::value_type;
  using acc_type = V;
  Partials partial;

  static constexpr std::size_t scratch_bytes(int) { return 0; }
  template <class Member>
  KOKKOS_FORCEINLINE_FUNCTION V open(const Law& law, const Member&) const {
    return law_identity(law);
  }
  KOKKOS_FORCEINLINE_FUNCTION void pair(const Law& law, index_t i, const typename Law::point_type& a, index_t j,
                                        const typename Law::point_type& b, V& acc) const {
    if constexpr (reduce_law_takes_indices<Law>::value)
      law(i, a, j, b, acc);
    else
      law(a, b, acc);
  }
  template <int W, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void close(const Law& law, const Member&, int lane, index_t slot, V& acc) const {
    for (int k = 1; k < W; k <<= 1) {
      const V other = intrinsics::lane_shfl(acc, lane ^ k);
      law_join(law, acc, other);
    }
    if (lane == 0) partial(slot) = acc;
  }
};

/// How a BinSink counts (the top of this file).
enum class BinMode {
  lanes,   ///< a column of bins per lane in team scratch, plain increments (no conflict, no atomic)
  shared,  ///< the team's bins in team scratch, a shared-memory atomic add per pair
  global   ///< an atomic add per pair into the output (bins past a team's scratch)
};

/// BinSink: counts(b) += the pairs whose law result is b, b in [0, bins),
/// for teams of T walkers of W lanes.
template <class Counts, BinMode Mode, int W = 1, int T = 1>
struct BinSink {
  /// The team's bins (null: global) and where a pair of this lane counts (lanes: its column).
  struct Bins {
    std::uint32_t* team;
    std::uint32_t* mine;
  };
  using acc_type = Bins;
  Counts counts;
  int bins = 0;

  /// Team scratch of `bins` bins.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(int bins) {
    const std::size_t words = Mode == BinMode::lanes    ? std::size_t(bins) * W * T
                              : Mode == BinMode::shared ? std::size_t(bins)
                                                        : 0;
    return sizeof(std::uint32_t) * words;
  }
  KOKKOS_FORCEINLINE_FUNCTION unsigned long long* out(int b) const {
    return reinterpret_cast<unsigned long long*>(&counts(b));
  }
  template <class Law, class Member>
  KOKKOS_FORCEINLINE_FUNCTION Bins open(const Law&, const Member& team) const {
    if constexpr (Mode == BinMode::global) {
      (void)team;
      return {nullptr, nullptr};
    } else {
      // Taken once per team: Kokkos' team scratch is not handed back between takes.
      std::uint32_t* h = static_cast<std::uint32_t*>(
          team.team_scratch(0).get_shmem_aligned(scratch_bytes(bins), tile_scratch_alignment));
      const int words = static_cast<int>(scratch_bytes(bins) / sizeof(std::uint32_t));
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, words), [&](const int k) { h[k] = 0; });
      team.team_barrier();
      if constexpr (Mode == BinMode::lanes) {
        // Walker t's bins at t bins W; lane l's column: word b W + l is its bin b.
        const int lane = W > 1 ? intrinsics::warp_lane() & (W - 1) : 0;
        return {h, h + static_cast<std::size_t>(team.team_rank()) * bins * W + lane};
      } else {
        return {h, h};
      }
    }
  }
  template <class Law>
  KOKKOS_FORCEINLINE_FUNCTION void pair(const Law& law, index_t i, const typename Law::point_type& a, index_t j,
                                        const typename Law::point_type& b, const Bins& h) const {
    int bin;
    if constexpr (bin_law_takes_indices<Law>::value)
      bin = law(i, a, j, b);
    else
      bin = law(a, b);
    if (static_cast<unsigned>(bin) >= static_cast<unsigned>(bins)) return;
    if constexpr (Mode == BinMode::lanes) {
      h.mine[bin * W] += 1u;  // this lane's own word: bank l of every row of W words
    } else if constexpr (Mode == BinMode::shared) {
      intrinsics::scratch_add(&h.mine[bin], 1u);
    } else {
      (void)h;
      Kokkos::atomic_add(out(bin), 1ull);
    }
  }
  template <int, class Law, class Member>
  KOKKOS_FORCEINLINE_FUNCTION void close(const Law&, const Member& team, int, index_t, const Bins& bins_of) const {
    if constexpr (Mode != BinMode::global) {
      team.team_barrier();
      const std::uint32_t* h = bins_of.team;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, bins), [&](const int b) {
        unsigned long long sum = 0;
        if constexpr (Mode == BinMode::lanes) {
          // Bin b's W T words, started at word (b mod W) of each row: lanes on consecutive bins read distinct banks.
          for (int t = 0; t < T; ++t)
            for (int l = 0; l < W; ++l) sum += h[(static_cast<std::size_t>(t) * bins + b) * W + ((l + b) & (W - 1))];
        } else {
          sum = h[b];
        }
        if (sum != 0) Kokkos::atomic_add(out(b), sum);
      });
    } else {
      (void)team, (void)bins_of;
    }
  }
};

/// The lane walk of a reduce law (the top of this file): team_size walkers
/// of W lanes, R rows and columns per lane; a walker takes per_team
/// consecutive blocks of the side-block map `map`.
template <int W, int R, class Map, class Law, class Sink>
struct PairReduceLaneWalk {
  using Index = LaneWalkIndex<W, R>;
  using P = typename Law::point_type;
  Map map;  ///< over side-blocks (warp_walk_map)
  int launch = 0;
  index_t offset = 0, count = 0;
  int per_team = 1;        ///< blocks per walker
  index_t first_slot = 0;  ///< the partials' slot of this Kokkos launch's first walker
  index_t n = 0;
  bool with_diagonal = false;
  Law law;
  Sink sink;

  KOKKOS_FORCEINLINE_FUNCTION P load(index_t i) const { return i < n ? law.load(i) : P{}; }

  template <bool Edge, class Acc>
  KOKKOS_FORCEINLINE_FUNCTION void block_pairs(int lane, index_t i0, index_t j0, bool diag, const P (&rp)[R],
                                               P (&cp)[R], Acc& acc) const {
    for (int s = 0; s < W; ++s) {
      TDMAPS_UNROLL
      for (int r = 0; r < R; ++r) {
        TDMAPS_UNROLL
        for (int c = 0; c < R; ++c) {
          const index_t i = Index::row(i0, lane, r), j = Index::col(j0, lane, s, c);
          if (Edge && !Index::takes(i, j, n, diag, with_diagonal)) continue;
          sink.pair(law, i, rp[r], j, cp[c], acc);
        }
      }
      if (W > 1 && s + 1 < W) {
        const int from = Index::next_from(lane);
        TDMAPS_UNROLL
        for (int c = 0; c < R; ++c) cp[c] = intrinsics::lane_shfl(cp[c], from);
      }
    }
  }

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    const int lane = W > 1 ? intrinsics::warp_lane() & (W - 1) : 0;
    const index_t walker = static_cast<index_t>(team.league_rank()) * team.team_size() + team.team_rank();
    auto acc = sink.open(law, team);
    P rp[R] = {};
    warp_walk_blocks<Index::side>(
        *this, walker,
        [&](const index_t i0) {
          TDMAPS_UNROLL
          for (int r = 0; r < R; ++r) rp[r] = load(Index::row(i0, lane, r));
        },
        [&](const index_t i0, const index_t j0) {
          P cp[R] = {};
          TDMAPS_UNROLL
          for (int c = 0; c < R; ++c) cp[c] = load(Index::col(j0, lane, 0, c));
          const bool diag = i0 == j0;
          if (diag || i0 + Index::side > n)
            block_pairs<true>(lane, i0, j0, diag, rp, cp, acc);
          else
            block_pairs<false>(lane, i0, j0, diag, rp, cp, acc);
        },
        [&](const index_t) {});
    sink.template close<W>(law, team, lane, first_slot + walker, acc);
  }
};

/// The host walk of a reduce law over the caller's own map (a team of one
/// thread, per_team blocks, the columns' points of a block in a local array).
template <class Map, class Law, class Sink>
struct PairReduceHostWalk {
  using P = typename Law::point_type;
  Map map;
  int launch = 0;
  index_t offset = 0, count = 0;
  int per_team = 1;
  index_t first_slot = 0;
  bool with_diagonal = false;
  Law law;
  Sink sink;

  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team) const {
    auto acc = sink.open(law, team);
    const index_t first = static_cast<index_t>(team.league_rank()) * per_team;
    const index_t last = first + per_team < count ? first + per_team : count;
    for (index_t k = first; k < last; ++k) {
      block_type_t<Map> b;
      if (!detail::block(map, launch, offset + k, b)) continue;
      const Tile t = make_tile(map.domain, b);
      P cp[pair_max_rho];
      const int ncols = pair_cols_touched(t, with_diagonal);
      for (int tj = 0; tj < ncols; ++tj) cp[tj] = law.load(t.j0 + tj);
      for (int ti = 0; ti < t.rows; ++ti) {
        const int end = pair_row_end(t, ti, with_diagonal);
        if (end <= 0) continue;
        const index_t i = t.i0 + ti;
        const P pi = law.load(i);
        for (int tj = 0; tj < end; ++tj) sink.pair(law, i, pi, t.j0 + tj, cp[tj], acc);
      }
    }
    sink.template close<1>(law, team, 0, first_slot + team.league_rank(), acc);
  }
};

}  // namespace detail
}  // namespace tdmaps

#endif
