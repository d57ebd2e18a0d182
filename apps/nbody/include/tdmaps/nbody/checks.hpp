#ifndef TDMAPS_NBODY_CHECKS_HPP
#define TDMAPS_NBODY_CHECKS_HPP

// What keeps an N-body run's numbers finite, before and after a force
// evaluation (the kernels themselves check nothing per pair):
//
//   check_params(params, in_float)      parameters in range, and in the run's
//                                       precision (G, k, softening^2, sigma^2,
//                                       4 and 24 epsilon, cutoff^2 and the
//                                       shift neither overflow nor become 0)
//   check_bodies(x, m, q, params, in_float)   finite bodies, masses > 0, in the
//                                       run's precision, no two at a position
//                                       where the law is infinite
//   first_non_finite(space, acc)        after a force evaluation: one device
//                                       reduction, the lowest body whose
//                                       acceleration or energy share is not
//                                       finite, or -1
//   non_finite_cause(...)               why (law- and precision-aware), from
//                                       host copies of the bodies
//
// Messages print values as typed (the shortest text that reads back as the
// same double), never rounded to six decimals.

#include <tdmaps/core/detail/number_text.hpp>
#include <tdmaps/core/math.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/nbody/forces.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace tdmaps {
namespace nbody {

namespace detail {
/// v as typed (core/detail/number_text.hpp), NaN spelt as the N-body messages always have.
inline std::string number_text(double v) { return std::isnan(v) ? std::string("NaN") : tdmaps::detail::number_text(v); }

inline const char* float_name(bool in_float) { return in_float ? "float32" : "float64"; }

/// v rounded to the run's precision, as a double.
inline double in_precision(double v, bool in_float) {
  return in_float ? static_cast<double>(static_cast<float>(v)) : v;
}

/// The largest finite value of the run's precision.
inline double largest(bool in_float) {
  return in_float ? static_cast<double>(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
}

/// "" when `value` (computed in fp64 from finite inputs, meant to be finite
/// and != 0) stays so in the run's precision; else "overflows float32
/// (...)" or "underflows float32 (becomes 0)".
inline std::string range_problem(double value, bool in_float) {
  const double r = in_precision(value, in_float);
  if (std::isinf(r))
    return std::string("overflows ") + float_name(in_float) + " (largest finite " +
           (in_float ? "3.4028235e+38" : "1.7976931348623157e+308") + ")";
  if (r == 0)
    return std::string("underflows ") + float_name(in_float) + " (becomes 0; smallest > 0 " +
           (in_float ? "1.4e-45" : "4.9e-324") + ")";
  return "";
}

[[noreturn]] inline void refuse(const std::string& what) { throw std::invalid_argument("tdmaps::nbody: " + what); }
}  // namespace detail

/// \brief Throws std::invalid_argument naming the first parameter of `p`'s
/// law out of its range (ForceParams' members tell the ranges), or one the
/// kernels' precision cannot hold (`in_float`: float32, else float64): G, k,
/// softening^2, sigma^2, 4 and 24 epsilon, cutoff^2 and the energy shift at
/// the cutoff must neither overflow nor become 0 there.
inline void check_params(const ForceParams& p, bool in_float = false) {
  using detail::number_text;
  const auto positive = [](const char* what, double v) {
    if (!(std::isfinite(v) && v > 0))
      detail::refuse(std::string(what) + " = " + number_text(v) + " must be finite and > 0");
  };
  // The value the kernels hold for a parameter (`term` of it, computed in fp64).
  const auto held = [&](const char* what, double v, const char* term, double term_value) {
    const std::string problem = detail::range_problem(term_value, in_float);
    if (!problem.empty())
      detail::refuse(std::string(what) + " = " + number_text(v) + (term[0] ? std::string(": ") + term : "") + " " +
                     problem);
  };
  switch (p.law) {
    case Law::gravity:
      positive("G", p.G);
      held("G", p.G, "", p.G);
      break;
    case Law::lennard_jones:
      positive("sigma", p.sigma);
      positive("epsilon", p.epsilon);
      if (!(p.cutoff > 0)) detail::refuse("cutoff = " + number_text(p.cutoff) + " must be > 0 (infinity: none)");
      held("sigma", p.sigma, "sigma^2", p.sigma * p.sigma);
      held("epsilon", p.epsilon, "4 epsilon", 4 * p.epsilon);
      held("epsilon", p.epsilon, "24 epsilon", 24 * p.epsilon);
      if (std::isfinite(p.cutoff)) {
        held("cutoff", p.cutoff, "cutoff^2", p.cutoff * p.cutoff);
        const double s6 = std::pow(p.sigma / p.cutoff, 6), shift = 4 * p.epsilon * (s6 * s6 - s6);
        if (!std::isfinite(detail::in_precision(shift, in_float)))
          detail::refuse("cutoff = " + number_text(p.cutoff) +
                         ": the energy shift u(cutoff) = 4 epsilon ((sigma/cutoff)^12 - "
                         "(sigma/cutoff)^6) overflows " +
                         detail::float_name(in_float) + " (a cutoff far below sigma)");
      }
      break;
    case Law::coulomb:
      positive("k", p.k);
      held("k", p.k, "", p.k);
      break;
  }
  if (p.law != Law::lennard_jones) {
    if (!(std::isfinite(p.softening) && p.softening >= 0))
      detail::refuse("softening = " + number_text(p.softening) + " must be finite and >= 0");
    if (p.softening > 0) held("softening", p.softening, "softening^2", p.softening * p.softening);
  }
}

/// \brief Throws std::invalid_argument naming the first bad body of host
/// arrays x (n x 3, row-major), m (n) and q (n, Coulomb; else ignored), as
/// typed (fp64): coordinates, masses and charges must be finite, masses > 0,
/// and all must keep their value in the kernels' precision (`in_float`:
/// float32; a mass or a charge != 0 that becomes 0 or infinite there, and
/// for Lennard-Jones and Coulomb a mass whose inverse overflows, are
/// refused); no two bodies may share a position where the law is singular
/// there (gravity and Coulomb without softening, Lennard-Jones always), in
/// float32 the positions as float32 holds them (two distinct doubles may meet).
inline void check_bodies(const std::vector<double>& x, const std::vector<double>& m, const std::vector<double>& q,
                         const ForceParams& p, bool in_float = false) {
  using detail::number_text;
  const std::size_t n = m.size();
  if (x.size() != 3 * n)
    detail::refuse(std::to_string(x.size()) + " coordinates for " + std::to_string(n) + " masses; expected 3 per body");
  const bool charges = p.law == Law::coulomb;
  if (charges && q.size() != n)
    detail::refuse(std::to_string(q.size()) + " charges for " + std::to_string(n) + " bodies");
  static const char* const axis[3] = {"x", "y", "z"};
  const char* const fl = detail::float_name(in_float);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string body = "body " + std::to_string(i) + ": ";
    for (int c = 0; c < 3; ++c) {
      const double v = x[3 * i + static_cast<std::size_t>(c)];
      if (!std::isfinite(v)) detail::refuse(body + axis[c] + " is " + number_text(v) + " (not finite)");
      if (std::isinf(detail::in_precision(v, in_float)))
        detail::refuse(body + axis[c] + " = " + number_text(v) + " " + detail::range_problem(v, in_float));
    }
    if (!(std::isfinite(m[i]) && m[i] > 0))
      detail::refuse(body + "mass " + number_text(m[i]) + " must be finite and > 0");
    const std::string mass = detail::range_problem(m[i], in_float);
    if (!mass.empty()) detail::refuse(body + "mass " + number_text(m[i]) + " " + mass);
    // Lennard-Jones and Coulomb divide by the mass in the kernels' precision.
    const double held = detail::in_precision(m[i], in_float);
    if (p.law != Law::gravity &&
        std::isinf(in_float ? static_cast<double>(1.0f / static_cast<float>(held)) : 1.0 / held))
      detail::refuse(body + "mass " + number_text(m[i]) + ": 1 / mass overflows " + fl);
    if (charges) {
      if (!std::isfinite(q[i])) detail::refuse(body + "charge " + number_text(q[i]) + " is not finite");
      const std::string charge = q[i] != 0 ? detail::range_problem(q[i], in_float) : std::string();
      if (!charge.empty()) detail::refuse(body + "charge " + number_text(q[i]) + " " + charge);
    }
  }
  const bool singular = p.law == Law::lennard_jones || p.softening == 0;
  if (!singular || n < 2) return;
  const auto at = [&](std::size_t i, int c) {
    return detail::in_precision(x[3 * i + static_cast<std::size_t>(c)], in_float);
  };
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    for (int c = 0; c < 3; ++c)
      if (at(a, c) != at(b, c)) return at(a, c) < at(b, c);
    return a < b;
  });
  for (std::size_t k = 1; k < n; ++k) {
    const std::size_t a = order[k - 1], b = order[k];
    if (at(a, 0) == at(b, 0) && at(a, 1) == at(b, 1) && at(a, 2) == at(b, 2))
      detail::refuse("bodies " + std::to_string(std::min(a, b)) + " and " + std::to_string(std::max(a, b)) +
                     " share a position" + (in_float ? " in float32" : "") + ": " + law_name(p.law) +
                     (p.law == Law::lennard_jones ? " is infinite at r = 0"
                                                  : " without softening is infinite at r = 0 (give a softening > 0)"));
  }
}

