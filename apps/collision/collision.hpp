#ifndef TDMAPS_APPS_COLLISION_COLLISION_HPP
#define TDMAPS_APPS_COLLISION_COLLISION_HPP

// All-pairs collision detection of spheres (3-D) or intervals (1-D): the
// papers' shared-memory test made into a tool (target tdmaps::collision).
//
// Pairs. Spheres i and j collide when |c_i - c_j| < r_i + r_j (strict:
// touching spheres do not collide). Only pairs j < i are tested, i.e. the
// strict lower triangle (Triangle::strict_lower); pair (i, j) has the packed
// index p(i, j) = T(i - 1) + j, T(k) = k (k + 1) / 2, which orders the pairs
// row-major: (1,0), (2,0), (2,1), (3,0), ... There are T(n - 1) pairs.
//
// Data. Spheres are an (n x 4) Kokkos View of float, LayoutRight, one row
// (x, y, z, r) per sphere; intervals use the same layout with y = z = 0 (so 1-D
// and 3-D share every kernel). Why packed rather than SoA: a block stages its
// rho row spheres and rho column spheres with one contiguous, coalesced read of
// 16 rho bytes each (SoA needs four separate segments per side); the element
// kernel touches one 16-byte sector per sphere instead of one line in each of
// four arrays; and the layout is the file layout ((n, 4) float32, C order).
// In team scratch the tile kernel transposes the block to SoA, so that the
// lanes of a row (one column sphere each) read consecutive words, conflict-free.
//
// Precision. The test runs in fp32 with a filter: the fp32 squared distance d2
// and squared radius sum s2 carry relative errors below 6 * 2^-24, so when
// |d2 - s2| > 2^-16 max(d2, s2) their order is the exact one for the float
// inputs (tested as |d2 - s2| > 2^-15 s2 + 2^-100, which implies it: see
// collides()). Otherwise (a near tie, tiny or overflowing values) it is recomputed
// in fp64, which is exact for centres and radii on the 2^-24 grid in [0, 1]
// (every generated data set: differences, squares and sums are then exactly
// representable) and as close as fp64 allows elsewhere. So the result equals an
// fp64 host oracle on such data, on every backend, whether or not the compiler
// contracts into FMAs, at fp32 speed.
//
// Results (enum Result), all returning the number of colliding pairs (int64).
// Both kernels spend an atomic on colliding pairs only, never a reduction: a
// GPU block holds one pair per thread, so the shuffles and barriers of a
// reduction would be paid by every pair, while collisions are a few percent of
// the pairs (measured on an H100: a per-row/per-block reduction was slower).
//   count     an atomic add per colliding pair, spread over 256 counters 64
//             bytes apart (pair (i, j) -> counter (i + j) % 256: the lanes of a
//             row hit different counters, and host threads share no line),
//             then a reduction of the 256 counters. The GPU tile path sums a
//             thread's hits over its team's blocks (a warp's, at block side
//             32 on CUDA) and adds them with one atomic per thread (warp).
//   flags     one bit per pair, bit p of the little-endian uint32 word array
//             (word p / 32, bit p % 32), ceil(T(n - 1) / 32) words. A word
//             holds up to 32 consecutive packed indices, which cross block and
//             row boundaries, so several teams write one word: the words are
//             zeroed first, then the bit of each colliding pair is set with
//             atomic_fetch_or (race-free: OR commutes; unset bits are never
//             written). The GPU tile path at block side 32 on CUDA gathers
//             each row's 32 bits of a block in a register (lane L: row i0 +
//             L) and ORs them into the two words they straddle, words
//             without a set bit skipped (TileKernel::own_rows).
//             The linear kernel computes each word in one thread
//             and stores it whole (bits past the last pair 0). The count is
//             the popcount of the words, or, on the GPU tile path, the
//             kernel's own count of the bits it sets (as for count).
//   rowflags  the bit flags with every row starting a word: row i (pairs j
//             < i) takes ceil(i / 32) words from row_flag_word(i), pair (i,
//             j) is bit j % 32 of word row_flag_word(i) + j / 32 (little-
//             endian uint32; bits past j = i - 1 are 0), row_flag_words(n)
//             words in all (fewer than n more than flag_words(n)). A row is a
//             bitset of its own (its words, popcounts, ctz walks); and at
//             block side 32 the 32 pairs of a block's row are exactly one
//             word: the GPU tile kernel stores each word whole, once, with
//             a plain store: no zeroing, no atomics (the bit flags above
//             pay both, since their words straddle blocks). The linear
//             kernel computes a word per thread; the other kernels and
//             block sides zero the words and set bits with atomic_fetch_or.
//             Counted as flags are.
//   tileflags the bit flags in tiles of 32 x 32 pairs: tile (I, J), J <= I,
//             the pairs of rows 32 I .. 32 I + 31 and columns 32 J .. 32 J +
//             31, is tile T(I) + J (the lambda map's block order at block
//             side 32) and takes the 32 words from 32 (T(I) + J), one per
//             row: pair (i, j) is bit j % 32 of word tile_flag_word(i, j) =
//             32 (T(i / 32) + j / 32) + i % 32 (little-endian uint32; bits of
//             pairs outside the strict lower triangle or past n are 0),
//             tile_flag_words(n) = 32 T(ceil(n / 32)) words. At block side
//             32 a block is one tile and its 32 row words are one 128-byte
//             line: the GPU tile kernel's warp stores it whole with one
//             coalesced store (the row-aligned flags' 32 words of a block
//             lie in 32 rows: 32 lines per store). The linear kernel
//             computes a word per thread; the other kernels and block sides
//             zero the words and set bits with atomic_fetch_or. Counted as
//             flags are.
//   pairs     the exact list of colliding pairs, a (k x 2) int64 View of
//             (i, j), j < i, sorted by packed index (i ascending, then j),
//             i.e. numpy's np.argwhere(np.tril(mask, -1)) order. Two passes:
//             count per row, exclusive scan into row offsets (row i owns
//             [offset(i), offset(i + 1))), then each colliding pair reserves a
//             slot of its row's segment with an atomic and writes its packed
//             index there; the keys are sorted (j within a row) and expanded.
//             The output is (re)allocated to exactly k rows. A reservation past
//             a row's counted size (only possible if the passes disagreed) is
//             not written but flagged; rows that end short are detected too;
//             either way the second pass is retried once, then it throws:
//             never a silent truncation. Output::max_pairs caps k: more pairs
//             throw std::length_error before anything is allocated.
//   intflags  the papers' layout: one int32 (0 or 1) per pair, T(n - 1)
//             entries in packed order; every entry is written by exactly one
//             thread (maps cover each pair once), with plain stores; the
//             count is taken as for count (re-reading the ints would cost a
//             second pass over 4 T(n - 1) bytes).
//
// Kernels (enum Kernel):
//   tile      for block-space maps (bb, lambda, rb, rec, h): the block's rho
//             row spheres and rho column spheres are staged in team scratch
//             (one coalesced read each), team_barrier, then for_each_in_tile
//             tests the block's pairs from scratch (the papers' shared-memory
//             test). On GPU backends the row spheres and a window of 2 rho
//             column spheres are staged (16-byte aligned, one vector load
//             each). Int flags: the lanes of a row take the rho pairs of one
//             chunk aligned to the output (TileKernel::lane_rows), whole
//             128-byte stores. The other results: on a whole off-diagonal
//             block each lane keeps its row sphere in registers and walks
//             the block's columns (TileKernel::own_rows).
//   element   any map, UTM included: each pair reads both spheres from global
//             memory (the only option of a thread-space map).
//   linear    the pairs in packed order, consecutive pairs per thread
//             (tdmaps::for_each_run: the lambda formula at element
//             granularity finds a thread's first pair, then it steps): 32
//             pairs = one whole flag word, or 4 int flags = one 16-byte store.
//             Uses the map's domain only, not its blocks.
//
// Entry point (the execution space instance first):
//   index_t collide(space, spheres, map, result, kernel, out[, hints])
// map is any tdmaps map over Domain2(n, rho, Triangle::strict_lower) with n =
// spheres.extent(0). Sizes and inputs are checked (std::invalid_argument
// naming them): NaN/infinite coordinates or radii and negative radii are
// rejected naming the row. n = 0 and n = 1 are valid and have no pairs.
//
// Random data (random_spheres): std::mt19937_64(seed), for each sphere in order
// D centre coordinates then one radius. A coordinate is (g() >> 40) 2^-24:
// uniform on the 2^-24 grid of [0, 1). A radius is uniform on the 2^-24 grid
// points of [r_min, r_max] (k = lo + g() % (hi - lo + 1), lo/hi the grid points
// at/inside the range; the modulo bias is below 2^-40), 0 <= r_min <= r_max <= 1.
// Only the engine's output is used (no std:: distribution, whose algorithm is
// implementation-defined), so a seed gives the same spheres everywhere.
// Presets (default_radii), with the fraction of colliding pairs p measured in
// the unit box (boundary effects included):
//                 dense                       sparse
//   3-D   r in [0.05, 0.15]  p ~ 2.9e-2   r in [0.01, 0.03]        p ~ 2.9e-4
//   1-D   r in [0.005, 0.015] p ~ 4.0e-2  r in [0.00005, 0.00015] p ~ 4.0e-4
// (p ~ (4 pi / 3) E[(r_i + r_j)^3] in 3-D and 2 E[r_i + r_j] in 1-D, less a
// little at the walls): "dense" is the papers' regime where the kernel, not the
// output, dominates a pair list; "sparse" keeps the list ~100x shorter.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/intrinsics.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/for_each.hpp>
#include <tdmaps/launch/for_each_run.hpp>

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tdmaps {
namespace collision {

/// What collide() produces besides the count.
enum class Result { count, flags, pairs, intflags, rowflags, tileflags };
/// Which kernel tests the pairs.
enum class Kernel { tile, element, linear };
/// Radius presets (default_radii).
enum class Density { dense, sparse };

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
inline const char* name(Kernel k) { return k == Kernel::tile ? "tile" : k == Kernel::element ? "element" : "linear"; }
inline const char* name(Density d) { return d == Density::dense ? "dense" : "sparse"; }

/// (n x 4) spheres: x, y, z, r per row (y = z = 0 for intervals).
template <class MemorySpace>
using Spheres = Kokkos::View<float* [4], Kokkos::LayoutRight, MemorySpace>;
template <class MemorySpace>
using ConstSpheres = Kokkos::View<const float* [4], Kokkos::LayoutRight, MemorySpace>;
/// (k x 2) colliding pairs (i, j), j < i.
template <class MemorySpace>
using PairList = Kokkos::View<std::int64_t* [2], Kokkos::LayoutRight, MemorySpace>;

/// Where a call's summary lands for the host to read (Output::summary):
/// memory the device writes and the host reads without a copy (CUDA:
/// pinned host memory); on host backends the memory space itself.
template <class MemorySpace>
struct summary_space {
  using type = MemorySpace;
};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct summary_space<Kokkos::CudaSpace> {
  using type = Kokkos::CudaHostPinnedSpace;
};
#endif

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
  /// device where the host reads them (a device-to-host copy of a few
  /// bytes into pageable memory cost ~10 us a call on the H100).
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

// ---- random spheres ---------------------------------------------------------

struct RadiusRange {
  double r_min = 0;
  double r_max = 0;
};

/// The presets of the header comment.
inline RadiusRange default_radii(int dims, Density density) {
  if (dims == 3) return density == Density::dense ? RadiusRange{0.05, 0.15} : RadiusRange{0.01, 0.03};
  if (dims == 1) return density == Density::dense ? RadiusRange{0.005, 0.015} : RadiusRange{0.00005, 0.00015};
  throw std::invalid_argument("tdmaps::collision: dims = " + std::to_string(dims) + " (supported: 1, 3)");
}

/// Host row-major (n x 4) spheres drawn as described in the header comment.
inline std::vector<float> random_spheres_host(index_t n, int dims, RadiusRange radii, std::uint64_t seed) {
  if (n < 0) throw std::invalid_argument("tdmaps::collision: n = " + std::to_string(n) + " spheres is negative");
  if (dims != 1 && dims != 3)
    throw std::invalid_argument("tdmaps::collision: dims = " + std::to_string(dims) + " (supported: 1, 3)");
  if (!(radii.r_min >= 0 && radii.r_min <= radii.r_max && radii.r_max <= 1))
    throw std::invalid_argument("tdmaps::collision: radius range [" + std::to_string(radii.r_min) + ", " +
                                std::to_string(radii.r_max) + "] must satisfy 0 <= r_min <= r_max <= 1");
  constexpr double grid = 16777216.0;  // 2^24
  std::int64_t lo = static_cast<std::int64_t>(std::ceil(radii.r_min * grid));
  std::int64_t hi = static_cast<std::int64_t>(std::floor(radii.r_max * grid));
  if (hi < lo) lo = hi = static_cast<std::int64_t>(std::llround(radii.r_min * grid));  // no grid point inside
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
  std::mt19937_64 g(seed);
  std::vector<float> s(static_cast<std::size_t>(n) * 4, 0.0f);
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    for (int d = 0; d < dims; ++d) s[4 * i + d] = static_cast<float>(static_cast<double>(g() >> 40) / grid);
    s[4 * i + 3] = static_cast<float>(static_cast<double>(lo + static_cast<std::int64_t>(g() % span)) / grid);
  }
  return s;
}

/// Copies host row-major (n x 4) spheres into a new View of ExecSpace's memory.
template <class ExecSpace>
Spheres<typename ExecSpace::memory_space> to_device(const ExecSpace& space, const std::vector<float>& host) {
  if (host.size() % 4 != 0)
    throw std::invalid_argument("tdmaps::collision: " + std::to_string(host.size()) +
                                " floats are not whole (x, y, z, r) rows");
  Spheres<typename ExecSpace::memory_space> s(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collision::spheres"), host.size() / 4);
  Kokkos::View<const float* [4], Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(host.data(),
                                                                                                   host.size() / 4);
  Kokkos::deep_copy(space, s, h);
  space.fence();  // h is the caller's memory: done with it before returning
  return s;
}

/// random_spheres_host, on the device.
template <class ExecSpace>
Spheres<typename ExecSpace::memory_space> random_spheres(const ExecSpace& space, index_t n, int dims, RadiusRange radii,
                                                         std::uint64_t seed) {
  return to_device(space, random_spheres_host(n, dims, radii, seed));
}

/// Empty string when row `row` (x, y, z, r) is valid, else what is wrong.
inline std::string check_sphere(const float* xyzr) {
  static const char* const what[4] = {"x", "y", "z", "radius"};
  for (int c = 0; c < 4; ++c)
    if (!std::isfinite(xyzr[c])) return std::string(what[c]) + " is " + std::to_string(xyzr[c]) + " (not finite)";
  if (xyzr[3] < 0) return "radius " + std::to_string(xyzr[3]) + " is negative";
  return {};
}

// ---- the pair test ----------------------------------------------------------

/// The fp32 part of the pair test: gap = fl(d2) - fl(s2) (squared distance
/// less squared radius sum) and whether its sign is the exact one (decisive;
/// see Precision in the header comment). The pairs collide when gap < 0.
KOKKOS_FORCEINLINE_FUNCTION float pair_gap(float xi, float yi, float zi, float ri, float xj, float yj, float zj, float rj,
                                           bool& decisive) {
  const float dx = xi - xj, dy = yi - yj, dz = zi - zj;
  const float d2 = dx * dx + dy * dy + dz * dz;
  const float s = ri + rj;
  const float s2 = s * s;
  const float gap = d2 - s2;
  // Error bound: |fl(d2) - d2| <= 6u d2, |fl(s2) - s2| <= 4u s2 (u = 2^-24),
  // so |gap| > 2^-16 max(d2, s2) is decisive; |gap| > 2^-15 s2 + 2^-100
  // implies it (if d2 > s2: |gap| (1 - 2^-16) > 2^-16 s2 gives |gap| >
  // 2^-16 d2; the bound's own rounding is far inside the factor 2 of slack)
  // and keeps squares near underflow (below 2^-100) out. NaN/inf compare
  // false: not decisive.
  decisive = intrinsics::abs_f(gap) > 0x1p-15f * s2 + 0x1p-100f;
  return gap;
}

/// The pair test in fp64, for the pairs pair_gap leaves undecided: exact for
/// centres and radii on the 2^-24 grid in [0, 1], as close as fp64 allows
/// elsewhere.
KOKKOS_FORCEINLINE_FUNCTION bool collides_fp64(float xi, float yi, float zi, float ri, float xj, float yj, float zj,
                                               float rj) {
  const double ex = static_cast<double>(xi) - static_cast<double>(xj);
  const double ey = static_cast<double>(yi) - static_cast<double>(yj);
  const double ez = static_cast<double>(zi) - static_cast<double>(zj);
  const double es = static_cast<double>(ri) + static_cast<double>(rj);
  return ex * ex + ey * ey + ez * ez < es * es;
}

/// Whether spheres (xi, yi, zi, ri) and (xj, yj, zj, rj) overlap: |c_i - c_j| <
/// r_i + r_j, decided exactly (see Precision in the header comment).
KOKKOS_FORCEINLINE_FUNCTION bool collides(float xi, float yi, float zi, float ri, float xj, float yj, float zj,
                                          float rj) {
  bool decisive;
  const float gap = pair_gap(xi, yi, zi, ri, xj, yj, zj, rj, decisive);
  if (decisive) return gap < 0.0f;
  return collides_fp64(xi, yi, zi, ri, xj, yj, zj, rj);
}

/// The fp32 test of TileKernel::own_rows: gap = fl(d2) - fl(s)^2 with
/// one rounding (an FMA), the spheres colliding when gap < 0. Its sign is
/// exact when |gap| > 2^-15 fl(s)^2 + 2^-100: the error is at most 6u d2 +
/// 3u s2 + u |gap| (u = 2^-24: fl(d2) as in pair_gap, fl(s)^2 within 3u s2,
/// the FMA's rounding), below |gap| when d2 <= 2 s2 (15u s2 << 2^-15 s2 =
/// 512u s2); when d2 > 2 s2 both the exact and the computed gap exceed d2 /
/// 2 - 7u d2 > 0; 2^-100 keeps underflowing squares out. No sign trouble:
/// an exact tie gives +0 (a - a = +0 when rounding to nearest), and a tie is
/// never decisive. NaN/inf are never decisive (NaN) or decide right (an
/// infinite d2 against a finite radius sum: no collision).
KOKKOS_FORCEINLINE_FUNCTION float walk_gap(float xi, float yi, float zi, float ri, float xj, float yj, float zj,
                                           float rj) {
  const float dx = xi - xj, dy = yi - yj, dz = zi - zj;
  const float d2 = dx * dx + dy * dy + dz * dz;
  const float s = ri + rj;
  return intrinsics::fma_f(-s, s, d2);
}

namespace impl {

/// Counters are unsigned long long: CUDA has native 64-bit atomics only for it.
using counter_t = unsigned long long;
/// Counters of count and intflags: 256, 8 apart (64 bytes: no false sharing on hosts).
constexpr int count_slots = 256;
constexpr int slot_stride = 8;

enum class Mode : int { count, flags, intflags, row_count, append, rowflags, tileflags };

KOKKOS_FORCEINLINE_FUNCTION bool finite(float x) { return x - x == 0.0f; }  // NaN and inf give NaN

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

/// Element kernel: any map, both spheres from global memory.
template <class MemorySpace>
struct ElementKernel {
  Buffers<MemorySpace> b;
  KOKKOS_FUNCTION void operator()(const index_t i, const index_t j) const { b.apply(i, j, pair_index(i, j), b.hit(i, j)); }
};

/// A sphere (x, y, z, r), aligned so that one 16-byte load reads it.
struct alignas(16) Sphere4 {
  float c[4];
};

/// Linear kernel: the pairs in packed order (p = T(i - 1) + j), Width
/// consecutive pairs per thread (tdmaps::for_each_run, rows order, strict
/// lower triangle). Flags: 32 pairs per thread, one whole word each, a plain
/// store (no atomics, no zeroing). Int flags: 4 pairs per thread, one 16-byte
/// store. The other modes apply per pair as the element kernel does; count
/// and int flags add a run's hits with one atomic.
template <class MemorySpace>
struct LinearKernel {
  Buffers<MemorySpace> b;
  bool vector_load = false;   ///< spheres 16-byte aligned
  bool vector_store = false;  ///< int flags 16-byte aligned

  KOKKOS_FORCEINLINE_FUNCTION Sphere4 sphere(index_t k) const {
    if (vector_load) return reinterpret_cast<const Sphere4*>(b.s.data())[k];
    return Sphere4{{b.s(k, 0), b.s(k, 1), b.s(k, 2), b.s(k, 3)}};
  }

  /// Bit s: pair (i, j0 + s), s < count (<= 32); the other bits 0. The
  /// word kernels of the row-aligned and the tiled flags.
  KOKKOS_FORCEINLINE_FUNCTION std::uint32_t row_bits(index_t i, index_t j0, int count) const {
    std::uint32_t bits = 0;
    if (count <= 0) return bits;
    const Sphere4 si = sphere(i);
    for (int s = 0; s < count; ++s) {
      const Sphere4 sj = sphere(j0 + s);
      if (collides(si.c[0], si.c[1], si.c[2], si.c[3], sj.c[0], sj.c[1], sj.c[2], sj.c[3])) bits |= std::uint32_t(1) << s;
    }
    return bits;
  }

  template <Mode M, int Width>
  KOKKOS_FORCEINLINE_FUNCTION void run(const Run& r) const {
    const index_t n = b.s.extent(0);
    index_t i = r.i, j = r.j, fixed = i;
    Sphere4 si = sphere(i);
    std::uint32_t bits = 0;
    int ints[Width > 4 ? 1 : Width] = {};
    int hits = 0;
    TDMAPS_UNROLL
    for (int s = 0; s < Width; ++s) {
      if (s < r.count) {
        if (i != fixed) {  // the run went on into the next row
          fixed = i;
          si = sphere(i);
        }
        const Sphere4 sj = sphere(j);
        const bool h = collides(si.c[0], si.c[1], si.c[2], si.c[3], sj.c[0], sj.c[1], sj.c[2], sj.c[3]);
        if constexpr (M == Mode::flags) {
          bits |= static_cast<std::uint32_t>(h) << s;
        } else if constexpr (M == Mode::intflags || M == Mode::count) {
          if constexpr (M == Mode::intflags) ints[s] = h ? 1 : 0;
          hits += h ? 1 : 0;
        } else {
          b.template apply<M>(i, j, r.k0 + s, h);
        }
        run_next(n, Triangle::strict_lower, RunOrder::rows, i, j);
      }
    }
    if constexpr (M == Mode::flags) {
      b.words(r.k0 >> 5) = bits;  // Width = 32: the run is word k0 / 32, tail bits 0
    } else if constexpr (M == Mode::intflags || M == Mode::count) {
      if constexpr (M == Mode::intflags) {
        std::int32_t* const at = b.ints.data() + r.k0;
        if (r.count == Width && vector_store) {
          struct alignas(16) Four {
            std::int32_t v[4];
          };
          static_assert(Width == 4, "int flags runs are 4 pairs (one 16-byte store)");
          *reinterpret_cast<Four*>(at) = Four{{ints[0], ints[1], ints[2], ints[3]}};
        } else {
          TDMAPS_UNROLL  // constant indices keep `ints` in registers
          for (int s = 0; s < 4; ++s)
            if (s < r.count) at[s] = ints[s];
        }
      }
      if (hits > 0)
        Kokkos::atomic_add(&b.slots(((r.i + r.j) & (count_slots - 1)) * slot_stride), static_cast<counter_t>(hits));
    }
  }
};

template <class MemorySpace, Mode M, int Width>
struct LinearRun {
  LinearKernel<MemorySpace> k;
  KOKKOS_FUNCTION void operator()(const Run& r) const { k.template run<M, Width>(r); }
};

/// Linear kernel of the row-aligned bit flags: one thread per word w
/// (row_of_flag_word), which it computes whole and stores (no zeroing, no
/// atomics).
template <class MemorySpace>
struct RowWordKernel {
  LinearKernel<MemorySpace> k;
  KOKKOS_FUNCTION void operator()(const index_t w) const {
    index_t i, word;
    row_of_flag_word(w, i, word);
    const index_t j0 = 32 * word;
    k.b.words(w) = k.row_bits(i, j0, i - j0 < 32 ? static_cast<int>(i - j0) : 32);
  }
};

/// Linear kernel of the tiled bit flags: one thread per word w (row i of
/// tile row i / 32, columns j0 .. j0 + 31), computed whole and stored; rows
/// i >= n of the last tile row and columns j >= i give 0 bits.
template <class MemorySpace>
struct TileWordKernel {
  LinearKernel<MemorySpace> k;
  KOKKOS_FUNCTION void operator()(const index_t w) const {
    index_t i, j0;
    row_of_tile_word(w, i, j0);
    const index_t n = k.b.s.extent(0);
    k.b.words(w) = k.row_bits(i, j0, i >= n || i <= j0 ? 0 : i - j0 < 32 ? static_cast<int>(i - j0) : 32);
  }
};

/// Tile kernel: block-space maps; the block's spheres are staged in team scratch.
template <class ExecSpace>
struct TileKernel {
  using memory_space = typename ExecSpace::memory_space;
  using Scratch =
      Kokkos::View<float**, Kokkos::LayoutRight, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  Buffers<memory_space> b;
  int rho;
  int rho_log2;  ///< rho = 2^rho_log2: the staging index math uses shifts, not divisions

  bool s_vector;  ///< spheres 16-byte aligned (rows of 4 floats): one vector load per sphere

  TileKernel(const Buffers<memory_space>& b_, int rho_)
      : b(b_),
        rho(rho_),
        rho_log2(log2_block_side(rho_)),
        s_vector(reinterpret_cast<std::uintptr_t>(b_.s.data()) % 16 == 0) {}

  // The GPU path (lane_tile_body); TDMAPS_FORCE_LANE_TILE runs it on host
  // teams too, so its index math can be tested without a GPU.
#if defined(TDMAPS_FORCE_LANE_TILE)
  static constexpr bool lane_tile = true;
#else
  static constexpr bool lane_tile = is_gpu_space<ExecSpace>::value;
#endif

  /// A sphere (x, y, z, r), aligned so that one 16-byte load reads it.
  struct alignas(16) Sphere {
    float c[4];
  };

  /// Host: rows 0-3 x, y, z, r of the block's row spheres, rows 4-7 of its
  /// column spheres. GPU: rho row spheres, then the window of 2 rho column
  /// spheres from j0 - rho (lane_rows). (Tile::scratch is aligned.)
  static std::size_t scratch_bytes(int rho_) {
    const std::size_t soa = sizeof(float) * 8 * static_cast<std::size_t>(rho_);
    const std::size_t aos = sizeof(Sphere) * 3 * static_cast<std::size_t>(rho_);
    return soa > aos ? soa : aos;
  }

  KOKKOS_FORCEINLINE_FUNCTION Sphere sphere(index_t g) const {
    if (s_vector) return reinterpret_cast<const Sphere*>(b.s.data())[g];
    return Sphere{{b.s(g, 0), b.s(g, 1), b.s(g, 2), b.s(g, 3)}};
  }

  /// What a thread carries across its team's blocks (TileKernelOf::team_state).
  struct Carry {
    int hits = 0;  ///< count, int flags, bit flags: the thread's hits so far
  };

  /// Whether block t takes the one-warp own-rows path (CUDA, block side 32,
  /// a team of one warp, a whole off-diagonal block, aligned spheres).
  KOKKOS_FORCEINLINE_FUNCTION bool one_warp_block(const Tile& t) const {
    return rho == 32 && s_vector && intrinsics::block_dim_y() == 1 && t.rows == 32 && !t.diagonal();
  }

  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void lane_tile_body(const team_member_t<ExecSpace>& team, const Tile& t,
                                                  Carry& carry) const {
    Sphere* staged = static_cast<Sphere*>(t.scratch);  // aligned to tile_scratch_alignment
    constexpr bool aligned = M == Mode::intflags;      // lane_rows: only int flags read the window's first half
    if constexpr (!aligned && intrinsics::warp_code()) {
      // CUDA, a team of one warp (the default at block side 32) on a whole
      // off-diagonal block: own rows. The lane's row sphere goes straight to
      // registers, only the column spheres are staged; straight-line code
      // from threadIdx (the general staging below is a vector loop with
      // bounds and 64-bit index math per sphere).
      if (one_warp_block(t)) {
        const int lane = intrinsics::thread_x();
        const Sphere* const sp = reinterpret_cast<const Sphere*>(b.s.data());
        const Sphere col = sp[t.j0 + lane];
        const Sphere mine = sp[t.i0 + lane];
        staged[lane] = col;
        const float col_max = intrinsics::warp_max_nonneg(col.c[3]);
        team.team_barrier();
        int hits = 0;
        own_rows<M>(t, staged, mine, col_max, lane, hits);
        carry.hits += hits;
        return;
      }
    }
    const index_t n = b.s.extent(0), w0 = t.j0 - rho;
    if (s_vector && (w0 >= 0 || !aligned) && t.i0 + rho <= n) {
      // Every staged sphere inside [0, n) (j0 <= i0, and w0 >= 0 where the
      // window's first half is read): one vector load and one store each, no
      // tests.
      const Sphere* const sp = reinterpret_cast<const Sphere*>(b.s.data());
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, rho), [&](const int p) {
        staged[p] = sp[t.i0 + p];
        if (aligned) staged[rho + p] = sp[w0 + p];
        staged[2 * rho + p] = sp[t.j0 + p];
      });
    } else {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, 3 * rho), [&](const int p) {
        const index_t g = p < rho ? t.i0 + p : w0 + (p - rho);
        staged[p] = g >= 0 && g < n ? sphere(g) : Sphere{};
      });
    }
    team.team_barrier();
    lane_rows<M>(team, t, staged, staged + rho, carry.hits);
  }

  /// Count, int flags and both bit flags: the hits a thread counted over
  /// its team's blocks (a warp's, summed, at block side 32 on CUDA) added
  /// to one of the spread counters: one atomic per team and warp, not per
  /// block (TileKernelOf::team_end).
  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void add_hits(const team_member_t<ExecSpace>& team, int hits) const {
    if constexpr (lane_tile && (M == Mode::count || M == Mode::intflags || M == Mode::flags || M == Mode::rowflags ||
                                M == Mode::tileflags)) {
      const bool warp = intrinsics::warp_code() && rho == 32;
      if (warp) hits = intrinsics::warp_sum(hits);
      const int lane = intrinsics::thread_x();
      if (hits > 0 && (!warp || lane == 0)) {
        const index_t slot = (team.league_rank() + 32 * team.team_rank() + lane) & (count_slots - 1);
        Kokkos::atomic_add(&b.slots(slot * slot_stride), static_cast<counter_t>(hits));
      }
    } else {
      (void)team, (void)hits;
    }
  }

  /// GPU: lanes along the row, each thread walks rows ti = first, first +
  /// step, ... Two ways to split a row among the blocks:
  ///
  /// Int flags (aligned chunks): the pairs of row i (j < i) are contiguous in
  /// packed order, p = T(i - 1) + j, but start anywhere in a 32-byte sector;
  /// so in row i the block takes the rho pairs of one chunk aligned to the
  /// ints' addresses: lane L tests column j = j0 + c rho - r_i + L (chunk c
  /// = 0, and c = 1 on the diagonal block), r_i = (phase + T(i - 1)) mod rho,
  /// phase the int flags' address (in ints). j < 0 (block column 0) and j >=
  /// i belong to the neighbouring rows. Each block of a row still takes its
  /// own pairs: every pair once. The column spheres vary by row, so they come
  /// from the staged window. Per row: one whole 128-byte store (rho 32).
  ///
  /// The other results: lane L tests column j0 + L, the block's own pairs.
  /// On a whole off-diagonal block walked by one warp (own_rows) the lane
  /// keeps row i0 + L's sphere in registers and walks the 32 columns, each
  /// a broadcast read: about half the instructions and a quarter of the
  /// shared-memory traffic of an aligned chunk's row, whose lane sphere
  /// moves with r_i. Packed bit flags pay for it with atomic ORs: a block's
  /// 32 pairs of a row straddle two flag words shared with the neighbouring
  /// blocks (the row-aligned flags do not).
  ///
  /// Count, int flags and bit flags sum their hits per thread over the
  /// team's blocks (`total`; added by add_hits at the team's end).
  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void lane_rows(const team_member_t<ExecSpace>& team, const Tile& t, const Sphere* rows,
                                             const Sphere* window, int& total) const {
    constexpr bool aligned = M == Mode::intflags;
    const unsigned phase =
        aligned ? static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(b.ints.data()) / sizeof(std::int32_t)) : 0u;
    const unsigned mask = aligned ? static_cast<unsigned>(rho - 1) : 0u;
    const bool warp = intrinsics::warp_code() && rho == 32;
    for_each_lane(team, rho_log2, [&](const int lane, const int first, const int step) {
      int hits = 0;
      const bool whole = warp && step == 1 && t.rows == 32 && !t.diagonal();
      if (!aligned && whole) {
        own_rows<M>(t, window + 32, rows[lane], intrinsics::warp_max_nonneg(window[32 + lane].c[3]), lane, hits);
      } else if (aligned && whole && t.j0 > 0 && t.i0 < (index_t(1) << 26)) {
        // A whole off-diagonal block away from column 0 walked by one warp:
        // every lane's pair is inside the triangle (no test). Offsets from
        // the block's first row are 32-bit (row ti starts ti i0 + T(ti - 1) <
        // 2^31 after it for i0 < 2^26). q is the address of (i0 + ti, j0),
        // r the row's shift: its chunk is q rounded down to 128 bytes, lane
        // L's int at chunk | 4 L (2 instructions of address arithmetic per
        // row, as the EDM's walk). From row i to i + 1 the packed index moves
        // by T(i) - T(i - 1) = i.
        const Sphere* const mine = window + 32 + lane;
        constexpr std::uintptr_t chunk = 32 * sizeof(std::int32_t);
        std::uintptr_t q = reinterpret_cast<std::uintptr_t>(b.ints.data() + pair_index(t.i0, t.j0));
        const std::uintptr_t lane_bytes = static_cast<std::uintptr_t>(lane) * sizeof(std::int32_t);
        unsigned next = static_cast<unsigned>(t.i0);
TDMAPS_UNROLL_BY(8)
        for (int ti = 0; ti < 32; ++ti) {
          const unsigned r = (static_cast<unsigned>(q) & static_cast<unsigned>(chunk - 1)) >> 2;
          const Sphere o = rows[ti], c = mine[-static_cast<int>(r)];
          const bool h = collides(o.c[0], o.c[1], o.c[2], o.c[3], c.c[0], c.c[1], c.c[2], c.c[3]);
          *reinterpret_cast<std::int32_t*>((q & ~(chunk - 1)) | lane_bytes) = h ? 1 : 0;
          q += static_cast<std::uintptr_t>(next++) * sizeof(std::int32_t);
          hits += h ? 1 : 0;
        }
      } else {
        const int chunks = aligned && t.diagonal() ? 2 : 1;
        // Tiled bit flags at block side 32: every word of the tile is written
        // whole, so rows past n of the last block row too (0 bits).
        const int walked = M == Mode::tileflags && warp ? rho : t.rows;
        const index_t n = b.s.extent(0);
        for (int ti = first; ti < walked; ti += step) {
          const index_t i = t.i0 + ti;
          const index_t at = pair_index(i, 0);
          const int r = static_cast<int>((phase + static_cast<unsigned>(at)) & mask);  // 0: own columns
          for (int c = 0; c < chunks; ++c) {
            const int w = rho + c * rho - r + lane;  // window index: j - (j0 - rho)
            const index_t j = t.j0 - rho + w;
            const bool valid = j >= 0 && j < i && (M != Mode::tileflags || i < n);
            bool h = false;
            if (valid) {
              const Sphere o = rows[ti], q = window[w];
              h = collides(o.c[0], o.c[1], o.c[2], o.c[3], q.c[0], q.c[1], q.c[2], q.c[3]);
            }
            record<M>(i, j, at + j, lane, h, valid, warp, hits);  // every lane: the warp's ballot
          }
        }
      }
      total += hits;  // bit flags: counted here too (tile)
    });
  }

  /// A whole off-diagonal block (every pair inside the triangle) at rho 32,
  /// walked by one warp, own rows: lane L keeps sphere i0 + L (`mine`) in
  /// registers and tests it against the 32 column spheres `cols` (broadcast
  /// reads), gathering bit tj = pair (i0 + L, j0 + tj) of the row's word
  /// from the sign of walk_gap (11 instructions per pair with the shared-
  /// memory read, Nsight Compute SASS; intrinsics::shift_in_sign, the
  /// columns walked from 31 down). One bound serves the lane's 32 pairs: B = 2^-15 (c_max + r_L)^2 +
  /// 2^-100, c_max the largest column radius (a warp maximum), >= each
  /// pair's own bound of walk_gap. A lane with any pair inside its bound (a
  /// near tie: a few per million pairs) tests its 32 pairs again with
  /// collides(). The lane's word is the block's part of its row, so: count,
  /// its popcount; packed bit flags, the popcount too, and the word OR-ed
  /// into the two flag words it straddles (only a word with a set bit: in
  /// the papers' dense regime ~3% of the pairs collide); row-aligned flags,
  /// the word stored whole (a plain store); the pair list's row counts, one
  /// atomic add of the popcount per row; its second pass, each colliding
  /// pair as the element kernel does. (The lanes owned columns before: the
  /// bit flags then needed a 32 x 32 transpose by five shuffle rounds.)
  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void own_rows(const Tile& t, const Sphere* cols, const Sphere mine, const float col_max,
                                            const int lane, int& hits) const {
    const float s_max = col_max + mine.c[3];
    const float bound = intrinsics::fma_f(0x1p-15f * s_max, s_max, 0x1p-100f);
    std::uint32_t row = 0;
    bool decisive = true;
    TDMAPS_UNROLL
    for (int tj = 31; tj >= 0; --tj) {
      const Sphere o = cols[tj];
      const float gap = walk_gap(mine.c[0], mine.c[1], mine.c[2], mine.c[3], o.c[0], o.c[1], o.c[2], o.c[3]);
      decisive = decisive && intrinsics::abs_f(gap) > bound;
      row = intrinsics::shift_in_sign(row, gap);  // columns from 31 down: column tj ends at bit tj
    }
    if (!decisive) {
      row = 0;
      for (int tj = 0; tj < 32; ++tj) {
        const Sphere o = cols[tj];
        if (collides(mine.c[0], mine.c[1], mine.c[2], mine.c[3], o.c[0], o.c[1], o.c[2], o.c[3]))
          row |= std::uint32_t(1) << tj;
      }
    }
    const index_t i = t.i0 + lane;
    if constexpr (M == Mode::count) {
      hits = intrinsics::popcount(row);
    } else if constexpr (M == Mode::flags) {
      hits = intrinsics::popcount(row);
      if (row != 0) b.or_bits(pair_index(i, t.j0), row);
    } else if constexpr (M == Mode::rowflags) {
      // The block's part of row i is word j0 / 32 of that row, whole.
      hits = intrinsics::popcount(row);
      b.words(row_flag_word(i) + (t.j0 >> 5)) = row;
    } else if constexpr (M == Mode::tileflags) {
      // The block is tile (i0 / 32, j0 / 32): its 32 words are consecutive,
      // lane L's is row i0 + L's, so the warp's 32 stores are one whole
      // 128-byte line.
      // Word 32 (T(I) + J) + lane = 16 I (I + 1) + 32 J + lane with 32-bit
      // I, J (n <= max_side = 2^31): one wide multiply, no 64-bit products.
      hits = intrinsics::popcount(row);
      const auto I = static_cast<std::uint32_t>(t.i0 >> 5), J = static_cast<std::uint32_t>(t.j0 >> 5);
      const std::uint64_t w = 16 * (static_cast<std::uint64_t>(I) * (I + 1)) + 32 * static_cast<std::uint64_t>(J) +
                              static_cast<std::uint32_t>(lane);
      b.words.data()[w] = row;
    } else if constexpr (M == Mode::row_count) {
      if (row != 0) Kokkos::atomic_add(&b.rows(i), static_cast<counter_t>(intrinsics::popcount(row)));
    } else if constexpr (M == Mode::append) {
      for (std::uint32_t m = row; m != 0; m &= m - 1) {
        const index_t j = t.j0 + intrinsics::lowest_bit(m);
        b.template apply<M>(i, j, pair_index(i, j), true);
      }
    }
  }

  /// Pair (i, j), packed index p, tested by `lane` on the general path: h is
  /// the test, valid whether (i, j) is the lane's to write (invalid lanes
  /// still take part in the warp's ballot).
  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void record(index_t i, index_t j, index_t p, int lane, bool h, bool valid, bool warp,
                                          int& hits) const {
    if constexpr (M == Mode::count) {
      hits += h ? 1 : 0;
    } else if constexpr (M == Mode::intflags) {
      if (valid) b.ints(p) = h ? 1 : 0;
      hits += h ? 1 : 0;
    } else if constexpr (M == Mode::flags) {
      hits += h ? 1 : 0;
      if (warp) {
        // Own columns: the warp's 32 lanes are pairs p - lane ... p - lane + 31 of row i.
        const std::uint32_t bits = intrinsics::warp_ballot(h);
        if (lane == 0 && bits != 0) b.or_bits(p, bits);
      } else if (h) {
        Kokkos::atomic_fetch_or(&b.words(p >> 5), std::uint32_t(1) << (p & 31));
      }
    } else if constexpr (M == Mode::rowflags) {
      hits += h ? 1 : 0;
      if (warp) {
        // The warp's 32 lanes are columns j0 .. j0 + 31 of row i: word j0 / 32
        // of row i, whole (invalid lanes 0), when the row has it (j0 < i).
        const std::uint32_t bits = intrinsics::warp_ballot(h);
        if (lane == 0 && j - lane < i) b.words(row_flag_word(i) + ((j - lane) >> 5)) = bits;
      } else if (h) {
        b.template apply<M>(i, j, p, true);
      }
    } else if constexpr (M == Mode::tileflags) {
      hits += h ? 1 : 0;
      if (warp) {
        // Columns j0 .. j0 + 31 of row i: word i mod 32 of tile (i / 32,
        // j0 / 32), whole (invalid lanes 0; lane_rows walks rows >= n too).
        const std::uint32_t bits = intrinsics::warp_ballot(h);
        if (lane == 0) b.words(tile_flag_word(i, j - lane)) = bits;
      } else if (h) {
        b.template apply<M>(i, j, p, true);
      }
    } else {
      if (h) b.template apply<M>(i, j, p, true);
    }
  }

  /// One block, result mode M (a kernel per mode: no run-time switch per
  /// block); `total` sums the thread's hits over its team's blocks (lane
  /// path, count / int flags / bit flags).
  template <Mode M>
  KOKKOS_FORCEINLINE_FUNCTION void run(const team_member_t<ExecSpace>& team, const Tile& t, Carry& carry) const {
    if constexpr (lane_tile) {
      lane_tile_body<M>(team, t, carry);
      return;
    } else {
      (void)carry;
    }
    const Scratch sh(static_cast<float*>(t.scratch), 8, rho);
    // Coalesced: consecutive q read consecutive floats of the (n x 4) rows.
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, 8 * rho), [&](const int q) {
      const int side = q >> (rho_log2 + 2), k = (q >> 2) & (rho - 1), c = q & 3;
      const int len = side == 0 ? t.rows : t.cols;
      const index_t base = side == 0 ? t.i0 : t.j0;
      sh(4 * side + c, k) = k < len ? b.s(base + k, c) : 0.0f;
    });
    team.team_barrier();
    for_each_in_tile(team, t, [&](const int ti, const int tj) {
      const index_t i = t.i0 + ti, j = t.j0 + tj;
      b.template apply<M>(i, j, pair_index(i, j),
              collides(sh(0, ti), sh(1, ti), sh(2, ti), sh(3, ti), sh(4, tj), sh(5, tj), sh(6, tj), sh(7, tj)));
    });
  }
};

