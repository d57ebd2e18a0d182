#ifndef TDMAPS_NBODY_FORCES_HPP
#define TDMAPS_NBODY_FORCES_HPP

// The pair laws of the N-body kernels and what each particle receives.
//
// Every law gives, for a pair (i, j) at separation d = x_j - x_i, r^2 = |d|^2,
// two scalars s_i and s_j and the pair's potential energy u: i's
// acceleration grows by s_i d and j's by -s_j d (Newton's third law: m_i s_i
// = m_j s_j), and each end's energy share by u / 2, so that the shares of
// all particles sum to the potential energy.
//
//   gravity        u = -G m_i m_j / sqrt(r^2 + eps^2)   s_i = G m_j / (r^2 + eps^2)^(3/2)
//   Lennard-Jones  u = 4 epsilon ((sigma/r)^12 - (sigma/r)^6) - u(cutoff)   for r < cutoff, else 0
//                  s_i = -24 epsilon (2 (sigma/r)^12 - (sigma/r)^6) / (r^2 m_i)
//   Coulomb        u = k q_i q_j / sqrt(r^2 + eps^2)       s_i = -k q_i q_j / ((r^2 + eps^2)^(3/2) m_i)
//
// Terms in Real (float or double); on CUDA the reciprocal square roots
// and reciprocals come from the hardware (tdmaps::intrinsics::rsqrt,
// rsqrt_d, rcp: within 1-2 ulp). Two particles at
// the same position without softening give inf / NaN terms (gravity and
// Coulomb) and Lennard-Jones gives them at r = 0 always: check_bodies
// (accelerations.hpp) refuses such inputs before a run.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/kokkos_ext/warp_math.hpp>
#include <tdmaps/launch/pair_both_ends.hpp>

#include <Kokkos_Core.hpp>

#include <limits>
#include <string>

