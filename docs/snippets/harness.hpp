// What every snippet harness shares: random inputs from a fixed seed and
// checks against the harness's host loop that count and print mismatches.
// A harness (docs/snippets/<name>.cpp) declares what the docs' text says a
// snippet is given, holds the snippet at its `// @snippet` line
// (extract.py puts it there), and checks what the snippet computed.
#ifndef TDMAPS_DOCS_SNIPPETS_HARNESS_HPP
#define TDMAPS_DOCS_SNIPPETS_HARNESS_HPP

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>

namespace snippets {

/// The seed of every harness's inputs (printed with a failure).
constexpr std::uint64_t seed = 20240537;

/// n values uniform in [0, 1) (fixed seed), in a device View.
inline Kokkos::View<double*> random_values(std::int64_t n, std::uint64_t salt = 0) {
  Kokkos::View<double*> v("snippets::values", n);
  auto h = Kokkos::create_mirror_view(v);
  std::mt19937_64 g(seed + salt);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::int64_t i = 0; i < n; ++i) h(i) = u(g);
  Kokkos::deep_copy(v, h);
  return v;
}

/// n points of d coordinates uniform in [0, 1) (fixed seed), LayoutRight.
template <class Real>
Kokkos::View<Real**, Kokkos::LayoutRight> random_points(std::int64_t n, int d, std::uint64_t salt = 0) {
  Kokkos::View<Real**, Kokkos::LayoutRight> v("snippets::points", n, d);
  auto h = Kokkos::create_mirror_view(v);
  std::mt19937_64 g(seed + salt);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (int k = 0; k < d; ++k) h(i, k) = static_cast<Real>(u(g));
  Kokkos::deep_copy(v, h);
  return v;
}

/// A View's values on the host (after the device is done with it).
template <class View>
auto on_host(const View& v) {
  Kokkos::fence();
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

/// Mismatches against the oracle: printed (the first few of each check) and counted.
class Checks {
 public:
  explicit Checks(const char* name) : name_(name) {}
  /// got == want exactly (integers, counts, indices).
  template <class T, class U>
  void equal(const std::string& what, const T& got, const U& want) {
    if (!(got == want)) fail(what, static_cast<double>(got), static_cast<double>(want));
    ++checked_;
  }
  /// |got - want| <= tol * scale (scale: the sum of the terms' magnitudes, say).
  void near(const std::string& what, double got, double want, double tol, double scale) {
    if (!(std::fabs(got - want) <= tol * scale)) fail(what, got, want);
    ++checked_;
  }
  /// The program's exit status: 0 when every check passed.
  int report() const {
    std::printf("%s: %ld values checked against the host loop, %ld mismatches (seed %llu)\n", name_, checked_, bad_,
                static_cast<unsigned long long>(seed));
    return bad_ == 0 && checked_ > 0 ? 0 : 1;
  }

 private:
  void fail(const std::string& what, double got, double want) {
    if (++bad_ <= 5) std::printf("%s: %s: %.17g, host loop %.17g\n", name_, what.c_str(), got, want);
  }
  const char* name_;
  long checked_ = 0;
  long bad_ = 0;
};

}  // namespace snippets

#endif
