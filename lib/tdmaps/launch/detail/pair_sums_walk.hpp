#ifndef TDMAPS_LAUNCH_DETAIL_PAIR_SUMS_WALK_HPP
#define TDMAPS_LAUNCH_DETAIL_PAIR_SUMS_WALK_HPP

// The walks of tdmaps::reduce_pair_sums, reduce_rows_pair_sums,
// histogram_pair_sums and for_each_pair_sums (a team takes blocks of rho x
// rho pairs, their sums by tiled_block_sums.hpp; each thread reduces its
// micro-tiles' pairs in registers, or joins their rows' values into the
// team's partials or adds their bins to the team's bins in scratch):
// tdmaps/launch/pair_sums.hpp says what they do.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/launch/detail/make_tile.hpp>
#include <tdmaps/launch/detail/tiled_block_sums.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace tdmaps {

namespace detail {

/// f(s, i, j) for each pair j < i of micro-tile (r, c) of block t (its rows
/// and columns within the block, below the diagonal of a diagonal block);
/// WithDiagonal: the pairs (i, i) too where the tile's triangle holds them
/// (Triangle::lower).
template <bool WithDiagonal = false, class Real, class F>
KOKKOS_FORCEINLINE_FUNCTION void each_tile_pair(const Tile& t, const Real (&s)[tiled_rows][tiled_cols], const int r,
                                                const int c, const F& f) {
  const bool diag = t.diagonal();
  const int last = WithDiagonal && t.triangle == Triangle::lower ? 1 : 0;  // tj < ti + last on the diagonal
  for (int u = 0; u < tiled_rows; ++u) {
    const int ti = tiled_rows * r + u;
    if (ti >= t.rows) continue;
    for (int w = 0; w < tiled_cols; ++w) {
      const int tj = tiled_cols * c + w;
      if (tj >= t.cols || (diag && tj >= ti + last)) continue;  // the pairs j < i (j <= i)
      f(s[u][w], t.i0 + ti, t.j0 + tj);
    }
  }
}

/// Block t of a map's triangle as the points' block of the mirrored
/// triangle: its pair (i', j') is the points' pair (n - 1 - j', n - 1 - i'),
/// so the block's columns, reversed, are the points' rows and its rows the
/// points' columns (a block below the diagonal again, a diagonal block
/// diagonal, the same pairs j < i of it; its first row and column need not
/// be multiples of the block side).
KOKKOS_FORCEINLINE_FUNCTION Tile mirrored_tile(const Tile& t, const index_t n) {
  Tile m = t;
  m.i0 = n - t.j0 - t.cols;
  m.j0 = n - t.i0 - t.rows;
  m.rows = t.cols;
  m.cols = t.rows;
  return m;
}

/// The blocks a team of a pair-sums walk takes: on GPU backends 8 (a team's
/// reduction and bins' flush paid once per 8 blocks), 1 on host backends.
template <class ExecSpace>
constexpr int pair_sums_blocks_per_team = tiled_staged<ExecSpace> ? 8 : 1;

/// What every pair-sums walk holds (the map, the points, the launch and
/// the omegas of this Kokkos launch) and its walk of a team's blocks.
template <class ExecSpace, class Map, class Points>
struct PairSumsBlocks {
  using Real = typename Points::non_const_value_type;
  static constexpr bool staged = tiled_staged<ExecSpace>;
  Map map;
  Points x;
  int d = 0;
  int launch = 0;
  index_t offset = 0;
  index_t count = 0;

  /// The team's scratch of `bytes` (aligned to tile_scratch_alignment; the
  /// launch reserves that much more), the staged coordinates first.
  KOKKOS_FORCEINLINE_FUNCTION static char* scratch(const team_member_t<ExecSpace>& team, const std::size_t bytes) {
    return static_cast<char*>(team.team_scratch(0).get_shmem_aligned(bytes, tile_scratch_alignment));
  }

