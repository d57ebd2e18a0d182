#ifndef TDMAPS_COLLISION_LINEAR_HPP
#define TDMAPS_COLLISION_LINEAR_HPP

// The linear kernel: the pairs in packed order, consecutive pairs per thread
// (tdmaps::for_each_run: the lambda formula at element granularity finds a
// thread's first pair, then it steps): 32 pairs are one whole flag word, 4
// int flags one 16-byte store, with no zeroing and no atomics. The
// row-aligned and tiled flags take one thread per word (RowWordKernel,
// TileWordKernel). It uses the map's domain only, not its blocks.

#include <tdmaps/collision/buffers.hpp>
#include <tdmaps/collision/pair_test.hpp>
#include <tdmaps/collision/result.hpp>
#include <tdmaps/core/domain.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/for_each_run.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tdmaps {
namespace collision {
namespace detail {

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

}  // namespace detail
}  // namespace collision
}  // namespace tdmaps

#endif
