// Harness of docs/examples.md's reductions: given n and x (n values, fixed
// seed); checks close, counts and best against host loops over the pairs j < i.
#include "harness.hpp"

#include <vector>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  snippets::Checks check("pair_reduce");
  {
    const std::int64_t n = 1001;  // not a multiple of the block side
    const Kokkos::View<double*> x = snippets::random_values(n);

    // @snippet

    const auto hx = snippets::on_host(x);
    const auto hcounts = snippets::on_host(counts);
    const auto hbest = snippets::on_host(best);
    std::int64_t want_close = 0;
    std::vector<std::int64_t> want_counts(bins, 0);
    std::vector<float> near_d(n, 2.0f);  // every distance is below 1
    std::vector<std::int64_t> near_j(n, -1);
    const auto closer = [&](std::int64_t a, std::int64_t b, float d) {  // (d, b) before (near_d(a), near_j(a))
      if (d < near_d[a] || (d == near_d[a] && b < near_j[a])) near_d[a] = d, near_j[a] = b;
    };
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < i; ++j) {
        const double d = std::fabs(hx(i) - hx(j));
        want_close += d < r;
        ++want_counts[static_cast<int>(d * bins)];
        closer(i, j, static_cast<float>(d));
        closer(j, i, static_cast<float>(d));
      }
    check.equal("pairs closer than r", close, want_close);
    for (int b = 0; b < bins; ++b) check.equal("histogram bin " + std::to_string(b), hcounts(b), want_counts[b]);
    for (std::int64_t i = 0; i < n; ++i) {
      check.equal("nearest partner of " + std::to_string(i), std::int64_t(hbest(i) & 0xffffffffu), near_j[i]);
      check.equal("nearest distance of " + std::to_string(i), tdmaps::from_ordered_bits(std::uint32_t(hbest(i) >> 32)),
                  near_d[i]);
    }
  }
  return check.report();
}
