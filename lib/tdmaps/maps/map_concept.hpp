#ifndef TDMAPS_MAPS_MAP_CONCEPT_HPP
#define TDMAPS_MAPS_MAP_CONCEPT_HPP

// The map contract: what a map provides, written once. The launch layer
// (for_each_element, for_each_tile) relies on nothing else, so a map written
// from this comment runs under both; check_map<Map>() (called by both) stops
// the compilation with one message per piece a type lacks, and the traits
// is_block_space_map_v, is_multi_launch_map_v, is_thread_space_map_v and
// is_map_v (below) tell the forms apart.
//
// A map is pure index math over a Domain2 (core/domain.hpp: side n, block
// side rho, nb = ceil(n / rho) block rows, lower or strict lower triangle)
// or, for a tetrahedron, a Domain3 (k <= j <= i < n or k < j < i < n).
// It is a small value type, trivially copyable: the launch layer copies it
// by value into every kernel. Every map has
//
//   using space_tag = BlockSpaceTag;               // or ThreadSpaceTag (below)
//   static constexpr const char* name = "mymap";  // kernel labels, with_map's name
//   Domain2 domain;                                // what it covers (Domain3: 3-D)
//
// and, by convention (with_map and the tests build maps so), the
// constructors Map(const Domain2&) and Map(n, rho, Triangle = lower). A map
// whose state is more than its domain (RuntimeLambdaMap's variant) also has
//
//   Map over(const Domain2& d) const;             // host: the same map over d
//
// which map_over(map, d) calls where the launch layer rebuilds the caller's
// map over another domain (Map(d) for every other map).
//
// Block-space maps (space_tag = BlockSpaceTag) send a league rank omega to a
// block (bi, bj) of the nb x nb block triangle, bj <= bi < nb; block (bi, bj)
// is the rho x rho tile of elements rows [bi rho, bi rho + rho) x columns
// [bj rho, bj rho + rho), clipped to the domain by the launch layer (the
// strict triangle keeps its diagonal blocks: the tile drops j = i). They
// serve element and tile kernels. Either one launch:
//
//   index_t league_size() const;                  // host: omegas launched
//   KOKKOS_FUNCTION bool block(index_t omega, Block2& b) const;
//
// or several launches, l = 0 .. launches() - 1, each with its own league:
//
//   int launches() const;                         // host
//   index_t league_size(int l) const;             // host
//   KOKKOS_FUNCTION bool block(int l, index_t omega, Block2& b) const;
//
// (one of the two forms, not both). block() is called on the device once
// for every omega in [0, league_size(l)); it returns false where omega names
// no block (BB's blocks above the diagonal, a padding row), and the launch
// layer skips that omega. Over all launches and omegas every block of the
// block triangle comes back exactly once. Leagues are 64-bit and may pass 2^31:
// the launch layer splits them into Kokkos launches with an omega offset, so
// block() sees the omega of the whole league. Compute league sizes with
// integer arithmetic.
//
// Thread-space maps (space_tag = ThreadSpaceTag) send a linear thread index
// k straight to one element; they serve element kernels only (for_each_tile
// refuses them at compile time):
//
//   index_t elements() const;                     // host: domain.elements()
//   KOKKOS_FUNCTION void element(index_t k, index_t& i, index_t& j) const;
//
// element() is called on the device for every k in [0, elements()) and
// gives every (i, j) of the domain (j <= i < n, or j < i < n on the strict
// triangle) exactly once.
//
// 3-D maps (a Domain3 member) are block-space maps of one launch with a
// Block3 (bk <= bj <= bi < nb; block (bi, bj, bk) = the rho^3 triplets of
// layers [bi rho, ..) x rows [bj rho, ..) x columns [bk rho, ..), clipped by
// the launch layer, which also drops the triplets outside the (strict)
// tetrahedron from the blocks on its faces):
//
//   index_t league_size() const;
//   KOKKOS_FUNCTION bool block(index_t omega, Block3& b) const;
//
// Element kernels get kernel(i, j, k), tile kernels a Tile3.
//
// The unit tests check every map by hit counts against a host nested loop
// (unit_tests/coverage.hpp); unit_tests/tests/test_map_contract.hpp holds toy
// maps of each form written from this comment alone.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/maps/detail/map_traits.hpp>

#include <type_traits>
#include <utility>