  /// f(s, i, j) for each pair of the team's blocks, by the thread of its
  /// micro-tile (WithDiagonal: each_tile_pair's); srow: the staged
  /// coordinates (tiled_staging_bytes of scratch; GPU walk only).
  /// Mirrored: each block of the map as the points' block of the mirrored
  /// triangle (mirrored_tile): f(s, a, b) for the map's pair (i', j') is
  /// the points' pair (a, b) = (n - 1 - j', n - 1 - i').
  template <bool WithDiagonal, bool Mirrored = false, class F>
  KOKKOS_FORCEINLINE_FUNCTION void each_pair(const team_member_t<ExecSpace>& team, Real* const srow,
                                             const F& f) const {
    Real* const scol = staged ? srow + tiled_chunk * tiled_stride : nullptr;
    bool busy = false;
    each_block<ExecSpace>(map, launch, offset, count, team, [&](const Tile& mapped) {
      const Tile t = Mirrored ? mirrored_tile(mapped, map.domain.n) : mapped;
      if (busy) team.team_barrier();  // the previous block's last chunk is read
      busy = true;
      tiled_block_sums<staged, false>(team, t, x.data(), static_cast<std::size_t>(x.stride(0)), d, map.domain.rho,
                                      srow, scol, [&](const Real(&s)[tiled_rows][tiled_cols], const int r, const int c) {
                                        each_tile_pair<WithDiagonal>(t, s, r, c, f);
                                      });
    });
  }
};

/// reduce_pair_sums: each thread's law(s, i, j, acc) over its pairs into
/// its own value; Kokkos joins the threads' values (parallel_reduce over
/// the teams, by Reducer).
template <class ExecSpace, class Map, class Points, class Law, class Reducer>
struct PairSumsReduceWalk : PairSumsBlocks<ExecSpace, Map, Points> {
  using Base = PairSumsBlocks<ExecSpace, Map, Points>;
  using typename Base::Real;
  using value_type = typename Reducer::value_type;
  Law law;
  Reducer reducer;

  /// Team scratch taken (aligned; the launch reserves the alignment's slack too).
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes() { return Base::staged ? tiled_staging_bytes<Real>() : 0; }

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team, value_type& update) const {
    Real* const srow = Base::staged ? reinterpret_cast<Real*>(Base::scratch(team, scratch_bytes())) : nullptr;
    value_type acc;
    reducer.init(acc);
    this->template each_pair<false>(team, srow,
                                    [&](const Real v, const index_t i, const index_t j) { law(v, i, j, acc); });
    reducer.join(update, acc);
  }
};

/// for_each_pair_sums: f(s, i, j) for each pair of the map's triangle
/// (the diagonal too where it holds it), by the thread of its micro-tile;
/// Mirrored: of the mirrored triangle (each_pair).
template <class ExecSpace, class Map, class Points, class F, bool Mirrored = false>
struct PairSumsForEachWalk : PairSumsBlocks<ExecSpace, Map, Points> {
  using Base = PairSumsBlocks<ExecSpace, Map, Points>;
  using typename Base::Real;
  F f;

  /// Team scratch taken (aligned; the launch reserves the alignment's slack too).
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes() { return Base::staged ? tiled_staging_bytes<Real>() : 0; }

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    Real* const srow = Base::staged ? reinterpret_cast<Real*>(Base::scratch(team, scratch_bytes())) : nullptr;
    this->template each_pair<true, Mirrored>(team, srow, f);
  }
};

/// histogram_pair_sums: each pair's bin law(s, i, j) added to the team's
/// bins in scratch, which are added to counts when the team ends (Global:
/// bins past a team's scratch, an atomic per pair into counts).
template <class ExecSpace, class Map, class Points, class Law, class Counts, bool Global>
struct PairSumsHistogramWalk : PairSumsBlocks<ExecSpace, Map, Points> {
  using Base = PairSumsBlocks<ExecSpace, Map, Points>;
  using typename Base::Real;
  Law law;
  Counts counts;
  int bins = 0;

  /// Team scratch taken (aligned; the launch reserves the alignment's slack
  /// too): the staged coordinates, then the bins.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(const int bins) {
    return (Base::staged ? tiled_staging_bytes<Real>() : 0) +
           (Global ? 0 : sizeof(std::uint32_t) * static_cast<std::size_t>(bins));
  }

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    // 64-bit counts as unsigned long long: CUDA's native atomic (reduce.hpp's native).
    const auto out = [&](const int b) { return reinterpret_cast<unsigned long long*>(&counts(b)); };
    char* const base = Base::scratch(team, scratch_bytes(bins));
    Real* const srow = Base::staged ? reinterpret_cast<Real*>(base) : nullptr;
    std::uint32_t* const h = reinterpret_cast<std::uint32_t*>(base + (Base::staged ? tiled_staging_bytes<Real>() : 0));
    if constexpr (!Global) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, bins), [&](const int b) { h[b] = 0; });
      team.team_barrier();
    }
    this->template each_pair<false>(team, srow, [&](const Real v, const index_t i, const index_t j) {
      const int b = law(v, i, j);
      if (b < 0 || b >= bins) return;
      if constexpr (Global)
        Kokkos::atomic_add(out(b), 1ull);
      else if constexpr (Base::staged)
        intrinsics::scratch_add(&h[b], 1u);
      else
        ++h[b];  // the team's one thread
    });
    if constexpr (!Global) {
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, bins), [&](const int b) {
        if (h[b] != 0) Kokkos::atomic_add(out(b), static_cast<unsigned long long>(h[b]));
      });
    }
  }
};

