// Sum of x_i x_j x_k over all strict triplets k < j < i, launched with the
// exact lambda3 map and one's own lambda, checked against a host loop. Built
// by .ci/run against the installed package.
#include <tdmaps/tdmaps.hpp>

#include <cmath>
#include <cstdio>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  const tdmaps::index_t n = 300;
  Kokkos::View<double*> x("x", n), layer_sums("layer_sums", n);
  Kokkos::parallel_for("consumer::init", n, KOKKOS_LAMBDA(int i) { x(i) = std::cos(0.05 * i); });

  tdmaps::Lambda3Map<> map(n, 8, tdmaps::Triangle::strict_lower);  // k < j < i < n, 8^3 blocks
  tdmaps::for_each_element(Kokkos::DefaultExecutionSpace(), map,
                           KOKKOS_LAMBDA(tdmaps::index_t i, tdmaps::index_t j, tdmaps::index_t k) {
                             Kokkos::atomic_add(&layer_sums(i), x(i) * x(j) * x(k));
                           });

  double sum = 0;
  Kokkos::parallel_reduce("consumer::sum", n, KOKKOS_LAMBDA(int i, double& s) { s += layer_sums(i); }, sum);
  double expect = 0, scale = 0;
  for (tdmaps::index_t i = 0; i < n; ++i)
    for (tdmaps::index_t j = 0; j < i; ++j)
      for (tdmaps::index_t k = 0; k < j; ++k) {
        const double t = std::cos(0.05 * i) * std::cos(0.05 * j) * std::cos(0.05 * k);
        expect += t;
        scale += std::fabs(t);
      }
  std::printf("triplet_sum: tdmaps %.6f, host loop %.6f\n", sum, expect);
  return std::fabs(sum - expect) <= 1e-11 * scale ? 0 : 1;
}