/// The tile kernel of one result mode, as for_each_tile calls it.
template <class ExecSpace, Mode M>
struct TileKernelOf {
  TileKernel<ExecSpace> k;
  /// A thread's hits over its team's blocks (for_each_tile's team state).
  using team_state = typename TileKernel<ExecSpace>::Carry;
  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team, const Tile& t, team_state& st) const {
    k.template run<M>(team, t, st);
  }
  KOKKOS_FUNCTION void team_end(const team_member_t<ExecSpace>& team, const team_state& st) const {
    k.template add_hits<M>(team, st.hits);
  }
  /// for_each_tile's gate, read once per team: false when the input check
  /// that ran on the device ahead of this launch found a bad sphere.
  KOKKOS_FUNCTION bool enabled() const { return k.b.gate == nullptr || *k.b.gate == ~counter_t(0); }
};

// ---- small host-launched helpers (functors: usable from any calling context) --

KOKKOS_FORCEINLINE_FUNCTION bool sphere_ok(float x, float y, float z, float r) {
  return finite(x) && finite(y) && finite(z) && finite(r) && r >= 0.0f;
}

template <class MemorySpace>
struct FirstBadSphere {
  ConstSpheres<MemorySpace> s;
  KOKKOS_FUNCTION void operator()(const index_t i, index_t& first) const {
    if (!sphere_ok(s(i, 0), s(i, 1), s(i, 2), s(i, 3)) && i < first) first = i;
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

/// The input check on the device, no reduction: a bad row k lowers the
/// first-bad entry with an atomic min (it holds ~0 between calls: the
/// allocation sets it, FinishCount resets it).
template <class MemorySpace>
struct CheckSpheres {
  ConstSpheres<MemorySpace> s;
  Kokkos::View<counter_t*, MemorySpace> counters;
  KOKKOS_FUNCTION void operator()(const index_t k) const {
    if (!sphere_ok(s(k, 0), s(k, 1), s(k, 2), s(k, 3)))
      Kokkos::atomic_fetch_min(&counters(index_t(first_bad_entry)), static_cast<counter_t>(k));
  }
};

/// One team: sums the count_slots counters into the summary (hits, first
/// bad row) and resets them and the first-bad entry for the next call, so a
/// call needs no reset launch of its own.
template <class ExecSpace>
struct FinishCount {
  using mem = typename ExecSpace::memory_space;
  Kokkos::View<counter_t*, mem> c;
  Kokkos::View<counter_t[2], typename summary_space<mem>::type> summary;
  using member_t = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  KOKKOS_FUNCTION void operator()(const member_t& team) const {
    counter_t total = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, count_slots),
        [&](const int k, counter_t& sum) {
          sum += c(k * slot_stride);
          c(k * slot_stride) = 0;
        },
        total);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      summary(0) = total;
      summary(1) = c(index_t(first_bad_entry));
      c(index_t(first_bad_entry)) = ~counter_t(0);
    });
  }
};