namespace detail {
/// first_non_finite's reduction (at namespace scope: CUDA kernels' functor types may not be local).
template <class AccView>
struct FirstNonFinite {
  AccView acc;
  KOKKOS_FUNCTION void operator()(const index_t i, index_t& first) const {
    const auto a = acc(i);
    if (!(isfinite_of(a.x) && isfinite_of(a.y) && isfinite_of(a.z) && isfinite_of(a.e)) && i < first) first = i;
  }
};
}  // namespace detail

/// \brief The lowest body whose acceleration or energy share in `acc` (a
/// View of Accel) is not finite, or -1: one reduction on `space`, one
/// value back to the host.
template <class ExecSpace, class AccView>
index_t first_non_finite(const ExecSpace& space, const AccView& acc) {
  const index_t n = static_cast<index_t>(acc.extent(0));
  index_t first = n;
  Kokkos::parallel_reduce("tdmaps::nbody::first_non_finite",
                          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, n),
                          detail::FirstNonFinite<AccView>{acc}, Kokkos::Min<index_t>(first));
  space.fence();
  return first < n ? first : -1;
}

/// \brief How a caller spells the remedies non_finite_cause names.
struct Remedies {
  std::string softening = "a softening";  ///< a larger softening (gravity, Coulomb)
  std::string fp64 = "fp64 precision";    ///< the run in fp64 (a float32 run)
};

