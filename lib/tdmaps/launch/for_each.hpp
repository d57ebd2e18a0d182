#ifndef TDMAPS_LAUNCH_FOR_EACH_HPP
#define TDMAPS_LAUNCH_FOR_EACH_HPP

// The launch layer: the only place that builds Kokkos policies for a map.
//
//   for_each_element(space, map, kernel[, label])
//       kernel(i, j) once for every element of the map's domain; any map.
//   for_each_tile(space, map, scratch_bytes, kernel[, label])
//       kernel(team, tile) once per block of the domain, with scratch_bytes of
//       level-0 team scratch; block-space maps only.
//
// A block-space map's league rank (plus an offset when a league is split into
// launches of at most max_league_per_launch teams) is omega; with
// LaunchHints::blocks_per_team = K > 1 a league of L = ceil(blocks / K) teams
// takes omega = rank, rank + L, ... (the GPU tile kernels' default). On GPU backends a
// team is TeamPolicy(league, rows, rho): vector lanes along j so a row of the
// block is contiguous in memory, and `rows` team threads (team_rows()) walk
// the rho rows of the block, so a thread handles rho / rows elements. rows =
// rho is the papers' one element per thread. On host backends a team of one
// walks the whole block.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/intrinsics.hpp>
#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {

/// Largest league a single Kokkos launch is given; longer leagues are split
/// into several launches with an omega offset (Kokkos' league size is an int).
constexpr index_t max_league_per_launch = index_t(1) << 30;

/// A block of the domain as a tile kernel sees it.
struct Tile {
  index_t i0 = 0;  ///< first row of the block
  index_t j0 = 0;  ///< first column of the block
  int rows = 0;    ///< rows of the block inside the domain (rho, fewer on the last block row)
  int cols = 0;    ///< columns of the block inside [0, n)
  Triangle triangle = Triangle::lower;
  /// Tile kernels: the team's scratch_bytes of level-0 scratch for this block,
  /// aligned to tile_scratch_alignment (null for element kernels). The same
  /// memory serves each block a team takes (LaunchHints::blocks_per_team),
  /// with a team barrier between blocks; take scratch from here, not from
  /// team.team_scratch(0), whose allocations are not returned between blocks.
  void* scratch = nullptr;

  /// Whether block-local element (ti, tj) lies in the domain; ti < rows and tj < cols given.
  KOKKOS_FORCEINLINE_FUNCTION bool contains(int ti, int tj) const {
    return triangle == Triangle::lower ? j0 + tj <= i0 + ti : j0 + tj < i0 + ti;
  }
  KOKKOS_FORCEINLINE_FUNCTION bool diagonal() const { return i0 == j0; }
};

/// How a launch shapes its teams (GPU backends; host teams are one thread).
struct LaunchHints {
  /// Threads per team; 0 picks the measured default (team_rows below).
  /// rho * rho gives the papers' one thread per element.
  int team_threads = 0;
  /// Blocks each team takes in turn, at most: a league of L teams, L =
  /// ceil(blocks / K), team r taking omegas r, r + L, r + 2L, ...; 0 picks
  /// the measured default (blocks_per_team below), 1 is the papers' one
  /// block per team. A team that does more than one block pays its launch
  /// and its set-up once per K blocks.
  int blocks_per_team = 0;
};

/// Largest LaunchHints::blocks_per_team accepted.
constexpr int max_blocks_per_team = 1024;

/// Alignment of Tile::scratch in bytes.
constexpr std::size_t tile_scratch_alignment = 64;

/// What a launch runs per block: an element kernel (kernel(i, j)) or a tile
/// kernel (kernel(team, tile)); their GPU defaults differ (below).
enum class LaunchKind { element, tile };

