// The distance matrix at d >= 5 on one GPU, in one process: edm's tile
// kernel as it ran at d >= 5 before the dimension-tiled walk (its points
// struct-of-arrays in team scratch, a thread a pair: detail::TileKernel
// through for_each_tile, where its scratch fits) against the
// dimension-tiled walk with the tile kernel's store
// (tdmaps::for_each_pair_sums) under the lambda map and the bounding box
// (I = t_bb / t_lambda), beside the element kernel and what edm's tile
// kernel takes now (detail::tiled_matrix: one of the two); fp32 (or fp64)
// points uniform in [0, 1)^d (std::mt19937_64, seed 7), block side 32, the
// packed, condensed and full layouts; best of the rounds. The outputs of
// all of them compared bit for bit (they must be equal). One JSON
// line per (layout, d).
//
// Build against the cuda preset's Kokkos (from the repository root) and run:
//   .cache/kokkos-cuda/bin/nvcc_wrapper -DKOKKOS_DEPENDENCE -Iapps/edm/include -Ilib -Ibuild/cuda/generated \
//     -isystem .cache/kokkos-cuda/include -DNDEBUG -O3 -expt-extended-lambda -arch=sm_90 -std=c++17 \
//     perf_tests/scripts/tiled_matrix_probe.cpp -o tiled_matrix_probe .cache/kokkos-cuda/lib/libkokkoscontainers.a \
//     .cache/kokkos-cuda/lib/libkokkoscore.a -lcuda -lrt -ldl
//   ./tiled_matrix_probe N D1,D2,... [rounds] [fp32|fp64]
#include <tdmaps/edm.hpp>

#include "probe_main.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
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
  using Space = Kokkos::DefaultExecutionSpace;
  using Mem = Space::memory_space;
  namespace edm = tdmaps::edm;
  Space space;
  for (const edm::Layout layout : {edm::Layout::packed, edm::Layout::condensed, edm::Layout::full}) {
    for (const int d : dims) {
      const auto x = probe::uniform_points<Real>(n, d);
      const tdmaps::Domain2 dom = edm::make_domain(n, 32, layout);
      const tdmaps::LambdaMap<> lam(dom);
      const tdmaps::BoundingBoxMap bb(dom);
      const std::size_t size = static_cast<std::size_t>(edm::output_size(layout, n));
      Kokkos::View<Real*, Mem> a("element", size), b("tiled", size), c("soa", size), t("tile", size);
      const double element = best_of(rounds, [&] { edm::edm(space, x, a, lam, layout, edm::Kernel::element); });
      // The dimension-tiled walk with the tile kernel's store, under lambda and bb.
      edm::detail::EdmData<Real, Mem> e;
      e.x = x;
      e.out = b;
      e.n = n;
      e.d = d;
      e.layout = layout;
      const edm::detail::TiledStore<Real, Mem> store{e};
      const double tiled_bb = best_of(rounds, [&] { tdmaps::for_each_pair_sums(space, bb, e.x, store); });
      const double tiled = best_of(rounds, [&] { tdmaps::for_each_pair_sums(space, lam, e.x, store); });
      // What Kernel::tile takes now (the walk or the struct-of-arrays tile: detail::tiled_matrix).
      const double tile = best_of(rounds, [&] { edm::edm(space, x, t, lam, layout, edm::Kernel::tile); });
      // The tile kernel before: its struct-of-arrays form, where the scratch fits.
      e.out = c;
      using Tile = edm::detail::TileKernel<Space, Real>;
      const std::size_t bytes = Tile::scratch_bytes(32, d);
      const bool fits = bytes + tdmaps::tile_scratch_alignment <=
                        static_cast<std::size_t>(tdmaps::team_policy_t<Space>::scratch_size_max(0));
      double soa = -1;
      if (fits)
        soa = best_of(rounds, [&] {
          tdmaps::for_each_tile(space, lam, bytes, Tile{e, 32}, "soa",
                                edm::detail::tile_hints(tdmaps::LaunchHints(), layout, 32));
        });
      const auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), t);
      const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
      const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
      const auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
      long differ = 0;
      for (std::size_t k = 0; k < size; ++k)
        differ += std::memcmp(&ha(k), &hb(k), sizeof(Real)) != 0 || std::memcmp(&ha(k), &ht(k), sizeof(Real)) != 0 ||
                  (fits && std::memcmp(&ha(k), &hc(k), sizeof(Real)) != 0);
      const double bytes_out = static_cast<double>(size) * sizeof(Real);
      std::printf(
          "{\"precision\": \"%s\", \"layout\": \"%s\", \"n\": %ld, \"d\": %d, \"element_ms\": %.3f, \"tile_soa_ms\": %.3f, "
          "\"tiled_ms\": %.3f, \"tiled_bb_ms\": %.3f, \"tile_ms\": %.3f, \"tiled_vs_soa\": %.2f, \"tiled_vs_element\": %.2f, "
          "\"I_bb\": %.3f, \"tiled_out_GBps\": %.1f, \"outputs_differ\": %ld}\n",
          sizeof(Real) == 4 ? "fp32" : "fp64", edm::layout_name(layout), n, d, element, soa, tiled, tiled_bb, tile,
          fits ? soa / tiled : -1.0, element / tiled, tiled_bb / tiled, bytes_out / (1e6 * tiled), differ);
      std::fflush(stdout);
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  return probe::main(
      argc, argv, [](long n, const std::vector<int>& dims, int rounds) { run<float>(n, dims, rounds); },
      [](long n, const std::vector<int>& dims, int rounds) { run<double>(n, dims, rounds); });
}