template <class MemorySpace>
struct PopcountWords {
  Kokkos::View<const std::uint32_t*, MemorySpace> w;
  KOKKOS_FUNCTION void operator()(const index_t k, index_t& sum) const {
    std::uint32_t v = w(k);  // SWAR popcount: portable to device code
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    v = (v + (v >> 4)) & 0x0f0f0f0fu;
    sum += static_cast<index_t>((v * 0x01010101u) >> 24);
  }
};

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

template <class ExecSpace>
using range_t = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>;

/// The tile kernel's GPU launch shape where the caller left it to tdmaps
/// (0 in LaunchHints), at block side 32, measured on the H100 at n = 30720
/// (perf_tests/README.md): one warp per block (the 32-row walks of whole
/// blocks; 64-thread teams take the general walk and ran 1.5-2x slower in
/// a first version); int flags 4 blocks per team (0.71 ms, I = 1.10; 1
/// block 0.74 ms), the results without a store per pair (bit flags, count,
/// the pair list's passes) 8 (bit flags 0.48 ms, count 0.38; 4 blocks and
/// 1 within 1%).
inline LaunchHints tile_hints(LaunchHints h, Mode mode, int rho) {
  if (rho != 32) return h;
  if (h.team_threads == 0) h.team_threads = 32;
  if (h.blocks_per_team == 0) h.blocks_per_team = mode == Mode::intflags ? 4 : 8;
  return h;
}

