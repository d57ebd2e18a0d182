#ifndef TDMAPS_MAPS_LAMBDA_HPP
#define TDMAPS_MAPS_LAMBDA_HPP

// lambda(omega), eq. (4) of the journal paper: a league of nb (nb + 1) / 2
// blocks sent onto the block triangle, i = floor(sqrt(1/4 + 2 omega) - 1/2),
// j = omega - i (i + 1) / 2. The sqrt algorithm (SqrtIEEE, SqrtNewton,
// SqrtRsqrt, SqrtDouble) and the form (Exact, Epsilon) are tag types; see
// core/sqrt.hpp for what Exact costs (one block-uniform branch).

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/sqrt.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <type_traits>

namespace tdmaps {

/// \brief lambda(omega), eq. (4): a league of nb (nb + 1) / 2 blocks sent onto the block triangle by a square root.
/// \tparam Sqrt the square-root algorithm (SqrtIEEE, SqrtNewton, SqrtRsqrt, SqrtDouble)
/// \tparam Form Exact (64-bit integer correction) or Epsilon (the papers' uncorrected form)
template <class Sqrt = SqrtRsqrt, class Form = Exact>
struct LambdaMap {
  using space_tag = BlockSpaceTag;               ///< the map contract's space (maps/map_concept.hpp)
  using sqrt_type = Sqrt;                        ///< the square-root algorithm
  using form_type = Form;                        ///< Exact or Epsilon
  static constexpr const char* name = "lambda";  ///< Map::name: kernel labels, with_map's name

  Domain2 domain;  ///< what the map covers

  /// \brief A map over the empty domain (n = 0).
  LambdaMap() = default;
  /// \brief The map over d.
  explicit LambdaMap(const Domain2& d) : domain(d) {}
  /// \brief The map over Domain2(n, rho, t).
  LambdaMap(index_t n, int rho, Triangle t = Triangle::lower) : domain(n, rho, t) {}

  /// \brief Omegas of the league (one launch).
  KOKKOS_FUNCTION index_t league_size() const { return tri(domain.nb); }
  /// \brief Block b of league rank omega; false where omega names no block.
  KOKKOS_FORCEINLINE_FUNCTION bool block(index_t omega, Block2& b) const {
    lambda_block<Sqrt, Form>(omega, b.bi, b.bj);
    // Only the Epsilon form can land outside the triangle; reject such a block
    // rather than write out of bounds (coverage tests then see the miss).
    return std::is_same<Form, Exact>::value || (b.bi < domain.nb && b.bj >= 0 && b.bj <= b.bi);
  }
};

/// \brief Whether Map is a LambdaMap (any square root, either form).
template <class Map>
struct is_lambda_map : std::false_type {};
/// \brief A LambdaMap<Sqrt, Form> is a lambda map.
template <class Sqrt, class Form>
struct is_lambda_map<LambdaMap<Sqrt, Form>> : std::true_type {};
/// \brief is_lambda_map<Map>::value.
template <class Map>
constexpr bool is_lambda_map_v = is_lambda_map<Map>::value;

}  // namespace tdmaps

#endif
