#ifndef TDMAPS_LAUNCH_REDUCE_HPP
#define TDMAPS_LAUNCH_REDUCE_HPP

// Pair reductions: a result over the elements of a 2-D map's domain that
// never stores the matrix. Each team reduces its blocks in registers or team
// scratch and combines once (launch/detail/reduce_functors.hpp): no atomic per pair
// (but for histograms of more bins than a team's scratch holds).
//
//   reduce_pairs(space, map[, range], kernel, reducer[, label[, hints]])
//       kernel(i, j, update) for every element; reducer is a Kokkos reducer
//       (Kokkos::Sum, Min, Max, MinLoc, MaxLoc, or one of the user's) and
//       holds the result on return (Kokkos' team and league reductions).
//   histogram_pairs(space, map[, range], kernel, counts[, label[, hints]])
//       counts(b) += #{elements with kernel(i, j) == b}, b in [0, counts.extent(0));
//       kernel results outside that range are not counted. Any number of
//       bins below 2^31: bins that do not fit a team's scratch are added
//       to counts with an atomic per pair instead.
//   reduce_rows(space, map[, range], kernel, rows, Op[, label[, hints]])
//       both ends of each pair: rows(i) = Op::join(rows(i), kernel(i, j)) and
//       rows(j) = Op::join(rows(j), kernel(j, i)) for every element (i, j),
//       j != i; a diagonal element (i, i) joins kernel(i, i) into rows(i) once.
//       Op: RowSum<T>, RowMin<T>, RowMax<T> (T integral for min / max: pack a
//       value and a location into one key, e.g. (float bits << 32) | j, so
//       the location of the best value comes with it and ties go to the
//       smaller location). rows is joined into, not reset: the caller fills
//       it with Op::identity() once and may then run several ranges.
//
// A kernel may offer column(j) (optional, every reduction): a kernel for the
// pairs (i, j) of column j alone, called as the kernel is, that holds what
// depends on j (point j in registers, say). The GPU walks give each lane one
// column of a block and call it for the block's rows; reduce_rows uses it for
// kernels with both(i, j, vi, vj). Its results must equal the kernel's.
//
// Block-space maps: every map for reduce_pairs (utm too, by a range policy);
// histograms and row reductions need blocks (bb, lambda, rb, rec, hadouken).
// The [range] overloads take an OmegaRange of a one-launch map (bb, lambda):
// chunks and MPI ranks reduce their own ranges and combine the results.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/launch/detail/reduce_functors.hpp>
#include <tdmaps/launch/detail/run_league.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/detail/map_traits.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {

namespace detail {
/// 64-bit integers as the types CUDA's atomics take natively (long long,
/// unsigned long long): Kokkos 3 runs (unsigned) long, which std::int64_t
/// and std::uint64_t are on Linux, through a compare-and-swap loop, which
/// many teams adding to the same bins turn into a retry storm. Other types as they are.
template <class T>
KOKKOS_FORCEINLINE_FUNCTION auto native(T* p) {
  if constexpr (std::is_integral<T>::value && sizeof(T) == 8)
    return reinterpret_cast<std::conditional_t<std::is_signed<T>::value, long long, unsigned long long>*>(p);
  else
    return p;
}
template <class T>
KOKKOS_FORCEINLINE_FUNCTION auto native(T v) {
  if constexpr (std::is_integral<T>::value && sizeof(T) == 8)
    return static_cast<std::conditional_t<std::is_signed<T>::value, long long, unsigned long long>>(v);
  else
    return v;
}
}  // namespace detail

