// Harness of docs/examples.md's pair law: the law and its caller are the
// snippet (at namespace scope); given positions and masses (fixed seed),
// checks the accelerations against a host loop over all ordered pairs i != j.
#include "harness.hpp"

#include <tdmaps/tdmaps.hpp>

#include <vector>

// @snippet

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  snippets::Checks check("pair_law");
  {
    const std::int64_t n = 777;  // not a multiple of any block side
    const auto pts = snippets::random_points<float>(n, 4);
    const Kokkos::View<float* [4]> xm("xm", n);
    auto hx = Kokkos::create_mirror_view(xm);
    const auto hp = snippets::on_host(pts);
    for (std::int64_t i = 0; i < n; ++i)
      for (int c = 0; c < 4; ++c) hx(i, c) = c < 3 ? hp(i, c) : 0.5f + hp(i, c);  // masses in [0.5, 1.5)
    Kokkos::deep_copy(xm, hx);
    const Kokkos::View<float* [3]> acc("acc", n);
    accelerations(xm, acc);
    const auto ha = snippets::on_host(acc);
    for (std::int64_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) {
        double want = 0, scale = 0;
        for (std::int64_t j = 0; j < n; ++j) {
          if (j == i) continue;
          double r2 = double(1e-4f);
          for (int k = 0; k < 3; ++k) r2 += (double(hx(j, k)) - hx(i, k)) * (double(hx(j, k)) - hx(i, k));
          const double t = hx(j, 3) * (double(hx(j, c)) - hx(i, c)) / (r2 * std::sqrt(r2));
          want += t;
          scale += std::fabs(t);
        }
        check.near("acc(" + std::to_string(i) + ", " + std::to_string(c) + ")", ha(i, c), want, 1e-4, scale);
      }
  }
  return check.report();
}
