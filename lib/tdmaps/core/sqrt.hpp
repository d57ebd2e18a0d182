#ifndef TDMAPS_CORE_SQRT_HPP
#define TDMAPS_CORE_SQRT_HPP

// The square-root variants of lambda(omega) (sec. 3.3 of the journal paper),
// one empty tag type per algorithm (each names its precision, `real_type`, and
// gives `static real_type sqrt(real_type)`), and the two forms of the map:
//   Epsilon - the papers' form: i = floor(sqrt(1/4 + 2 omega) - 1/2 + 1e-4),
//             kept for measurement; wrong once fp32 runs out of digits.
//   Exact   - the same guess, then the 64-bit integer checks
//             T(i) <= omega < T(i+1); a guess that fails them (a block-uniform
//             branch, never taken in the fp32-exact range) is replaced by the
//             exact double-precision root.

#include <tdmaps/core/detail/lambda_guess.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>

#include <type_traits>

namespace tdmaps {

/// lambda_X: IEEE single-precision sqrt (__fsqrt_rn on CUDA).
struct SqrtIEEE {
  using real_type = float;                     ///< the precision it computes in
  static constexpr const char* name = "sqrt";  ///< its name in labels and MapSpec / MapSpec3
  /// \brief sqrt(x) by this algorithm.
  KOKKOS_FORCEINLINE_FUNCTION static float sqrt(float x) { return intrinsics::sqrt_rn(x); }
};
/// lambda_N: three Newton-Raphson steps on the 0x5f3759df reciprocal-sqrt guess.
struct SqrtNewton {
  using real_type = float;                       ///< the precision it computes in
  static constexpr const char* name = "newton";  ///< its name in labels and MapSpec / MapSpec3
  /// \brief sqrt(x) by this algorithm.
  KOKKOS_FORCEINLINE_FUNCTION static float sqrt(float x) {
    const float half = 0.5f * x;
    float y = intrinsics::int_as_float(0x5f3759df - (intrinsics::float_as_int(x) >> 1));
    y = y * (1.5f - half * y * y);
    y = y * (1.5f - half * y * y);
    y = y * (1.5f - half * y * y);
    return x * y;
  }
};
/// lambda_R: x * rsqrt(x) with the hardware reciprocal square root (eq. (9)).
struct SqrtRsqrt {
  using real_type = float;                      ///< the precision it computes in
  static constexpr const char* name = "rsqrt";  ///< its name in labels and MapSpec / MapSpec3
  /// \brief sqrt(x) by this algorithm.
  KOKKOS_FORCEINLINE_FUNCTION static float sqrt(float x) { return x * intrinsics::rsqrt(x); }
};
/// Double-precision sqrt: exact to far beyond any launchable league.
struct SqrtDouble {
  using real_type = double;                    ///< the precision it computes in
  static constexpr const char* name = "fp64";  ///< its name in labels and MapSpec / MapSpec3
  /// \brief sqrt(x) by this algorithm.
  KOKKOS_FORCEINLINE_FUNCTION static double sqrt(double x) { return intrinsics::sqrt_d(x); }
};

/// The papers' form, with their epsilon = 1e-4 and no correction.
struct Epsilon {
  static constexpr const char* name = "eps";  ///< its name in labels and MapSpec / MapSpec3
};
/// Guess corrected by integer checks: exact for every omega <= tri(2^31).
struct Exact {
  static constexpr const char* name = "exact";  ///< its name in labels and MapSpec / MapSpec3
};

/// Block (i, j) of linear block index omega in a lower triangle incl.
/// diagonal, eq. (4): i from the sqrt guess, j = omega - T(i).
/// Exact: the check T(i) <= omega < T(i+1) is 0 <= j <= i on the j that eq. (4)
/// computes anyway, so it costs two compares and one uniform branch; in the
/// range where the float guess is right the branch is never taken, beyond it
/// the exact root is computed once per block.
template <class Sqrt, class Form = Exact>
KOKKOS_FORCEINLINE_FUNCTION void lambda_block(index_t omega, index_t& i, index_t& j) {
  i = detail::lambda_guess<Sqrt>(omega, true);
  j = omega - tri(i);
  if (std::is_same<Form, Exact>::value) {
    if (j < 0 || j > i) {
      i = tri_root(omega);
      j = omega - tri(i);
    }
  }
}

/// Row of linear block index omega in a lower triangle incl. diagonal, eq. (4).
template <class Sqrt, class Form = Exact>
KOKKOS_FORCEINLINE_FUNCTION index_t lambda_row(index_t omega) {
  index_t i, j;
  lambda_block<Sqrt, Form>(omega, i, j);
  return i;
}

/// Row of linear index omega in the strict lower triangle (j < i), eq. (5):
/// row i starts at T(i - 1) and holds i elements.
template <class Sqrt, class Form = Exact>
KOKKOS_FORCEINLINE_FUNCTION index_t lambda_row_strict(index_t omega) {
  index_t i = detail::lambda_guess<Sqrt>(omega, false);
  if (std::is_same<Form, Exact>::value) {
    if (tri(i - 1) > omega || tri(i) <= omega) i = tri_root(omega) + 1;
  }
  return i;
}

}  // namespace tdmaps

#endif
