// Distances of points that the application holds in its own View, with the
// installed EDM kernels (<tdmaps/edm.hpp>, target tdmaps::edm), checked
// value by value against a host loop. Built by .ci/run against the
// installed package.
#include <tdmaps/edm.hpp>

#include <cmath>
#include <cstdio>

namespace edm = tdmaps::edm;
using tdmaps::index_t;

// Coordinate k of point i: a fixed pattern in [-0.5, 0.5), no two points alike.
KOKKOS_INLINE_FUNCTION double coordinate(index_t i, int k) {
  return static_cast<double>((i * 7919 + k * 104729) % 1009) / 1009.0 - 0.5;
}

// Compares out (layout, n points) with the host's direct formula; returns the mismatches.
template <class Out>
index_t mismatches(const Out& out, edm::Layout layout, index_t n, int d) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  index_t bad = 0;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j <= i; ++j) {
      if (layout == edm::Layout::condensed && j == i) continue;
      double s = 0;
      for (int k = 0; k < d; ++k) s += (coordinate(i, k) - coordinate(j, k)) * (coordinate(i, k) - coordinate(j, k));
      const double want = std::sqrt(s);
      const index_t at = layout == edm::Layout::packed ? tdmaps::tri(i) + j : edm::condensed_index(n, i, j);
      if (!(std::fabs(h(at) - want) <= 1e-12 * want)) {
        if (bad < 5) std::printf("edm_points: %s (%ld, %ld): %.17g, host loop %.17g\n", edm::layout_name(layout),
                                 static_cast<long>(i), static_cast<long>(j), h(at), want);
        ++bad;
      }
    }
  return bad;
}

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  const Kokkos::DefaultExecutionSpace space;
  const index_t n = 777;
  const int d = 3;

  // The application's own points: n x d, LayoutRight (a point's coordinates contiguous).
  Kokkos::View<double**, Kokkos::LayoutRight> points("points", n, d);
  Kokkos::parallel_for(
      "consumer::points", Kokkos::RangePolicy<>(space, 0, n), KOKKOS_LAMBDA(const int i) {
        for (int k = 0; k < d; ++k) points(i, k) = coordinate(i, k);
      });

  index_t bad = 0;
  // SciPy's pdist order with the default (element) kernel, and the lower
  // triangle with the diagonal with the kernel tdmaps picks.
  for (const edm::Layout layout : {edm::Layout::condensed, edm::Layout::packed}) {
    Kokkos::View<double*> out("distances", edm::output_size(layout, n));
    const tdmaps::LambdaMap<> map(edm::make_domain(n, 32, layout));
    const edm::Kernel kernel = layout == edm::Layout::packed ? edm::Kernel::automatic : edm::Kernel::element;
    edm::edm(space, points, out, map, layout, kernel);
    space.fence();
    bad += mismatches(out, layout, n, d);
  }
  std::printf("edm_points: n = %ld, d = %d, %ld mismatches against the host loop\n", static_cast<long>(n), d,
              static_cast<long>(bad));
  return bad == 0 ? 0 : 1;
}
