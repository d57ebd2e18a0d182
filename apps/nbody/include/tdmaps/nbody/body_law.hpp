#ifndef TDMAPS_NBODY_BODY_LAW_HPP
#define TDMAPS_NBODY_BODY_LAW_HPP

// The N-body laws of forces.hpp as pair laws of tdmaps::for_each_pair_law
// (launch/pair_law.hpp): a body's point is its position and the law's extra
// values, its sum the acceleration and (Energy) its pairs' energies; the
// flush adds a body's sums into its Accel, each end's energy share half of
// its pairs' energies. Forces (accelerations.hpp) runs them through the
// public walk, as a user's own law would run.

#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/pair_both_ends.hpp>
#include <tdmaps/nbody/forces.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace nbody {

/// \brief A law of forces.hpp (GravityLaw, LennardJonesLaw, CoulombLaw) as a
/// pair law on positions x, summing the accelerations and, where Energy, the
/// pair energies.
/// \tparam Real float or double
/// \tparam Mem the memory space of the Views
/// \tparam LawT the law's functor (extra, load(i, e), pair(e_i, e_j, r2, s_i, s_j, u))
/// \tparam Energy whether the energy shares are summed (false: e stays 0)
template <class Real, class Mem, class LawT, bool Energy>
struct BodyLaw {
  /// \brief A body in a lane's registers: its position and the law's extra values.
  struct point_type {
    Real p[3];              ///< position
    Real e[LawT::extra];    ///< the law's values (load(i, e))
  };
  /// \brief A body's sums: the acceleration and (Energy) its pairs' energies.
  struct value_type {
    Real a[Energy ? 4 : 3];  ///< x, y, z (and the energies)
  };
  Kokkos::View<const Real* [3], Kokkos::LayoutRight, Mem> x;  ///< positions (n x 3)
  LawT law;                                                   ///< the pair law

  /// \brief Body i.
  KOKKOS_FORCEINLINE_FUNCTION point_type load(index_t i) const {
    point_type b;
    b.p[0] = x(i, 0), b.p[1] = x(i, 1), b.p[2] = x(i, 2);
    law.load(i, b.e);
    return b;
  }
  /// \brief Adds what a and b receive from their pair.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(const point_type& a, const point_type& b, value_type& to_a,
                                              value_type& to_b) const {
    const Real dx = b.p[0] - a.p[0], dy = b.p[1] - a.p[1], dz = b.p[2] - a.p[2];
    const Real r2 = dx * dx + dy * dy + dz * dz;
    Real si, sj, u;
    law.pair(a.e, b.e, r2, si, sj, u);
    to_a.a[0] += si * dx, to_a.a[1] += si * dy, to_a.a[2] += si * dz;
    to_b.a[0] -= sj * dx, to_b.a[1] -= sj * dy, to_b.a[2] -= sj * dz;
    if constexpr (Energy) to_a.a[3] += u, to_b.a[3] += u;
  }
  /// \brief out(i) += body i's sums (its energy share: half its pairs' energies; without
  /// Energy, out(i).e is not touched).
  KOKKOS_FORCEINLINE_FUNCTION void flush(const Kokkos::View<Accel<Real>*, Mem>& out, index_t i,
                                         const value_type& v) const {
    if constexpr (Energy) {
      pair_value_traits<Accel<Real>>::atomic_add(&out(i), Accel<Real>{v.a[0], v.a[1], v.a[2], Real(0.5) * v.a[3]});
    } else {
      // Three atomics, not four: the energy slot stays as it is (zero).
      Kokkos::atomic_add(detail::native(&out(i).x), detail::native(v.a[0]));
      Kokkos::atomic_add(detail::native(&out(i).y), detail::native(v.a[1]));
      Kokkos::atomic_add(detail::native(&out(i).z), detail::native(v.a[2]));
    }
  }
};

}  // namespace nbody
}  // namespace tdmaps

#endif
