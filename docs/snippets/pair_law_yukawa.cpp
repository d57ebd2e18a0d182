// Harness of docs/examples.md's Yukawa law: the law and its caller are the
// snippet (at namespace scope); given positions in the unit cube and charges +-[0.5, 1.5)
// (fixed seed), checks the forces against a host loop over all ordered pairs
// i != j, each on its own (no third law). fp64: sums of n - 1 terms differ by
// at most u n = 1e-13 of the terms' magnitudes (u = 1.1e-16): 1e-12.
#include "harness.hpp"

#include <tdmaps/tdmaps.hpp>


// @snippet

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  snippets::Checks check("pair_law_yukawa");
  {
    const std::int64_t n = 777;  // not a multiple of any block side
    const double kappa = 5, k = 0.5, eps2 = 1e-4;
    const auto pts = snippets::random_points<double>(n, 5);
    const Kokkos::View<double* [4]> xq("xq", n);
    auto hx = Kokkos::create_mirror_view(xq);
    const auto hp = snippets::on_host(pts);
    for (std::int64_t i = 0; i < n; ++i) {
      for (int c = 0; c < 3; ++c) hx(i, c) = hp(i, c);
      hx(i, 3) = (hp(i, 3) < 0.5 ? -1 : 1) * (0.5 + hp(i, 4));
    }
    Kokkos::deep_copy(xq, hx);
    const Kokkos::View<double* [3]> force("force", n);
    yukawa_forces(xq, kappa, k, force);
    const auto hf = snippets::on_host(force);
    for (std::int64_t i = 0; i < n; ++i) {
      double want[3] = {0, 0, 0}, scale = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        if (j == i) continue;
        double d[3], r2 = 0;
        for (int c = 0; c < 3; ++c) d[c] = hx(i, c) - hx(j, c), r2 += d[c] * d[c];
        const double s = std::sqrt(r2 + eps2);
        const double f = k * hx(i, 3) * hx(j, 3) * std::exp(-kappa * s) * (1 + kappa * s) / (s * s * s);
        for (int c = 0; c < 3; ++c) want[c] += f * d[c];
        scale += std::fabs(f) * std::sqrt(r2);
      }
      for (int c = 0; c < 3; ++c)
        check.near("force(" + std::to_string(i) + ", " + std::to_string(c) + ")", hf(i, c), want[c], 1e-12, scale);
    }
  }
  return check.report();
}
