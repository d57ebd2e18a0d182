#ifndef TDMAPS_LAUNCH_DETAIL_REDUCE_FUNCTORS_HPP
#define TDMAPS_LAUNCH_DETAIL_REDUCE_FUNCTORS_HPP

// Not API (tdmaps::detail): what the pair reductions of launch/reduce.hpp
// run per team. Each team walks its blocks as the element kernels do (GPU: a
// lane per column, rows stepped per thread; host: a team of one, row by row),
// keeps its partial result in registers or team scratch, and combines it
// once per team (reduce_pairs: Kokkos' team reduction; histograms: one
// atomic per bin and team) or once per block row and column (row reductions).

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/launch/detail/make_tile.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace tdmaps {
namespace detail {

/// Whether the reductions walk blocks as GPU teams do (lanes, rows stepped
/// per thread); TDMAPS_FORCE_LANE_TILE (tests) makes host teams do so too.
template <class ExecSpace>
KOKKOS_INLINE_FUNCTION constexpr bool lane_walk() {
#if defined(TDMAPS_FORCE_LANE_TILE)
  return true;
#else
  return is_gpu_space<ExecSpace>::value;
#endif
}

/// f(i, j) for the elements of tile t in column lane tj, rows first, first + step, ...
template <class F>
KOKKOS_FORCEINLINE_FUNCTION void walk_column(const Tile& t, int tj, int first, int step, const F& f) {
  if (tj >= t.cols) return;
  const int strict = t.triangle == Triangle::strict_lower ? 1 : 0;
  const index_t j = t.j0 + tj;
  const int start = t.diagonal() ? first_row_from(first, step, tj + strict) : first;
  for (int ti = start; ti < t.rows; ti += step) f(t.i0 + ti, j);
}

/// f(i, j) for the elements of tile t in row lane ti, columns first, first + step, ...
template <class F>
KOKKOS_FORCEINLINE_FUNCTION void walk_row(const Tile& t, int ti, int first, int step, const F& f) {
  if (ti >= t.rows) return;
  const int strict = t.triangle == Triangle::strict_lower ? 1 : 0;
  const index_t i = t.i0 + ti;
  const int end = t.diagonal() ? (ti + 1 - strict < t.cols ? ti + 1 - strict : t.cols) : t.cols;
  for (int tj = first; tj < end; tj += step) f(i, t.j0 + tj);
}

/// f(i, j) for every element of tile t (one host thread).
template <class F>
KOKKOS_FORCEINLINE_FUNCTION void walk_all(const Tile& t, const F& f) {
  const int strict = t.triangle == Triangle::strict_lower ? 1 : 0;
  for (int ti = 0; ti < t.rows; ++ti) {
    const int end = t.diagonal() ? (ti + 1 - strict < t.cols ? ti + 1 - strict : t.cols) : t.cols;
    for (int tj = 0; tj < end; ++tj) f(t.i0 + ti, t.j0 + tj);
  }
}

/// Whether a pair kernel offers column(j): a kernel for the pairs (i, j) of
/// one column j, called as the kernel is, that loads what depends on j once
/// (the GPU walks give each lane one column per block).
template <class Kernel, class = void>
struct has_column : std::false_type {};
template <class Kernel>
struct has_column<Kernel, std::void_t<decltype(std::declval<const Kernel&>().column(index_t()))>> : std::true_type {};

/// kernel.column(j) where the kernel offers it, else the kernel itself.
template <class Kernel>
KOKKOS_FORCEINLINE_FUNCTION decltype(auto) column_kernel(const Kernel& kernel, const index_t j) {
  if constexpr (has_column<Kernel>::value)
    return kernel.column(j);
  else
    return (kernel);
}

/// f(k, i, j) for the pairs (i, j) of tile t that the calling thread takes
/// (lane walks: its column lanes, rows stepped; a team of one: all of them),
/// with k the kernel's column form for column j (column_kernel) on lane
/// walks and the kernel itself otherwise.
template <class ExecSpace, class Kernel, class F>
KOKKOS_FORCEINLINE_FUNCTION void walk_pairs(const team_member_t<ExecSpace>& team, int log2_rho, const Tile& t,
                                            const Kernel& kernel, const F& f) {
  if constexpr (lane_walk<ExecSpace>()) {
    for_each_lane(team, log2_rho, [&](const int tj, const int first, const int step) {
      if (tj >= t.cols) return;
      const auto& kj = column_kernel(kernel, t.j0 + tj);
      walk_column(t, tj, first, step, [&](const index_t i, const index_t j) { f(kj, i, j); });
    });
  } else {
    walk_all(t, [&](const index_t i, const index_t j) { f(kernel, i, j); });
  }
}

/// reduce_pairs: kernel(i, j, update) into a per-lane value, joined over the
/// lanes of a thread (ThreadVectorRange) and handed to Kokkos' team reduction once per thread.
template <class ExecSpace, class Map, class Kernel, class Reducer>
struct ReduceFunctor {
  using value_type = typename Reducer::value_type;
  Map map;
  Kernel kernel;
  Reducer reducer;
  int launch = 0;
  int log2_rho = 0;
  int lanes = 1;       ///< vector length of the team
  index_t offset = 0;  ///< first omega of this Kokkos launch
  index_t count = 0;   ///< omegas of this Kokkos launch

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team, value_type& update) const {
    value_type acc;
    reducer.init(acc);
    each_block<ExecSpace>(map, launch, offset, count, team, [&](const Tile& t) {
      walk_pairs<ExecSpace>(team, log2_rho, t, kernel,
                            [&](const auto& k, const index_t i, const index_t j) { k(i, j, acc); });
    });
    value_type mine;
    Kokkos::parallel_reduce(
        Kokkos::ThreadVectorRange(team, lanes), [&](const int, value_type& v) { reducer.join(v, acc); }, Reducer(mine));
    Kokkos::single(Kokkos::PerThread(team), [&]() { reducer.join(update, mine); });
  }
};

/// histogram_pairs: counts per bin in team scratch (bins x uint32), added to
/// the output with one atomic per nonzero bin and team; Global (bins that do
/// not fit a team's scratch): one atomic per pair into the output.
template <class ExecSpace, class Map, class Kernel, class Counts, bool Global = false>
struct HistogramFunctor {
  Map map;
  Kernel kernel;
  Counts counts;
  int bins = 0;
  int launch = 0;
  int log2_rho = 0;
  index_t offset = 0;
  index_t count = 0;

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    // 64-bit counts as unsigned long long: CUDA's native atomic (Kokkos 3
    // takes (unsigned) long through a compare-and-swap loop, a retry storm
    // when every team adds to the same bins).
    const auto out = [&](const int b) { return reinterpret_cast<unsigned long long*>(&counts(b)); };
    [[maybe_unused]] std::uint32_t* h = nullptr;  // the team's bins (scratch path)
    if constexpr (!Global) {
      h = static_cast<std::uint32_t*>(
          team.team_scratch(0).get_shmem_aligned(sizeof(std::uint32_t) * bins, tile_scratch_alignment));
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, bins), [&](const int b) { h[b] = 0; });
      team.team_barrier();
    }
    const auto add = [&](const auto& k, const index_t i, const index_t j) {
      const int b = k(i, j);
      if (b < 0 || b >= bins) return;
      if constexpr (Global)
        Kokkos::atomic_add(out(b), 1ull);
      else
        intrinsics::scratch_add(&h[b], 1u);
    };
    each_block<ExecSpace>(map, launch, offset, count, team, [&](const Tile& t) {
      walk_pairs<ExecSpace>(team, log2_rho, t, kernel,
                            [&](const auto& k, const index_t i, const index_t j) { add(k, i, j); });
    });
    if constexpr (!Global) {
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, bins), [&](const int b) {
        if (h[b] != 0) Kokkos::atomic_add(out(b), static_cast<unsigned long long>(h[b]));
      });
    }
  }
};

