#ifndef TDMAPS_NBODY_INTEGRATE_HPP
#define TDMAPS_NBODY_INTEGRATE_HPP

// Time stepping of n bodies: leapfrog kick-drift-kick with a fixed step dt
// (second order, symplectic, time-reversible):
//
//   kick(space, s, dt / 2)     v += a dt / 2
//   drift(space, s, dt)        x += v dt
//   (new accelerations)        a = forces(x)
//   kick(space, s, dt / 2)
//
// leapfrog_step() does the four with a caller's force evaluation (one rank:
// Forces::compute; MPI ranks: each its omega range, then a sum). The state
// lives in Views of the space's memory; diagnostics() sums its kinetic and
// potential energy and its momentum in fp64.

#include <tdmaps/core/types.hpp>
#include <tdmaps/nbody/forces.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <string>

namespace tdmaps {
namespace nbody {

/// \brief The bodies' state on a device: positions, velocities, masses,
/// charges (Coulomb; else empty) and what the last force evaluation gave.
/// \tparam Real float or double
/// \tparam Mem a Kokkos memory space
template <class Real, class Mem>
struct State {
  Kokkos::View<Real* [3], Kokkos::LayoutRight, Mem> x;  ///< positions (n x 3)
  Kokkos::View<Real* [3], Kokkos::LayoutRight, Mem> v;  ///< velocities (n x 3)
  Kokkos::View<Real*, Mem> m;                           ///< masses
  Kokkos::View<Real*, Mem> q;                           ///< charges (Coulomb), else empty
  Kokkos::View<Accel<Real>*, Mem> a;                    ///< accelerations and energy shares
  /// \brief The bodies.
  index_t size() const { return static_cast<index_t>(m.extent(0)); }
};

/// \brief A state of n bodies in space's memory (contents uninitialised; q
/// allocated when `charges`).
template <class Real, class ExecSpace>
State<Real, typename ExecSpace::memory_space> make_state(const ExecSpace& space, index_t n, bool charges) {
  using Mem = typename ExecSpace::memory_space;
  const auto alloc = [&](const char* name) { return Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string("tdmaps::nbody::") + name); };
  State<Real, Mem> s;
  const std::size_t un = static_cast<std::size_t>(n);
  s.x = Kokkos::View<Real* [3], Kokkos::LayoutRight, Mem>(alloc("x"), un);
  s.v = Kokkos::View<Real* [3], Kokkos::LayoutRight, Mem>(alloc("v"), un);
  s.m = Kokkos::View<Real*, Mem>(alloc("m"), un);
  if (charges) s.q = Kokkos::View<Real*, Mem>(alloc("q"), un);
  s.a = Kokkos::View<Accel<Real>*, Mem>(alloc("a"), un);
  return s;
}

/// \brief v += h a for every body.
template <class ExecSpace, class Real, class Mem>
void kick(const ExecSpace& space, const State<Real, Mem>& s, double h) {
  const auto v = s.v;
  const auto a = s.a;
  const Real rh = static_cast<Real>(h);
  Kokkos::parallel_for(
      "tdmaps::nbody::kick", Kokkos::RangePolicy<ExecSpace>(space, 0, s.m.extent(0)), KOKKOS_LAMBDA(const std::size_t i) {
        v(i, 0) += rh * a(i).x;
        v(i, 1) += rh * a(i).y;
        v(i, 2) += rh * a(i).z;
      });
}

/// \brief x += dt v for every body.
template <class ExecSpace, class Real, class Mem>
void drift(const ExecSpace& space, const State<Real, Mem>& s, double dt) {
  const auto x = s.x;
  const auto v = s.v;
  const Real rdt = static_cast<Real>(dt);
  Kokkos::parallel_for(
      "tdmaps::nbody::drift", Kokkos::RangePolicy<ExecSpace>(space, 0, s.m.extent(0)), KOKKOS_LAMBDA(const std::size_t i) {
        for (int c = 0; c < 3; ++c) x(i, c) += rdt * v(i, c);
      });
}

/// \brief One kick-drift-kick step of dt; forces() recomputes s.a from s.x
/// (s.a must hold the accelerations of the current positions on entry).
template <class ExecSpace, class Real, class Mem, class ForceEval>
void leapfrog_step(const ExecSpace& space, const State<Real, Mem>& s, double dt, ForceEval&& forces) {
  kick(space, s, 0.5 * dt);
  drift(space, s, dt);
  forces();
  kick(space, s, 0.5 * dt);
}

/// \brief Energies and momentum of a state, summed in fp64.
struct Diagnostics {
  double kinetic = 0;    ///< sum of m |v|^2 / 2
  double potential = 0;  ///< sum of the energy shares (the pairs' energies)
  double px = 0;         ///< momentum, x
  double py = 0;         ///< momentum, y
  double pz = 0;         ///< momentum, z
  /// \brief kinetic + potential.
  double total() const { return kinetic + potential; }
};

namespace detail {
/// diagnostics()' reduction: five sums in fp64.
template <class Real, class Mem>
struct DiagnosticsSum {
  using value_type = double[];
  using size_type = std::size_t;
  size_type value_count = 5;
  State<Real, Mem> s;
  KOKKOS_FUNCTION void operator()(const std::size_t i, double* sum) const {
    const double m = s.m(i), vx = s.v(i, 0), vy = s.v(i, 1), vz = s.v(i, 2);
    sum[0] += 0.5 * m * (vx * vx + vy * vy + vz * vz);
    sum[1] += static_cast<double>(s.a(i).e);
    sum[2] += m * vx;
    sum[3] += m * vy;
    sum[4] += m * vz;
  }
  KOKKOS_FUNCTION void join(double* dst, const double* src) const {
    for (int k = 0; k < 5; ++k) dst[k] += src[k];
  }
  KOKKOS_FUNCTION void init(double* sum) const {
    for (int k = 0; k < 5; ++k) sum[k] = 0;
  }
};
}  // namespace detail

/// \brief The kinetic and potential energy (from s.a's shares: the last
/// force evaluation) and the momentum of a state.
template <class ExecSpace, class Real, class Mem>
Diagnostics diagnostics(const ExecSpace& space, const State<Real, Mem>& s) {
  double sum[5] = {0, 0, 0, 0, 0};
  detail::DiagnosticsSum<Real, Mem> f;
  f.s = s;
  Kokkos::parallel_reduce("tdmaps::nbody::diagnostics", Kokkos::RangePolicy<ExecSpace>(space, 0, s.m.extent(0)), f, sum);
  space.fence();
  Diagnostics d;
  d.kinetic = sum[0];
  d.potential = sum[1];
  d.px = sum[2];
  d.py = sum[3];
  d.pz = sum[4];
  return d;
}

}  // namespace nbody
}  // namespace tdmaps

#endif
