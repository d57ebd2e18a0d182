// What the one-file GPU probes of perf_tests/scripts share (tiled_reduce_probe,
// tiled_matrix_probe): their points, their arguments N D1,D2,... [rounds]
// [fp32|fp64], the best of `rounds` timed runs, and a main that checks the
// arguments.
#ifndef TDMAPS_PERF_PROBE_MAIN_HPP
#define TDMAPS_PERF_PROBE_MAIN_HPP

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace probe {

/// "5,8,16" -> {5, 8, 16}.
inline std::vector<int> ints(const char* s) {
  std::vector<int> v;
  std::stringstream in(s);
  std::string t;
  while (std::getline(in, t, ',')) v.push_back(std::atoi(t.c_str()));
  return v;
}

/// n points of d coordinates uniform in [0, 1) (std::mt19937_64, seed 7), n x d LayoutRight in device memory.
template <class Real>
Kokkos::View<Real**, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace::memory_space> uniform_points(long n, int d) {
  Kokkos::View<Real**, Kokkos::LayoutRight, Kokkos::DefaultExecutionSpace::memory_space> x("x", n, d);
  auto h = Kokkos::create_mirror_view(x);
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (long i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c) h(i, c) = static_cast<Real>(u(g));
  Kokkos::deep_copy(x, h);
  return x;
}

/// The fastest of `rounds` runs of f, each fenced before and after, in ms.
template <class F>
double best_of(int rounds, const F& f) {
  Kokkos::DefaultExecutionSpace space;
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    space.fence();
    Kokkos::Timer t;
    f();
    space.fence();
    best = std::min(best, t.seconds());
  }
  return 1e3 * best;
}

/// main(argc, argv) of a probe: run32(n, dims, rounds) or run64(...) by the
/// arguments N D1,D2,... [rounds] [fp32|fp64]; 2 on bad arguments.
template <class Run32, class Run64>
int main(int argc, char** argv, const Run32& run32, const Run64& run64) {
  Kokkos::initialize(argc, argv);
  int rc = 0;
  {
    const long n = argc > 1 ? std::atol(argv[1]) : 0;
    const std::vector<int> dims = argc > 2 ? ints(argv[2]) : std::vector<int>();
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
    const bool fp64 = argc > 4 && std::strcmp(argv[4], "fp64") == 0;
    const bool dims_ok = !dims.empty() && std::all_of(dims.begin(), dims.end(), [](int d) { return d >= 1; });
    if (argc < 3 || n < 2 || !dims_ok || rounds < 1 || (argc > 4 && !fp64 && std::strcmp(argv[4], "fp32") != 0)) {
      std::fprintf(stderr, "usage: %s N D1,D2,... [rounds] [fp32|fp64] (N >= 2, every D >= 1, rounds >= 1)\n", argv[0]);
      rc = 2;
    } else if (fp64) {
      run64(n, dims, rounds);
    } else {
      run32(n, dims, rounds);
    }
  }
  Kokkos::finalize();
  return rc;
}

}  // namespace probe

#endif