/// reduce_rows_pair_sums: per block, each thread joins its micro-tile's
/// values into its rows' and its columns' partials in registers, then into
/// the team's partials of the block's rows and columns in scratch (Op's
/// atomic join on GPU backends), which the team joins into `rows` once per
/// row and column of the block (Op's atomic join: other teams share them).
template <class ExecSpace, class Map, class Points, class Law, class Rows, class Op>
struct PairSumsRowsWalk : PairSumsBlocks<ExecSpace, Map, Points> {
  using Base = PairSumsBlocks<ExecSpace, Map, Points>;
  using typename Base::Real;
  using value_type = typename Op::value_type;
  Law law;
  Rows rows;

  /// Team scratch taken (aligned; the launch reserves the alignment's slack
  /// too): the staged coordinates, then the partials of 2 rho rows.
  KOKKOS_INLINE_FUNCTION static std::size_t scratch_bytes(const int rho) {
    return (Base::staged ? tiled_staging_bytes<Real>() : 0) + sizeof(value_type) * 2 * static_cast<std::size_t>(rho);
  }

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    constexpr int MR = tiled_rows, MC = tiled_cols;
    const int rho = this->map.domain.rho;
    char* const base = Base::scratch(team, scratch_bytes(rho));
    Real* const srow = Base::staged ? reinterpret_cast<Real*>(base) : nullptr;
    Real* const scol = Base::staged ? srow + tiled_chunk * tiled_stride : nullptr;
    // The staged coordinates' bytes are a multiple of 16: the partials stay aligned.
    value_type* const prow = reinterpret_cast<value_type*>(base + (Base::staged ? tiled_staging_bytes<Real>() : 0));
    value_type* const pcol = prow + rho;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * rho), [&](const int k) { prow[k] = Op::identity(); });
    team.team_barrier();
    each_block<ExecSpace>(this->map, this->launch, this->offset, this->count, team, [&](const Tile& t) {
      tiled_block_sums<Base::staged, false>(
          team, t, this->x.data(), static_cast<std::size_t>(this->x.stride(0)), this->d, rho, srow, scol,
          [&](const Real(&s)[MR][MC], const int r, const int c) {
            value_type vr[MR], vc[MC];
            for (int u = 0; u < MR; ++u) vr[u] = Op::identity();
            for (int w = 0; w < MC; ++w) vc[w] = Op::identity();
            each_tile_pair(t, s, r, c, [&](const Real v, const index_t i, const index_t j) {
              Op::join(vr[i - t.i0 - MR * r], law(v, i, j));
              Op::join(vc[j - t.j0 - MC * c], law(v, j, i));
            });
            for (int u = 0; u < MR; ++u) {
              if (MR * r + u >= t.rows) break;
              if constexpr (Base::staged) Op::atomic_join(&prow[MR * r + u], vr[u]);
              else Op::join(prow[MR * r + u], vr[u]);
            }
            for (int w = 0; w < MC; ++w) {
              if (MC * c + w >= t.cols) break;
              if constexpr (Base::staged) Op::atomic_join(&pcol[MC * c + w], vc[w]);
              else Op::join(pcol[MC * c + w], vc[w]);
            }
          });
      // Every thread's partials are in; the flush resets them for the next
      // block, whose first joins come after its staging's barrier.
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 2 * rho), [&](const int k) {
        const bool row = k < rho;
        const int p = row ? k : k - rho;
        if (p < (row ? t.rows : t.cols)) {
          Op::atomic_join(&rows(row ? t.i0 + p : t.j0 + p), prow[k]);
          prow[k] = Op::identity();
        }
      });
    });
  }
};

}  // namespace detail

}  // namespace tdmaps

#endif
