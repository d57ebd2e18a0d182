#ifndef TDMAPS_NBODY_ACCELERATIONS_HPP
#define TDMAPS_NBODY_ACCELERATIONS_HPP

// Accelerations and potential-energy shares of n bodies under a pair law
// (forces.hpp), each pair evaluated once and its two results summed at both
// ends (tdmaps::for_each_pair_both_ends, launch/pair_both_ends.hpp):
//
//   Forces<Real, ExecSpace> f(space, params, m[, q]);   // the law, once per set of bodies
//   f.compute(map, x, acc[, hints[, terms]]);          // acc = what every body receives
//   f.add(map, range, x, acc[, hints[, terms]]);       // acc += the part of an omega range
//   f.add_part(map, p, P, x, acc[, hints[, terms]]);   // acc += part p of P (MPI ranks)
//   accelerations(space, map, x, m, q, params, acc)    // Forces and compute in one call
//
// terms: Terms::accelerations_and_energy (the default) or Terms::accelerations
// (no pair energies: e stays 0, fewer operations per pair).
// map: a block-space map (bb, lambda, rb, rec, hadouken; a range needs bb
// or lambda) over Domain(n, rho, Triangle::strict_lower) (or lower: the
// diagonal is never visited); x (n x 3), m, q (Coulomb) and acc (n) are
// Views of the space's memory. check_params and check_bodies tell bad
// parameters and bad bodies apart before a run, first_non_finite finds a
// result that is not finite after one (checks.hpp; the kernels do not check).
//
// compute() and add_part() run the laws through the library's public pair-law
// walk (tdmaps::for_each_pair_law, body_law.hpp), as a user's own law runs:
// on GPU backends the register-tiled lane walk over the map's kind (rows and
// columns in registers, columns rotated by lane shuffles; the map's own
// block side does not apply there). add(range) takes for_each_pair_both_ends
// (the range's omegas are the map's own).

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/pair_both_ends.hpp>
#include <tdmaps/launch/pair_law.hpp>
#include <tdmaps/launch/reduce.hpp>
#include <tdmaps/maps/map_concept.hpp>
#include <tdmaps/nbody/body_law.hpp>
#include <tdmaps/nbody/checks.hpp>
#include <tdmaps/nbody/forces.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tdmaps {
namespace nbody {

namespace detail {
/// 1 / m(i) for every i (a free function: nvcc takes no device lambda in a
/// constructor or a private member).
template <class Real, class ExecSpace, class M>
Kokkos::View<Real*, typename ExecSpace::memory_space> inverse(const ExecSpace& space, const M& m) {
  Kokkos::View<Real*, typename ExecSpace::memory_space> minv(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::nbody::minv"), m.extent(0));
  Kokkos::parallel_for(
      "tdmaps::nbody::minv", Kokkos::RangePolicy<ExecSpace>(space, 0, m.extent(0)),
      KOKKOS_LAMBDA(const std::size_t i) { minv(i) = Real(1) / m(i); });
  return minv;
}
}  // namespace detail

/// \brief A pair law bound to a set of bodies' masses (and charges): it
/// computes their accelerations and energy shares under any block-space map.
/// \tparam Real float or double
/// \tparam ExecSpace a Kokkos execution space
template <class Real, class ExecSpace>
class Forces {
 public:
  using memory_space = typename ExecSpace::memory_space;                                   ///< where the Views live
  using positions_type = Kokkos::View<const Real* [3], Kokkos::LayoutRight, memory_space>;  ///< x (n x 3)
  using scalars_type = Kokkos::View<const Real*, memory_space>;                             ///< m, q (n)
  using accel_type = Kokkos::View<Accel<Real>*, memory_space>;                              ///< acc (n)

  /// \brief Binds the law of `params` (checked, also in Real's range) to the masses m and, for
  /// Coulomb, the charges q (n each; q is not used by other laws and may be empty).
  Forces(const ExecSpace& space, const ForceParams& params, const scalars_type& m,
         const scalars_type& q = scalars_type())
      : space_(space), params_(params), m_(m), q_(q) {
    check_params(params, std::is_same<Real, float>::value);
    if (params.law == Law::coulomb && q.extent(0) != m.extent(0))
      throw std::invalid_argument("tdmaps::nbody::Forces: " + std::to_string(q.extent(0)) + " charges for " +
                                  std::to_string(m.extent(0)) + " masses (Coulomb needs one charge per body)");
    if (params.law != Law::gravity) minv_ = detail::inverse<Real>(space, m);
  }

  /// \brief The law's parameters.
  const ForceParams& params() const { return params_; }
  /// \brief The bodies.
  index_t size() const { return static_cast<index_t>(m_.extent(0)); }

  /// \brief acc = what every body receives from all its pairs (acc reset first);
  /// `terms`: whether the energy shares are computed (else e = 0).
  template <class Map>
  void compute(const Map& map, const positions_type& x, const accel_type& acc, const LaunchHints& hints = LaunchHints(),
               Terms terms = Terms::accelerations_and_energy) const {
    check(map, x, acc);
    Kokkos::deep_copy(space_, acc, Accel<Real>{Real(0), Real(0), Real(0), Real(0)});
    with_body_law(x, terms, [&](const auto& law) {
      tdmaps::for_each_pair_law(space_, map, law, acc, PairDiagonal::exclude, label(map), hints);
    });
  }

  /// \brief acc += part `part` of `parts` of the pairs (a one-launch map: bb,
  /// lambda); the parts p = 0 .. parts - 1 sum to compute()'s
  /// (tdmaps::for_each_pair_law_part: contiguous, balanced ranges of the walk's blocks).
  template <class Map>
  void add_part(const Map& map, int part, int parts, const positions_type& x, const accel_type& acc,
                const LaunchHints& hints = LaunchHints(), Terms terms = Terms::accelerations_and_energy) const {
    check(map, x, acc);
    with_body_law(x, terms, [&](const auto& law) {
      tdmaps::for_each_pair_law_part(space_, map, part, parts, law, acc, PairDiagonal::exclude, label(map), hints);
    });
  }

