// Three pair laws as a user writes them (lib/tdmaps/launch/pair_law.hpp has
// the contract), each run through tdmaps::for_each_pair_law over the pairs
// j < i of n random points (fixed seed), whole and in 3 parts
// (for_each_pair_law_part), and checked against a host loop over all i != j
// in double:
// - Gravity: softened accelerations, fp32 (docs/examples.md's law);
// - GaussianSum: a Gaussian kernel sum (a kernel density estimate), fp32;
// - Yukawa: screened Coulomb forces, fp64, its constant applied by a flush.
// Exits 1, naming the law, the worst point and its error, where a check
// fails. Built by .ci/run against the installed package.
#include <tdmaps/tdmaps.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

using tdmaps::index_t;


// ---- the laws ---------------------------------------------------------------

/// Softened gravity: a_i = sum_j m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2).
struct Gravity {
  using point_type = Kokkos::Array<float, 4>;  // what a lane holds of a body: x, y, z, mass
  using value_type = Kokkos::Array<float, 3>;  // what a body sums: its acceleration
  Kokkos::View<float* [4]> xm;
  float eps2;  // softening length squared
  KOKKOS_FUNCTION point_type load(index_t i) const { return {{xm(i, 0), xm(i, 1), xm(i, 2), xm(i, 3)}}; }
  KOKKOS_FUNCTION void operator()(const point_type& a, const point_type& b, value_type& to_a, value_type& to_b) const {
    const float d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const float inv = 1 / tdmaps::sqrt_of(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2);
    const float s = inv * inv * inv;  // computed once for both ends
    for (int c = 0; c < 3; ++c) {
      to_a[c] += b[3] * s * d[c];  // adds into the running sums: never assign them
      to_b[c] -= a[3] * s * d[c];
    }
  }
  // out(i) += a body's sum (without a flush, out is a View of value_type)
  KOKKOS_FUNCTION void flush(const Kokkos::View<float* [3]>& out, index_t i, const value_type& v) const {
    for (int c = 0; c < 3; ++c) Kokkos::atomic_add(&out(i, c), v[c]);
  }
};

/// A Gaussian kernel sum: f_i = sum_{j != i} exp(-|x_i - x_j|^2 / (2 h^2)).
struct GaussianSum {
  using point_type = Kokkos::Array<float, 3>;  // x, y, z
  using value_type = float;                    // a point's kernel sum; out is a View<float*>
  Kokkos::View<float* [3]> x;
  float inv_2h2;  // 1 / (2 h^2)
  KOKKOS_FUNCTION point_type load(index_t i) const { return {{x(i, 0), x(i, 1), x(i, 2)}}; }
  KOKKOS_FUNCTION void operator()(const point_type& a, const point_type& b, float& to_a, float& to_b) const {
    const float d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    const float k = tdmaps::exp_of(-(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * inv_2h2);  // symmetric: once for both
    to_a += k;
    to_b += k;
  }
};

/// Screened Coulomb (Yukawa) forces, softened: the force on i from j is
/// F_ij = k q_i q_j exp(-kappa s) (1 + kappa s) / s^3 (x_i - x_j), s = sqrt(|x_i - x_j|^2 + eps^2)
/// (minus the gradient of k q_i q_j exp(-kappa s) / s; s > 0 even where two points meet).
struct Yukawa {
  using point_type = Kokkos::Array<double, 4>;  // x, y, z, charge
  using value_type = Kokkos::Array<double, 3>;  // the force on a point, before the constant k
  Kokkos::View<double* [4]> xq;
  double kappa;  // the inverse screening length
  double eps2;   // softening length squared
  double k;      // the Coulomb constant
  KOKKOS_FUNCTION point_type load(index_t i) const { return {{xq(i, 0), xq(i, 1), xq(i, 2), xq(i, 3)}}; }
  KOKKOS_FUNCTION void operator()(const point_type& a, const point_type& b, value_type& to_a, value_type& to_b) const {
    const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};  // from b to a
    const double s = tdmaps::sqrt_of(d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2);
    const double f = a[3] * b[3] * tdmaps::exp_of(-kappa * s) * (1 + kappa * s) / (s * s * s);
    for (int c = 0; c < 3; ++c) {
      to_a[c] += f * d[c];  // the force on a
      to_b[c] -= f * d[c];  // on b: the opposite (Newton's third law)
    }
  }
  // out(i) += k times a point's sum: the constant once per point, not per pair
  KOKKOS_FUNCTION void flush(const Kokkos::View<double* [3]>& out, index_t i, const value_type& v) const {
    for (int c = 0; c < 3; ++c) Kokkos::atomic_add(&out(i, c), k * v[c]);
  }
};

