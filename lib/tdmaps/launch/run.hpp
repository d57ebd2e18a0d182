#ifndef TDMAPS_LAUNCH_RUN_HPP
#define TDMAPS_LAUNCH_RUN_HPP

// Runs of a triangle in the memory order of a packed output: consecutive
// linear indices k0 .. k0 + count - 1 in a RunOrder, with the element at k0
// found by eq. (4) and the rest stepped to (for_each_run launches them).
//
// Orders (RunOrder):
//   rows     row by row, j ascending: k = T(i) + j (lower, j <= i) or
//            T(i - 1) + j (strict lower, j < i); tdmaps' packed EDM and the
//            collision pair index.
//   columns  column by column, i ascending: column j holds i = j .. n - 1
//            (lower) or j + 1 .. n - 1 (strict); the strict form is SciPy's
//            pdist (condensed) order.

#include <tdmaps/core/sqrt.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {

/// The order a run walks the triangle in.
enum class RunOrder {
  rows,    ///< row by row, j fastest (the packed order)
  columns  ///< column by column from the last column, bottom row first
};

/// Consecutive linear indices k0 .. k0 + count - 1 of a triangle in a RunOrder;
/// (i, j) is the element at k0.
struct Run {
  index_t k0 = 0;  ///< linear index of the first element
  index_t i = 0;   ///< row of the first element
  index_t j = 0;   ///< column of the first element
  int count = 0;   ///< elements of the run
};

/// Elements of the triangle of side n.
KOKKOS_FORCEINLINE_FUNCTION index_t run_total(index_t n, Triangle t) {
  return n <= 0 ? 0 : t == Triangle::lower ? tri(n) : tri(n - 1);
}

/// (i, j) of linear index k (0 <= k < run_total(n, t)) in `order`: the
/// lambda map at element granularity (the rsqrt guess, integer-corrected, as
/// LambdaMap<SqrtRsqrt, Exact>; exact for k <= T(2^31)).
KOKKOS_FORCEINLINE_FUNCTION void run_start(index_t n, Triangle t, RunOrder order, index_t k, index_t& i, index_t& j) {
  const bool strict = t == Triangle::strict_lower;
  if (order == RunOrder::rows) {
    // Lower: k = T(i) + j. Strict: k = T(i - 1) + j, i.e. (i - 1, j) of the lower triangle of side n - 1.
    lambda_block<SqrtRsqrt, Exact>(k, i, j);
    if (strict) ++i;
  } else {
    // Read backwards, the columns are m = 0, 1, ... (from the last) with
    // m + 1 elements each, bottom row first: k' = T(m) + r.
    index_t m, r;
    lambda_block<SqrtRsqrt, Exact>(run_total(n, t) - 1 - k, m, r);
    j = (strict ? n - 2 : n - 1) - m;
    i = n - 1 - r;
  }
}

/// The element after (i, j) in `order`.
KOKKOS_FORCEINLINE_FUNCTION void run_next(index_t n, Triangle t, RunOrder order, index_t& i, index_t& j) {
  const index_t s = t == Triangle::strict_lower ? 1 : 0;
  if (order == RunOrder::rows) {
    if (++j > i - s) {
      ++i;
      j = 0;
    }
  } else {
    if (++i == n) {
      ++j;
      i = j + s;
    }
  }
}

}  // namespace tdmaps

#endif
