#ifndef TDMAPS_CORE_CBRT_HPP
#define TDMAPS_CORE_CBRT_HPP

// The layer guesses of lambda3(omega) (sec. 6 of the journal paper), one
// empty tag type per algorithm (each names its precision, `real_type`, and
// gives `static index_t layer(index_t omega)`: a guess of the largest k with
// T3(k) <= omega), and the block of omega in the block tetrahedron in the
// two forms of core/sqrt.hpp:
//   Epsilon - the papers' form: the layer guess as it comes, then the 2-D
//             lambda (Epsilon form) on omega - T3(k); kept for measurement,
//             wrong once the guess runs out of digits.
//   Exact   - the guess, then the 64-bit integer checks T3(k) <= omega <
//             T3(k + 1) (a block-uniform branch: one step down or up, and the
//             exact double-precision root past that), then the exact 2-D lambda.

#include <tdmaps/core/sqrt.hpp>
#include <tdmaps/core/tetrahedral.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>

#include <type_traits>

namespace tdmaps {
namespace detail {

/// floor(x) of a layer guess in [0, 2^21) (every layer of a league: nb <
/// max_side3), 0 for anything else (NaN, negative, too large): the Exact form
/// corrects a wrong 0, and tet() of any value returned stays inside int64.
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION index_t layer_of_guess(Real x) {
  return x >= Real(0) && x < Real(2097152) ? static_cast<index_t>(x) : 0;
}

}  // namespace detail

/// Layer guess from a single-precision cube root: y = cbrt(6 omega),
/// k = y - 1 + 1 / (3 y) (the root of k (k + 1) (k + 2) = 6 omega to first order).
struct CbrtFloat {
  using real_type = float;                     ///< the precision it computes in
  static constexpr const char* name = "cbrt";  ///< its name in labels and MapSpec / MapSpec3
  /// \brief A guess of the largest k with T3(k) <= omega (the Exact form corrects it).
  KOKKOS_FORCEINLINE_FUNCTION static index_t layer(index_t omega) {
    const float c = intrinsics::cbrt_f(6.0f * static_cast<float>(omega));
    return detail::layer_of_guess(c > 1.0f ? c - 1.0f + 1.0f / (3.0f * c) : 0.0f);
  }
};

/// The papers' closed form, eq. (13), in single precision: x = cbrt(a) /
/// 3^(2/3) + 1 / (3^(1/3) cbrt(a)) - 1 with a = sqrt(729 omega^2 - 3) +
/// 27 omega, plus the papers' epsilon 1e-4 of the 2-D form (without it the
/// layer is wrong already at omega = T3(3) = 10). Inexact (the Exact form
/// corrects it).
struct CbrtCardano {
  using real_type = float;                        ///< the precision it computes in
  static constexpr const char* name = "cardano";  ///< its name in labels and MapSpec / MapSpec3
  /// \brief A guess of the largest k with T3(k) <= omega (the Exact form corrects it).
  KOKKOS_FORCEINLINE_FUNCTION static index_t layer(index_t omega) {
    const float w = static_cast<float>(omega);
    const float a = intrinsics::sqrt_rn(729.0f * w * w - 3.0f) + 27.0f * w;
    const float c = intrinsics::cbrt_f(a);
    return detail::layer_of_guess(c * 0.48074985f + 1.0f / (1.44224957f * c) - 1.0f + 1e-4f);
  }
};

/// Layer guess from a double-precision cube root (as CbrtFloat).
struct CbrtDouble {
  using real_type = double;                    ///< the precision it computes in
  static constexpr const char* name = "fp64";  ///< its name in labels and MapSpec / MapSpec3
  /// \brief A guess of the largest k with T3(k) <= omega (the Exact form corrects it).
  KOKKOS_FORCEINLINE_FUNCTION static index_t layer(index_t omega) {
    const double c = intrinsics::cbrt_d(6.0 * static_cast<double>(omega));
    return detail::layer_of_guess(c > 1.0 ? c - 1.0 + 1.0 / (3.0 * c) : 0.0);
  }
};

/// Block (bi, bj, bk), bk <= bj <= bi, of linear block index omega in a
/// tetrahedron incl. its faces (eq. (17)): bi = the layer (Cbrt's guess,
/// corrected in the Exact form), then the 2-D lambda (Sqrt, Form) on
/// omega - T3(bi), which lies in [0, T(bi + 1)).
template <class Cbrt, class Sqrt, class Form = Exact>
KOKKOS_FORCEINLINE_FUNCTION void lambda3_block(index_t omega, index_t& bi, index_t& bj, index_t& bk) {
  bi = Cbrt::layer(omega);
  index_t r = omega - tet(bi);
  if (std::is_same<Form, Exact>::value) {
    if (r < 0) {
      --bi;
      r = omega - tet(bi);
    } else if (r >= tri(bi + 1)) {
      r -= tri(bi + 1);
      ++bi;
    }
    if (r < 0 || r >= tri(bi + 1)) {  // more than one off: the exact root
      bi = tet_root(omega);
      r = omega - tet(bi);
    }
  }
  lambda_block<Sqrt, Form>(r, bj, bk);
}

}  // namespace tdmaps

#endif