// ---- running them -------------------------------------------------------------

/// The law's sums over the pairs j < i of n points, on the host in double
/// (n x dim, row-major): parts == 1, for_each_pair_law; else the sum of
/// for_each_pair_law_part's parts p = 0 .. parts - 1, each into its own
/// output as an MPI rank would, then summed as MPI_Allreduce would.
template <class Out, class Law>
std::vector<double> pair_sums(const Law& law, index_t n, index_t parts) {
  const tdmaps::LambdaMap<> pairs(n, 32, tdmaps::Triangle::strict_lower);  // each pair j < i once
  const int dim = Out::rank == 1 ? 1 : static_cast<int>(Out::static_extent(1));
  std::vector<double> sum(static_cast<std::size_t>(n) * dim, 0.0);
  for (index_t p = 0; p < parts; ++p) {
    const Out out("out", n);  // zeroed: the walks add into it
    if (parts == 1)
      tdmaps::for_each_pair_law(Kokkos::DefaultExecutionSpace(), pairs, law, out);
    else
      tdmaps::for_each_pair_law_part(Kokkos::DefaultExecutionSpace(), pairs, p, parts, law, out);
    Kokkos::fence();
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    for (index_t i = 0; i < n; ++i)
      for (int c = 0; c < dim; ++c) {
        if constexpr (Out::rank == 1)
          sum[std::size_t(i) * dim + c] += h(i);
        else
          sum[std::size_t(i) * dim + c] += h(i, c);
      }
  }
  return sum;
}

/// The host loop's sums (n x dim, row-major) and, per point, the sum of its
/// terms' magnitudes (|term| for a scalar, the Euclidean norm for a vector):
/// the scale that rounding errors are measured against.
struct HostSums {
  std::vector<double> sum, scale;
};

/// |got - want| / scale per point (the norm over its dim values); false, with
/// the worst point, where one exceeds tol.
bool check(const char* law, const char* what, const std::vector<double>& got, const HostSums& want, int dim,
           double tol) {
  const std::size_t n = want.scale.size();
  std::size_t worst = 0;
  double worst_err = -1;
  for (std::size_t i = 0; i < n; ++i) {
    double e2 = 0;
    for (int c = 0; c < dim; ++c) e2 += std::pow(got[i * dim + c] - want.sum[i * dim + c], 2);
    const double err = std::sqrt(e2) / want.scale[i];
    if (std::isnan(err)) {  // a NaN is the worst there is
      worst = i, worst_err = err;
      break;
    }
    if (err > worst_err) worst = i, worst_err = err;
  }
  const bool ok = worst_err <= tol;
  std::printf("pair_laws: %-11s %-28s worst point %zu: relative error %.2e (tolerance %.0e) %s\n", law, what, worst,
              worst_err, tol, ok ? "ok" : "FAILED");
  if (!ok) {
    std::printf("pair_laws: %s: point %zu:", law, worst);
    for (int c = 0; c < dim; ++c)
      std::printf(" %.9g (host loop %.9g)", got[worst * dim + c], want.sum[worst * dim + c]);
    std::printf("\n");
  }
  return ok;
}

