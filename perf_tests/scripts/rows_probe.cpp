// A user's own row law at d >= 5 on one GPU, in one process: each point's
// nearest other point as a packed key (the squared distance's ordered bits
// above the other's index) and each point's count of neighbours within r,
// joined into per-point rows at both ends of each pair, by
//   - the element walk: tdmaps::reduce_rows with a kernel that sums the
//     squared distance itself (what a user had at d >= 5 before), and
//   - the dimension-tiled walk: tdmaps::reduce_rows_pair_sums with the same
//     laws of the walk's sums,
// under the lambda map and the bounding box (the tiled walk under each: I =
// t_bb / t_lambda), beside edm::nearest_neighbour (the app's nearest, on
// pair_min_keys' walk of the same sums); fp32 (or fp64) points uniform in
// [0, 1)^d (std::mt19937_64, seed 7), block side 32, r = 0.4 sqrt(d); best
// of the rounds. Every row of both walks compared (they must be equal),
// and at fp32 the nearest keys' indices with the app's.
// One JSON line per d.
//
// Build against the cuda preset's Kokkos (from the repository root) and run:
//   .cache/kokkos-cuda/bin/nvcc_wrapper -DKOKKOS_DEPENDENCE -Iapps/edm/include -Ilib -Ibuild/cuda/generated
//     -isystem .cache/kokkos-cuda/include -DNDEBUG -O3 -expt-extended-lambda -arch=sm_90 -std=c++17
//     perf_tests/scripts/rows_probe.cpp -o rows_probe .cache/kokkos-cuda/lib/libkokkoscontainers.a
//     .cache/kokkos-cuda/lib/libkokkoscore.a -lcuda -lrt -ldl
//   ./rows_probe N D1,D2,... [rounds] [fp32|fp64]
#include <tdmaps/edm/reduce.hpp>
#include <tdmaps/launch/pair_sums.hpp>

#include "probe_main.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {
using probe::best_of;
using tdmaps::index_t;
using Mem = Kokkos::DefaultExecutionSpace::memory_space;

/// The key of a pair's end: the squared distance's ordered bits, the other end's index.
template <class Real>
KOKKOS_INLINE_FUNCTION std::uint64_t nearest_key(Real s, index_t other) {
  return static_cast<std::uint64_t>(tdmaps::ordered_bits(static_cast<float>(s))) << 32 |
         static_cast<std::uint32_t>(other);
}

/// The element walk's kernels: the squared distance summed here, in coordinate order.
template <class Real>
struct ElementNearest {
  Kokkos::View<const Real**, Kokkos::LayoutRight, Mem> x;
  int d;
  KOKKOS_INLINE_FUNCTION Real sq(index_t i, index_t j) const {
    Real s = 0;
    for (int k = 0; k < d; ++k) {
      const Real t = x(i, k) - x(j, k);
      s += t * t;
    }
    return s;
  }
  KOKKOS_INLINE_FUNCTION std::uint64_t operator()(index_t i, index_t j) const { return nearest_key(sq(i, j), j); }
  KOKKOS_INLINE_FUNCTION void both(index_t i, index_t j, std::uint64_t& vi, std::uint64_t& vj) const {
    const Real s = sq(i, j);
    vi = nearest_key(s, j);
    vj = nearest_key(s, i);
  }
};
template <class Real>
struct ElementWithin {
  ElementNearest<Real> e;
  Real r2;
  KOKKOS_INLINE_FUNCTION index_t operator()(index_t i, index_t j) const { return e.sq(i, j) < r2 ? 1 : 0; }
  KOKKOS_INLINE_FUNCTION void both(index_t i, index_t j, index_t& vi, index_t& vj) const {
    vi = vj = e.sq(i, j) < r2 ? 1 : 0;
  }
};
/// The tiled walk's laws of the same keys.
struct TiledNearest {
  template <class Real>
  KOKKOS_INLINE_FUNCTION std::uint64_t operator()(Real s, index_t, index_t other) const {
    return nearest_key(s, other);
  }
};
template <class Real>
struct TiledWithin {
  Real r2;
  KOKKOS_INLINE_FUNCTION index_t operator()(Real s, index_t, index_t) const { return s < r2 ? 1 : 0; }
};