/// Team rows (threads along i) of a GPU launch with block side rho.
/// Element kernels: 8 rows at rho = 32 and 4 rows at rho = 8 and 16, measured
/// on an H100 (perf_tests/README.md): one element per thread leaves these
/// instruction-bound kernels paying the per-thread set-up for every element,
/// and 1024-thread teams are 1.4-1.7x slower than 256-thread ones at rho = 32.
/// Tile kernels: one warp, tile_team_threads threads (rho = 32: one thread
/// per column walking all 32 rows; rho = 8, 16: 32 / rho rows). A tile
/// kernel's block is a chain of latencies (stage the points, barrier, walk
/// the rows) with little work per thread at large teams: at n = 30720 on an
/// H100 a 1024-thread team ran the EDM tile kernel 9x slower than a 64-thread
/// one (perf_tests/README.md). Apps pick their own shape per output where
/// they measured a better one (edm::impl::tile_hints, collision's).
constexpr int tile_team_threads = 32;
/// Blocks per team of the GPU tile kernels (LaunchHints::blocks_per_team = 0).
constexpr int tile_blocks_per_team = 2;

inline int team_rows(const LaunchHints& hints, int rho, LaunchKind kind = LaunchKind::element) {
  if (hints.team_threads == 0) {
    if (kind == LaunchKind::tile) return tile_team_threads / rho > 1 ? tile_team_threads / rho : 1;
    return rho == 32 ? 8 : 4;
  }
  if (hints.team_threads < rho)
    throw std::invalid_argument("tdmaps: LaunchHints::team_threads = " + std::to_string(hints.team_threads) +
                                " is smaller than one row of the block (rho = " + std::to_string(rho) + ")");
  return hints.team_threads / rho < rho ? hints.team_threads / rho : rho;
}

/// Blocks per team of a launch (LaunchHints::blocks_per_team; 0: 1 for
/// element kernels and host backends, tile_blocks_per_team for GPU tile kernels).
inline int blocks_per_team(const LaunchHints& hints, LaunchKind kind, bool gpu) {
  if (hints.blocks_per_team < 0 || hints.blocks_per_team > max_blocks_per_team)
    throw std::invalid_argument("tdmaps: LaunchHints::blocks_per_team = " + std::to_string(hints.blocks_per_team) +
                                " is outside 0 .. " + std::to_string(max_blocks_per_team));
  if (hints.blocks_per_team > 0) return hints.blocks_per_team;
  return gpu && kind == LaunchKind::tile ? tile_blocks_per_team : 1;
}

template <class ExecSpace>
struct is_gpu_space : std::false_type {};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct is_gpu_space<Kokkos::Cuda> : std::true_type {};
#endif

template <class ExecSpace>
using team_policy_t = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<1024, 1>, Kokkos::IndexType<int>>;

template <class ExecSpace>
using team_member_t = typename team_policy_t<ExecSpace>::member_type;

/// Inside a tile kernel on a GPU team of R threads x rho lanes (the launch
/// layer's shape): f(lane, first, step) once per thread, with lane in
/// [0, rho) and the thread's rows first, first + step, ... (step = R). A
/// kernel keeps its lane's column data in registers and walks its rows,
/// which is what the tile kernels of the apps do on GPU backends:
///
///   for_each_lane(team, log2_block_side(rho), [&](int tj, int first, int step) {
///     if (tj >= t.cols) return;
///     const auto cj = load(t.j0 + tj);  // once per thread
///     for (int ti = first; ti < t.rows; ti += step) f(ti, tj, cj);
///   });
///
/// Every (lane, first) pair is visited once whatever the team shape; with the
/// launch layer's shape (vector length rho) a warp's lanes are consecutive
/// columns, so row stores coalesce. On a host team (1 x 1) it is one call per
/// lane with first = 0, step = 1.
/// TDMAPS_FORCE_LANE_STEP=R (tests only) makes a one-thread host team call f
/// as a GPU team of R threads would, so kernels' row stepping is tested on host.
template <class Member, class F>
KOKKOS_FORCEINLINE_FUNCTION void for_each_lane(const Member& team, int log2_rho, const F& f) {
#if defined(TDMAPS_FORCE_LANE_STEP)
  const int step = team.team_size() == 1 ? TDMAPS_FORCE_LANE_STEP : team.team_size();
#else
  const int step = team.team_size();
#endif
  const int mask = (1 << log2_rho) - 1;
  Kokkos::parallel_for(Kokkos::TeamVectorRange(team, step << log2_rho),
                       [&](const int k) { f(k & mask, k >> log2_rho, step); });
}

