#ifndef TDMAPS_MAPS_LAMBDA3_HPP
#define TDMAPS_MAPS_LAMBDA3_HPP

// lambda3(omega), eq. (17) of the journal paper: a league of T3(nb) =
// nb (nb + 1) (nb + 2) / 6 blocks sent onto the block tetrahedron bk <= bj <=
// bi < nb: the layer bi from a cube root of 6 omega (Cbrt: CbrtFloat,
// CbrtCardano, CbrtDouble), then the 2-D lambda (Sqrt) on omega - T3(bi).
// Form: Exact (64-bit integer checks correct every guess; core/cbrt.hpp) or
// Epsilon (the papers' form, uncorrected, kept for measurement).

#include <tdmaps/core/cbrt.hpp>
#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/sqrt.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <type_traits>

namespace tdmaps {

/// \brief lambda3(omega), eq. (17): a league of T3(nb) blocks sent onto the block tetrahedron by a cube root, then the
/// 2-D lambda. \tparam Cbrt the layer guess (CbrtFloat, CbrtCardano, CbrtDouble) \tparam Sqrt the square-root algorithm
/// of the 2-D part \tparam Form Exact (64-bit integer correction) or Epsilon (the papers' uncorrected form)
template <class Cbrt = CbrtFloat, class Sqrt = SqrtRsqrt, class Form = Exact>
struct Lambda3Map {
  using space_tag = BlockSpaceTag;                ///< the map contract's space (maps/map_concept.hpp)
  using cbrt_type = Cbrt;                         ///< the layer guess
  using sqrt_type = Sqrt;                         ///< the square-root algorithm
  using form_type = Form;                         ///< Exact or Epsilon
  static constexpr const char* name = "lambda3";  ///< Map::name: kernel labels, with_map's name

  Domain3 domain;  ///< what the map covers

  /// \brief A map over the empty domain (n = 0).
  Lambda3Map() = default;
  /// \brief The map over d.
  explicit Lambda3Map(const Domain3& d) : domain(d) {}
  /// \brief The map over Domain3(n, rho, t).
  Lambda3Map(index_t n, int rho, Triangle t = Triangle::lower) : domain(n, rho, t) {}

  /// \brief Omegas of the league (one launch).
  KOKKOS_FUNCTION index_t league_size() const { return tet(domain.nb); }
  /// \brief Block b of league rank omega; false where omega names no block.
  KOKKOS_FORCEINLINE_FUNCTION bool block(index_t omega, Block3& b) const {
    lambda3_block<Cbrt, Sqrt, Form>(omega, b.bi, b.bj, b.bk);
    // Only the Epsilon form can land outside the tetrahedron; reject such a
    // block rather than write out of bounds (coverage tests then see the miss).
    return std::is_same<Form, Exact>::value ||
           (b.bi >= 0 && b.bi < domain.nb && b.bj >= 0 && b.bj <= b.bi && b.bk >= 0 && b.bk <= b.bj);
  }
};

/// \brief Whether Map is a Lambda3Map (any layer guess, square root and form).
template <class Map>
struct is_lambda3_map : std::false_type {};
/// \brief A Lambda3Map<Cbrt, Sqrt, Form> is a lambda3 map.
template <class Cbrt, class Sqrt, class Form>
struct is_lambda3_map<Lambda3Map<Cbrt, Sqrt, Form>> : std::true_type {};
/// \brief is_lambda3_map<Map>::value.
template <class Map>
constexpr bool is_lambda3_map_v = is_lambda3_map<Map>::value;

}  // namespace tdmaps

#endif