  /// \brief acc += what the pairs of the blocks of `range` give (a one-launch
  /// map: bb, lambda); the parts of omega_range(map, p, P), p = 0 .. P - 1, sum to compute()'s.
  template <class Map>
  void add(const Map& map, const OmegaRange& range, const positions_type& x, const accel_type& acc,
           const LaunchHints& hints = LaunchHints(), Terms terms = Terms::accelerations_and_energy) const {
    check(map, x, acc);
    with_kernel(x, terms, [&](const auto& kernel) {
      tdmaps::for_each_pair_both_ends(space_, map, range, kernel, acc, PairDiagonal::exclude, label(map), hints);
    });
  }

 private:
  /// The Kokkos label of the launches.
  template <class Map>
  static std::string label(const Map&) {
    return std::string("tdmaps::nbody::accelerations::") + Map::name;
  }


  /// Throws std::invalid_argument unless x, acc, the masses and the map's domain have one size.
  template <class Map>
  void check(const Map& map, const positions_type& x, const accel_type& acc) const {
    const index_t n = size();
    if (static_cast<index_t>(x.extent(0)) != n || static_cast<index_t>(acc.extent(0)) != n || map.domain.n != n)
      throw std::invalid_argument("tdmaps::nbody: " + std::to_string(x.extent(0)) + " positions, " + std::to_string(n) +
                                  " masses, " + std::to_string(acc.extent(0)) + " outputs and a domain of " +
                                  std::to_string(map.domain.n) + " points; all must be equal");
  }

  /// f(kernel) with the pair kernel of the law (forces.hpp) on positions x, computing `terms`.
  template <class F>
  void with_kernel(const positions_type& x, Terms terms, F&& f) const {
    with_law([&](const auto& law) {
      using LawT = std::decay_t<decltype(law)>;
      if (terms == Terms::accelerations)
        f(PairKernel<Real, memory_space, LawT, false>{x, law});
      else
        f(PairKernel<Real, memory_space, LawT, true>{x, law});
    });
  }

  /// f(law) with the law of forces.hpp as a pair law on positions x (body_law.hpp), computing `terms`.
  template <class F>
  void with_body_law(const positions_type& x, Terms terms, F&& f) const {
    if (params_.law == Law::gravity && terms == Terms::accelerations) {
      GravityAccLaw<Real, memory_space> law;  // G folded into the masses
      law.m = m_;
      law.G = static_cast<Real>(params_.G);
      law.eps2 = static_cast<Real>(params_.softening * params_.softening);
      f(BodyLaw<Real, memory_space, GravityAccLaw<Real, memory_space>, false>{x, law});
      return;
    }
    with_law([&](const auto& law) {
      using LawT = std::decay_t<decltype(law)>;
      if (terms == Terms::accelerations)
        f(BodyLaw<Real, memory_space, LawT, false>{x, law});
      else
        f(BodyLaw<Real, memory_space, LawT, true>{x, law});
    });
  }

  /// f(law) with the law's functor (forces.hpp), its parameters in Real.
  template <class F>
  void with_law(F&& f) const {
    const ForceParams& p = params_;
    const Real eps2 = static_cast<Real>(p.softening * p.softening);
    switch (p.law) {
      case Law::gravity: {
        GravityLaw<Real, memory_space> law;
        law.m = m_;
        law.G = static_cast<Real>(p.G);
        law.eps2 = eps2;
        f(law);
        break;
      }
      case Law::lennard_jones: {
        LennardJonesLaw<Real, memory_space> law;
        law.minv = minv_;
        law.sigma2 = static_cast<Real>(p.sigma * p.sigma);
        law.eps4 = static_cast<Real>(4 * p.epsilon);
        law.eps24 = static_cast<Real>(24 * p.epsilon);
        law.cut2 = static_cast<Real>(p.cutoff * p.cutoff);
        if (std::isfinite(p.cutoff)) {
          const double s6 = std::pow(p.sigma / p.cutoff, 6);
          law.shift = static_cast<Real>(4 * p.epsilon * (s6 * s6 - s6));
        }
        f(law);
        break;
      }
      case Law::coulomb: {
        CoulombLaw<Real, memory_space> law;
        law.q = q_;
        law.minv = minv_;
        law.k = static_cast<Real>(p.k);
        law.eps2 = eps2;
        f(law);
        break;
      }
    }
  }

  ExecSpace space_;           ///< where the launches run
  ForceParams params_;        ///< the law and its parameters (checked)
  scalars_type m_;            ///< masses
  scalars_type q_;            ///< charges (Coulomb)
  scalars_type minv_;         ///< 1 / masses (Lennard-Jones, Coulomb)
};

/// \brief acc = the accelerations and energy shares of the bodies (x, m, q)
/// under `params`' law: Forces(space, params, m, q).compute(map, x, acc, hints).
template <class Real, class ExecSpace, class Map>
void accelerations(const ExecSpace& space, const Map& map, const typename Forces<Real, ExecSpace>::positions_type& x,
                   const typename Forces<Real, ExecSpace>::scalars_type& m,
                   const typename Forces<Real, ExecSpace>::scalars_type& q, const ForceParams& params,
                   const typename Forces<Real, ExecSpace>::accel_type& acc, const LaunchHints& hints = LaunchHints()) {
  Forces<Real, ExecSpace>(space, params, m, q).compute(map, x, acc, hints);
}

}  // namespace nbody
}  // namespace tdmaps

#endif
