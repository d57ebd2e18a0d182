#ifndef TDMAPS_MAPS_DETAIL_MAP_TRAITS_HPP
#define TDMAPS_MAPS_DETAIL_MAP_TRAITS_HPP

// Not API (tdmaps::detail): one detector per member of the map contract.
// maps/map_concept.hpp documents the contract and builds the public traits
// and check_map<Map>() from these; each detector is SFINAE-safe, so a
// check can name every missing member without a hard error first.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>

#include <type_traits>
#include <utility>

namespace tdmaps {
namespace detail {

/// Map::space_tag names a type.
template <class Map, class = void>
struct has_space_tag : std::false_type {};
template <class Map>
struct has_space_tag<Map, std::void_t<typename Map::space_tag>> : std::true_type {};

/// Map::space_tag is Tag (false, not an error, where there is no space_tag).
template <class Map, class Tag, class = void>
struct space_tag_is : std::false_type {};
template <class Map, class Tag>
struct space_tag_is<Map, Tag, std::void_t<typename Map::space_tag>> : std::is_same<typename Map::space_tag, Tag> {};

/// A static member `name` that reads as a C string (kernel labels, messages).
template <class Map, class = void>
struct has_map_name : std::false_type {};
template <class Map>
struct has_map_name<Map, std::enable_if_t<std::is_convertible<decltype(&Map::name), const char* const*>::value>>
    : std::true_type {};

/// A member `domain` that is a Domain2 (triangle) or a Domain3 (tetrahedron).
template <class Map, class = void>
struct has_domain : std::false_type {};
template <class Map>
struct has_domain<
    Map, std::enable_if_t<std::is_same<std::decay_t<decltype(std::declval<const Map&>().domain)>, Domain2>::value ||
                          std::is_same<std::decay_t<decltype(std::declval<const Map&>().domain)>, Domain3>::value>>
    : std::true_type {};

/// Whether a map covers a tetrahedron (its domain is a Domain3).
template <class Map, class = void>
struct is_3d : std::false_type {};
template <class Map>
struct is_3d<Map,
             std::enable_if_t<std::is_same<std::decay_t<decltype(std::declval<const Map&>().domain)>, Domain3>::value>>
    : std::true_type {};

/// The block a map's block() fills: Block3 for a tetrahedron, Block2 otherwise.
template <class Map>
using block_type_t = std::conditional_t<is_3d<Map>::value, Block3, Block2>;

/// One launch: `league_size()` and `block(omega, b)`.
template <class Map, class = void>
struct has_single_launch : std::false_type {};
template <class Map>
struct has_single_launch<
    Map, std::enable_if_t<std::is_convertible<decltype(std::declval<const Map&>().league_size()), index_t>::value &&
                          std::is_convertible<decltype(std::declval<const Map&>().block(
                                                  index_t(), std::declval<block_type_t<Map>&>())),
                                              bool>::value>> : std::true_type {};

/// Several launches: `launches()`, `league_size(l)` and `block(l, omega, b)`.
template <class Map, class = void>
struct has_multi_launch : std::false_type {};
template <class Map>
struct has_multi_launch<
    Map,
    std::enable_if_t<std::is_convertible<decltype(std::declval<const Map&>().launches()), int>::value &&
                     std::is_convertible<decltype(std::declval<const Map&>().league_size(int())), index_t>::value &&
                     std::is_convertible<decltype(std::declval<const Map&>().block(int(), index_t(),
                                                                                   std::declval<block_type_t<Map>&>())),
                                         bool>::value>> : std::true_type {};

/// Thread space: `elements()` and `element(k, i, j)` (2-D maps only).
template <class Map, class = void>
struct has_elements : std::false_type {};
template <class Map>
struct has_elements<
    Map, std::enable_if_t<std::is_convertible<decltype(std::declval<const Map&>().elements()), index_t>::value,
                          std::void_t<decltype(std::declval<const Map&>().element(
                              index_t(), std::declval<index_t&>(), std::declval<index_t&>()))>>> : std::true_type {};

/// What every map has, whatever its space: a name, a Domain2, trivially copyable.
template <class Map>
struct has_map_basics : std::integral_constant<bool, has_map_name<Map>::value && has_domain<Map>::value &&
                                                         std::is_trivially_copyable<Map>::value> {};

}  // namespace detail
}  // namespace tdmaps

#endif
