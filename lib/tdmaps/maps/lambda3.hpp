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

template <class Cbrt = CbrtFloat, class Sqrt = SqrtRsqrt, class Form = Exact>
struct Lambda3Map {
  using space_tag = BlockSpaceTag;
  using cbrt_type = Cbrt;
  using sqrt_type = Sqrt;
  using form_type = Form;
  static constexpr const char* name = "lambda3";

  Domain3 domain;

  Lambda3Map() = default;
  explicit Lambda3Map(const Domain3& d) : domain(d) {}
  Lambda3Map(index_t n, int rho, Triangle t = Triangle::lower) : domain(n, rho, t) {}

  KOKKOS_FUNCTION index_t league_size() const { return tet(domain.nb); }
  KOKKOS_FORCEINLINE_FUNCTION bool block(index_t omega, Block3& b) const {
    lambda3_block<Cbrt, Sqrt, Form>(omega, b.bi, b.bj, b.bk);
    // Only the Epsilon form can land outside the tetrahedron; reject such a
    // block rather than write out of bounds (coverage tests then see the miss).
    return std::is_same<Form, Exact>::value ||
           (b.bi >= 0 && b.bi < domain.nb && b.bj >= 0 && b.bj <= b.bi && b.bk >= 0 && b.bk <= b.bj);
  }
};

}  // namespace tdmaps

#endif
