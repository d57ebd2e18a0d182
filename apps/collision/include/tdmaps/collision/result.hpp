#ifndef TDMAPS_COLLISION_RESULT_HPP
#define TDMAPS_COLLISION_RESULT_HPP

// What collide() produces besides the count of colliding pairs, and where
// each pair's bit or entry goes. Pairs are j < i (the strict lower
// triangle); pair (i, j) has the packed index p = T(i - 1) + j, row-major
// ((1,0), (2,0), (2,1), (3,0), ...), T(n - 1) pairs in all.
//   count      the number only.
//   flags      bit p of little-endian uint32 words, flag_words(n) words.
//   rowflags   every row starts a word: pair (i, j) is bit j % 32 of word
//              row_flag_word(i) + j / 32, row_flag_words(n) words.
//   tileflags  tiles of 32 x 32 pairs: tile (I, J) is tile T(I) + J (the
//              lambda map's order at block side 32), its 32 words are its
//              rows; pair (i, j) is bit j % 32 of word tile_flag_word(i, j).
//   pairs      the exact list of (i, j), sorted by packed index, as
//              np.argwhere(np.tril(mask, -1)) gives it.
//   intflags   the papers' layout: one int32 (0 or 1) per pair, packed order.
// Bits and entries of pairs outside the triangle or past n are 0.

#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>

#include <tdmaps/kokkos_ext/backend.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

#include <cstdint>

