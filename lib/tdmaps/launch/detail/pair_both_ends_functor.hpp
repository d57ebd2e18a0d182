#ifndef TDMAPS_LAUNCH_DETAIL_PAIR_BOTH_ENDS_FUNCTOR_HPP
#define TDMAPS_LAUNCH_DETAIL_PAIR_BOTH_ENDS_FUNCTOR_HPP

// Not API (tdmaps::detail): what for_each_pair_both_ends (launch/pair_both_ends.hpp)
// runs per team. A team takes per_team consecutive omegas of its launch (a
// block row of lambda's and bb's leagues is a run of consecutive omegas, so
// a team's blocks mostly share their row). Each pair is evaluated once; its
// two results are summed per row and per column without atomics, and the
// sums go to the output with one atomic per row and per column.
//
// Host walk (a team of one): per block, row by row; row i's sum in a local
// across the block's columns, the columns' sums in a local array; each row
// flushed when its columns are done, the columns when the block is.
//
// Lane walk (GPU; host under TDMAPS_FORCE_LANE_TILE): a team of one thread
// of rho lanes, lane t owning row t of the block, its sum in a register
// (LaneValues). Step s = 0 .. rho - 1 gives lane t column (t + s) mod rho:
// the lanes of a step hold distinct rows and distinct columns, so each
// column's sum in team scratch has one writer per step; every step is one
// ThreadVectorRange followed by intrinsics::lane_fence() (kokkos_ext/lanes.hpp:
// CUDA's ThreadVectorRange ends with a warp synchronisation, HIP's needs the
// fence), so the lanes of the next step see the previous step's writes. Row sums stay in
// registers while the team's consecutive blocks share their block row and
// are flushed when the row changes (a row segment); column sums are flushed
// once per block.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/lanes.hpp>
#include <tdmaps/launch/detail/make_tile.hpp>
#include <tdmaps/launch/detail/reduce_functors.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/detail/map_traits.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

namespace tdmaps {
namespace detail {

/// Largest block side (the local arrays of the walks below).
constexpr int pair_max_rho = 32;

/// One Value per vector lane of a lane walk. On GPU backends each lane of a
/// ThreadVectorRange of length rho (= the team's vector length) runs its one
/// index in its own hardware thread, so a thread-local Value is that lane's
/// register; a host team runs all lanes of the range in one thread, so it
/// holds one Value per lane.
template <class Value, bool Gpu>
struct LaneValues {
  Value v[pair_max_rho];
  KOKKOS_FORCEINLINE_FUNCTION Value& operator()(int lane) { return v[lane]; }
};
template <class Value>
struct LaneValues<Value, true> {
  Value v;
  KOKKOS_FORCEINLINE_FUNCTION Value& operator()(int) { return v; }
};

/// out(i) += v, atomically: Traits::atomic_add, or, for a View of
/// Kokkos::Array (which Kokkos stores member by member, its entries proxies
/// rather than Values), one atomic add per member.
template <class Traits, class Out, class Value>
KOKKOS_FORCEINLINE_FUNCTION void atomic_add_into(const Out& out, index_t i, const Value& v) {
  if constexpr (std::is_lvalue_reference<decltype(out(i))>::value) {
    Traits::atomic_add(&out(i), v);
  } else {
    auto entry = out(i);
    for (std::size_t k = 0; k < entry.size(); ++k) Kokkos::atomic_add(&entry[k], v[k]);
  }
}

/// One past row ti's last column in block t: all columns off the diagonal;
/// on a diagonal block the columns tj < ti (tj <= ti with the diagonal).
KOKKOS_FORCEINLINE_FUNCTION int pair_row_end(const Tile& t, int ti, bool include_diagonal) {
  if (!t.diagonal()) return t.cols;
  const int e = ti + (include_diagonal ? 1 : 0);
  return e < t.cols ? e : t.cols;
}

/// Columns tj < this of block t receive a pair (on a diagonal block column
/// tj gets rows ti > tj, or ti >= tj).
KOKKOS_FORCEINLINE_FUNCTION int pair_cols_touched(const Tile& t, bool include_diagonal) {
  if (!t.diagonal()) return t.rows > 0 ? t.cols : 0;
  const int c = t.rows - (include_diagonal ? 0 : 1);
  return c < t.cols ? c : t.cols;
}

/// for_each_pair_both_ends' team functor (the top of this file).
template <class ExecSpace, class Map, class Kernel, class Out, class Traits>
struct PairBothEndsFunctor {
  using Value = typename Out::non_const_value_type;
  Map map;
  Kernel kernel;
  Out out;
  int launch = 0;
  int log2_rho = 0;
  bool include_diagonal = false;  ///< the pairs (i, i) too (a lower domain and PairDiagonal::include)
  index_t offset = 0;             ///< first omega of this Kokkos launch
  index_t count = 0;              ///< omegas of this Kokkos launch
  int per_team = 1;               ///< consecutive omegas a team takes