namespace tdmaps {
namespace nbody {

/// \brief The pair law of a run.
enum class Law {
  gravity,        ///< Newtonian gravity with Plummer softening
  lennard_jones,  ///< the 12-6 Lennard-Jones potential, optionally cut and shifted
  coulomb         ///< Coulomb's law with optional softening
};

/// \brief The law's name as the CLI and Python take it: "gravity", "lj", "coulomb".
inline const char* law_name(Law law) {
  switch (law) {
    case Law::gravity:
      return "gravity";
    case Law::lennard_jones:
      return "lj";
    case Law::coulomb:
      return "coulomb";
  }
  return "?";
}

/// \brief The law named `name` (law_name's spelling); false when unknown.
inline bool law_from_name(const std::string& name, Law& law) {
  for (Law l : {Law::gravity, Law::lennard_jones, Law::coulomb})
    if (name == law_name(l)) {
      law = l;
      return true;
    }
  return false;
}

/// \brief The parameters of every law (host side, fp64); check_params tells what is allowed.
struct ForceParams {
  Law law = Law::gravity;  ///< which law
  double G = 1.0;          ///< gravity: the constant G, finite and > 0
  double softening = 0.0;  ///< gravity and Coulomb: eps >= 0 (r^2 becomes r^2 + eps^2)
  double sigma = 1.0;      ///< Lennard-Jones: sigma, finite and > 0
  double epsilon = 1.0;    ///< Lennard-Jones: the well depth, finite and > 0
  /// Lennard-Jones: pairs at r >= cutoff add nothing; the energy is shifted
  /// by -u(cutoff) so that it is continuous there (infinity: all pairs, no shift).
  double cutoff = std::numeric_limits<double>::infinity();
  double k = 1.0;  ///< Coulomb: the constant k (1 / (4 pi eps0) in the caller's units), finite and > 0
};

/// \brief What a force evaluation computes.
enum class Terms {
  accelerations_and_energy,  ///< Accel's x, y, z and its energy share e
  accelerations              ///< x, y, z only, e left 0: no pair energies (a time step between reports)
};

/// \brief What a particle receives from its pairs: its acceleration (x, y, z)
/// and its share e of the potential energy (half of each of its pairs').
/// \tparam Real float or double
template <class Real>
struct Accel {
  Real x;  ///< acceleration, x
  Real y;  ///< acceleration, y
  Real z;  ///< acceleration, z
  Real e;  ///< potential energy share
};

/// \brief 1 / sqrt(v): the hardware's approximation for float on CUDA, correctly rounded otherwise.
KOKKOS_FORCEINLINE_FUNCTION float inv_sqrt(float v) { return intrinsics::rsqrt(v); }
/// \brief 1 / sqrt(v) in double (CUDA's rsqrt, within 1 ulp).
KOKKOS_FORCEINLINE_FUNCTION double inv_sqrt(double v) { return intrinsics::rsqrt_d(v); }
/// \brief 1 / v without the division's slow path on CUDA (within 2 ulp in float).
KOKKOS_FORCEINLINE_FUNCTION float reciprocal(float v) { return intrinsics::rcp(v); }
/// \brief 1 / v in double (correctly rounded).
KOKKOS_FORCEINLINE_FUNCTION double reciprocal(double v) { return intrinsics::rcp_d(v); }

// Each law: `extra` values per body beside its position (load(i, e) reads
// them), and pair(e_i, e_j, r2, s_i, s_j, u) the pair's terms from them, so
// that a kernel may hold bodies in registers (body_law.hpp); operator()(i,
// j, r2, ...) is the two together.

/// \brief Gravity's pair terms (the top of this file); a body's extra value is its mass.
template <class Real, class Mem>
struct GravityLaw {
  static constexpr int extra = 1;    ///< values per body beside the position: m
  Kokkos::View<const Real*, Mem> m;  ///< masses
  Real G = 1;                        ///< G
  Real eps2 = 0;                     ///< softening squared
  /// \brief Body i's extra values.
  KOKKOS_FORCEINLINE_FUNCTION void load(index_t i, Real* e) const { e[0] = m(i); }
  /// \brief s_i, s_j and u of a pair from its bodies' extra values and squared distance r2.
  KOKKOS_FORCEINLINE_FUNCTION void pair(const Real* ei, const Real* ej, Real r2, Real& si, Real& sj, Real& u) const {
    const Real inv = inv_sqrt(r2 + eps2);
    const Real g_inv = G * inv;
    const Real g_inv3 = g_inv * inv * inv;
    si = ej[0] * g_inv3;
    sj = ei[0] * g_inv3;
    u = -ei[0] * ej[0] * g_inv;
  }
  /// \brief s_i, s_j and u of the pair (i, j) at squared distance r2.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j, Real r2, Real& si, Real& sj, Real& u) const {
    Real ei[extra], ej[extra];
    load(i, ei), load(j, ej);
    pair(ei, ej, r2, si, sj, u);
  }
};

/// \brief Gravity's accelerations alone (no energy: u = 0), G folded into the
/// bodies' extra value G m at load, one multiply fewer per pair than GravityLaw.
template <class Real, class Mem>
struct GravityAccLaw {
  static constexpr int extra = 1;    ///< values per body beside the position: G m
  Kokkos::View<const Real*, Mem> m;  ///< masses
  Real G = 1;                        ///< G
  Real eps2 = 0;                     ///< softening squared
  /// \brief Body i's extra values.
  KOKKOS_FORCEINLINE_FUNCTION void load(index_t i, Real* e) const { e[0] = G * m(i); }
  /// \brief s_i, s_j (u = 0) of a pair from its bodies' extra values and squared distance r2.
  KOKKOS_FORCEINLINE_FUNCTION void pair(const Real* ei, const Real* ej, Real r2, Real& si, Real& sj, Real& u) const {
    const Real inv = inv_sqrt(r2 + eps2);
    const Real inv3 = inv * inv * inv;
    si = ej[0] * inv3;
    sj = ei[0] * inv3;
    u = Real(0);
  }
};

/// \brief Lennard-Jones' pair terms (the top of this file); a body's extra value is 1 / mass.
template <class Real, class Mem>
struct LennardJonesLaw {
  static constexpr int extra = 1;       ///< values per body beside the position: 1 / m
  Kokkos::View<const Real*, Mem> minv;  ///< 1 / mass
  Real sigma2 = 1;                      ///< sigma^2
  Real eps4 = 4;                        ///< 4 epsilon
  Real eps24 = 24;                      ///< 24 epsilon
  Real cut2 = 0;                        ///< cutoff^2 (infinity: none)
  Real shift = 0;                       ///< u(cutoff), subtracted from every pair inside it
  /// \brief Body i's extra values.
  KOKKOS_FORCEINLINE_FUNCTION void load(index_t i, Real* e) const { e[0] = minv(i); }
  /// \brief s_i, s_j and u of a pair from its bodies' extra values and squared distance r2.
  KOKKOS_FORCEINLINE_FUNCTION void pair(const Real* ei, const Real* ej, Real r2, Real& si, Real& sj, Real& u) const {
    if (!(r2 < cut2)) {
      si = sj = u = Real(0);
      return;
    }
    const Real ir2 = reciprocal(r2);
    const Real s2 = sigma2 * ir2;
    const Real s6 = s2 * s2 * s2;
    const Real s12 = s6 * s6;
    const Real g = eps24 * (s12 + s12 - s6) * ir2;
    si = -g * ei[0];
    sj = -g * ej[0];
    u = eps4 * (s12 - s6) - shift;
  }
  /// \brief s_i, s_j and u of the pair (i, j) at squared distance r2.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j, Real r2, Real& si, Real& sj, Real& u) const {
    Real ei[extra], ej[extra];
    load(i, ei), load(j, ej);
    pair(ei, ej, r2, si, sj, u);
  }
};

