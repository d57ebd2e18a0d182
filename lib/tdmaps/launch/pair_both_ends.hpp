#ifndef TDMAPS_LAUNCH_PAIR_BOTH_ENDS_HPP
#define TDMAPS_LAUNCH_PAIR_BOTH_ENDS_HPP

// Pair interactions that update both ends (N-body forces and potentials,
// Newton's third law): one kernel call per unordered pair gives what i gets
// and what j gets, and both are summed into a per-point output.
//
//   for_each_pair_both_ends(space, map[, range], kernel, out[, diagonal[, label[, hints]]])
//       kernel(i, j, to_i, to_j) once for every pair (i, j), i > j, of the
//       map's domain (and (i, i) with PairDiagonal::include where the domain
//       is Triangle::lower); to_i and to_j are Value& set to zero before each
//       call, and the kernel adds into them what i and j receive. Then
//       out(i) += sum of to_i over i's pairs, out(j) += sum of to_j, with i's
//       pairs taken at either end: out is added into, not reset, so several
//       ranges (chunks, MPI ranks) add their parts. On the diagonal both
//       to_i and to_j go into out(i).
//
// Value = out's value type: an arithmetic type, or a struct whose
// value-initialisation (Value{}) is zero. How Values are added and added
// atomically into out is pair_value_traits<Value> (below): operator+= and
// Kokkos::atomic_add for arithmetic types; for a struct, operator+= and the
// struct's own static atomic_add(Value* dst, const Value& v) where it has one;
// Kokkos::Array<Real, N> member-wise; and for a plain struct of reals, a
// one-line specialisation deriving from pair_value_reals<Value, Real>.
// (Kokkos 3 stores a View of Kokkos::Array member by member; its entries are
// then added member by member. Give such a View LayoutRight: Kokkos 3.4
// leaves the member stride of an allocated LayoutLeft one at zero.)
//
// The sums never take an atomic per pair (launch/detail/pair_both_ends_functor.hpp):
// host backends walk a block row by row, row i's sum in a local across the
// block's columns and the columns' sums in a small local array, flushed once
// per block; GPU teams give each lane a row of the block, its sum in a
// register, and visit the columns in a rotated order (lane t takes column
// (t + s) mod rho at step s) so that each column's sum in team scratch has
// one writer per step; a team flushes a row's sum when its block row
// changes (a row segment of consecutive blocks) and columns once per block.
//
// Maps: block-space maps (bb, lambda, rb, rec, hadouken); the [range]
// overloads take an OmegaRange of a one-launch map (bb, lambda), whose parts
// summed over omega_range(map, p, P), p = 0 .. P - 1, give the whole.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/detail/pair_both_ends_functor.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/reduce.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>
#include <tdmaps/maps/detail/map_access.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {

/// \brief Whether for_each_pair_both_ends also calls the kernel on the
/// diagonal pairs (i, i) (those of a Triangle::lower domain).
enum class PairDiagonal {
  exclude,  ///< pairs i > j only (the default)
  include   ///< also (i, i), where the map's domain holds it
};

namespace detail {
/// Value has a static member atomic_add(Value*, const Value&) callable on the device.
template <class Value, class = void>
struct has_static_atomic_add : std::false_type {};
template <class Value>
struct has_static_atomic_add<
    Value, std::void_t<decltype(Value::atomic_add(std::declval<Value*>(), std::declval<const Value&>()))>>
    : std::true_type {};

template <class>
struct always_false : std::false_type {};
}  // namespace detail

/// \brief How for_each_pair_both_ends adds Values (a customization point:
/// specialise it for a Value type of your own).
///
/// The primary template serves arithmetic types (operator+=,
/// Kokkos::atomic_add) and structs with operator+= and a static member
/// `KOKKOS_FUNCTION static void atomic_add(Value* dst, const Value& v)`
/// (found by SFINAE). A specialisation provides the three static members below.
/// \tparam Value the value type of for_each_pair_both_ends' output View
template <class Value, class Enable = void>
struct pair_value_traits {
  /// \brief Zero: the value of a pair's to_i and to_j before the kernel adds
  /// into them, and of an empty sum (Value{}).
  KOKKOS_FORCEINLINE_FUNCTION static Value zero() { return Value{}; }
  /// \brief a += b.
  KOKKOS_FORCEINLINE_FUNCTION static void add(Value& a, const Value& b) { a += b; }
  /// \brief *dst += v, atomically with respect to the other teams of the
  /// launch (each member atomically suffices: the launch reads out only after it ends).
  KOKKOS_FORCEINLINE_FUNCTION static void atomic_add(Value* dst, const Value& v) {
    if constexpr (std::is_arithmetic<Value>::value) {
      Kokkos::atomic_add(detail::native(dst), detail::native(v));
    } else if constexpr (detail::has_static_atomic_add<Value>::value) {
      Value::atomic_add(dst, v);
    } else {
      static_assert(detail::always_false<Value>::value,
                    "tdmaps::for_each_pair_both_ends: no atomic add for this Value. Give the struct a member "
                    "`KOKKOS_FUNCTION static void atomic_add(Value* dst, const Value& v)`, or specialise "
                    "tdmaps::pair_value_traits<Value> (for a struct of reals: `template <> struct "
                    "tdmaps::pair_value_traits<Value> : tdmaps::pair_value_reals<Value, double> {};`), or use "
                    "Kokkos::Array<Real, N>");
    }
  }
};

