#ifndef TDMAPS_UNIT_TESTS_ORACLE_HPP
#define TDMAPS_UNIT_TESTS_ORACLE_HPP

// Independent oracles: plain host nested loops over the triangle, and hit
// counters that record what a map launch actually touched. Kernels live in
// functors (not in TEST bodies) so CUDA can compile them.

#include <tdmaps/tdmaps.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace tdmaps_test {

using tdmaps::index_t;

/// A View of `size` elements, each `value`: an output poisoned before a
/// launch, so that an element the launch misses shows.
template <class View>
View poisoned(const std::string& label, std::size_t size, typename View::value_type value) {
  View v(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), size);
  Kokkos::deep_copy(v, value);
  return v;
}

/// n points of d coordinates, row after row, uniform in [-1, 1) (std::mt19937_64, `seed`).
template <class Real>
std::vector<Real> uniform_points(index_t n, int d, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Real> x(std::size_t(n * d));
  for (auto& v : x) v = static_cast<Real>(u(g));
  return x;
}

/// The squared distance of rows i and j of x (n x d, row after row) as the
/// kernels form it: in coordinate order from 0, in Real; on GPU backends
/// nvcc contracts s += t * t into a fused multiply-add, g++ on x86-64 does not.
template <class ExecSpace, class Real>
Real pair_sq(const std::vector<Real>& x, int d, index_t i, index_t j) {
  Real s = 0;
  for (int c = 0; c < d; ++c) {
    const Real t = x[std::size_t(i * d + c)] - x[std::size_t(j * d + c)];
    if (tdmaps::is_gpu_space<ExecSpace>::value) s = std::fma(t, t, s);
    else s += t * t;
  }
  return s;
}

/// Packed position of (i, j) in the domain (row-major lower triangle).
inline index_t packed(index_t i, index_t j, tdmaps::Triangle t) {
  return t == tdmaps::Triangle::lower ? tdmaps::tri(i) + j : tdmaps::tri(i - 1) + j;
}

/// What a launch touched: hits per packed element, and touches outside the domain.
template <class ExecSpace>
struct HitCounter {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<int*, memory_space> hits;
  Kokkos::View<int, memory_space> outside;
  index_t n;
  tdmaps::Triangle triangle;

  HitCounter(index_t n_, tdmaps::Triangle t)
      : hits("hits", static_cast<std::size_t>(t == tdmaps::Triangle::lower ? tdmaps::tri(n_) : (n_ > 0 ? tdmaps::tri(n_ - 1) : 0))),
        outside("outside"), n(n_), triangle(t) {}

  KOKKOS_FUNCTION void operator()(index_t i, index_t j) const {
    const bool in = i >= 0 && i < n && j >= 0 && (triangle == tdmaps::Triangle::lower ? j <= i : j < i);
    if (!in) {
      Kokkos::atomic_add(&outside(), 1);
      return;
    }
    const index_t p = triangle == tdmaps::Triangle::lower ? (i * (i + 1)) / 2 + j : ((i - 1) * i) / 2 + j;
    Kokkos::atomic_add(&hits(p), 1);
  }

  /// Empty string when every element of the domain was hit exactly once and
  /// nothing else was; otherwise the first few differences.
  std::string check() const {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hits);
    auto o = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), outside);
    std::ostringstream msg;
    int reported = 0;
    if (o() != 0) msg << o() << " touches outside the domain; ";
    // Oracle: the host nested loop over the domain.
    for (index_t i = 0; i < n && reported < 5; ++i) {
      const index_t jend = triangle == tdmaps::Triangle::lower ? i + 1 : i;
      for (index_t j = 0; j < jend && reported < 5; ++j) {
        const int c = h(static_cast<std::size_t>(packed(i, j, triangle)));
        if (c != 1) {
          msg << "(" << i << "," << j << ") hit " << c << " times; ";
          ++reported;
        }
      }
    }
    return msg.str();
  }
};

/// Tile kernel that records every element for_each_in_tile hands it.
template <class ExecSpace>
struct TileHits {
  HitCounter<ExecSpace> counter;
  template <class Member>
  KOKKOS_FUNCTION void operator()(const Member& team, const tdmaps::Tile& t) const {
    tdmaps::for_each_in_tile(team, t, [&](int ti, int tj) { counter(t.i0 + ti, t.j0 + tj); });
  }
};

}  // namespace tdmaps_test

#endif