/// \brief Coulomb's pair terms (the top of this file); a body's extra values are its charge and 1 / mass.
template <class Real, class Mem>
struct CoulombLaw {
  static constexpr int extra = 2;       ///< values per body beside the position: q, 1 / m
  Kokkos::View<const Real*, Mem> q;     ///< charges
  Kokkos::View<const Real*, Mem> minv;  ///< 1 / mass
  Real k = 1;                           ///< k
  Real eps2 = 0;                        ///< softening squared
  /// \brief Body i's extra values.
  KOKKOS_FORCEINLINE_FUNCTION void load(index_t i, Real* e) const { e[0] = q(i), e[1] = minv(i); }
  /// \brief s_i, s_j and u of a pair from its bodies' extra values and squared distance r2.
  KOKKOS_FORCEINLINE_FUNCTION void pair(const Real* ei, const Real* ej, Real r2, Real& si, Real& sj, Real& u) const {
    const Real inv = inv_sqrt(r2 + eps2);
    const Real kqq_inv = k * ei[0] * ej[0] * inv;
    const Real f = kqq_inv * inv * inv;
    si = -f * ei[1];
    sj = -f * ej[1];
    u = kqq_inv;
  }
  /// \brief s_i, s_j and u of the pair (i, j) at squared distance r2.
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j, Real r2, Real& si, Real& sj, Real& u) const {
    Real ei[extra], ej[extra];
    load(i, ei), load(j, ej);
    pair(ei, ej, r2, si, sj, u);
  }
};

/// \brief The pair kernel of for_each_pair_both_ends (launch/pair_both_ends.hpp)
/// for a law: positions in, both ends' Accel out.
/// \tparam Real float or double
/// \tparam Mem the memory space of the Views
/// \tparam LawT GravityLaw, LennardJonesLaw, CoulombLaw or any functor of their signature
/// \tparam Energy whether the energy shares are summed (false: e stays 0)
template <class Real, class Mem, class LawT, bool Energy = true>
struct PairKernel {
  Kokkos::View<const Real* [3], Kokkos::LayoutRight, Mem> x;  ///< positions (n x 3)
  LawT law;                                                   ///< the pair law
  /// \brief What i and j receive from the pair (i, j).
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j, Accel<Real>& to_i, Accel<Real>& to_j) const {
    const Real dx = x(j, 0) - x(i, 0);
    const Real dy = x(j, 1) - x(i, 1);
    const Real dz = x(j, 2) - x(i, 2);
    const Real r2 = dx * dx + dy * dy + dz * dz;
    Real si, sj, u;
    law(i, j, r2, si, sj, u);
    to_i.x = si * dx;
    to_i.y = si * dy;
    to_i.z = si * dz;
    to_j.x = -sj * dx;
    to_j.y = -sj * dy;
    to_j.z = -sj * dz;
    to_i.e = to_j.e = Energy ? Real(0.5) * u : Real(0);
  }
};

}  // namespace nbody

/// \brief Accel is a plain struct of four Reals: member-wise adds.
template <class Real>
struct pair_value_traits<nbody::Accel<Real>> : pair_value_reals<nbody::Accel<Real>, Real> {};

}  // namespace tdmaps

#endif