template <class ExecSpace, class Map>
void launch(const ExecSpace& space, const Map& map, Kernel kernel, const Buffers<typename ExecSpace::memory_space>& b,
            const char* what, const LaunchHints& hints) {
  const std::string label = std::string("tdmaps::collision::") + what + "::" + name(kernel) + "::" + Map::name;
  if (kernel == Kernel::element) {
    for_each_element(space, map, ElementKernel<typename ExecSpace::memory_space>{b}, label, hints);
    return;
  }
  if (kernel == Kernel::linear) {
    using mem = typename ExecSpace::memory_space;
    LinearKernel<mem> k{b};
    k.vector_load = reinterpret_cast<std::uintptr_t>(b.s.data()) % alignof(Sphere4) == 0;
    k.vector_store = reinterpret_cast<std::uintptr_t>(b.ints.data()) % 16 == 0;
    const index_t n = map.domain.n;
    const auto t = Triangle::strict_lower;
    const auto rows = RunOrder::rows;
    switch (b.mode) {
      case Mode::flags: for_each_run<32>(space, n, t, rows, LinearRun<mem, Mode::flags, 32>{k}, label); break;
      case Mode::intflags: for_each_run<4>(space, n, t, rows, LinearRun<mem, Mode::intflags, 4>{k}, label); break;
      case Mode::count: for_each_run<4>(space, n, t, rows, LinearRun<mem, Mode::count, 4>{k}, label); break;
      case Mode::row_count: for_each_run<4>(space, n, t, rows, LinearRun<mem, Mode::row_count, 4>{k}, label); break;
      case Mode::append: for_each_run<4>(space, n, t, rows, LinearRun<mem, Mode::append, 4>{k}, label); break;
      case Mode::rowflags:
        Kokkos::parallel_for(label, range_t<ExecSpace>(space, 0, row_flag_words(n)), RowWordKernel<mem>{k});
        break;
      case Mode::tileflags:
        Kokkos::parallel_for(label, range_t<ExecSpace>(space, 0, tile_flag_words(n)), TileWordKernel<mem>{k});
        break;
    }
    return;
  }
  if constexpr (tdmaps::impl::is_block_space<Map>) {
    const int rho = map.domain.rho;
    const TileKernel<ExecSpace> k(b, rho);
    const std::size_t bytes = TileKernel<ExecSpace>::scratch_bytes(rho);
    const LaunchHints h = tile_hints(hints, b.mode, rho);
    switch (b.mode) {
      case Mode::count: for_each_tile(space, map, bytes, TileKernelOf<ExecSpace, Mode::count>{k}, label, h); break;
      case Mode::flags: for_each_tile(space, map, bytes, TileKernelOf<ExecSpace, Mode::flags>{k}, label, h); break;
      case Mode::intflags: for_each_tile(space, map, bytes, TileKernelOf<ExecSpace, Mode::intflags>{k}, label, h); break;
      case Mode::row_count: for_each_tile(space, map, bytes, TileKernelOf<ExecSpace, Mode::row_count>{k}, label, h); break;
      case Mode::append: for_each_tile(space, map, bytes, TileKernelOf<ExecSpace, Mode::append>{k}, label, h); break;
      case Mode::rowflags: for_each_tile(space, map, bytes, TileKernelOf<ExecSpace, Mode::rowflags>{k}, label, h); break;
      case Mode::tileflags: for_each_tile(space, map, bytes, TileKernelOf<ExecSpace, Mode::tileflags>{k}, label, h); break;
    }
  } else {
    throw std::invalid_argument(std::string("tdmaps::collision: the tile kernel needs a block-space map; '") +
                                Map::name + "' is a thread-space map (use the element kernel)");
  }
}