/// reduce_rows operation: the sum of the row's values.
template <class T>
struct RowSum {
  using value_type = T;  ///< the row values' type
  /// The value of an empty row.
  KOKKOS_FORCEINLINE_FUNCTION static T identity() { return T(0); }
  /// a = a combined with b.
  KOKKOS_FORCEINLINE_FUNCTION static void join(T& a, const T b) { a += b; }
  /// *p = *p combined with v, atomically. 64-bit integers as unsigned long
  /// long: the same bits in two's complement, and the add CUDA has natively
  /// (Kokkos 3 takes a signed one through a compare-and-swap loop).
  KOKKOS_FORCEINLINE_FUNCTION static void atomic_join(T* p, const T v) {
    if constexpr (std::is_integral<T>::value && sizeof(T) == 8)
      Kokkos::atomic_add(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
    else
      Kokkos::atomic_add(detail::native(p), detail::native(v));
  }
};

/// reduce_rows operation: the smallest of the row's values (an integral key).
template <class T>
struct RowMin {
  static_assert(std::is_integral<T>::value, "tdmaps::RowMin: an integral key (pack value and location into it)");
  using value_type = T;  ///< the row values' type
  /// The value of an empty row.
  KOKKOS_FORCEINLINE_FUNCTION static T identity() { return Kokkos::reduction_identity<T>::min(); }
  /// a = a combined with b.
  KOKKOS_FORCEINLINE_FUNCTION static void join(T& a, const T b) { a = b < a ? b : a; }
  /// *p = *p combined with v, atomically.
  KOKKOS_FORCEINLINE_FUNCTION static void atomic_join(T* p, const T v) {
    Kokkos::atomic_fetch_min(detail::native(p), detail::native(v));
  }
};

/// reduce_rows operation: the largest of the row's values (an integral key).
template <class T>
struct RowMax {
  static_assert(std::is_integral<T>::value, "tdmaps::RowMax: an integral key (pack value and location into it)");
  using value_type = T;  ///< the row values' type
  /// The value of an empty row.
  KOKKOS_FORCEINLINE_FUNCTION static T identity() { return Kokkos::reduction_identity<T>::max(); }
  /// a = a combined with b.
  KOKKOS_FORCEINLINE_FUNCTION static void join(T& a, const T b) { a = b > a ? b : a; }
  /// *p = *p combined with v, atomically.
  KOKKOS_FORCEINLINE_FUNCTION static void atomic_join(T* p, const T v) {
    Kokkos::atomic_fetch_max(detail::native(p), detail::native(v));
  }
};

/// A key whose unsigned order is the order of the float v (every value but
/// NaN): its bits, the sign flipped for v >= 0 and all bits flipped for v < 0.
KOKKOS_FORCEINLINE_FUNCTION std::uint32_t ordered_bits(float v) {
  const std::uint32_t u = intrinsics::float_bits(v);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
/// The float of ordered_bits(v).
KOKKOS_FORCEINLINE_FUNCTION float from_ordered_bits(std::uint32_t k) {
  const std::uint32_t u = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
  return intrinsics::int_as_float(static_cast<std::int32_t>(u));
}
/// The same for double (a 64-bit key).
KOKKOS_FORCEINLINE_FUNCTION std::uint64_t ordered_bits(double v) {
  const std::uint64_t u = static_cast<std::uint64_t>(intrinsics::double_as_int64(v));
  return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
}
/// The double of ordered_bits(v).
KOKKOS_FORCEINLINE_FUNCTION double from_ordered_bits(std::uint64_t k) {
  const std::uint64_t u = (k & 0x8000000000000000ull) ? (k & 0x7fffffffffffffffull) : ~k;
  return intrinsics::int64_as_double(static_cast<std::int64_t>(u));
}

namespace detail {

/// Blocks per team of a reduction: the hint, else 8 on GPU backends (a team
/// pays its combination once per 8 blocks) and 1 on host backends.
inline int reduce_blocks_per_team(const LaunchHints& hints, bool gpu) {
  const int k = blocks_per_team(hints, LaunchKind::element, gpu);  // validates the hint
  return hints.blocks_per_team > 0 ? k : (gpu ? 8 : 1);
}

/// The hints of an element-walk reduction (reduce_pairs, histogram_pairs):
/// without a team_threads hint, a GPU team at block side 32 is one warp whose
/// lanes walk all 32 rows of their columns (more, shorter teams keep more of
/// them resident; the element launches' 8-row teams are slower here); the
/// hint as given otherwise. perf_tests/README.md has the measurement.
inline LaunchHints reduce_walk_hints(const LaunchHints& hints, int rho, bool gpu) {
  LaunchHints h = hints;
  if (h.team_threads == 0 && gpu && rho == 32) h.team_threads = 32;
  return h;
}

/// The Kokkos launches of omegas [begin, end) of launch l: f(offset, count, teams).
template <class F>
void each_launch(index_t begin, index_t end, int per_team, const F& f) {
  const index_t per_launch = max_league_per_launch * per_team;
  for (index_t offset = begin; offset < end; offset += per_launch) {
    const index_t omegas = end - offset < per_launch ? end - offset : per_launch;
    f(offset, omegas, static_cast<int>((omegas + per_team - 1) / per_team));
  }
}

template <class ExecSpace, class Map, class Kernel, class Reducer>
void reduce_launch(const ExecSpace& space, const Map& map, int l, index_t begin, index_t end, const Kernel& kernel,
                   const Reducer& reducer, typename Reducer::value_type& total, const std::string& label,
                   const LaunchHints& hints) {
  using value_type = typename Reducer::value_type;
  int team_size, vector_length;
  team_shape<ExecSpace>(map.domain, reduce_walk_hints(hints, map.domain.rho, is_gpu_space<ExecSpace>::value),
                        LaunchKind::element, team_size, vector_length);
  const int per_team = reduce_blocks_per_team(hints, is_gpu_space<ExecSpace>::value);
  ReduceFunctor<ExecSpace, Map, Kernel, Reducer> f{map, kernel, reducer, l, log2_block_side(map.domain.rho),
                                                   vector_length};
  each_launch(begin, end, per_team, [&](index_t offset, index_t count, int teams) {
    f.offset = offset;
    f.count = count;
    value_type part;
    reducer.init(part);
    Kokkos::parallel_reduce(label, team_policy_t<ExecSpace>(space, teams, team_size, vector_length), f,
                            Reducer(part));
    reducer.join(total, part);
  });
}

/// reduce_pairs under a thread-space map (utm): one element per range index.
template <class Map, class Kernel, class Value>
struct ThreadReduceFunctor {
  Map map;
  Kernel kernel;
  KOKKOS_FUNCTION void operator()(const index_t k, Value& update) const {
    index_t i, j;
    map.element(k, i, j);
    kernel(i, j, update);
  }
};

template <class Map>
constexpr void require_team_map() {
  static_assert(check_map<Map>(), "tdmaps: Map breaks the map contract (tdmaps/maps/map_concept.hpp)");
  static_assert(!is_3d<Map>::value, "tdmaps: the pair reductions take 2-D maps");
  static_assert(is_block_space_map_v<Map>,
                "tdmaps: histograms and row reductions need a block-space map (bb, lambda, rb, rec, hadouken); "
                "a thread-space map (utm) has no blocks to reduce in");
}

}  // namespace detail

/// reduce_pairs over the blocks of the omegas of `range`.
template <class ExecSpace, class Map, class Kernel, class Reducer>
void reduce_pairs(const ExecSpace& space, const Map& map, const OmegaRange& range, const Kernel& kernel,
                  const Reducer& reducer, const std::string& label = std::string("tdmaps::reduce_pairs::") + Map::name,
                  const LaunchHints& hints = LaunchHints()) {
  detail::require_team_map<Map>();
  check_omega_range(map, range, "tdmaps::reduce_pairs");
  typename Reducer::value_type total;
  reducer.init(total);
  detail::reduce_launch(space, map, 0, range.begin, range.end, kernel, reducer, total, label, hints);
  reducer.reference() = total;
}

/// reduce_pairs over the whole domain (the top of this file).
template <class ExecSpace, class Map, class Kernel, class Reducer>
void reduce_pairs(const ExecSpace& space, const Map& map, const Kernel& kernel, const Reducer& reducer,
                  const std::string& label = std::string("tdmaps::reduce_pairs::") + Map::name,
                  const LaunchHints& hints = LaunchHints()) {
  static_assert(check_map<Map>(), "tdmaps: Map breaks the map contract (tdmaps/maps/map_concept.hpp)");
  static_assert(!detail::is_3d<Map>::value, "tdmaps::reduce_pairs takes 2-D maps");
  using value_type = typename Reducer::value_type;
  value_type total;
  reducer.init(total);
  if constexpr (is_thread_space_map_v<Map>) {
    using Body = detail::ThreadReduceFunctor<Map, Kernel, value_type>;
    const index_t all = map.elements();
    for (index_t begin = 0; begin < all; begin += max_league_per_launch) {
      const index_t end = all - begin < max_league_per_launch ? all : begin + max_league_per_launch;
      value_type part;
      reducer.init(part);
      Kokkos::parallel_reduce(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, begin, end),
                              Body{map, kernel}, Reducer(part));
      reducer.join(total, part);
    }
    (void)hints;
  } else {
    for (int l = 0; l < detail::launches(map); ++l)
      detail::reduce_launch(space, map, l, 0, detail::league_size(map, l), kernel, reducer, total, label, hints);
  }
  reducer.reference() = total;
}

/// histogram_pairs over the blocks of the omegas of `range`.
template <class ExecSpace, class Map, class Kernel, class Counts>
void histogram_pairs(const ExecSpace& space, const Map& map, const OmegaRange& range, const Kernel& kernel,
                     const Counts& counts,
                     const std::string& label = std::string("tdmaps::histogram_pairs::") + Map::name,
                     const LaunchHints& hints = LaunchHints());

namespace detail {

template <class ExecSpace, class Map, class Kernel, class Counts>
void histogram_launch(const ExecSpace& space, const Map& map, int l, index_t begin, index_t end, const Kernel& kernel,
                      const Counts& counts, const std::string& label, const LaunchHints& hints) {
  static_assert(Kokkos::is_view<Counts>::value && Counts::rank == 1 &&
                    std::is_integral<typename Counts::value_type>::value &&
                    sizeof(typename Counts::value_type) == 8,
                "tdmaps::histogram_pairs: counts is a 1-D View of 64-bit integers");
  const std::size_t bins = counts.extent(0);
  if (bins == 0) throw std::invalid_argument("tdmaps::histogram_pairs: counts has no bins");
  if (bins > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument("tdmaps::histogram_pairs: " + std::to_string(bins) + " bins (at most 2^31 - 1)");
  const std::size_t bytes = sizeof(std::uint32_t) * bins;
  const std::size_t max_scratch = static_cast<std::size_t>(team_policy_t<ExecSpace>::scratch_size_max(0));
  int team_size, vector_length;
  team_shape<ExecSpace>(map.domain, reduce_walk_hints(hints, map.domain.rho, is_gpu_space<ExecSpace>::value),
                        LaunchKind::element, team_size, vector_length);
  // A team flushes its bins once per reduce_blocks_per_team blocks.
  const int per_team = reduce_blocks_per_team(hints, is_gpu_space<ExecSpace>::value);
  const auto run = [&](auto global) {
    constexpr bool Global = decltype(global)::value;
    HistogramFunctor<ExecSpace, Map, Kernel, Counts, Global> f{
        map, kernel, counts, static_cast<int>(bins), l, log2_block_side(map.domain.rho)};
    each_launch(begin, end, per_team, [&](index_t offset, index_t count, int teams) {
      f.offset = offset;
      f.count = count;
      team_policy_t<ExecSpace> policy(space, teams, team_size, vector_length);
      if constexpr (!Global) policy.set_scratch_size(0, Kokkos::PerTeam(bytes + tile_scratch_alignment));
      Kokkos::parallel_for(label, policy, f);
    });
  };
  // Bins past a team's scratch: an atomic per pair into counts.
  if (bytes + tile_scratch_alignment > max_scratch) run(std::true_type());
  else run(std::false_type());
}

/// The rows of a row reduction (reduce_rows, reduce_rows_pair_sums): a
/// writable 1-D View of Op::value_type, one entry a row of the domain
/// (std::invalid_argument naming `who` otherwise).
template <class Op, class Map, class Rows>
void check_rows(const Map& map, const Rows& rows, const char* who) {
  static_assert(Kokkos::is_view<Rows>::value && Rows::rank == 1 &&
                    std::is_same<typename Rows::value_type, typename Op::value_type>::value,
                "tdmaps::reduce_rows, reduce_rows_pair_sums: rows is a writable 1-D View of Op::value_type");
  if (static_cast<index_t>(rows.extent(0)) != map.domain.n)
    throw std::invalid_argument(std::string(who) + ": rows has " + std::to_string(rows.extent(0)) +
                                " entries, the domain " + std::to_string(map.domain.n) + " rows");
}

template <class ExecSpace, class Map, class Kernel, class Rows, class Op>
void rows_launch(const ExecSpace& space, const Map& map, int l, index_t begin, index_t end, const Kernel& kernel,
                 const Rows& rows, const std::string& label, const LaunchHints& hints) {
  check_rows<Op>(map, rows, "tdmaps::reduce_rows");
  int team_size, vector_length;
  team_shape<ExecSpace>(map.domain, hints, LaunchKind::tile, team_size, vector_length);
  const int per_team = reduce_blocks_per_team(hints, is_gpu_space<ExecSpace>::value);
  const std::size_t bytes = sizeof(typename Op::value_type) * 2 * static_cast<std::size_t>(map.domain.rho);
  RowsFunctor<ExecSpace, Map, Kernel, Rows, Op> f{map, kernel, rows, l, log2_block_side(map.domain.rho)};
  each_launch(begin, end, per_team, [&](index_t offset, index_t count, int teams) {
    f.offset = offset;
    f.count = count;
    team_policy_t<ExecSpace> policy(space, teams, team_size, vector_length);
    policy.set_scratch_size(0, Kokkos::PerTeam(bytes + tile_scratch_alignment));
    Kokkos::parallel_for(label, policy, f);
  });
}

}  // namespace detail

template <class ExecSpace, class Map, class Kernel, class Counts>
void histogram_pairs(const ExecSpace& space, const Map& map, const OmegaRange& range, const Kernel& kernel,
                     const Counts& counts, const std::string& label, const LaunchHints& hints) {
  detail::require_team_map<Map>();
  check_omega_range(map, range, "tdmaps::histogram_pairs");
  detail::histogram_launch(space, map, 0, range.begin, range.end, kernel, counts, label, hints);
}

/// histogram_pairs over the whole domain (the top of this file).
template <class ExecSpace, class Map, class Kernel, class Counts>
void histogram_pairs(const ExecSpace& space, const Map& map, const Kernel& kernel, const Counts& counts,
                     const std::string& label = std::string("tdmaps::histogram_pairs::") + Map::name,
                     const LaunchHints& hints = LaunchHints()) {
  detail::require_team_map<Map>();
  for (int l = 0; l < detail::launches(map); ++l)
    detail::histogram_launch(space, map, l, 0, detail::league_size(map, l), kernel, counts, label, hints);
}

/// reduce_rows over the blocks of the omegas of `range`.
template <class Op, class ExecSpace, class Map, class Kernel, class Rows>
void reduce_rows(const ExecSpace& space, const Map& map, const OmegaRange& range, const Kernel& kernel,
                 const Rows& rows, const std::string& label = std::string("tdmaps::reduce_rows::") + Map::name,
                 const LaunchHints& hints = LaunchHints()) {
  detail::require_team_map<Map>();
  check_omega_range(map, range, "tdmaps::reduce_rows");
  detail::rows_launch<ExecSpace, Map, Kernel, Rows, Op>(space, map, 0, range.begin, range.end, kernel, rows, label,
                                                        hints);
}

/// reduce_rows over the whole domain (the top of this file); Op is the first template argument.
template <class Op, class ExecSpace, class Map, class Kernel, class Rows>
void reduce_rows(const ExecSpace& space, const Map& map, const Kernel& kernel, const Rows& rows,
                 const std::string& label = std::string("tdmaps::reduce_rows::") + Map::name,
                 const LaunchHints& hints = LaunchHints()) {
  detail::require_team_map<Map>();
  for (int l = 0; l < detail::launches(map); ++l)
    detail::rows_launch<ExecSpace, Map, Kernel, Rows, Op>(space, map, l, 0, detail::league_size(map, l), kernel, rows,
                                                          label, hints);
}

}  // namespace tdmaps

#endif
