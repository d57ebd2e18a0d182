// Nearest neighbour at d >= 5 on one GPU, in one process: the element walk
// that edm::nearest_neighbour took for d >= 5 before the dimension-tiled walk
// (tdmaps::reduce_rows with edm's fp32 key, NearestKeyF<Points, 0>) against
// tdmaps::pair_min_keys with the same key; fp32 points uniform in [0, 1)^d
// (std::mt19937_64, seed 7), lambda map, block side 32; best of 3 (1 at
// d >= 128); the keys of both compared. One JSON line per d.
//
// Build against the cuda preset's Kokkos (from the repository root) and run:
//   .cache/kokkos-cuda/bin/nvcc_wrapper -DKOKKOS_DEPENDENCE -Iapps/edm/include -Ilib -Ibuild/cuda/generated \
//     -isystem .cache/kokkos-cuda/include -DNDEBUG -O3 -expt-extended-lambda -arch=sm_90 -std=c++17 \
//     perf_tests/scripts/tiled_nearest_probe.cpp -o probe .cache/kokkos-cuda/lib/libkokkoscontainers.a \
//     .cache/kokkos-cuda/lib/libkokkoscore.a -lcuda -lrt -ldl
//   ./probe 100000
#include <tdmaps/edm/reduce.hpp>
#include <tdmaps/launch/pair_min_keys.hpp>
#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <random>
int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    using Mem = Kokkos::DefaultExecutionSpace::memory_space;
    Kokkos::DefaultExecutionSpace space;
    const long n = argc > 1 ? std::atol(argv[1]) : 100000;
    for (int d : {5, 8, 16, 32, 64, 128, 512}) {
      Kokkos::View<float**, Kokkos::LayoutRight, Mem> x("x", n, d);
      auto h = Kokkos::create_mirror_view(x);
      std::mt19937_64 g(7);
      std::uniform_real_distribution<float> u(0, 1);
      for (long i = 0; i < n; ++i) for (int k = 0; k < d; ++k) h(i, k) = u(g);
      Kokkos::deep_copy(x, h);
      Kokkos::View<const float**, Kokkos::LayoutRight, Mem> cx = x;
      Kokkos::View<std::uint64_t*, Mem> ka("ka", n), kb("kb", n);
      const tdmaps::Domain2 dom(n, 32, tdmaps::Triangle::strict_lower);
      const tdmaps::LambdaMap<> map(dom);
      double ta = 1e30, tb = 1e30;
      const int reps = d >= 128 ? 1 : 3;
      for (int r = 0; r < reps; ++r) {
        Kokkos::deep_copy(ka, ~std::uint64_t(0));
        space.fence();
        Kokkos::Timer t;
        tdmaps::reduce_rows<tdmaps::RowMin<tdmaps::edm::NearestKey>>(
            space, map, tdmaps::full_range(map), tdmaps::edm::detail::NearestKeyF<decltype(cx), 0>{cx}, ka,
            "element");
        space.fence();
        ta = std::min(ta, t.seconds());
        Kokkos::deep_copy(kb, ~std::uint64_t(0));
        space.fence();
        Kokkos::Timer t2;
        tdmaps::pair_min_keys(space, map, cx, kb, tdmaps::edm::detail::TiledNearestF());
        space.fence();
        tb = std::min(tb, t2.seconds());
      }
      auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ka);
      auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), kb);
      long diff = 0;
      for (long i = 0; i < n; ++i) diff += ha(i) != hb(i);
      const double pairs = 0.5 * double(n) * double(n - 1);
      std::printf("{\"n\": %ld, \"d\": %d, \"element_ms\": %.3f, \"tiled_ms\": %.3f, \"speedup\": %.2f, \"tiled_pairs_per_s\": %.3e, \"keys_differ\": %ld}\n",
                  n, d, 1e3 * ta, 1e3 * tb, ta / tb, pairs / tb, diff);
      std::fflush(stdout);
    }
  }
  Kokkos::finalize();
}
