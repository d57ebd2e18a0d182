#ifndef TDMAPS_LAUNCH_DETAIL_LANE_WALK_INDEX_HPP
#define TDMAPS_LAUNCH_DETAIL_LANE_WALK_INDEX_HPP

// Not API (tdmaps::detail): the index math of a lane walk of W lanes, R rows
// and R columns per lane (launch/detail/pair_law_functor.hpp), host-callable
// so that it is tested on the host at every width a backend may have.
//
// A block is side = W R rows by W R columns. Lane t holds rows i0 + t + W r
// (r = 0 .. R - 1) for the whole block, and at step s = 0 .. W - 1 the
// columns j0 + (t + s) mod W + W c: after each step every lane takes the
// columns (data and sums) of lane next_from(t) = t + 1 mod W, so that in W
// steps each lane meets every column of the block once and, after the last
// rotation, every column's sum is back on its owner lane t = column mod W.

#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace detail {

template <int W, int R>
struct LaneWalkIndex {
  static_assert(W > 0 && (W & (W - 1)) == 0, "tdmaps: a lane walk's width is a power of two");
  static_assert(R > 0, "tdmaps: a lane walk holds at least one row per lane");
  static constexpr int lanes = W;     ///< lanes of a team
  static constexpr int rows = R;      ///< rows (and columns) per lane
  static constexpr int side = W * R;  ///< rows (and columns) of a block

  /// Row r of `lane` in the block whose first row is i0.
  KOKKOS_FORCEINLINE_FUNCTION static constexpr index_t row(index_t i0, int lane, int r) { return i0 + lane + W * r; }
  /// Column c that `lane` holds at step s in the block whose first column is j0.
  KOKKOS_FORCEINLINE_FUNCTION static constexpr index_t col(index_t j0, int lane, int s, int c) {
    return j0 + ((lane + s) & (W - 1)) + W * c;
  }
  /// The lane whose columns `lane` takes after a step.
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int next_from(int lane) { return (lane + 1) & (W - 1); }
  /// Whether the walk evaluates the pair (i, j) it meets: both points in the
  /// domain [0, n), and on a diagonal block (i0 == j0, where the walk meets
  /// (i, j) and (j, i)) only i > j, or i >= j with the diagonal.
  KOKKOS_FORCEINLINE_FUNCTION static constexpr bool takes(index_t i, index_t j, index_t n, bool diagonal_block,
                                                          bool with_diagonal) {
    return i < n && j < n && (!diagonal_block || i > j || (with_diagonal && i == j));
  }
};

}  // namespace detail
}  // namespace tdmaps

#endif
