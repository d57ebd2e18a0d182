// k nearest neighbours at any d on one GPU, in one process: the exact nearest
// neighbour (edm::nearest_neighbour, k = 1) beside edm::k_nearest_neighbours
// at each k given, on the same points: fp32 (or fp64) uniform in [0, 1)^d
// (std::mt19937_64, seed 7), lambda map, block side 32 (or the one given); best of --rounds;
// column 0 of every k compared with the nearest neighbour. One JSON line per
// (d, k).
//
// Build against the cuda preset's Kokkos (from the repository root) and run:
//   .cache/kokkos-cuda/bin/nvcc_wrapper -DKOKKOS_DEPENDENCE -Iapps/edm/include -Ilib -Ibuild/cuda/generated \
//     -isystem .cache/kokkos-cuda/include -DNDEBUG -O3 -expt-extended-lambda -arch=sm_90 -std=c++17 \
//     perf_tests/scripts/knn_probe.cpp -o knn_probe .cache/kokkos-cuda/lib/libkokkoscontainers.a \
//     .cache/kokkos-cuda/lib/libkokkoscore.a -lcuda -lrt -ldl
//   ./knn_probe N D1,D2,... K1,K2,... [rounds] [fp32|fp64] [block]
#include <tdmaps/edm/knn.hpp>
#include <tdmaps/edm/reduce.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {
std::vector<int> ints(const char* s) {
  std::vector<int> v;
  std::stringstream in(s);
  std::string t;
  while (std::getline(in, t, ',')) v.push_back(std::atoi(t.c_str()));
  return v;
}

template <class Real>
void run(long n, const std::vector<int>& dims, const std::vector<int>& ks, int rounds, int block) {
  using Mem = Kokkos::DefaultExecutionSpace::memory_space;
  Kokkos::DefaultExecutionSpace space;
  namespace edm = tdmaps::edm;
  for (const int d : dims) {
    Kokkos::View<Real**, Kokkos::LayoutRight, Mem> x("x", n, d);
    auto h = Kokkos::create_mirror_view(x);
    std::mt19937_64 g(7);
    std::uniform_real_distribution<double> u(0, 1);
    for (long i = 0; i < n; ++i)
      for (int c = 0; c < d; ++c) h(i, c) = static_cast<Real>(u(g));
    Kokkos::deep_copy(x, h);
    const Kokkos::View<const Real**, Kokkos::LayoutRight, Mem> cx = x;
    const tdmaps::LambdaMap<> map(tdmaps::Domain2(n, block, tdmaps::Triangle::strict_lower));
    Kokkos::View<tdmaps::index_t*, Mem> nn_idx("nn_idx", n);
    Kokkos::View<double*, Mem> nn_dist("nn_dist", n);
    double t1 = 1e30;
    for (int r = 0; r < rounds; ++r) {
      space.fence();
      Kokkos::Timer t;
      edm::nearest_neighbour(space, cx, map, nn_idx, nn_dist);
      space.fence();
      t1 = std::min(t1, t.seconds());
    }
    const auto h1 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nn_idx);
    const double pairs = 0.5 * double(n) * double(n - 1);
    for (const int k : ks) {
      Kokkos::View<tdmaps::index_t**, Kokkos::LayoutRight, Mem> idx("idx", n, k);
      Kokkos::View<double**, Kokkos::LayoutRight, Mem> dist("dist", n, k);
      double tk = 1e30;
      for (int r = 0; r < rounds; ++r) {
        space.fence();
        Kokkos::Timer t;
        edm::k_nearest_neighbours(space, cx, map, idx, dist);
        space.fence();
        tk = std::min(tk, t.seconds());
      }
      const auto hk = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), idx);
      long differ = 0;
      for (long i = 0; i < n; ++i) differ += hk(i, 0) != h1(i);
      std::printf(
          "{\"precision\": \"%s\", \"block\": %d, \"n\": %ld, \"d\": %d, \"k\": %d, \"nearest_ms\": %.3f, \"knn_ms\": %.3f, "
          "\"knn_over_nearest\": %.3f, \"knn_pairs_per_s\": %.3e, \"column0_differs\": %ld}\n",
          sizeof(Real) == 4 ? "fp32" : "fp64", block, n, d, k, 1e3 * t1, 1e3 * tk, tk / t1, pairs / tk, differ);
      std::fflush(stdout);
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: knn_probe N D1,D2,... K1,K2,... [rounds] [fp32|fp64] [block]\n");
    return 2;
  }
  Kokkos::initialize(argc, argv);
  {
    const long n = std::atol(argv[1]);
    const int rounds = argc > 4 ? std::max(1, std::atoi(argv[4])) : 3;
    const int block = argc > 6 ? std::atoi(argv[6]) : 32;
    if (argc > 5 && std::strcmp(argv[5], "fp64") == 0) run<double>(n, ints(argv[2]), ints(argv[3]), rounds, block);
    else run<float>(n, ints(argv[2]), ints(argv[3]), rounds, block);
  }
  Kokkos::finalize();
}
