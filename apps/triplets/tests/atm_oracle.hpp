#ifndef TDMAPS_TRIPLETS_TESTS_ATM_ORACLE_HPP
#define TDMAPS_TRIPLETS_TESTS_ATM_ORACLE_HPP

// The Axilrod-Teller-Muto oracle of the triplet tests (test_triplets,
// test_triplets_ranges): a host nested loop in fp64, independent of the
// kernels.
#include <tdmaps/triplets.hpp>

#include <cmath>
#include <cstddef>
#include <vector>

namespace tdmaps_triplets_test {

using tdmaps::index_t;

/// What the oracle knows of an input: the total, each particle's share, the
/// scales of the sums (|term| summed) that a relative error refers to, and
/// the |terms| of the triplets within a relative `margin` of a cutoff (a
/// kernel in fp32 may decide those the other way; counted in the total).
struct Expected {
  double total = 0, abs_total = 0, edge = 0;
  std::vector<double> share, abs_share, edge_share;
};

/// The plain definition: cosines by the law of cosines, fp64, every k < j < i.
inline Expected oracle(const std::vector<double>& x, const tdmaps::triplets::AtmParams& p, double margin = 0) {
  const index_t n = static_cast<index_t>(x.size() / 3);
  Expected e;
  e.share.assign(static_cast<std::size_t>(n), 0.0);
  e.abs_share.assign(static_cast<std::size_t>(n), 0.0);
  e.edge_share.assign(static_cast<std::size_t>(n), 0.0);
  const auto dist = [&](index_t a, index_t b) {
    double s = 0;
    for (int c = 0; c < 3; ++c) {
      const double d = x[static_cast<std::size_t>(3 * a + c)] - x[static_cast<std::size_t>(3 * b + c)];
      s += d * d;
    }
    return std::sqrt(s);
  };
  const double triple = p.cutoff_triple * p.cutoff_triple * p.cutoff_triple;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < i; ++j)
      for (index_t k = 0; k < j; ++k) {
        const double rij = dist(i, j), rjk = dist(j, k), rki = dist(k, i);
        if (!(rij < p.cutoff && rjk < p.cutoff && rki < p.cutoff && rij * rjk * rki < triple)) continue;
        const double ci = (rij * rij + rki * rki - rjk * rjk) / (2 * rij * rki);
        const double cj = (rij * rij + rjk * rjk - rki * rki) / (2 * rij * rjk);
        const double ck = (rjk * rjk + rki * rki - rij * rij) / (2 * rjk * rki);
        const double r3 = rij * rjk * rki;
        const double term = p.c9 * (1 + 3 * ci * cj * ck) / (r3 * r3 * r3);
        const auto near = [&](double r, double limit) {
          return std::isfinite(limit) && std::fabs(r - limit) <= margin * limit;
        };
        const bool edge = near(rij, p.cutoff) || near(rjk, p.cutoff) || near(rki, p.cutoff) || near(rij * rjk * rki, triple);
        e.total += term;
        e.abs_total += std::fabs(term);
        e.edge += edge ? std::fabs(term) : 0.0;
        for (index_t m : {i, j, k}) {
          e.share[static_cast<std::size_t>(m)] += term / 3;
          e.abs_share[static_cast<std::size_t>(m)] += std::fabs(term) / 3;
          e.edge_share[static_cast<std::size_t>(m)] += edge ? std::fabs(term) / 3 : 0.0;
        }
      }
  return e;
}

}  // namespace tdmaps_triplets_test

#endif
