// Harness of README.md's example: given n and x (n values, fixed seed);
// checks out (the pairs j <= i packed row by row), sum (per i, the strict
// triplets k < j < i) and density (per point, the Cauchy kernel over every
// other point) against host loops.
#include "harness.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  snippets::Checks check("readme_maps");
  {
    const std::int64_t n = 203;  // not a multiple of the block sides
    const Kokkos::View<double*> x = snippets::random_values(n);

    // @snippet

    const auto hx = snippets::on_host(x);
    const auto hout = snippets::on_host(out);
    const auto hsum = snippets::on_host(sum);
    const auto hden = snippets::on_host(density);
    check.equal("packed size", std::int64_t(hout.extent(0)), n * (n + 1) / 2);
    std::int64_t at = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j <= i && at < std::int64_t(hout.extent(0)); ++j, ++at)
        check.equal("out (" + std::to_string(i) + ", " + std::to_string(j) + ")", hout(at), std::fabs(hx(i) - hx(j)));
      double s = 0, scale = 0;
      for (std::int64_t j = 0; j < i; ++j)
        for (std::int64_t k = 0; k < j; ++k) s += hx(i) * hx(j) * hx(k), scale += std::fabs(hx(i) * hx(j) * hx(k));
      check.near("sum(" + std::to_string(i) + ")", hsum(i), s, 1e-13, scale);
      double w = 0;
      for (std::int64_t j = 0; j < n; ++j)
        if (j != i) w += 1 / (1 + (hx(i) - hx(j)) * (hx(i) - hx(j)));
      check.near("density(" + std::to_string(i) + ")", hden(i), w, 1e-13, w);
    }
  }
  return check.report();
}
