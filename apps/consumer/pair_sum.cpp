// Sum of |x_i - x_j| over all pairs j <= i, launched with the lambda map, and
// checked against a host loop. Built by .ci/run against the installed package.
#include <tdmaps/tdmaps.hpp>

#include <cmath>
#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  const tdmaps::index_t n = 1000;
  Kokkos::View<double*> x("x", n), row_sums("row_sums", n);
  Kokkos::parallel_for("consumer::init", n, KOKKOS_LAMBDA(int i) { x(i) = std::sin(0.1 * i); });

  tdmaps::LambdaMap<> map(n, 16);  // n x n lower triangle, 16 x 16 blocks
  tdmaps::for_each_element(Kokkos::DefaultExecutionSpace(), map, KOKKOS_LAMBDA(tdmaps::index_t i, tdmaps::index_t j) {
    Kokkos::atomic_add(&row_sums(i), tdmaps::fabs_of(x(i) - x(j)));
  });

  double sum = 0;
  Kokkos::parallel_reduce("consumer::sum", n, KOKKOS_LAMBDA(int i, double& s) { s += row_sums(i); }, sum);
  double expect = 0;
  for (tdmaps::index_t i = 0; i < n; ++i)
    for (tdmaps::index_t j = 0; j <= i; ++j) expect += std::fabs(std::sin(0.1 * i) - std::sin(0.1 * j));
  std::printf("pair_sum: tdmaps %.6f, host loop %.6f\n", sum, expect);
  return std::fabs(sum - expect) <= 1e-9 * expect ? 0 : 1;
}