/// \brief pair_value_traits for a struct made of `sizeof(Value) / sizeof(Real)`
/// members of type Real and nothing else (a force { x, y, z }, a force and a
/// potential): member-wise adds, one Kokkos::atomic_add per member. Use it as
/// `template <> struct tdmaps::pair_value_traits<F> : tdmaps::pair_value_reals<F, double> {};`;
/// the struct needs no operator+=.
/// \tparam Value a standard-layout struct of Reals
/// \tparam Real float or double
template <class Value, class Real>
struct pair_value_reals {
  static_assert(std::is_floating_point<Real>::value || std::is_integral<Real>::value,
                "tdmaps::pair_value_reals<Value, Real>: Real is an arithmetic type");
  static_assert(std::is_standard_layout<Value>::value && std::is_trivially_copyable<Value>::value &&
                    sizeof(Value) % sizeof(Real) == 0 && alignof(Value) == alignof(Real),
                "tdmaps::pair_value_reals<Value, Real>: Value is a plain struct of Real members only");
  /// \brief Members of Real in a Value.
  static constexpr int size = static_cast<int>(sizeof(Value) / sizeof(Real));
  /// \brief Zero (Value{}).
  KOKKOS_FORCEINLINE_FUNCTION static Value zero() { return Value{}; }
  /// \brief a += b, member by member.
  KOKKOS_FORCEINLINE_FUNCTION static void add(Value& a, const Value& b) {
    Real* pa = reinterpret_cast<Real*>(&a);
    const Real* pb = reinterpret_cast<const Real*>(&b);
    for (int k = 0; k < size; ++k) pa[k] += pb[k];
  }
  /// \brief *dst += v, one atomic per member.
  KOKKOS_FORCEINLINE_FUNCTION static void atomic_add(Value* dst, const Value& v) {
    Real* pd = reinterpret_cast<Real*>(dst);
    const Real* pv = reinterpret_cast<const Real*>(&v);
    for (int k = 0; k < size; ++k) Kokkos::atomic_add(detail::native(pd + k), detail::native(pv[k]));
  }
};

/// \brief pair_value_traits of Kokkos::Array<Real, N>: member-wise adds, one
/// Kokkos::atomic_add per member.
template <class Real, std::size_t N>
struct pair_value_traits<Kokkos::Array<Real, N>> {
  /// \brief The value type.
  using Value = Kokkos::Array<Real, N>;
  /// \brief Zero (every member 0).
  KOKKOS_FORCEINLINE_FUNCTION static Value zero() { return Value{}; }
  /// \brief a += b, member by member.
  KOKKOS_FORCEINLINE_FUNCTION static void add(Value& a, const Value& b) {
    for (std::size_t k = 0; k < N; ++k) a[k] += b[k];
  }
  /// \brief *dst += v, one atomic per member.
  KOKKOS_FORCEINLINE_FUNCTION static void atomic_add(Value* dst, const Value& v) {
    for (std::size_t k = 0; k < N; ++k) Kokkos::atomic_add(detail::native(&(*dst)[k]), detail::native(v[k]));
  }
};

namespace detail {

template <class ExecSpace, class Map, class Kernel, class Out>
void pair_both_ends_launch(const ExecSpace& space, const Map& map, int l, index_t begin, index_t end,
                           const Kernel& kernel, const Out& out, PairDiagonal diagonal, const std::string& label,
                           const LaunchHints& hints) {
  using Value = typename Out::non_const_value_type;
  using Traits = pair_value_traits<Value>;
  using F = PairBothEndsFunctor<ExecSpace, Map, Kernel, Out, Traits>;
  const int rho = map.domain.rho;
  const int per_team = reduce_blocks_per_team(hints, is_gpu_space<ExecSpace>::value);
  // GPU: a team of one thread of rho lanes, a lane per row of the block; host: a team of one.
  const int vector_length = is_gpu_space<ExecSpace>::value ? rho : 1;
  const std::size_t bytes = F::scratch_bytes(rho);
  if (bytes > 0 && bytes + tile_scratch_alignment > static_cast<std::size_t>(team_policy_t<ExecSpace>::scratch_size_max(0)))
    throw std::invalid_argument("tdmaps::for_each_pair_both_ends: rho = " + std::to_string(rho) + " column sums of " +
                                std::to_string(sizeof(Value)) + " bytes exceed a team's scratch (" +
                                std::to_string(team_policy_t<ExecSpace>::scratch_size_max(0)) + " bytes)");
  F f{map, kernel, out, l, log2_block_side(rho), diagonal == PairDiagonal::include && map.domain.triangle == Triangle::lower};
  each_launch(begin, end, per_team, [&](index_t offset, index_t count, int teams) {
    f.offset = offset;
    f.count = count;
    f.per_team = per_team;
    team_policy_t<ExecSpace> policy(space, teams, 1, vector_length);
    if (bytes > 0) policy.set_scratch_size(0, Kokkos::PerTeam(bytes + tile_scratch_alignment));
    Kokkos::parallel_for(label, policy, f);
  });
}

template <class Map, class Kernel, class Out>
void check_pair_both_ends(const Map& map, const Out& out) {
  require_team_map<Map>();
  static_assert(Kokkos::is_view<Out>::value && Out::rank == 1 &&
                    std::is_same<typename Out::value_type, typename Out::non_const_value_type>::value,
                "tdmaps::for_each_pair_both_ends: out is a writable rank-1 View of the kernel's Value");
  using Value = typename Out::non_const_value_type;
  static_assert(std::is_invocable<const Kernel&, index_t, index_t, Value&, Value&>::value,
                "tdmaps::for_each_pair_both_ends: the kernel is callable as kernel(index_t i, index_t j, Value& to_i, "
                "Value& to_j) const, Value = out's value type");
  if (static_cast<index_t>(out.extent(0)) != map.domain.n)
    throw std::invalid_argument("tdmaps::for_each_pair_both_ends: out has " + std::to_string(out.extent(0)) +
                                " entries, the domain " + std::to_string(map.domain.n) + " points");
}

}  // namespace detail

