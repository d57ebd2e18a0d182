// Radius count and histogram at d >= 5 on one GPU, in one process: the
// element walk that edm::count_within and edm::pair_histogram took for
// d >= 5 before the dimension-tiled walk (tdmaps::reduce_pairs and
// histogram_pairs with edm's kernels, D = 0) against what they take now
// (tdmaps::reduce_pair_sums, histogram_pair_sums), under the lambda map and
// the bounding box (the tiled walk under each: I = t_bb / t_lambda), beside
// the nearest neighbour (pair_min_keys, the same sums); fp32 (or fp64)
// points uniform in [0, 1)^d (std::mt19937_64, seed 7), block side 32,
// radius and rmax 0.4 sqrt(d) (about half the pairs counted), 64 bins; best
// of the rounds. The counts and bins of both walks compared (they must be
// equal). One JSON line per d.
//
// Build against the cuda preset's Kokkos (from the repository root) and run:
//   .cache/kokkos-cuda/bin/nvcc_wrapper -DKOKKOS_DEPENDENCE -Iapps/edm/include -Ilib -Ibuild/cuda/generated \
//     -isystem .cache/kokkos-cuda/include -DNDEBUG -O3 -expt-extended-lambda -arch=sm_90 -std=c++17 \
//     perf_tests/scripts/tiled_reduce_probe.cpp -o tiled_reduce_probe .cache/kokkos-cuda/lib/libkokkoscontainers.a \
//     .cache/kokkos-cuda/lib/libkokkoscore.a -lcuda -lrt -ldl
//   ./tiled_reduce_probe N D1,D2,... [rounds] [fp32|fp64]
#include <tdmaps/edm/reduce.hpp>

#include "probe_main.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {
using probe::best_of;

template <class Real>
void run(long n, const std::vector<int>& dims, int rounds) {
  using Mem = Kokkos::DefaultExecutionSpace::memory_space;
  using Counts = Kokkos::View<std::int64_t*, Mem>;
  Kokkos::DefaultExecutionSpace space;
  namespace edm = tdmaps::edm;
  const int bins = 64;
  for (const int d : dims) {
    const auto x = probe::uniform_points<Real>(n, d);
    const Kokkos::View<const Real**, Kokkos::LayoutRight, Mem> cx = x;
    const tdmaps::Domain2 dom(n, 32, tdmaps::Triangle::strict_lower);
    const tdmaps::LambdaMap<> lam(dom);
    const tdmaps::BoundingBoxMap bb(dom);
    const double r = 0.4 * std::sqrt(static_cast<double>(d));
    tdmaps::index_t c_elem = 0, c_tiled = 0, c_bb = 0;
    Counts h_elem("h_elem", bins), h_tiled("h_tiled", bins), h_bb("h_bb", bins);
    const double count_elem = best_of(rounds, [&] {
      tdmaps::reduce_pairs(space, lam, edm::detail::count_kernel<0>(cx, r), Kokkos::Sum<tdmaps::index_t>(c_elem),
                           "element");
    });
    const double count_tiled = best_of(rounds, [&] { c_tiled = edm::count_within(space, cx, lam, r); });
    const double count_bb = best_of(rounds, [&] { c_bb = edm::count_within(space, cx, bb, r); });
    const double hist_elem = best_of(rounds, [&] {
      Kokkos::deep_copy(space, h_elem, 0);
      tdmaps::histogram_pairs(space, lam, edm::detail::histogram_kernel<0>(cx, r, h_elem), h_elem, "element");
    });
    const double hist_tiled = best_of(rounds, [&] {
      Kokkos::deep_copy(space, h_tiled, 0);
      edm::pair_histogram(space, cx, lam, r, h_tiled);
    });
    const double hist_bb = best_of(rounds, [&] {
      Kokkos::deep_copy(space, h_bb, 0);
      edm::pair_histogram(space, cx, bb, r, h_bb);
    });
    Kokkos::View<tdmaps::index_t*, Mem> nn_idx("nn_idx", n);
    Kokkos::View<double*, Mem> nn_dist("nn_dist", n);
    const double nearest = best_of(rounds, [&] { edm::nearest_neighbour(space, cx, lam, nn_idx, nn_dist); });
    const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), h_elem);
    const auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), h_tiled);
    const auto e = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), h_bb);
    long bins_differ = 0;
    for (int k = 0; k < bins; ++k) bins_differ += (a(k) != b(k)) + (a(k) != e(k));
    const double pairs = 0.5 * double(n) * double(n - 1);
    std::printf(
        "{\"precision\": \"%s\", \"n\": %ld, \"d\": %d, \"count_element_ms\": %.3f, \"count_tiled_ms\": %.3f, "
        "\"count_tiled_bb_ms\": %.3f, \"count_speedup\": %.2f, \"count_I_bb\": %.3f, \"hist_element_ms\": %.3f, "
        "\"hist_tiled_ms\": %.3f, \"hist_tiled_bb_ms\": %.3f, \"hist_speedup\": %.2f, \"hist_I_bb\": %.3f, "
        "\"nearest_ms\": %.3f, \"count_tiled_pairs_per_s\": %.3e, \"counted\": %lld, \"counts_differ\": %d, "
        "\"bins_differ\": %ld}\n",
        sizeof(Real) == 4 ? "fp32" : "fp64", n, d, count_elem, count_tiled, count_bb, count_elem / count_tiled,
        count_bb / count_tiled, hist_elem, hist_tiled, hist_bb, hist_elem / hist_tiled, hist_bb / hist_tiled, nearest,
        pairs / (1e-3 * count_tiled), static_cast<long long>(c_tiled), int(c_elem != c_tiled) + int(c_bb != c_tiled),
        bins_differ);
    std::fflush(stdout);
  }
}
}  // namespace

int main(int argc, char** argv) {
  return probe::main(
      argc, argv, [](long n, const std::vector<int>& dims, int rounds) { run<float>(n, dims, rounds); },
      [](long n, const std::vector<int>& dims, int rounds) { run<double>(n, dims, rounds); });
}
