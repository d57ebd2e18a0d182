// Harness of docs/examples.md's for_each_pair_both_ends: given n, positions p
// (n x 3) and masses m (fixed seed); checks phi against a host loop over all
// ordered pairs i != j.
#include "harness.hpp"

#include <vector>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  snippets::Checks check("pair_both_ends");
  {
    const std::int64_t n = 777;  // not a multiple of the block side
    const Kokkos::View<double**> p("p", n, 3);
    Kokkos::deep_copy(p, snippets::random_points<double>(n, 3));
    const Kokkos::View<double*> m = snippets::random_values(n, 1);

    // @snippet

    const auto hp = snippets::on_host(p);
    const auto hm = snippets::on_host(m);
    const auto hphi = snippets::on_host(phi);
    for (std::int64_t i = 0; i < n; ++i) {
      double want = 0, scale = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        if (j == i) continue;
        double s = eps2;
        for (int c = 0; c < 3; ++c) s += (hp(i, c) - hp(j, c)) * (hp(i, c) - hp(j, c));
        want -= hm(j) / std::sqrt(s);
        scale += hm(j) / std::sqrt(s);
      }
      check.near("phi(" + std::to_string(i) + ")", hphi(i), want, 1e-13, scale);
    }
  }
  return check.report();
}
