// Harness of docs/examples.md's dimension-tiled pair sums: the laws and
// their callers are the snippet (at namespace scope); given points of 24
// coordinates in the unit cube (fixed seed), checks the count of pairs
// closer than r, each point's count of them and the histogram of the
// squared distances against a host loop over all pairs j < i. All are
// exact: the squared distance is summed
// in coordinate order as the walk sums it (fused multiply-adds where the
// device compiler contracts them, as nvcc does).
#include "harness.hpp"

#include <tdmaps/launch/pair_sums.hpp>
#include <tdmaps/tdmaps.hpp>

#include <vector>

// @snippet

namespace {
bool device_contracts() {
  return !std::is_same<Kokkos::DefaultExecutionSpace::memory_space, Kokkos::HostSpace>::value;
}
}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  snippets::Checks check("pair_sums");
  {
    const std::int64_t n = 700;  // not a multiple of the block side
    const int d = 24, bins = 40;
    const float r = 1.6f, w = 0.15f;
    const auto emb = snippets::random_points<float>(n, d);
    const auto h = snippets::on_host(emb);
    std::int64_t want = 0;
    std::vector<std::int64_t> hist(bins, 0), degree(std::size_t(n), 0);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < i; ++j) {
        float s = 0;
        for (int k = 0; k < d; ++k) {
          const float t = h(i, k) - h(j, k);
          s = device_contracts() ? std::fma(t, t, s) : s + t * t;
        }
        want += s < r * r ? 1 : 0;
        degree[std::size_t(i)] += s < r * r ? 1 : 0;
        degree[std::size_t(j)] += s < r * r ? 1 : 0;
        const int b = static_cast<int>(s / w);
        if (b >= 0 && b < bins) ++hist[std::size_t(b)];
      }
    check.equal("pairs_within", pairs_within(emb, r), want);
    Kokkos::View<tdmaps::index_t*> deg("degree", n);
    neighbours_within(emb, r, deg);
    const auto got_deg = snippets::on_host(deg);
    for (std::int64_t i = 0; i < n; ++i) check.equal("degree " + std::to_string(i), got_deg(i), degree[std::size_t(i)]);
    Kokkos::View<std::int64_t*> counts("counts", bins);
    squared_histogram(emb, w, counts);
    const auto got = snippets::on_host(counts);
    for (int b = 0; b < bins; ++b) check.equal("bin " + std::to_string(b), got(b), hist[std::size_t(b)]);
  }
  return check.report();
}