/// The first of a thread's rows first, first + step, ... that is >= lowest
/// (on a diagonal block: the first row inside the triangle).
KOKKOS_FORCEINLINE_FUNCTION int first_row_from(int first, int step, int lowest) {
  return lowest > first ? first + (lowest - first + step - 1) / step * step : first;
}

/// log2 of a block side (8, 16 or 32).
KOKKOS_FORCEINLINE_FUNCTION int log2_block_side(int rho) { return rho == 8 ? 3 : rho == 16 ? 4 : 5; }

namespace impl {

// ---- uniform view of single- and multi-launch block maps -----------------
template <class Map, class = void>
struct is_multi_launch : std::false_type {};
template <class Map>
struct is_multi_launch<Map, decltype(void(std::declval<const Map&>().launches()))> : std::true_type {};

template <class Map>
int launches(const Map& map) {
  if constexpr (is_multi_launch<Map>::value) return map.launches();
  else return 1;
}
template <class Map>
KOKKOS_FORCEINLINE_FUNCTION index_t league_size(const Map& map, int l) {
  if constexpr (is_multi_launch<Map>::value) return map.league_size(l);
  else { (void)l; return map.league_size(); }
}
template <class Map>
KOKKOS_FORCEINLINE_FUNCTION bool block(const Map& map, int l, index_t omega, Block2& b) {
  if constexpr (is_multi_launch<Map>::value) return map.block(l, omega, b);
  else { (void)l; return map.block(omega, b); }
}

template <class Map>
constexpr bool is_block_space = std::is_same<typename Map::space_tag, BlockSpaceTag>::value;
template <class Map>
constexpr bool is_thread_space = std::is_same<typename Map::space_tag, ThreadSpaceTag>::value;

KOKKOS_FORCEINLINE_FUNCTION Tile make_tile(const Domain2& d, const Block2& b) {
  Tile t;
  t.i0 = b.bi * d.rho;
  t.j0 = b.bj * d.rho;
  t.rows = static_cast<int>(d.n - t.i0 < d.rho ? d.n - t.i0 : d.rho);
  t.cols = static_cast<int>(d.n - t.j0 < d.rho ? d.n - t.j0 : d.rho);
  t.triangle = d.triangle;
  return t;
}

template <class ExecSpace, class Map, class Kernel>
struct ElementFunctor {
  Map map;
  Kernel kernel;
  int launch;
  index_t offset = 0;  ///< first omega of this Kokkos launch
  index_t count = 0;   ///< omegas of this Kokkos launch: [offset, offset + count)
  int log2_rho;        ///< rho = 2^log2_rho

  ElementFunctor(const Map& m, const Kernel& k, int l)
      : map(m), kernel(k), launch(l), log2_rho(intrinsics::bit_length(static_cast<std::uint64_t>(m.domain.rho)) - 1) {}

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    // Team r takes omegas r, r + L, r + 2L, ... (L teams): the teams running
    // at any moment take neighbouring blocks, as with one block per team.
    const index_t teams = team.league_size();
    if (count <= teams) {
      // One block per team (the element kernels' default): no loop, whose
      // 64-bit step and test every launched warp would pay.
      const index_t k = team.league_rank();
      Block2 b;
      if (k < count && impl::block(map, launch, offset + k, b)) run_block(team, make_tile(map.domain, b));
      return;
    }
    for (index_t k = team.league_rank(); k < count; k += teams) {
      Block2 b;
      if (impl::block(map, launch, offset + k, b)) run_block(team, make_tile(map.domain, b));
    }
  }