/// The law whole and in 3 parts against the host loop, and the parts' sum against the whole.
template <class Out, class Law>
bool run_and_check(const char* name, const Law& law, index_t n, const HostSums& want, double tol) {
  const int dim = Out::rank == 1 ? 1 : static_cast<int>(Out::static_extent(1));
  const std::vector<double> whole = pair_sums<Out>(law, n, 1);
  const std::vector<double> parts = pair_sums<Out>(law, n, 3);
  const HostSums whole_as_reference{whole, want.scale};
  bool ok = check(name, "whole vs host loop", whole, want, dim, tol);
  ok = check(name, "3 parts vs host loop", parts, want, dim, tol) && ok;
  ok = check(name, "3 parts vs whole", parts, whole_as_reference, dim, tol) && ok;
  return ok;
}

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  const index_t n = 2000;  // not a multiple of the block side 32
  std::mt19937 rng(20240601);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto N = static_cast<std::size_t>(n);
  bool ok = true;

  // The tolerances, relative to |terms|, the sum of the magnitudes of a
  // point's terms: the walk computes each term and adds a point's n - 1 = 1999
  // terms in the law's precision and in its own order (by blocks, the blocks'
  // partial sums then joined into out), the host loop in double in j's order.
  // With u the unit roundoff, each term carries a few u of error, and the
  // additions' roundings come to about u sqrt(n) (random signs) and at most
  // u n (all of one sign). fp32: u = 6e-8, u sqrt(n) = 2.7e-6, u n = 1.2e-4,
  // so 2e-5 (seen on the host: 5e-7; a pair dropped or counted twice moves a
  // sum by |terms| / n = 5e-4 on average). fp64: u = 1.1e-16, u n = 2.2e-13,
  // so 1e-12 (seen: 1.5e-15).

  {  // Gravity (fp32): bodies in the unit cube, masses in [0.5, 1.5), softening 0.01.
    const Kokkos::View<float* [4]> xm("xm", n);
    auto h = Kokkos::create_mirror_view(xm);
    for (std::size_t i = 0; i < N; ++i)
      for (int c = 0; c < 4; ++c) h(i, c) = static_cast<float>(c < 3 ? unit(rng) : 0.5 + unit(rng));
    Kokkos::deep_copy(xm, h);
    const float eps2 = 1e-4f;
    HostSums want{std::vector<double>(3 * N, 0.0), std::vector<double>(N, 0.0)};
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        if (j == i) continue;
        double d[3], d2 = 0;
        for (int c = 0; c < 3; ++c) d[c] = double(h(j, c)) - double(h(i, c)), d2 += d[c] * d[c];
        const double r2 = d2 + eps2, w = double(h(j, 3)) / (r2 * std::sqrt(r2));
        for (int c = 0; c < 3; ++c) want.sum[3 * i + c] += w * d[c];
        want.scale[i] += w * std::sqrt(d2);
      }
    ok = run_and_check<Kokkos::View<float* [3]>>("gravity", Gravity{xm, eps2}, n, want, 2e-5) && ok;
  }

  {  // Gaussian kernel sum (fp32): points in the unit cube, h = 0.07 (a point
     // inside the cube sums about n (2 pi h^2)^(3/2) = 11).
    const Kokkos::View<float* [3]> x("x", n);
    auto h = Kokkos::create_mirror_view(x);
    for (std::size_t i = 0; i < N; ++i)
      for (int c = 0; c < 3; ++c) h(i, c) = static_cast<float>(unit(rng));
    Kokkos::deep_copy(x, h);
    const float bandwidth = 0.07f;
    HostSums want{std::vector<double>(N, 0.0), std::vector<double>(N, 0.0)};
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        if (j == i) continue;
        double r2 = 0;
        for (int c = 0; c < 3; ++c) r2 += std::pow(double(h(i, c)) - double(h(j, c)), 2);
        want.sum[i] += std::exp(-r2 / (2 * double(bandwidth) * double(bandwidth)));
      }
    want.scale = want.sum;  // every term is positive: the error relative to the sum itself
    const GaussianSum law{x, 1 / (2 * bandwidth * bandwidth)};
    ok = run_and_check<Kokkos::View<float*>>("kde", law, n, want, 2e-5) && ok;
  }

  {  // Yukawa (fp64): charges +-[0.5, 1.5) in the unit cube, kappa = 5, softening 0.01, k = 1 / (4 pi).
    const Kokkos::View<double* [4]> xq("xq", n);
    auto h = Kokkos::create_mirror_view(xq);
    for (std::size_t i = 0; i < N; ++i) {
      for (int c = 0; c < 3; ++c) h(i, c) = unit(rng);
      h(i, 3) = (unit(rng) < 0.5 ? -1 : 1) * (0.5 + unit(rng));
    }
    Kokkos::deep_copy(xq, h);
    const double kappa = 5, eps2 = 1e-4, k = 1 / (4 * std::acos(-1.0));
    HostSums want{std::vector<double>(3 * N, 0.0), std::vector<double>(N, 0.0)};
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) {  // the force on i from j, each ordered pair on its own
        if (j == i) continue;
        double d[3], r2 = 0;
        for (int c = 0; c < 3; ++c) d[c] = h(i, c) - h(j, c), r2 += d[c] * d[c];
        const double s = std::sqrt(r2 + eps2);
        const double f = k * h(i, 3) * h(j, 3) * std::exp(-kappa * s) * (1 + kappa * s) / (s * s * s);
        for (int c = 0; c < 3; ++c) want.sum[3 * i + c] += f * d[c];
        want.scale[i] += std::fabs(f) * std::sqrt(r2);
      }
    ok = run_and_check<Kokkos::View<double* [3]>>("yukawa", Yukawa{xq, kappa, eps2, k}, n, want, 1e-12) && ok;
  }

  std::printf("pair_laws: %s\n", ok ? "all laws match the host loops" : "FAILED");
  return ok ? 0 : 1;
}