/// \brief Why body i's result (a: acceleration x, y, z and energy share e as
/// the kernels gave them) is not finite although its inputs were, for a
/// message: "body i: acceleration (inf, NaN, NaN) is not finite in float32:
/// body j is only 1e-13 away: ...". x (n x 3), m and q (Coulomb) are host
/// copies of what the kernels read (positions as the run holds them).
inline std::string non_finite_cause(const ForceParams& p, bool in_float, const std::vector<double>& x,
                                    const std::vector<double>& m, const std::vector<double>& q, std::size_t i,
                                    const double a[4], const Remedies& fix = Remedies()) {
  using detail::number_text;
  const char* const fl = detail::float_name(in_float);
  const std::string or_fp64 = in_float ? ", or " + fix.fp64 : std::string();
  const std::size_t n = m.size();
  const bool acc_bad = !(std::isfinite(a[0]) && std::isfinite(a[1]) && std::isfinite(a[2]));
  const std::string s =
      "body " + std::to_string(i) + ": " +
      (acc_bad ? "acceleration (" + number_text(a[0]) + ", " + number_text(a[1]) + ", " + number_text(a[2]) + ")"
               : "energy share " + number_text(a[3])) +
      " is not finite in " + fl;
  const double* xi = &x[3 * i];
  if (!(std::isfinite(xi[0]) && std::isfinite(xi[1]) && std::isfinite(xi[2])))
    return s + ": its position (" + number_text(xi[0]) + ", " + number_text(xi[1]) + ", " + number_text(xi[2]) +
           ") is no longer finite: the state overflowed " + fl + " during the run (a smaller time step" + or_fp64 + ")";
  // The nearest body: the pair most likely to overflow.
  std::size_t j = i;
  double r2 = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < n; ++k) {
    double d2 = 0;
    for (std::size_t c = 0; c < 3; ++c) d2 += (x[3 * k + c] - xi[c]) * (x[3 * k + c] - xi[c]);
    if (k != i && d2 < r2) r2 = d2, j = k;
  }
  if (j == i) return s;
  const double big = detail::largest(in_float), r = std::sqrt(r2);
  char distance[16];  // computed, not typed: three digits
  std::snprintf(distance, sizeof distance, "%.3g", r);
  const std::string near =
      ": body " + std::to_string(j) + (r > 0 ? " is only " + std::string(distance) + " away" : " is at its position");
  if (p.law == Law::lennard_jones) {
    // The kernels' largest term at that distance: 48 epsilon (sigma/r)^12 / r^2.
    const double s2 = p.sigma * p.sigma / r2, g = 48 * p.epsilon * s2 * s2 * s2 * s2 * s2 * s2 / r2;
    if (!(detail::in_precision(r2, in_float) > 0) || !(g <= big))
      return s + near + ": (sigma/r)^12 / r^2 overflows " + fl +
             " at that distance; Lennard-Jones takes no softening: " +
             (in_float ? fix.fp64 + ", or bodies" : "bodies") + " farther apart";
    return s + ": the Lennard-Jones terms overflow " + fl + " with epsilon = " + number_text(p.epsilon) +
           " and these masses (1 / mass scales the accelerations): smaller units" + or_fp64;
  }
  // Gravity and Coulomb: 1 / (r^2 + eps^2)^(3/2), then the constant and the masses or charges.
  const double eps2 = p.softening * p.softening, d2 = detail::in_precision(r2, in_float) + eps2;
  const std::string law = p.law == Law::gravity ? "gravity" : "Coulomb";
  char about[16];  // a softening whose 1 / eps^3 fits with room for the constant
  std::snprintf(about, sizeof about, "%.0e", std::max(r, 10 * std::cbrt(1 / big)));
  if (!(d2 > 0) || !(std::pow(d2, -1.5) <= big))
    return s + near + ": 1 / (r^2 + softening^2)^(3/2) overflows " + fl + " there (" + law + ", softening " +
           number_text(p.softening) + "): " + fix.softening + " of about " + about + " or more" + or_fp64 +
           " keeps it finite";
  double largest_mq = 0;  // the masses (gravity) or the charges (Coulomb) in the terms
  for (double v : p.law == Law::gravity ? m : q) largest_mq = std::max(largest_mq, std::fabs(v));
  return s + ": the " + law + " terms overflow " + fl + " with " + (p.law == Law::gravity ? "G = " : "k = ") +
         number_text(p.law == Law::gravity ? p.G : p.k) + " and " + (p.law == Law::gravity ? "masses" : "charges") +
         " up to " + number_text(largest_mq) + ": smaller units" + or_fp64;
}

}  // namespace nbody
}  // namespace tdmaps

#endif