  // GPU teams walk a block as the plain-CUDA kernel does (for_each_lane);
  // TDMAPS_FORCE_LANE_TILE (tests) makes host teams do so too.
#if defined(TDMAPS_FORCE_LANE_TILE)
  static constexpr bool lanes = true;
#else
  static constexpr bool lanes = is_gpu_space<ExecSpace>::value;
#endif

  KOKKOS_FORCEINLINE_FUNCTION void run_block(const team_member_t<ExecSpace>& team, const Tile& t) const {
    // Every element of an off-diagonal block lies in the domain (j <= j0 +
    // rho - 1 < i0 <= i): only diagonal blocks start a lane's rows at its
    // first row inside the triangle (tj + strict <= ti).
    if constexpr (lanes) {
      // Each thread keeps its column (lane) and walks its rows first, first
      // + step, ...: the column and its address are loop-invariant, one test
      // per block for the last block column, one per row for the last block
      // row. A flat TeamVectorRange over rows x rho (k -> ti, tj by shift
      // and mask, and the column test, per element) took 1.25x the time of
      // the same body in plain CUDA (EDM packed d = 2, BB, n = 30720; 1.43 G
      // warp instructions against 1.02 G, Nsight Compute); nested
      // TeamThreadRange / ThreadVectorRange loops cost Kokkos 3.4 a lane-mask
      // division after every vector loop (perf_tests/README.md).
      const int strict = t.triangle == Triangle::strict_lower ? 1 : 0;
      const auto walk = [&](const int tj, const int first, const int step) {
        if (tj >= t.cols) return;
        const index_t j = t.j0 + tj;
        const int start = t.diagonal() ? first_row_from(first, step, tj + strict) : first;
        index_t i = t.i0 + start;
        for (int ti = start; ti < t.rows; ti += step, i += step) kernel(i, j);
      };
      if constexpr (intrinsics::warp_code()) {
        // CUDA: the team is a block of (rho, R) threads, each thread exactly
        // one (lane, first) pair: no loop around it (for_each_lane's
        // TeamVectorRange costs its bounds and loop test per block).
        walk(intrinsics::thread_x(), intrinsics::thread_y(), intrinsics::block_dim_y());
      } else {
        for_each_lane(team, log2_rho, walk);
      }
    } else {
      // Host: a team of one walks the block; the inner loop vectorises.
      if (!t.diagonal()) {
        for (int ti = 0; ti < t.rows; ++ti)
          for (int tj = 0; tj < t.cols; ++tj) kernel(t.i0 + ti, t.j0 + tj);
      } else {
        const int strict = t.triangle == Triangle::strict_lower ? 1 : 0;
        for (int ti = 0; ti < t.rows; ++ti)
          for (int tj = 0; tj + strict <= ti && tj < t.cols; ++tj) kernel(t.i0 + ti, t.j0 + tj);
      }
    }
  }
};

/// Whether a tile kernel keeps per-thread state across its team's blocks
/// (it declares `team_state`; see for_each_tile).
template <class Kernel, class = void>
struct has_team_state : std::false_type {};
template <class Kernel>
struct has_team_state<Kernel, std::void_t<typename Kernel::team_state>> : std::true_type {};

/// Whether a tile kernel declares a gate (`bool enabled() const`; see for_each_tile).
template <class Kernel, class = void>
struct has_gate : std::false_type {};
template <class Kernel>
struct has_gate<Kernel, std::void_t<decltype(bool(std::declval<const Kernel&>().enabled()))>> : std::true_type {};

template <class ExecSpace, class Map, class Kernel>
struct TileFunctor {
  Map map;
  Kernel kernel;
  int launch;
  index_t offset = 0;  ///< first omega of this Kokkos launch
  index_t count = 0;   ///< omegas of this Kokkos launch: [offset, offset + count)
  std::size_t scratch_bytes = 0;

