// Harness of docs/examples.md's Gaussian kernel sum law: the law and its
// caller are the snippet (at namespace scope); given points in the unit
// cube (fixed seed), checks each point's sum against a host loop over all
// j != i in double. fp32 sums of n - 1 positive terms differ from the loop's
// by about u sqrt(n) = 2e-6 of the sum (u = 6e-8, the unit roundoff): 2e-5.
#include "harness.hpp"

#include <tdmaps/tdmaps.hpp>

// @snippet

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  snippets::Checks check("pair_law_kde");
  {
    const std::int64_t n = 1000;  // not a multiple of any block side
    const float h = 0.07f;        // a point inside the cube sums about n (2 pi h^2)^(3/2) = 5.4
    const auto pts = snippets::random_points<float>(n, 3);
    const Kokkos::View<float* [3]> x("x", n);
    auto hx = Kokkos::create_mirror_view(x);
    const auto hp = snippets::on_host(pts);
    for (std::int64_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) hx(i, c) = hp(i, c);
    Kokkos::deep_copy(x, hx);
    const Kokkos::View<float*> f("f", n);
    kernel_sums(x, h, f);
    const auto hf = snippets::on_host(f);
    for (std::int64_t i = 0; i < n; ++i) {
      double want = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        if (j == i) continue;
        double r2 = 0;
        for (int c = 0; c < 3; ++c) r2 += (double(hx(i, c)) - hx(j, c)) * (double(hx(i, c)) - hx(j, c));
        want += std::exp(-r2 / (2 * double(h) * double(h)));
      }
      check.near("f(" + std::to_string(i) + ")", hf(i), want, 2e-5, want);
    }
  }
  return check.report();
}
