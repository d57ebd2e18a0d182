// One chunk of a streamed distance matrix at d >= 5 on one GPU, in one
// process: edm::edm_chunk (the dimension-tiled walk where
// edm::detail::tiled_chunk_walk says, condensed chunks on the mirrored triangle)
// against the element kernel that every chunk ran before (edm's
// ChunkKernel over the same block rows), packed and condensed, under the
// lambda map and the bounding box (the chunk under each: I = t_bb /
// t_lambda); a chunk of 2^28 elements (1 GiB of fp32) from the middle of
// the output (or the whole output where it is smaller); fp32 (or fp64)
// points uniform in [0, 1)^d (std::mt19937_64, seed 7), block side 32; best
// of the rounds. Both chunks compared bit for bit (they must be equal).
// One JSON line per layout and d.
//
// Build against the cuda preset's Kokkos (from the repository root) and run:
//   .cache/kokkos-cuda/bin/nvcc_wrapper -DKOKKOS_DEPENDENCE -Iapps/edm/include -Ilib -Ibuild/cuda/generated
//     -isystem .cache/kokkos-cuda/include -DNDEBUG -O3 -expt-extended-lambda -arch=sm_90 -std=c++17
//     perf_tests/scripts/chunk_probe.cpp -o chunk_probe .cache/kokkos-cuda/lib/libkokkoscontainers.a
//     .cache/kokkos-cuda/lib/libkokkoscore.a -lcuda -lrt -ldl
//   ./chunk_probe N D1,D2,... [rounds] [fp32|fp64]
#include <tdmaps/edm.hpp>
#include <tdmaps/edm/chunk.hpp>

#include "probe_main.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {
using probe::best_of;
using tdmaps::index_t;
namespace edm = tdmaps::edm;

template <class Real>
void run(long n, const std::vector<int>& dims, int rounds) {
  using Mem = Kokkos::DefaultExecutionSpace::memory_space;
  Kokkos::DefaultExecutionSpace space;
  for (const int d : dims) {
    const auto x = probe::uniform_points<Real>(n, d);
    for (const edm::Layout layout : {edm::Layout::packed, edm::Layout::condensed}) {
      const tdmaps::Domain2 dom = edm::make_domain(n, 32, layout);
      const tdmaps::LambdaMap<> lam(dom);
      const tdmaps::BoundingBoxMap bb(dom);
      const index_t total = edm::output_size(layout, n);
      const index_t m = std::min<index_t>(total, index_t(1) << 28);
      const index_t o0 = (total - m) / 2;
      Kokkos::View<Real*, Mem> a("element", m), b("tiled", m), c("tiled_bb", m);
      // The element kernel over the chunk's block rows, as edm_chunk ran it before.
      const index_t rho = dom.rho;
      index_t r0, r1;
      if (layout == edm::Layout::packed) {
        r0 = tdmaps::tri_root(o0);
        r1 = tdmaps::tri_root(o0 + m - 1);
      } else {
        r0 = n - 1 - edm::condensed_row_of(n, o0 + m - 1);
        r1 = n - 1 - edm::condensed_row_of(n, o0);
      }
      const edm::detail::ChunkKernel<Real, Mem> k{x, a, n, d, o0, m, layout == edm::Layout::condensed};
      const double element = best_of(rounds, [&] {
        tdmaps::for_each_element(space, lam, edm::detail::block_rows(lam, r0 / rho, r1 / rho + 1), k, "element");
      });
      const double tiled = best_of(rounds, [&] { edm::edm_chunk(space, x, lam, layout, o0, b); });
      const double tiled_bb = best_of(rounds, [&] { edm::edm_chunk(space, x, bb, layout, o0, c); });
      const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
      const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
      const auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
      long differ = 0;
      for (index_t q = 0; q < m; ++q)
        differ += (std::memcmp(&ha(q), &hb(q), sizeof(Real)) != 0) + (std::memcmp(&ha(q), &hc(q), sizeof(Real)) != 0);
      std::printf(
          "{\"precision\": \"%s\", \"layout\": \"%s\", \"n\": %ld, \"d\": %d, \"chunk\": %lld, \"tiled_taken\": %s, "
          "\"element_ms\": %.3f, \"chunk_ms\": %.3f, \"chunk_bb_ms\": %.3f, \"speedup\": %.2f, \"I_bb\": %.3f, "
          "\"chunk_out_GBps\": %.1f, \"outputs_differ\": %ld}\n",
          sizeof(Real) == 4 ? "fp32" : "fp64", edm::layout_name(layout), n, d, static_cast<long long>(m),
          edm::detail::tiled_chunk_walk(d, 32) ? "true" : "false", element, tiled, tiled_bb, element / tiled,
          tiled_bb / tiled, double(m) * sizeof(Real) / (1e6 * tiled), differ);
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