/// Whether a reduce_rows kernel has both(i, j, vi, vj) (launch/reduce.hpp).
template <class Kernel, class Value, class = void>
struct has_both : std::false_type {};
template <class Kernel, class Value>
struct has_both<Kernel, Value,
                std::void_t<decltype(std::declval<const Kernel&>().both(index_t(), index_t(), std::declval<Value&>(),
                                                                        std::declval<Value&>()))>> : std::true_type {};

/// reduce_rows: per block, every row's and every column's partial result
/// (row i: kernel(i, j) over the block's j; column j: kernel(j, i) over its
/// i) in team scratch, then one Op::atomic_join per row and column into the output.
template <class ExecSpace, class Map, class Kernel, class Rows, class Op>
struct RowsFunctor {
  using value_type = typename Op::value_type;
  Map map;
  Kernel kernel;
  Rows rows;
  int launch = 0;
  int log2_rho = 0;
  index_t offset = 0;
  index_t count = 0;

  /// vi = kernel(i, j) (row i's), vj = kernel(j, i) (row j's): by the
  /// kernel's both(i, j, vi, vj) where it has one (one evaluation of a
  /// symmetric quantity), else by two calls.
  KOKKOS_FORCEINLINE_FUNCTION void pair_values(index_t i, index_t j, value_type& vi, value_type& vj) const {
    if constexpr (has_both<Kernel, value_type>::value) {
      kernel.both(i, j, vi, vj);
    } else {
      vi = kernel(i, j);
      vj = kernel(j, i);
    }
  }
  /// pair_values with column j's kernel kj (column_kernel) where both() serves
  /// it: kj answers for the pairs (i, j) only, so kernel(j, i) needs both().
  template <class ColumnKernel>
  KOKKOS_FORCEINLINE_FUNCTION void pair_values(const ColumnKernel& kj, index_t i, index_t j, value_type& vi,
                                               value_type& vj) const {
    if constexpr (has_both<ColumnKernel, value_type>::value)
      kj.both(i, j, vi, vj);
    else
      pair_values(i, j, vi, vj);
  }

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    const int rho = map.domain.rho;
    auto* s = static_cast<value_type*>(
        team.team_scratch(0).get_shmem_aligned(sizeof(value_type) * 2 * rho, tile_scratch_alignment));
    value_type* const srow = s;        // rows i0 + ti
    value_type* const scol = s + rho;  // columns j0 + tj
    bool busy = false;
    each_block<ExecSpace>(map, launch, offset, count, team, [&](const Tile& t) {
      if (busy) team.team_barrier();  // the previous block's flush has read the scratch
      busy = true;
      if constexpr (lane_walk<ExecSpace>()) {
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, 2 * rho), [&](const int k) { s[k] = Op::identity(); });
        team.team_barrier();
        for_each_lane(team, log2_rho, [&](const int lane, const int first, const int step) {
          value_type c = Op::identity(), r = Op::identity();
          if (step == 1) {
            // One thread per column walks the block's diagonals: at step k lane
            // l takes row (l + k) mod rho, so the lanes of a step hold distinct
            // rows and columns; each element is evaluated once, its column's
            // value kept in a register, its row's joined into scratch (atomic:
            // lanes need not run in step, but never meet on a row at once).
            const int strict = t.triangle == Triangle::strict_lower ? 1 : 0;
            const bool diag = t.diagonal();
            if (lane < t.cols) {
              const index_t j = t.j0 + lane;
              const auto& kj = column_kernel(kernel, j);
              for (int k = 0; k < rho; ++k) {
                const int ti = (lane + k) & (rho - 1);
                if (ti >= t.rows || (diag && lane + strict > ti)) continue;
                const index_t i = t.i0 + ti;
                value_type vi, vj;
                pair_values(kj, i, j, vi, vj);
                Op::atomic_join(&srow[ti], vi);
                if (i != j) Op::join(c, vj);  // (i, i) is row i's, counted there
              }
            }
            Op::atomic_join(&scol[lane], c);
            return;
          }
          walk_column(t, lane, first, step, [&](const index_t i, const index_t j) {
            if (i != j) Op::join(c, kernel(j, i));  // (i, i) is row i's, counted there
          });
          walk_row(t, lane, first, step, [&](const index_t i, const index_t j) { Op::join(r, kernel(i, j)); });
          Op::atomic_join(&scol[lane], c);
          Op::atomic_join(&srow[lane], r);
        });
      } else {
        for (int k = 0; k < 2 * rho; ++k) s[k] = Op::identity();
        walk_all(t, [&](const index_t i, const index_t j) {
          value_type vi, vj;
          pair_values(i, j, vi, vj);
          Op::join(srow[i - t.i0], vi);
          if (i != j) Op::join(scol[j - t.j0], vj);
        });
      }
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rho), [&](const int k) {
        if (k < t.rows) Op::atomic_join(&rows(t.i0 + k), srow[k]);
        if (k < t.cols) Op::atomic_join(&rows(t.j0 + k), scol[k]);
      });
    });
  }
};

}  // namespace detail
}  // namespace tdmaps

#endif