/// \brief Pair interactions that update both ends, over the blocks of the
/// omegas of `range` (the top of this file): kernel(i, j, to_i, to_j) for
/// each pair (i, j), i > j, of those blocks, the sums added into out(i) and out(j).
/// \tparam ExecSpace a Kokkos execution space
/// \tparam Map a one-launch block-space map (bb, lambda)
/// \tparam Kernel callable as kernel(index_t i, index_t j, Value& to_i, Value& to_j) const
/// \tparam Out a rank-1 View of Value, accessible from ExecSpace
/// \param space the execution space instance the launches run on (not fenced)
/// \param map the map; its domain gives the points 0 .. n - 1
/// \param range omegas of map's league (omega_range, full_range)
/// \param kernel the pair kernel: adds what i receives into to_i, what j receives into to_j
/// \param out n entries, added into (the caller zeroes or pre-fills them)
/// \param diagonal PairDiagonal::include also calls kernel(i, i, ..) on a Triangle::lower domain
/// \param label the Kokkos kernels' label
/// \param hints LaunchHints::blocks_per_team: consecutive omegas a team takes (team_threads is not used)
template <class ExecSpace, class Map, class Kernel, class Out>
void for_each_pair_both_ends(const ExecSpace& space, const Map& map, const OmegaRange& range, const Kernel& kernel,
                             const Out& out, PairDiagonal diagonal = PairDiagonal::exclude,
                             const std::string& label = std::string("tdmaps::for_each_pair_both_ends::") + Map::name,
                             const LaunchHints& hints = LaunchHints()) {
  detail::check_pair_both_ends<Map, Kernel>(map, out);
  check_omega_range(map, range, "tdmaps::for_each_pair_both_ends");
  detail::pair_both_ends_launch(space, map, 0, range.begin, range.end, kernel, out, diagonal, label, hints);
}

/// \brief Pair interactions that update both ends over the whole domain (the
/// top of this file): kernel(i, j, to_i, to_j) once for every pair i > j (and
/// i == j with PairDiagonal::include on a Triangle::lower domain), the sums
/// added into out(i) and out(j).
/// \tparam ExecSpace a Kokkos execution space
/// \tparam Map a block-space map (bb, lambda, rb, rec, hadouken)
/// \tparam Kernel callable as kernel(index_t i, index_t j, Value& to_i, Value& to_j) const
/// \tparam Out a rank-1 View of Value, accessible from ExecSpace
/// \param space the execution space instance the launches run on (not fenced)
/// \param map the map; its domain gives the points 0 .. n - 1
/// \param kernel the pair kernel: adds what i receives into to_i, what j receives into to_j
/// \param out n entries, added into (the caller zeroes or pre-fills them)
/// \param diagonal PairDiagonal::include also calls kernel(i, i, ..) on a Triangle::lower domain
/// \param label the Kokkos kernels' label
/// \param hints LaunchHints::blocks_per_team: consecutive omegas a team takes (team_threads is not used)
template <class ExecSpace, class Map, class Kernel, class Out>
void for_each_pair_both_ends(const ExecSpace& space, const Map& map, const Kernel& kernel, const Out& out,
                             PairDiagonal diagonal = PairDiagonal::exclude,
                             const std::string& label = std::string("tdmaps::for_each_pair_both_ends::") + Map::name,
                             const LaunchHints& hints = LaunchHints()) {
  detail::check_pair_both_ends<Map, Kernel>(map, out);
  for (int l = 0; l < detail::launches(map); ++l)
    detail::pair_both_ends_launch(space, map, l, 0, detail::league_size(map, l), kernel, out, diagonal, label, hints);
}

}  // namespace tdmaps

#endif