template <class ExecSpace, class Functor>
index_t sum(const ExecSpace& space, const char* label, index_t extent, const Functor& f) {
  index_t total = 0;
  Kokkos::parallel_reduce(label, range_t<ExecSpace>(space, 0, extent), f, total);  // blocks: total is on the host
  return total;
}

/// Throws std::invalid_argument naming sphere row `first` and what is wrong with it.
template <class ExecSpace>
[[noreturn]] void reject_sphere(const ExecSpace& space, const ConstSpheres<typename ExecSpace::memory_space>& s,
                                index_t first) {
  float row[4];
  Kokkos::View<float[4], Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(row);
  Kokkos::deep_copy(space, h, Kokkos::subview(s, first, Kokkos::ALL));
  space.fence();
  throw std::invalid_argument("tdmaps::collision: sphere row " + std::to_string(first) + ": " + check_sphere(row));
}

/// The input check with one device wait: throws (reject_sphere) on the first bad row.
template <class ExecSpace>
void check_spheres(const ExecSpace& space, const ConstSpheres<typename ExecSpace::memory_space>& s) {
  using mem = typename ExecSpace::memory_space;
  const index_t n = static_cast<index_t>(s.extent(0));
  if (n == 0) return;
  index_t first = n;
  Kokkos::parallel_reduce("tdmaps::collision::check_spheres", range_t<ExecSpace>(space, 0, n), FirstBadSphere<mem>{s},
                          Kokkos::Min<index_t>(first));
  if (first < n) reject_sphere(space, s, first);
}