namespace tdmaps {
namespace collision {

/// What collide() produces besides the count.
enum class Result { count, flags, pairs, intflags, rowflags, tileflags };

/// The result's name on the command line and in labels.
inline const char* name(Result r) {
  switch (r) {
    case Result::count: return "count";
    case Result::flags: return "flags";
    case Result::pairs: return "pairs";
    case Result::intflags: return "intflags";
    case Result::rowflags: return "rowflags";
    case Result::tileflags: return "tileflags";
  }
  return "?";
}

/// (k x 2) colliding pairs (i, j), j < i.
template <class MemorySpace>
using PairList = Kokkos::View<std::int64_t* [2], Kokkos::LayoutRight, MemorySpace>;

/// Where a call's summary lands for the host to read (Output::summary):
/// memory the device writes and the host reads without a copy (a GPU's
/// memory: its backend's host-readable memory, tdmaps::backend::host_readable_space:
/// pinned host memory on CUDA and HIP, host USM on SYCL); memory the host
/// can read (host backends, CUDA's UVM): the memory space itself.
template <class MemorySpace>
struct summary_space {
  /// the memory space of the summary
  using type = std::conditional_t<backend::is_device_memory<MemorySpace>::value,
                                  typename backend::host_readable_space<typename MemorySpace::execution_space>::type,
                                  MemorySpace>;
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, type>::accessible,
                "tdmaps::collision: the summary must be host-readable memory");
};

/// The outputs collide() fills; only the one of the requested Result is used.
template <class MemorySpace>
struct Output {
  Kokkos::View<std::uint32_t*, MemorySpace> flags;    ///< flags: flag_words(n) words, given by the caller
  Kokkos::View<std::int32_t*, MemorySpace> intflags;  ///< intflags: pair_count(n) entries, given by the caller
  Kokkos::View<std::uint32_t*, MemorySpace> rowflags;  ///< rowflags: row_flag_words(n) words, given by the caller
  Kokkos::View<std::uint32_t*, MemorySpace> tileflags;  ///< tileflags: tile_flag_words(n) words, given by the caller
  PairList<MemorySpace> pairs;                        ///< pairs: (re)allocated to (count, 2)
  index_t max_pairs = -1;                             ///< pairs: more throw std::length_error; < 0: no cap
  /// count, intflags (and bit flags on the GPU tile path): the kernel's
  /// counters and the input check's result; allocated by the first call
  /// that needs them and reused by later calls with this Output (no
  /// allocation, and no free that synchronises the device, per call).
  Kokkos::View<unsigned long long*, MemorySpace> counters;
  /// With counters: the call's hits and first bad row, written by the
  /// device where the host reads them: no device-to-host copy into
  /// pageable memory per call (a staged, synchronous copy that the
  /// collision/3d_count_tile cases at small n pay for visibly).
  Kokkos::View<unsigned long long[2], typename summary_space<MemorySpace>::type> summary;
};

/// Number of pairs j < i < n: T(n - 1).
KOKKOS_INLINE_FUNCTION constexpr index_t pair_count(index_t n) { return n > 1 ? tri(n - 1) : 0; }
/// Packed index of pair (i, j), j < i.
KOKKOS_INLINE_FUNCTION constexpr index_t pair_index(index_t i, index_t j) { return tri(i - 1) + j; }
/// uint32 words of the bit-packed flags of n spheres.
KOKKOS_INLINE_FUNCTION constexpr index_t flag_words(index_t n) { return (pair_count(n) + 31) / 32; }
/// First word of row i of the row-aligned bit flags (Result::rowflags):
/// rows k < i take ceil(k / 32) words each, which is (q + 1) (16 q + r) for
/// i - 1 = 32 q + r, 0 <= r < 32 (rows 1 .. 32 one word each, 33 .. 64 two,
/// ...); 0 for i <= 1.
KOKKOS_INLINE_FUNCTION constexpr index_t row_flag_word(index_t i) {
  // Unsigned: shifts and masks, no sign fix-ups of a signed division.
  return i <= 1 ? 0
                : static_cast<index_t>((static_cast<std::uint64_t>(i - 1) / 32 + 1) *
                                       (16 * (static_cast<std::uint64_t>(i - 1) / 32) + static_cast<std::uint64_t>(i - 1) % 32));
}
/// uint32 words of the row-aligned bit flags of n spheres.
KOKKOS_INLINE_FUNCTION constexpr index_t row_flag_words(index_t n) { return n > 1 ? row_flag_word(n) : 0; }
/// The row i and the word k inside it (columns 32 k .. 32 k + 31) of word w
/// of the row-aligned bit flags: the inverse of row_flag_word. Rows 32 q + 1
/// .. 32 q + 32 take q + 1 words each from 16 q (q + 1) = 32 T(q), so q =
/// tri_root(w / 32) (exact for w / 32 <= T(2^31)), then a division by q + 1.
KOKKOS_INLINE_FUNCTION void row_of_flag_word(index_t w, index_t& i, index_t& k) {
  const index_t q = tri_root(w >> 5);
  const index_t off = w - 32 * tri(q);
  const index_t r = off / (q + 1);
  i = 32 * q + 1 + r;
  k = off - r * (q + 1);
}

/// Tiles of 32 x 32 pairs on or below the diagonal of n spheres (T(ceil(n /
/// 32)) tiles; none for n <= 1).
KOKKOS_INLINE_FUNCTION constexpr index_t flag_tiles(index_t n) { return n > 1 ? tri((n + 31) / 32) : 0; }
/// uint32 words of the tiled bit flags (Result::tileflags) of n spheres: 32
/// per tile.
KOKKOS_INLINE_FUNCTION constexpr index_t tile_flag_words(index_t n) { return 32 * flag_tiles(n); }
/// The word of the tiled bit flags that holds pair (i, j), j < i: tile (I, J)
/// = (i / 32, j / 32) is tile T(I) + J (the lambda map's order at block side
/// 32), its words 32 (T(I) + J) .. + 31 are its rows i mod 32; the pair is
/// bit j mod 32 of the word.
KOKKOS_INLINE_FUNCTION constexpr index_t tile_flag_word(index_t i, index_t j) {
  return 32 * (tri(i >> 5) + (j >> 5)) + (i & 31);
}
/// The first row i and column j0 of word w of the tiled bit flags (the
/// inverse of tile_flag_word: w = tile_flag_word(i, j0 + k), 0 <= k < 32).
KOKKOS_INLINE_FUNCTION void row_of_tile_word(index_t w, index_t& i, index_t& j0) {
  const index_t tile = w >> 5;
  const index_t I = tri_root(tile);
  i = 32 * I + (w & 31);
  j0 = 32 * (tile - tri(I));
}

}  // namespace collision
}  // namespace tdmaps

#endif
