// Harness of the packed-distance example (docs/mainpage.md): given n and x
// (n values, fixed seed); checks out, the pairs j <= i packed row by row,
// against |x_i - x_j| computed on the host.
#include "harness.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  snippets::Checks check("packed_distances");
  {
    const std::int64_t n = 301;  // not a multiple of the block side
    const Kokkos::View<double*> x = snippets::random_values(n);

    // @snippet

    const auto hx = snippets::on_host(x);
    const auto hout = snippets::on_host(out);
    check.equal("packed size", std::int64_t(hout.extent(0)), n * (n + 1) / 2);
    std::int64_t k = 0;  // the packed order: row i's pairs (i, 0) .. (i, i) after the rows above
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j <= i && k < std::int64_t(hout.extent(0)); ++j, ++k)
        check.equal("(" + std::to_string(i) + ", " + std::to_string(j) + ")", hout(k), std::fabs(hx(i) - hx(j)));
  }
  return check.report();
}
