#ifndef TDMAPS_COLLISION_BUFFERS_HPP
#define TDMAPS_COLLISION_BUFFERS_HPP

// What every kernel does with a tested pair (Buffers::apply, one Mode per
// result and pass), and the counters it adds hits to. Only colliding pairs
// cost an atomic, never a reduction: a GPU block holds one pair per thread,
// so the shuffles and barriers of a reduction would be paid by every pair,
// while collisions are a few percent of the pairs. Count and int flags add
// to 256 counters 64 bytes apart (pair (i, j) -> counter (i + j) % 256: the
// lanes of a row hit different counters, and host threads share no line),
// summed once at the end. Bit flags are set with atomic_fetch_or in words
// zeroed first (OR commutes; unset bits are never written), except where a
// kernel computes a word whole.

#include <tdmaps/collision/pair_test.hpp>
#include <tdmaps/collision/result.hpp>
#include <tdmaps/collision/spheres.hpp>
#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tdmaps {
namespace collision {
namespace detail {

/// Counters are unsigned long long: CUDA has native 64-bit atomics only for it.
using counter_t = unsigned long long;
/// Counters of count and intflags: 256, 8 apart (64 bytes: no false sharing on hosts).
constexpr int count_slots = 256;
constexpr int slot_stride = 8;

enum class Mode : int { count, flags, intflags, row_count, append, rowflags, tileflags };

template <class MemorySpace>
struct Buffers {
  ConstSpheres<MemorySpace> s;
  Mode mode = Mode::count;
  Kokkos::View<counter_t*, MemorySpace> slots;           ///< count, intflags
  Kokkos::View<std::uint32_t*, MemorySpace> words;       ///< flags, rowflags, tileflags
  Kokkos::View<std::int32_t*, MemorySpace> ints;         ///< intflags
  Kokkos::View<counter_t*, MemorySpace> rows;            ///< row_count: per-row count; append: per-row cursor
  Kokkos::View<const index_t*, MemorySpace> row_offset;  ///< append: n + 1 exclusive offsets
  Kokkos::View<index_t*, MemorySpace> keys;              ///< append: packed indices
  Kokkos::View<int, MemorySpace> overflow;               ///< append: set when a row's segment would overflow
  /// Tile launches behind the input check on the device (collide): the
  /// check's first bad row, ~0 when none; a team takes no block unless ~0.
  const counter_t* gate = nullptr;

  KOKKOS_FORCEINLINE_FUNCTION bool hit(index_t i, index_t j) const {
    return collides(s(i, 0), s(i, 1), s(i, 2), s(i, 3), s(j, 0), s(j, 1), s(j, 2), s(j, 3));
  }
  /// Reserves one slot of row i's segment; -1 (and the overflow flag) when full.
  KOKKOS_FORCEINLINE_FUNCTION index_t reserve(index_t i) const {
    const counter_t pos = Kokkos::atomic_fetch_add(&rows(i), counter_t(1));
    if (static_cast<index_t>(pos) >= row_offset(i + 1) - row_offset(i)) {
      overflow() = 1;
      return -1;
    }
    return row_offset(i) + static_cast<index_t>(pos);
  }
  /// ORs `bits` (bit k: pair p + k; only pairs that exist set) into the flag
  /// words: the one holding p and, unless p starts a word, the next.
  KOKKOS_FORCEINLINE_FUNCTION void or_bits(index_t p, std::uint32_t bits) const {
    const unsigned at = static_cast<unsigned>(p) & 31u;
    const std::uint32_t lo = bits << at, hi = at != 0 ? bits >> (32u - at) : 0u;
    if (lo != 0) Kokkos::atomic_fetch_or(&words(p >> 5), lo);
    if (hi != 0) Kokkos::atomic_fetch_or(&words((p >> 5) + 1), hi);
  }
  /// What both kernels do with the test of pair (i, j), packed index p. Only
  /// colliding pairs cost an atomic (a few percent of the pairs): cheaper on a
  /// GPU than any reduction, since a block holds one pair per thread and a
  /// reduction's shuffles and barriers would be paid by every pair.
  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void apply(index_t i, index_t j, index_t p, bool h) const {
    if constexpr (M == Mode::count) {
      if (h) Kokkos::atomic_add(&slots(((i + j) & (count_slots - 1)) * slot_stride), counter_t(1));
    } else if constexpr (M == Mode::flags) {
      if (h) Kokkos::atomic_fetch_or(&words(p >> 5), std::uint32_t(1) << (p & 31));
    } else if constexpr (M == Mode::rowflags) {
      if (h) Kokkos::atomic_fetch_or(&words(row_flag_word(i) + (j >> 5)), std::uint32_t(1) << (j & 31));
    } else if constexpr (M == Mode::tileflags) {
      if (h) Kokkos::atomic_fetch_or(&words(tile_flag_word(i, j)), std::uint32_t(1) << (j & 31));
    } else if constexpr (M == Mode::intflags) {
      ints(p) = h ? 1 : 0;
      // Counted as for Mode::count: cheaper than reading the T(n - 1) ints back.
      if (h) Kokkos::atomic_add(&slots(((i + j) & (count_slots - 1)) * slot_stride), counter_t(1));
    } else if constexpr (M == Mode::row_count) {
      if (h) Kokkos::atomic_add(&rows(i), counter_t(1));
    } else {
      if (h) {
        const index_t at = reserve(i);
        if (at >= 0) keys(at) = p;
      }
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION void apply(index_t i, index_t j, index_t p, bool h) const {
    switch (mode) {
      case Mode::count: apply<Mode::count>(i, j, p, h); break;
      case Mode::flags: apply<Mode::flags>(i, j, p, h); break;
      case Mode::intflags: apply<Mode::intflags>(i, j, p, h); break;
      case Mode::row_count: apply<Mode::row_count>(i, j, p, h); break;
      case Mode::append: apply<Mode::append>(i, j, p, h); break;
      case Mode::rowflags: apply<Mode::rowflags>(i, j, p, h); break;
      case Mode::tileflags: apply<Mode::tileflags>(i, j, p, h); break;
    }
  }
};

/// The counted path's device entries (Output::counters): counter k <
/// count_slots at k slot_stride, then the input check's first bad row (~0
/// when none).
constexpr index_t counter_slots = count_slots * slot_stride;
constexpr index_t first_bad_entry = counter_slots;
constexpr index_t counter_entries = counter_slots + 1;
// (Device code reads these as values, index_t(first_bad_entry): a View's
// operator() takes its indices by reference, which would odr-use the host
// constants.)

template <class ExecSpace>
using range_t = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>;

template <class ExecSpace, class Functor>
index_t sum(const ExecSpace& space, const char* label, index_t extent, const Functor& f) {
  index_t total = 0;
  Kokkos::parallel_reduce(label, range_t<ExecSpace>(space, 0, extent), f, total);  // blocks: total is on the host
  return total;
}

}  // namespace detail
}  // namespace collision
}  // namespace tdmaps

#endif