  TileFunctor(const Map& m, const Kernel& k, int l, std::size_t bytes)
      : map(m), kernel(k), launch(l), scratch_bytes(bytes) {}

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    if constexpr (has_gate<Kernel>::value) {
      if (!kernel.enabled()) return;  // once per team, before its first block
    }
    if constexpr (has_team_state<Kernel>::value) {
      typename Kernel::team_state state{};
      each_block(team, [&](const Tile& t) { kernel(team, t, state); });
      kernel.team_end(team, state);
    } else {
      each_block(team, [&](const Tile& t) { kernel(team, t); });
    }
  }

  /// f(tile) for each block the team takes, a team barrier between blocks.
  template <class F>
  KOKKOS_FORCEINLINE_FUNCTION void each_block(const team_member_t<ExecSpace>& team, const F& f) const {
    // One allocation per team, handed to every block it takes.
    void* const scratch =
        scratch_bytes > 0 ? team.team_scratch(0).get_shmem_aligned(scratch_bytes, tile_scratch_alignment) : nullptr;
    bool busy = false;  // the scratch holds the previous block's data
    // Team r takes omegas r, r + L, r + 2L, ... (L teams): the teams running
    // at any moment take neighbouring blocks, as with one block per team, so
    // the pieces of a memory sector that neighbouring blocks write arrive
    // together. (Taking K consecutive blocks per team instead, the packed EDM
    // d = 4 ran in 1.65 ms against 0.89 ms at n = 30720 on the H100, with
    // 230 MB of DRAM reads against 1 MB: sectors evicted half-written and
    // read back to be completed; perf_tests/README.md.)
    const index_t teams = team.league_size();
    for (index_t k = team.league_rank(); k < count; k += teams) {
      Block2 b;
      if (!impl::block(map, launch, offset + k, b)) continue;  // uniform over the team (same omega)
      if (busy) team.team_barrier();                      // every thread is done with the scratch
      busy = true;
      Tile t = make_tile(map.domain, b);
      t.scratch = scratch;
      f(t);
    }
  }
};

template <class Map, class Kernel>
struct ThreadFunctor {
  Map map;
  Kernel kernel;
  KOKKOS_FUNCTION void operator()(const index_t k) const {
    index_t i, j;
    map.element(k, i, j);
    kernel(i, j);
  }
};

template <class ExecSpace>
void team_shape(const Domain2& d, const LaunchHints& hints, LaunchKind kind, int& team_size, int& vector_length) {
  const int rows = team_rows(hints, d.rho, kind);  // validates the hints on every backend
  if (is_gpu_space<ExecSpace>::value) {
    team_size = rows;
    vector_length = d.rho;
  } else {
    team_size = 1;
    vector_length = 1;
  }
}

/// Launches the league of omegas [0, league) in teams of at most
/// blocks_per_team blocks, split into Kokkos launches of at most
/// max_league_per_launch teams.
template <class ExecSpace, class Functor>
void run_league(const ExecSpace& space, const std::string& label, const Domain2& d, const LaunchHints& hints,
                LaunchKind kind, index_t league, std::size_t scratch, Functor f) {
  int team_size, vector_length;
  team_shape<ExecSpace>(d, hints, kind, team_size, vector_length);
  const int per_team = blocks_per_team(hints, kind, is_gpu_space<ExecSpace>::value);
  const index_t per_launch = max_league_per_launch * per_team;  // omegas per Kokkos launch
  for (index_t offset = 0; offset < league; offset += per_launch) {
    const index_t omegas = league - offset < per_launch ? league - offset : per_launch;
    const index_t chunk = (omegas + per_team - 1) / per_team;  // teams: each takes at most per_team omegas
    f.offset = offset;
    f.count = omegas;
    team_policy_t<ExecSpace> policy(space, static_cast<int>(chunk), team_size, vector_length);
    if (scratch > 0) {
      const std::size_t max_scratch = static_cast<std::size_t>(team_policy_t<ExecSpace>::scratch_size_max(0));
      if (scratch + tile_scratch_alignment > max_scratch)
        throw std::invalid_argument(label + ": tile kernel asks for " + std::to_string(scratch) +
                                    " bytes of team scratch per block; this backend allows at most " +
                                    std::to_string(max_scratch - tile_scratch_alignment));
      policy.set_scratch_size(0, Kokkos::PerTeam(scratch + tile_scratch_alignment));  // + alignment slack
    }
    if (offset == 0) {
      const int max_team = policy.team_size_max(f, Kokkos::ParallelForTag());
      if (team_size > max_team)
        throw std::runtime_error(label + ": a block of " + std::to_string(team_size) + " x " +
                                 std::to_string(vector_length) + " threads does not fit this kernel on this backend (" +
                                 "team_size_max = " + std::to_string(max_team) + "); use a smaller block side");
    }
    Kokkos::parallel_for(label, policy, f);
  }
}

}  // namespace impl

