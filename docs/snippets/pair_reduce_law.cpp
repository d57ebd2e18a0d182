// Harness of docs/examples.md's reduce laws: the laws and their callers are
// the snippet (at namespace scope); given points in the unit cube (fixed
// seed), checks the count of pairs closer than r and the closest pair's key
// against a host loop over all pairs j < i. Both are exact: the squared
// distance is formed as the law forms it (fused multiply-adds where the
// device compiler contracts them, as nvcc does).
#include "harness.hpp"

#include <tdmaps/tdmaps.hpp>

#include <cstring>

// @snippet

namespace {
bool device_contracts() {
  return !std::is_same<Kokkos::DefaultExecutionSpace::memory_space, Kokkos::HostSpace>::value;
}
float host_sq(const float* a, const float* b) {
  const float d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  if (device_contracts()) return std::fma(d2, d2, std::fma(d1, d1, d0 * d0));
  return d0 * d0 + d1 * d1 + d2 * d2;
}
}  // namespace

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  snippets::Checks check("pair_reduce_law");
  {
    const std::int64_t n = 1500;  // not a multiple of any block side
    const float r = 0.1f;
    const auto pts = snippets::random_points<float>(n, 3);
    const Kokkos::View<float* [3]> x("x", n);
    auto hx = Kokkos::create_mirror_view(x);
    const auto hp = snippets::on_host(pts);
    for (std::int64_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) hx(i, c) = hp(i, c);
    Kokkos::deep_copy(x, hx);
    std::int64_t want = 0;
    std::uint64_t best = ~std::uint64_t(0);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < i; ++j) {
        const float a[3] = {hx(i, 0), hx(i, 1), hx(i, 2)}, b[3] = {hx(j, 0), hx(j, 1), hx(j, 2)};
        const float s = host_sq(a, b);
        want += s < r * r ? 1 : 0;
        std::uint32_t bits;
        std::memcpy(&bits, &s, sizeof bits);
        const std::uint64_t k = (std::uint64_t(bits) << 32) | (std::uint64_t(i) << 16) | std::uint64_t(j);
        best = k < best ? k : best;
      }
    check.equal("pairs_within", pairs_within(x, r), want);
    check.equal("closest_pair", closest_pair(x), best);
  }
  return check.report();
}