template <class ExecSpace, class Map>
index_t pair_list(const ExecSpace& space, const Map& map, Kernel kernel, Buffers<typename ExecSpace::memory_space> b,
                  Output<typename ExecSpace::memory_space>& out, const LaunchHints& hints) {
  using mem = typename ExecSpace::memory_space;
  const index_t n = map.domain.n;
  // Pass 1: colliding pairs per row.
  b.rows = Kokkos::View<counter_t*, mem>(Kokkos::view_alloc(space, "tdmaps::collision::row_count"), n);
  b.mode = Mode::row_count;
  launch(space, map, kernel, b, "pairs_count", hints);
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
    launch(space, map, kernel, b, "pairs_write", hints);
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

}  // namespace impl

/// Tests every pair j < i of `spheres` under `map` (Triangle::strict_lower,
/// n = spheres.extent(0)) with `kernel`, fills out's View for `result`, and
/// returns the number of colliding pairs. Fences `space` before returning.
/// `hints` shape the GPU teams (launch layer).
template <class ExecSpace, class Map>
index_t collide(const ExecSpace& space, const ConstSpheres<typename ExecSpace::memory_space>& spheres, const Map& map,
                Result result, Kernel kernel, Output<typename ExecSpace::memory_space>& out,
                const LaunchHints& hints = LaunchHints()) {
  using mem = typename ExecSpace::memory_space;
  const index_t n = static_cast<index_t>(spheres.extent(0));
  if (map.domain.triangle != Triangle::strict_lower)
    throw std::invalid_argument(std::string("tdmaps::collision: map '") + Map::name +
                                "' covers the lower triangle with its diagonal; collisions need Triangle::strict_lower (j < i)");
  if (map.domain.n != n)
    throw std::invalid_argument(std::string("tdmaps::collision: map '") + Map::name + "' has n = " +
                                std::to_string(map.domain.n) + " but spheres has " + std::to_string(n) + " rows");
  if (kernel == Kernel::tile && !tdmaps::impl::is_block_space<Map>)
    throw std::invalid_argument(std::string("tdmaps::collision: the tile kernel needs a block-space map; '") +
                                Map::name + "' is a thread-space map (use the element kernel)");
  if (result == Result::flags && static_cast<index_t>(out.flags.extent(0)) != flag_words(n))
    throw std::invalid_argument("tdmaps::collision: flags has " + std::to_string(out.flags.extent(0)) + " words; n = " +
                                std::to_string(n) + " spheres need flag_words(n) = " + std::to_string(flag_words(n)));
  if (result == Result::rowflags && static_cast<index_t>(out.rowflags.extent(0)) != row_flag_words(n))
    throw std::invalid_argument("tdmaps::collision: rowflags has " + std::to_string(out.rowflags.extent(0)) +
                                " words; n = " + std::to_string(n) +
                                " spheres need row_flag_words(n) = " + std::to_string(row_flag_words(n)));
  if (result == Result::tileflags && static_cast<index_t>(out.tileflags.extent(0)) != tile_flag_words(n))
    throw std::invalid_argument("tdmaps::collision: tileflags has " + std::to_string(out.tileflags.extent(0)) +
                                " words; n = " + std::to_string(n) +
                                " spheres need tile_flag_words(n) = " + std::to_string(tile_flag_words(n)));
  if (result == Result::intflags && static_cast<index_t>(out.intflags.extent(0)) != pair_count(n))
    throw std::invalid_argument("tdmaps::collision: intflags has " + std::to_string(out.intflags.extent(0)) +
                                " entries; n = " + std::to_string(n) + " spheres need pair_count(n) = " +
                                std::to_string(pair_count(n)));
  impl::Buffers<mem> b;
  b.s = spheres;
  index_t total = 0;
  switch (result) {
    case Result::count:
    case Result::intflags:
    case Result::rowflags:
    case Result::tileflags:
    case Result::flags: {
      // The GPU tile kernel counts bit flags as it sets them (as count
      // does); the other kernels' flags are counted from the words.
      const bool bits = result == Result::flags || result == Result::rowflags || result == Result::tileflags;
      const bool counted = !bits || (kernel == Kernel::tile && impl::TileKernel<ExecSpace>::lane_tile);
      // The linear kernel writes whole words, and so does the GPU tile
      // kernel the row-aligned and the tiled flags at block side 32 (a warp
      // per block row); the other kernels set bits only, in words zeroed
      // first.
      const bool whole = kernel == Kernel::linear ||
                         ((result == Result::rowflags || result == Result::tileflags) && kernel == Kernel::tile &&
                          tdmaps::is_gpu_space<ExecSpace>::value && map.domain.rho == 32);
      const impl::Mode bit_mode = result == Result::flags      ? impl::Mode::flags
                                  : result == Result::rowflags ? impl::Mode::rowflags
                                                               : impl::Mode::tileflags;
      if (bits)
        b.words = result == Result::flags ? out.flags : result == Result::rowflags ? out.rowflags : out.tileflags;
      if (!counted) {
        impl::check_spheres(space, spheres);
        if (!whole) Kokkos::deep_copy(space, b.words, std::uint32_t(0));
        b.mode = bit_mode;
        if (n > 1) impl::launch(space, map, kernel, b, name(result), hints);
        total = impl::sum(space, "tdmaps::collision::flags_popcount", static_cast<index_t>(b.words.extent(0)),
                          impl::PopcountWords<mem>{b.words});
        break;
      }
      // Counters [0, counter_slots) take the hits, then the input check's
      // first bad row (impl::first_bad_entry); Output::summary the result. The check is
      // one launch without a reduction; a tile kernel that writes nothing
      // before its blocks (not the words zeroed first) runs behind it
      // without a device wait: each team reads the check's result before its
      // first block and takes no block on bad input (for_each_tile's gate),
      // so nothing is written. One team then sums the counters and resets
      // them with the check's entry for the next call (FinishCount), and the
      // call waits once, for the summary. The others wait for the check
      // first (their outputs are untouched on bad input either way).
      using impl::counter_t;
      if (static_cast<index_t>(out.counters.extent(0)) != impl::counter_entries) {
        out.counters = Kokkos::View<counter_t*, mem>(Kokkos::view_alloc(space, "tdmaps::collision::count_slots"),
                                                     impl::counter_entries);  // zeroed
        Kokkos::deep_copy(space, Kokkos::subview(out.counters, impl::first_bad_entry), ~counter_t(0));
      }
      if (out.summary.data() == nullptr)
        out.summary = decltype(out.summary)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::collision::summary"));
      const Kokkos::View<counter_t, mem> first_bad(out.counters.data() + impl::first_bad_entry);  // unmanaged
      const auto finish = [&]() {
        Kokkos::parallel_for("tdmaps::collision::count_finish",
                             Kokkos::TeamPolicy<ExecSpace>(space, 1, tdmaps::is_gpu_space<ExecSpace>::value ? 128 : 1),
                             impl::FinishCount<ExecSpace>{out.counters, out.summary});
      };
      if (n > 0)
        Kokkos::parallel_for("tdmaps::collision::check", impl::range_t<ExecSpace>(space, 0, n),
                             impl::CheckSpheres<mem>{spheres, out.counters});
      const bool gated = kernel == Kernel::tile && (!bits || whole);
      if (!gated) {
        counter_t bad = 0;
        Kokkos::deep_copy(space, Kokkos::View<counter_t, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&bad), first_bad);
        space.fence();
        if (bad != ~counter_t(0)) {
          finish();  // the check's entry back to ~0 (the counters are untouched)
          space.fence();
          impl::reject_sphere(space, spheres, static_cast<index_t>(bad));
        }
        if (bits && !whole) Kokkos::deep_copy(space, b.words, std::uint32_t(0));
      }
      b.slots = out.counters;
      b.gate = gated ? first_bad.data() : nullptr;
      b.ints = out.intflags;
      b.mode = result == Result::count ? impl::Mode::count : result == Result::intflags ? impl::Mode::intflags : bit_mode;
      try {
        if (n > 1) impl::launch(space, map, kernel, b, name(result), hints);
      } catch (...) {
        finish();  // leave the counters and the check's entry reset
        space.fence();
        throw;
      }
      finish();
      space.fence();  // the summary is in host-readable memory: no copy
      if (out.summary(1) != ~counter_t(0)) impl::reject_sphere(space, spheres, static_cast<index_t>(out.summary(1)));
      total = static_cast<index_t>(out.summary(0));
      break;
    }
    case Result::pairs:
      impl::check_spheres(space, spheres);
      total = impl::pair_list(space, map, kernel, b, out, hints);
      break;
  }
  space.fence();
  return total;
}

/// collide() for Result::count alone.
template <class ExecSpace, class Map>
index_t count(const ExecSpace& space, const ConstSpheres<typename ExecSpace::memory_space>& spheres, const Map& map,
              Kernel kernel = Kernel::tile) {
  Output<typename ExecSpace::memory_space> none;
  return collide(space, spheres, map, Result::count, kernel, none);
}

}  // namespace collision
}  // namespace tdmaps

#endif