namespace tdmaps {

/// space_tag of maps that send a league rank to a block (tile kernels allowed).
struct BlockSpaceTag {};
/// space_tag of maps that send a linear thread index to one element (element kernels only).
struct ThreadSpaceTag {};

/// Map is a block-space map: BlockSpaceTag and exactly one of the one-launch
/// and the several-launch forms.
template <class Map>
struct is_block_space_map
    : std::integral_constant<bool,
                             detail::space_tag_is<Map, BlockSpaceTag>::value && detail::has_map_basics<Map>::value &&
                                 (detail::has_single_launch<Map>::value != detail::has_multi_launch<Map>::value)> {};

/// Map is a block-space map of several launches (launches(), league_size(l), block(l, omega, b)).
template <class Map>
struct is_multi_launch_map
    : std::integral_constant<bool, is_block_space_map<Map>::value && detail::has_multi_launch<Map>::value> {};

/// Map is a thread-space map: ThreadSpaceTag, elements() and element(k, i, j).
template <class Map>
struct is_thread_space_map
    : std::integral_constant<bool, detail::space_tag_is<Map, ThreadSpaceTag>::value &&
                                       detail::has_map_basics<Map>::value && detail::has_elements<Map>::value> {};

/// Map satisfies the contract above (either space).
template <class Map>
struct is_map : std::integral_constant<bool, is_block_space_map<Map>::value || is_thread_space_map<Map>::value> {};

/// \brief Map covers a tetrahedron: its `domain` member is a Domain3 (a 3-D
/// map, whose block() fills a Block3 and whose element kernels take (i, j, k)).
template <class Map>
struct is_3d_map : std::integral_constant<bool, detail::is_3d<Map>::value> {};

/// \brief is_3d_map<Map>::value.
template <class Map>
constexpr bool is_3d_map_v = is_3d_map<Map>::value;
/// \brief is_block_space_map<Map>::value.
template <class Map>
constexpr bool is_block_space_map_v = is_block_space_map<Map>::value;
/// \brief is_multi_launch_map<Map>::value.
template <class Map>
constexpr bool is_multi_launch_map_v = is_multi_launch_map<Map>::value;
/// \brief is_thread_space_map<Map>::value.
template <class Map>
constexpr bool is_thread_space_map_v = is_thread_space_map<Map>::value;
/// \brief is_map<Map>::value.
template <class Map>
constexpr bool is_map_v = is_map<Map>::value;

namespace detail {
template <class Map, class = void>
struct has_over : std::false_type {};
template <class Map>
struct has_over<Map, std::enable_if_t<std::is_same<decltype(std::declval<const Map&>().over(std::declval<const Domain2&>())),
                                                   Map>::value>> : std::true_type {};
}  // namespace detail

/// \brief The map of map's kind over domain d: map.over(d) where the map has
/// it (state beyond the domain kept), else Map(d).
template <class Map>
Map map_over(const Map& map, const Domain2& d) {
  if constexpr (detail::has_over<Map>::value) return map.over(d);
  else return Map(d);
}

/// Compile-time check of the contract, one message per missing piece;
/// for_each_element and for_each_tile call it. Returns true when it compiles.
template <class Map>
constexpr bool check_map() {
  constexpr bool block_space = detail::space_tag_is<Map, BlockSpaceTag>::value;
  constexpr bool thread_space = detail::space_tag_is<Map, ThreadSpaceTag>::value;
  static_assert(block_space || thread_space,
                "tdmaps map contract (tdmaps/maps/map_concept.hpp): the map declares `using space_tag = "
                "tdmaps::BlockSpaceTag;` or `using space_tag = tdmaps::ThreadSpaceTag;`");
  static_assert(detail::has_map_name<Map>::value,
                "tdmaps map contract (tdmaps/maps/map_concept.hpp): the map declares "
                "`static constexpr const char* name = \"...\";`");
  static_assert(detail::has_domain<Map>::value,
                "tdmaps map contract (tdmaps/maps/map_concept.hpp): the map has a member `tdmaps::Domain2 domain` "
                "(a triangle) or `tdmaps::Domain3 domain` (a tetrahedron)");
  static_assert(!(detail::is_3d<Map>::value && thread_space),
                "tdmaps map contract (tdmaps/maps/map_concept.hpp): a 3-D map (Domain3) is a block-space map");
  static_assert(!(detail::is_3d<Map>::value && detail::has_multi_launch<Map>::value),
                "tdmaps map contract (tdmaps/maps/map_concept.hpp): a 3-D map (Domain3) has one launch "
                "(league_size() and block(omega, Block3&))");
  static_assert(std::is_trivially_copyable<Map>::value,
                "tdmaps map contract (tdmaps/maps/map_concept.hpp): the map is trivially copyable (it is copied by "
                "value into every kernel: no owning pointers, no std:: containers)");
  static_assert(!block_space || detail::has_single_launch<Map>::value || detail::has_multi_launch<Map>::value,
                "tdmaps map contract (tdmaps/maps/map_concept.hpp): a block-space map defines `index_t league_size() "
                "const` and `bool block(index_t omega, Block2& b) const` (one launch; Block3 in 3-D), or `int launches() const`, "
                "`index_t league_size(int l) const` and `bool block(int l, index_t omega, Block2& b) const`");
  static_assert(!block_space || !(detail::has_single_launch<Map>::value && detail::has_multi_launch<Map>::value),
                "tdmaps map contract (tdmaps/maps/map_concept.hpp): a block-space map defines the one-launch form "
                "or the several-launch form, not both");
  static_assert(!thread_space || detail::has_elements<Map>::value,
                "tdmaps map contract (tdmaps/maps/map_concept.hpp): a thread-space map defines `index_t elements() "
                "const` and `void element(index_t k, index_t& i, index_t& j) const`");
  return true;
}

}  // namespace tdmaps

#endif
