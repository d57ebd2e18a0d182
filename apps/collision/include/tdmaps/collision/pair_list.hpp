#ifndef TDMAPS_COLLISION_PAIR_LIST_HPP
#define TDMAPS_COLLISION_PAIR_LIST_HPP

// Result::pairs: the exact list in two passes. The first counts the
// colliding pairs per row, an exclusive scan makes the row offsets (row i
// owns [offset(i), offset(i + 1))); the second reserves a slot of its row's
// segment with an atomic per colliding pair and writes its packed index
// there; the keys are sorted (j within a row) and expanded to (i, j). A
// reservation past a row's counted size (only possible if the passes
// disagreed) is not written but flagged, and rows that end short are caught
// too: the second pass is retried once, then it throws, never a silent
// truncation. Output::max_pairs caps the count: more throw
// std::length_error before anything is allocated.

#include <tdmaps/collision/buffers.hpp>
#include <tdmaps/collision/launch.hpp>
#include <tdmaps/collision/result.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/for_each.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

#include <stdexcept>
#include <string>

namespace tdmaps {
namespace collision {
namespace detail {

/// row_offset(i) = sum of rows(0 .. i - 1), i = 0 .. n (n + 1 entries).
template <class MemorySpace>
struct RowOffsets {
  Kokkos::View<const counter_t*, MemorySpace> rows;
  Kokkos::View<index_t*, MemorySpace> offset;
  index_t n;
  KOKKOS_FUNCTION void operator()(const index_t i, index_t& acc, const bool last) const {
    if (last) offset(i) = acc;
    if (i < n) acc += static_cast<index_t>(rows(i));
  }
};

/// Rows whose cursor did not end exactly at their counted size.
template <class MemorySpace>
struct RowMismatches {
  Kokkos::View<const counter_t*, MemorySpace> cursor;
  Kokkos::View<const index_t*, MemorySpace> offset;
  KOKKOS_FUNCTION void operator()(const index_t i, index_t& bad) const {
    if (static_cast<index_t>(cursor(i)) != offset(i + 1) - offset(i)) ++bad;
  }
};

/// Sorted packed indices -> (i, j) rows.
template <class MemorySpace>
struct ExpandPairs {
  Kokkos::View<const index_t*, MemorySpace> keys;
  PairList<MemorySpace> pairs;
  KOKKOS_FUNCTION void operator()(const index_t k) const {
    const index_t p = keys(k);
    const index_t r = tri_root(p);  // p = T(i - 1) + j with j < i: r = i - 1
    pairs(k, 0) = r + 1;
    pairs(k, 1) = p - tri(r);
  }
};

template <class ExecSpace, class Map>
index_t pair_list(const ExecSpace& space, const Map& map, Kernel kernel, Buffers<typename ExecSpace::memory_space> b,
                  Output<typename ExecSpace::memory_space>& out, const LaunchHints& hints,
                  const OmegaRange* range = nullptr) {
  using mem = typename ExecSpace::memory_space;
  const index_t n = map.domain.n;
  // Pass 1: colliding pairs per row.
  b.rows = Kokkos::View<counter_t*, mem>(Kokkos::view_alloc(space, "tdmaps::collision::row_count"), n);
  b.mode = Mode::row_count;
  launch(space, map, kernel, b, "pairs_count", hints, range);
  Kokkos::View<index_t*, mem> offset(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collision::row_offset"),
                                     n + 1);
  index_t k = 0;
  Kokkos::parallel_scan("tdmaps::collision::row_offset", range_t<ExecSpace>(space, 0, n + 1),
                        RowOffsets<mem>{b.rows, offset, n}, k);
  space.fence();
  if (out.max_pairs >= 0 && k > out.max_pairs)
    throw std::length_error("tdmaps::collision: " + std::to_string(k) + " colliding pairs exceed the cap of " +
                            std::to_string(out.max_pairs) + " (Output::max_pairs); nothing was written");
  b.row_offset = offset;
  b.keys = Kokkos::View<index_t*, mem>(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collision::keys"), k);
  b.overflow = Kokkos::View<int, mem>(Kokkos::view_alloc(space, "tdmaps::collision::overflow"));
  // Pass 2: each row's pairs into its segment. The passes evaluate the same
  // predicate, so they agree; should they not (a miscompiled or nondeterministic
  // predicate), the mismatch is caught here, never written past a segment.
  for (int attempt = 0; k > 0; ++attempt) {
    Kokkos::deep_copy(space, b.rows, counter_t(0));
    Kokkos::deep_copy(space, b.overflow, 0);
    b.mode = Mode::append;
    launch(space, map, kernel, b, "pairs_write", hints, range);
    space.fence();
    int overflow = 0;
    Kokkos::deep_copy(overflow, b.overflow);
    const index_t bad = sum(space, "tdmaps::collision::pairs_check", n, RowMismatches<mem>{b.rows, offset});
    if (overflow == 0 && bad == 0) break;
    if (attempt == 1)
      throw std::runtime_error("tdmaps::collision: the pair list's two passes disagree on " + std::to_string(bad) +
                               " rows twice in a row; refusing to return a truncated or padded list");
  }
  // Rows are in order already; the sort orders j within each row (the blocks of
  // a row reserve their pieces in any order). Kokkos::sort runs on the View's
  // default execution space instance: fence around it.
  space.fence();
  if (k > 1) {
    Kokkos::sort(b.keys);
    ExecSpace().fence();
  }
  out.pairs = PairList<mem>(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collision::pairs"), k);
  Kokkos::parallel_for("tdmaps::collision::expand_pairs", range_t<ExecSpace>(space, 0, k),
                       ExpandPairs<mem>{b.keys, out.pairs});
  space.fence();
  return k;
}

}  // namespace detail
}  // namespace collision
}  // namespace tdmaps

#endif
