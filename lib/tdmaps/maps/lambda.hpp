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

template <class Sqrt = SqrtRsqrt, class Form = Exact>
struct LambdaMap {
  using space_tag = BlockSpaceTag;
  using sqrt_type = Sqrt;
  using form_type = Form;
  static constexpr const char* name = "lambda";

  Domain2 domain;

  LambdaMap() = default;
  explicit LambdaMap(const Domain2& d) : domain(d) {}
  LambdaMap(index_t n, int rho, Triangle t = Triangle::lower) : domain(n, rho, t) {}

  KOKKOS_FUNCTION index_t league_size() const { return tri(domain.nb); }
  KOKKOS_FORCEINLINE_FUNCTION bool block(index_t omega, Block2& b) const {
    lambda_block<Sqrt, Form>(omega, b.bi, b.bj);
    // Only the Epsilon form can land outside the triangle; reject such a block
    // rather than write out of bounds (coverage tests then see the miss).
    return std::is_same<Form, Exact>::value || (b.bi < domain.nb && b.bj >= 0 && b.bj <= b.bi);
  }
};

}  // namespace tdmaps

#endif
