#ifndef TDMAPS_COLLISION_TILE_GPU_HPP
#define TDMAPS_COLLISION_TILE_GPU_HPP

// TileKernel's GPU path (TileKernel::lane_tile: GPU backends, or host teams
// under TDMAPS_FORCE_LANE_TILE so that the tests check its index math): the
// row spheres and a window of 2 rho column spheres staged in scratch, int
// flags in chunks aligned to the output, whole off-diagonal blocks of one
// warp walked with the lane's row sphere in registers (own_rows), hits
// summed per thread and added once per team and warp.

#include <tdmaps/collision/tile.hpp>

namespace tdmaps {
namespace collision {
namespace detail {

template <class ExecSpace>
template <Mode M>
KOKKOS_FORCEINLINE_FUNCTION void TileKernel<ExecSpace>::lane_tile_body(const team_member_t<ExecSpace>& team,
                                                                       const Tile& t, Carry& carry) const {
  Sphere* staged = static_cast<Sphere*>(t.scratch);  // aligned to tile_scratch_alignment
  constexpr bool aligned = M == Mode::intflags;      // lane_rows: only int flags read the window's first half
  if constexpr (!aligned && intrinsics::warp_code()) {
    // CUDA, a team of one warp (the default at block side 32) on a whole
    // off-diagonal block: own rows. The lane's row sphere goes straight to
    // registers, only the column spheres are staged; straight-line code
    // from its lane index (the general staging below is a vector loop with
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
template <class ExecSpace>
template <Mode M>
KOKKOS_FORCEINLINE_FUNCTION void TileKernel<ExecSpace>::add_hits(const team_member_t<ExecSpace>& team, int hits) const {
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
/// a broadcast read: fewer instructions and less shared-memory traffic
/// than an aligned chunk's row, whose lane sphere moves with r_i. Packed bit flags pay for it with atomic ORs: a
/// block's 32 pairs of a row straddle two flag words shared with the neighbouring blocks (the row-aligned flags do
/// not).
///
/// Count, int flags and bit flags sum their hits per thread over the
/// team's blocks (`total`; added by add_hits at the team's end).
template <class ExecSpace>
template <Mode M>
KOKKOS_FORCEINLINE_FUNCTION void TileKernel<ExecSpace>::lane_rows(const team_member_t<ExecSpace>& team, const Tile& t,
                                                                  const Sphere* rows, const Sphere* window,
                                                                  int& total) const {
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
      // L's int at chunk | 4 L (32-bit address arithmetic per row, as the
      // EDM's walk). From row i to i + 1 the packed index moves by T(i) -
      // T(i - 1) = i.
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
/// from the sign of walk_gap (intrinsics::shift_in_sign, the columns
/// walked from 31 down). One bound serves the lane's 32 pairs: B = 2^-15
/// (c_max + r_L)^2 + 2^-100, c_max the largest column radius (a warp
/// maximum), >= each pair's own bound of walk_gap. A lane with any pair
/// inside its bound (a near tie: a few per million pairs) tests its 32
/// pairs again with collides(). The lane's word is the block's part of its row, so: count,
/// its popcount; packed bit flags, the popcount too, and the word OR-ed
/// into the two flag words it straddles (only a word with a set bit: in
/// the papers' dense regime ~3% of the pairs collide); row-aligned flags,
/// the word stored whole (a plain store); the pair list's row counts, one
/// atomic add of the popcount per row; its second pass, each colliding
/// pair as the element kernel does. (Lanes owning columns would need a
/// 32 x 32 transpose, five shuffle rounds, for the bit flags.)
template <class ExecSpace>
template <Mode M>
KOKKOS_FORCEINLINE_FUNCTION void TileKernel<ExecSpace>::own_rows(const Tile& t, const Sphere* cols, const Sphere mine,
                                                                 const float col_max, const int lane, int& hits) const {
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
template <class ExecSpace>
template <Mode M>
KOKKOS_FORCEINLINE_FUNCTION void TileKernel<ExecSpace>::record(index_t i, index_t j, index_t p, int lane, bool h,
                                                               bool valid, bool warp, int& hits) const {
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

}  // namespace detail
}  // namespace collision
}  // namespace tdmaps

#endif