template <class Real>
void run(long n, const std::vector<int>& dims, int rounds) {
  using Min = tdmaps::RowMin<std::uint64_t>;
  using Sum = tdmaps::RowSum<index_t>;
  Kokkos::DefaultExecutionSpace space;
  for (const int d : dims) {
    const auto x = probe::uniform_points<Real>(n, d);
    const Kokkos::View<const Real**, Kokkos::LayoutRight, Mem> cx = x;
    const tdmaps::Domain2 dom(n, 32, tdmaps::Triangle::strict_lower);
    const tdmaps::LambdaMap<> lam(dom);
    const tdmaps::BoundingBoxMap bb(dom);
    const Real r = static_cast<Real>(0.4 * std::sqrt(static_cast<double>(d)));
    Kokkos::View<std::uint64_t*, Mem> k_elem("k_elem", n), k_tiled("k_tiled", n), k_bb("k_bb", n);
    Kokkos::View<index_t*, Mem> c_elem("c_elem", n), c_tiled("c_tiled", n), c_bb("c_bb", n);
    const ElementNearest<Real> en{cx, d};
    const auto timed = [&](const auto& rows, const auto identity, const auto& walk) {
      return best_of(rounds, [&] {
        Kokkos::deep_copy(space, rows, identity);
        walk();
      });
    };
    const double near_elem = timed(k_elem, Min::identity(), [&] { tdmaps::reduce_rows<Min>(space, lam, en, k_elem); });
    const double near_tiled =
        timed(k_tiled, Min::identity(), [&] { tdmaps::reduce_rows_pair_sums<Min>(space, lam, cx, TiledNearest(), k_tiled); });
    const double near_bb =
        timed(k_bb, Min::identity(), [&] { tdmaps::reduce_rows_pair_sums<Min>(space, bb, cx, TiledNearest(), k_bb); });
    const double within_elem =
        timed(c_elem, index_t(0), [&] { tdmaps::reduce_rows<Sum>(space, lam, ElementWithin<Real>{en, r * r}, c_elem); });
    const double within_tiled = timed(
        c_tiled, index_t(0), [&] { tdmaps::reduce_rows_pair_sums<Sum>(space, lam, cx, TiledWithin<Real>{r * r}, c_tiled); });
    const double within_bb =
        timed(c_bb, index_t(0), [&] { tdmaps::reduce_rows_pair_sums<Sum>(space, bb, cx, TiledWithin<Real>{r * r}, c_bb); });
    Kokkos::View<index_t*, Mem> nn_idx("nn_idx", n);
    Kokkos::View<double*, Mem> nn_dist("nn_dist", n);
    const double nearest_app =
        best_of(rounds, [&] { tdmaps::edm::nearest_neighbour(space, cx, lam, nn_idx, nn_dist); });
    long differ = 0;
    {
      const auto a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k_elem);
      const auto b = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k_tiled);
      const auto c = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), k_bb);
      const auto p = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_elem);
      const auto q = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_tiled);
      const auto u = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c_bb);
      const auto idx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nn_idx);
      for (long i = 0; i < n; ++i)
        differ += (a(i) != b(i)) + (a(i) != c(i)) + (p(i) != q(i)) + (p(i) != u(i)) +
                  (sizeof(Real) == 4 && static_cast<index_t>(b(i) & 0xffffffffu) != idx(i));
    }
    const double pairs = 0.5 * double(n) * double(n - 1);
    std::printf(
        "{\"precision\": \"%s\", \"n\": %ld, \"d\": %d, \"nearest_rows_element_ms\": %.3f, "
        "\"nearest_rows_tiled_ms\": %.3f, \"nearest_rows_tiled_bb_ms\": %.3f, \"nearest_speedup\": %.2f, "
        "\"nearest_I_bb\": %.3f, \"within_rows_element_ms\": %.3f, \"within_rows_tiled_ms\": %.3f, "
        "\"within_rows_tiled_bb_ms\": %.3f, \"within_speedup\": %.2f, \"within_I_bb\": %.3f, "
        "\"nearest_neighbour_app_ms\": %.3f, \"nearest_rows_tiled_pairs_per_s\": %.3e, \"rows_differ\": %ld}\n",
        sizeof(Real) == 4 ? "fp32" : "fp64", n, d, near_elem, near_tiled, near_bb, near_elem / near_tiled,
        near_bb / near_tiled, within_elem, within_tiled, within_bb, within_elem / within_tiled, within_bb / within_tiled,
        nearest_app, pairs / (1e-3 * near_tiled), differ);
    std::fflush(stdout);
  }
}
}  // namespace

int main(int argc, char** argv) {
  return probe::main(
      argc, argv, [](long n, const std::vector<int>& dims, int rounds) { run<float>(n, dims, rounds); },
      [](long n, const std::vector<int>& dims, int rounds) { run<double>(n, dims, rounds); });
}
