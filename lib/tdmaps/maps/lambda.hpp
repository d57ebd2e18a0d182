#ifndef TDMAPS_MAPS_LAMBDA_HPP
#define TDMAPS_MAPS_LAMBDA_HPP

// lambda(omega), eq. (4) of the journal paper: a league of nb (nb + 1) / 2
// blocks sent onto the block triangle, i = floor(sqrt(1/4 + 2 omega) - 1/2),
// j = omega - i (i + 1) / 2. The sqrt algorithm (SqrtIEEE, SqrtNewton,
// SqrtRsqrt, SqrtDouble) and the form (Exact, Epsilon) are tag types; see
// core/sqrt.hpp for what Exact costs (one block-uniform branch).
// RuntimeLambdaMap is the same map with both picked at run time.

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

/// \brief The square root of a RuntimeLambdaMap: SqrtIEEE, SqrtNewton, SqrtRsqrt or SqrtDouble.
enum class LambdaSqrt : int { ieee, newton, rsqrt, fp64 };
/// \brief The form of a RuntimeLambdaMap: Exact or Epsilon.
enum class LambdaForm : int { exact, eps };

/// \brief lambda(omega) with its square root and form picked at run time:
/// the blocks of LambdaMap<Sqrt, Form>, omega for omega, from one map type.
///
/// A kernel launched on it is one instantiation for all eight LambdaMaps
/// (a build that offers every variant compiles its kernels once, not eight
/// times); block() switches on the variant before the guess, a branch that
/// is uniform over the league. LambdaMap<Sqrt, Form> fixes the variant at
/// compile time, for the measurements that compare the square roots.
struct RuntimeLambdaMap {
  using space_tag = BlockSpaceTag;               ///< the map contract's space (maps/map_concept.hpp)
  static constexpr const char* name = "lambda";  ///< Map::name: kernel labels, with_map's name

  Domain2 domain;                        ///< what the map covers
  LambdaSqrt sqrt = LambdaSqrt::rsqrt;   ///< the square root of LambdaMap's Sqrt
  LambdaForm form = LambdaForm::exact;   ///< the form of LambdaMap's Form

  /// \brief A map over the empty domain (n = 0).
  RuntimeLambdaMap() = default;
  /// \brief The map over d, LambdaMap<SqrtRsqrt, Exact>'s blocks unless s and f say otherwise.
  explicit RuntimeLambdaMap(const Domain2& d, LambdaSqrt s = LambdaSqrt::rsqrt, LambdaForm f = LambdaForm::exact)
      : domain(d), sqrt(s), form(f) {}
  /// \brief The map over Domain2(n, rho, t).
  RuntimeLambdaMap(index_t n, int rho, Triangle t = Triangle::lower, LambdaSqrt s = LambdaSqrt::rsqrt,
                   LambdaForm f = LambdaForm::exact)
      : domain(n, rho, t), sqrt(s), form(f) {}
  /// \brief The same variant over another domain (tdmaps rebuilds maps over
  /// other domains through map_over, maps/map_concept.hpp).
  RuntimeLambdaMap over(const Domain2& d) const { return RuntimeLambdaMap(d, sqrt, form); }

  /// \brief Omegas of the league (one launch).
  KOKKOS_FUNCTION index_t league_size() const { return tri(domain.nb); }
  /// \brief Block b of league rank omega; false where omega names no block (the Epsilon form only).
  KOKKOS_FORCEINLINE_FUNCTION bool block(index_t omega, Block2& b) const {
    if (form == LambdaForm::exact) {
      switch (sqrt) {
        case LambdaSqrt::ieee: lambda_block<SqrtIEEE, Exact>(omega, b.bi, b.bj); break;
        case LambdaSqrt::newton: lambda_block<SqrtNewton, Exact>(omega, b.bi, b.bj); break;
        case LambdaSqrt::fp64: lambda_block<SqrtDouble, Exact>(omega, b.bi, b.bj); break;
        default: lambda_block<SqrtRsqrt, Exact>(omega, b.bi, b.bj); break;
      }
      return true;
    }
    switch (sqrt) {
      case LambdaSqrt::ieee: lambda_block<SqrtIEEE, Epsilon>(omega, b.bi, b.bj); break;
      case LambdaSqrt::newton: lambda_block<SqrtNewton, Epsilon>(omega, b.bi, b.bj); break;
      case LambdaSqrt::fp64: lambda_block<SqrtDouble, Epsilon>(omega, b.bi, b.bj); break;
      default: lambda_block<SqrtRsqrt, Epsilon>(omega, b.bi, b.bj); break;
    }
    // As LambdaMap<Sqrt, Epsilon>: a block outside the triangle is rejected.
    return b.bi < domain.nb && b.bj >= 0 && b.bj <= b.bi;
  }
};

/// \brief Whether Map is a LambdaMap (any square root, either form) or a RuntimeLambdaMap.
template <class Map>
struct is_lambda_map : std::false_type {};
/// \brief A LambdaMap<Sqrt, Form> is a lambda map.
template <class Sqrt, class Form>
struct is_lambda_map<LambdaMap<Sqrt, Form>> : std::true_type {};
/// \brief A RuntimeLambdaMap is a lambda map: the same league, block for block.
template <>
struct is_lambda_map<RuntimeLambdaMap> : std::true_type {};
/// \brief is_lambda_map<Map>::value.
template <class Map>
constexpr bool is_lambda_map_v = is_lambda_map<Map>::value;

}  // namespace tdmaps

#endif
