#ifndef TDMAPS_LAUNCH_FOR_EACH_RUN_HPP
#define TDMAPS_LAUNCH_FOR_EACH_RUN_HPP

// Output-order launch: a triangle walked in the memory order of a packed
// output, Width consecutive linear indices per thread.
//
//   for_each_run<Width>(space, n, triangle, order, kernel[, label])
//       kernel(run) once per run {k0, i, j, count}: linear indices k0 = Width t
//       .. k0 + count - 1 (count = Width but for the last run), (i, j) the
//       element at k0; the kernel walks the run with run_next().
//
// Orders (RunOrder):
//   rows     row by row, j ascending: k = T(i) + j (lower, j <= i) or
//            T(i - 1) + j (strict lower, j < i); tdmaps' packed EDM and the
//            collision pair index.
//   columns  column by column, i ascending: column j holds i = j .. n - 1
//            (lower) or j + 1 .. n - 1 (strict); the strict form is SciPy's
//            pdist (condensed) order.
//
// This is the lambda map at element granularity: thread t finds the element
// at k0 with eq. (4) (the rsqrt guess, integer-corrected, as LambdaMap<SqrtRsqrt,
// Exact>; exact for k0 <= T(2^31)) and then steps through its run. Why it
// exists beside the block-space maps: a block of a tile kernel writes each of
// its rows of a packed output as a run of rho values that starts anywhere in a
// memory sector, so every such run leaves two sectors that a neighbouring
// block completes; here a warp writes 32 Width-aligned runs, whole sectors
// (16-byte stores for Width = 4 floats). Measured on the H100 in
// perf_tests/README.md.

#include <tdmaps/core/sqrt.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/for_each.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>

namespace tdmaps {

enum class RunOrder { rows, columns };

/// Consecutive linear indices k0 .. k0 + count - 1 of a triangle in a RunOrder;
/// (i, j) is the element at k0.
struct Run {
  index_t k0 = 0;
  index_t i = 0;
  index_t j = 0;
  int count = 0;
};

/// Elements of the triangle of side n.
KOKKOS_FORCEINLINE_FUNCTION index_t run_total(index_t n, Triangle t) {
  return n <= 0 ? 0 : t == Triangle::lower ? tri(n) : tri(n - 1);
}

/// (i, j) of linear index k (0 <= k < run_total(n, t)) in `order`.
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

namespace impl {

template <int Width, class Kernel>
struct RunFunctor {
  Kernel kernel;
  index_t n;
  Triangle triangle;
  RunOrder order;
  index_t total;
  KOKKOS_FUNCTION void operator()(const index_t t) const {
    Run r;
    r.k0 = t * Width;
    r.count = total - r.k0 < Width ? static_cast<int>(total - r.k0) : Width;
    run_start(n, triangle, order, r.k0, r.i, r.j);
    kernel(r);
  }
};

}  // namespace impl

/// kernel(run) for every run of Width consecutive linear indices of the
/// triangle of side n in `order` (see the top of this header). Width is a
/// power of two in 1 .. 64. Throws std::invalid_argument for n < 0.
template <int Width, class ExecSpace, class Kernel>
void for_each_run(const ExecSpace& space, index_t n, Triangle t, RunOrder order, const Kernel& kernel,
                  const std::string& label = "tdmaps::for_each_run") {
  static_assert(Width >= 1 && Width <= 64 && (Width & (Width - 1)) == 0, "tdmaps::for_each_run: Width is a power of two <= 64");
  if (n < 0) throw std::invalid_argument(label + ": n = " + std::to_string(n) + " is negative");
  if (n > max_side)
    throw std::invalid_argument(label + ": n = " + std::to_string(n) + " exceeds tdmaps::max_side = " +
                                std::to_string(max_side));
  const index_t total = run_total(n, t);
  const index_t runs = (total + Width - 1) / Width;
  const impl::RunFunctor<Width, Kernel> f{kernel, n, t, order, total};
  for (index_t begin = 0; begin < runs; begin += max_league_per_launch) {
    const index_t end = runs - begin < max_league_per_launch ? runs : begin + max_league_per_launch;
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, begin, end), f);
  }
}

}  // namespace tdmaps

#endif