  /// Team scratch of a launch: the column sums of the lane walk.
  static std::size_t scratch_bytes(int rho) {
    return lane_walk<ExecSpace>() ? sizeof(Value) * static_cast<std::size_t>(rho) : 0;
  }

  /// f(tile) for the blocks of this team's omegas [rank K, rank K + K) of the launch.
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION void team_blocks(const team_member_t<ExecSpace>& team, const F& f) const {
    const index_t first = static_cast<index_t>(team.league_rank()) * per_team;
    const index_t last = first + per_team < count ? first + per_team : count;
    for (index_t k = first; k < last; ++k) {
      block_type_t<Map> b;
      if (detail::block(map, launch, offset + k, b)) f(make_tile(map.domain, b));
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION int row_end(const Tile& t, int ti) const { return pair_row_end(t, ti, include_diagonal); }
  KOKKOS_FORCEINLINE_FUNCTION int cols_touched(const Tile& t) const { return pair_cols_touched(t, include_diagonal); }

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    if constexpr (lane_walk<ExecSpace>())
      lane_walk_blocks(team);
    else
      host_walk_blocks(team);
  }

  KOKKOS_FORCEINLINE_FUNCTION void host_walk_blocks(const team_member_t<ExecSpace>& team) const {
    team_blocks(team, [&](const Tile& t) {
      Value col[pair_max_rho];
      const int ncols = cols_touched(t);
      for (int tj = 0; tj < ncols; ++tj) col[tj] = Traits::zero();
      for (int ti = 0; ti < t.rows; ++ti) {
        const index_t i = t.i0 + ti;
        const int end = row_end(t, ti);
        if (end <= 0) continue;
        Value row = Traits::zero();
        for (int tj = 0; tj < end; ++tj) {
          Value to_i = Traits::zero(), to_j = Traits::zero();
          kernel(i, t.j0 + tj, to_i, to_j);
          Traits::add(row, to_i);
          Traits::add(col[tj], to_j);
        }
        atomic_add_into<Traits>(out, i, row);
      }
      for (int tj = 0; tj < ncols; ++tj) atomic_add_into<Traits>(out, t.j0 + tj, col[tj]);
    });
  }

  KOKKOS_FORCEINLINE_FUNCTION void lane_walk_blocks(const team_member_t<ExecSpace>& team) const {
    const int rho = 1 << log2_rho;
    const int mask = rho - 1;
    Value* const scol = static_cast<Value*>(
        team.team_scratch(0).get_shmem_aligned(sizeof(Value) * static_cast<std::size_t>(rho), tile_scratch_alignment));
    LaneValues<Value, is_gpu_space<ExecSpace>::value> row;  // the row sums of the current row segment
    index_t seg_i0 = -1;                                     // its first row (-1: none open)
    int seg_rows = 0;                                        // its rows inside the domain
    bool seg_used = false;                                   // whether a pair added to it
    const auto flush_rows = [&]() {
      if (seg_used)
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, rho), [&](const int lane) {
          if (lane < seg_rows) atomic_add_into<Traits>(out, seg_i0 + lane, row(lane));
        });
    };
    bool busy = false;
    team_blocks(team, [&](const Tile& t) {
      if (busy) team.team_barrier();  // the previous block's column flush has read the scratch
      busy = true;
      if (t.i0 != seg_i0) {
        flush_rows();
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, rho), [&](const int lane) { row(lane) = Traits::zero(); });
        seg_i0 = t.i0;
        seg_rows = t.rows;
        seg_used = false;
      }
      const int ncols = cols_touched(t);
      if (ncols <= 0) return;
      seg_used = true;
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, rho), [&](const int lane) { scol[lane] = Traits::zero(); });
      team.team_barrier();
      for (int s = 0; s < rho; ++s) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, rho), [&](const int ti) {
          const int tj = (ti + s) & mask;
          if (ti >= t.rows || tj >= row_end(t, ti)) return;
          Value to_i = Traits::zero(), to_j = Traits::zero();
          kernel(t.i0 + ti, t.j0 + tj, to_i, to_j);
          Traits::add(row(ti), to_i);
          Traits::add(scol[tj], to_j);
        });
        intrinsics::lane_fence();
      }
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, rho), [&](const int tj) {
        if (tj < ncols) atomic_add_into<Traits>(out, t.j0 + tj, scol[tj]);
      });
    });
    flush_rows();
  }
};

}  // namespace detail
}  // namespace tdmaps

#endif