/// kernel(i, j) for every element (i, j) of map.domain, exactly once.
template <class ExecSpace, class Map, class Kernel>
void for_each_element(const ExecSpace& space, const Map& map, const Kernel& kernel,
                      const std::string& label = std::string("tdmaps::for_each_element::") + Map::name,
                      const LaunchHints& hints = LaunchHints()) {
  if constexpr (impl::is_thread_space<Map>) {
    const index_t total = map.elements();
    for (index_t begin = 0; begin < total; begin += max_league_per_launch) {
      const index_t end = total - begin < max_league_per_launch ? total : begin + max_league_per_launch;
      Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, begin, end),
                           impl::ThreadFunctor<Map, Kernel>{map, kernel});
    }
  } else {
    static_assert(impl::is_block_space<Map>, "tdmaps::for_each_element: Map::space_tag must be BlockSpaceTag or ThreadSpaceTag");
    for (int l = 0; l < impl::launches(map); ++l) {
      impl::run_league(space, label, map.domain, hints, LaunchKind::element, impl::league_size(map, l), 0,
                       impl::ElementFunctor<ExecSpace, Map, Kernel>(map, kernel, l));
    }
  }
}

/// kernel(team, tile) for every block of map.domain, exactly once, with
/// scratch_bytes of level-0 team scratch per block. A kernel that declares a
/// type `team_state` (default-constructible) is called as kernel(team, tile,
/// state) instead, with one state per thread that lives across the blocks
/// its team takes (LaunchHints::blocks_per_team), and kernel.team_end(team,
/// state) once per team after its last block (also when it took none): e.g.
/// hits summed over a team's blocks and added with one atomic per team.
/// A kernel that declares `bool enabled() const` (a gate) is asked once per
/// team before its first block; a team that gets false takes no block and
/// calls no team_end. With the condition computed on the device by an
/// earlier launch on the same execution space instance, a launch can be
/// cancelled without a host wait in between (collision's input check).
template <class ExecSpace, class Map, class Kernel>
void for_each_tile(const ExecSpace& space, const Map& map, std::size_t scratch_bytes, const Kernel& kernel,
                   const std::string& label = std::string("tdmaps::for_each_tile::") + Map::name,
                   const LaunchHints& hints = LaunchHints()) {
  static_assert(impl::is_block_space<Map>,
                "tdmaps::for_each_tile: a tile kernel needs a block-space map (BB, lambda, RB, REC, H); "
                "UTM is a thread-space map and serves element kernels only (for_each_element)");
  for (int l = 0; l < impl::launches(map); ++l) {
    impl::run_league(space, label, map.domain, hints, LaunchKind::tile, impl::league_size(map, l), scratch_bytes,
                     impl::TileFunctor<ExecSpace, Map, Kernel>(map, kernel, l, scratch_bytes));
  }
}

/// Inside a tile kernel: f(ti, tj) for every block-local element of the tile
/// that lies in the domain (rows over team threads, columns over vector lanes).
template <class Member, class F>
KOKKOS_FORCEINLINE_FUNCTION void for_each_in_tile(const Member& team, const Tile& t, const F& f) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, t.rows), [&](const int ti) {
    Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, t.cols), [&](const int tj) {
      if (t.contains(ti, tj)) f(ti, tj);
    });
  });
}


}  // namespace tdmaps

#endif
