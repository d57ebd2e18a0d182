// Harness of docs/examples.md's EDM call: given n, d and points (n x d,
// float, LayoutRight, fixed seed); checks dist against the distances in
// SciPy's pdist order (i < j, i the outer loop) computed on the host.
// @link tdmaps::edm
#include "harness.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  snippets::Checks check("edm_condensed");
  {
    const std::int64_t n = 333;
    const int d = 3;
    const Kokkos::View<float**, Kokkos::LayoutRight> points = snippets::random_points<float>(n, d);

    // @snippet

    const auto hp = snippets::on_host(points);
    const auto hd = snippets::on_host(dist);
    check.equal("condensed size", std::int64_t(hd.extent(0)), n * (n - 1) / 2);
    std::int64_t k = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = i + 1; j < n && k < std::int64_t(hd.extent(0)); ++j, ++k) {
        double s = 0;
        for (int c = 0; c < d; ++c) s += (double(hp(i, c)) - hp(j, c)) * (double(hp(i, c)) - hp(j, c));
        check.near("pdist(" + std::to_string(i) + ", " + std::to_string(j) + ")", hd(k), std::sqrt(s), 1e-6, 1.0);
      }
  }
  return check.report();
}
