// The atm group of tdmaps_bench_maps: the whole call
// tdmaps::triplets::atm_energy<Real>(space, map, x, params) of apps/triplets
// (the Axilrod-Teller-Muto three-body energy summed over the strict triplets
// k < j < i < n, no cutoff), in fp64 and fp32, under BB3 and exact lambda3,
// "atm/<fp64|fp32>/<map>/r<rho>/n<n>" (sweep.py: I = t_BB3 / t_map).
// Points: n uniform random points of the unit box (fixed seed), the same
// float values in both precisions. The total is checked against a host fp64
// triple loop where that loop is cheap (n <= check_max_n: the oracle is
// O(n^3)); larger n report the total (counter `energy`) unchecked.
// Built only where the triplets app is (CMake target tdmaps::triplets).
#include "bench_common.hpp"

#include <tdmaps/triplets.hpp>

#include <cmath>
#include <random>
#include <type_traits>

namespace tdmaps_bench {

namespace {

/// Largest n whose total is checked against the host oracle.
constexpr index_t check_max_n = 1024;
constexpr unsigned atm_seed = 20261124u;

std::vector<float> unit_box_points(index_t n) {
  std::mt19937 gen(atm_seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> x(static_cast<std::size_t>(3 * n));
  for (auto& v : x) v = u(gen);
  return x;
}

/// The ATM energy (c9 = 1) of every strict triplet, in fp64 on the host:
/// E = (1 + 3 cos a cos b cos c) / (r_ij r_jk r_ki)^3, the cosines' product
/// from the squared sides: (d1 + d3 - d2)(d1 + d2 - d3)(d2 + d3 - d1) / (8 d1 d2 d3).
double host_atm(const std::vector<float>& xf, index_t n) {
  std::vector<double> x(xf.begin(), xf.end());
  const auto d2 = [&](index_t a, index_t b) {
    double s = 0.0;
    for (int c = 0; c < 3; ++c) {
      const double t = x[3 * a + c] - x[3 * b + c];
      s += t * t;
    }
    return s;
  };
  double total = 0.0;
  for (index_t i = 2; i < n; ++i)
    for (index_t j = 1; j < i; ++j) {
      const double dij = d2(i, j);
      for (index_t k = 0; k < j; ++k) {
        const double djk = d2(j, k), dki = d2(k, i);
        const double prod = dij * djk * dki;
        const double cosines = (dij + dki - djk) * (dij + djk - dki) * (djk + dki - dij) / (8.0 * prod);
        total += (1.0 + 3.0 * cosines) / (prod * std::sqrt(prod));
      }
    }
  return total;
}

/// The oracle of the last n asked (cases of one n run back to back).
double oracle(const std::vector<float>& x, index_t n) {
  static index_t cached_n = -1;
  static double cached = 0.0;
  if (cached_n != n) {
    cached = host_atm(x, n);
    cached_n = n;
  }
  return cached;
}

template <class Real, class Map>
void run_atm(benchmark::State& state, const Options& o, const Map& map) {
  using Points = Kokkos::View<Real* [3], Kokkos::LayoutRight, MemSpace>;
  const index_t n = map.domain.n;
  const double triplets = static_cast<double>(map.domain.elements());
  if (!fits_in_memory(state, 3.0 * sizeof(Real) * static_cast<double>(n), {})) return;
  const std::vector<float> host = unit_box_points(n);
  Points x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::bench::atm::x"), n);
  {
    auto h = Kokkos::create_mirror_view(x);
    for (index_t p = 0; p < n; ++p)
      for (int c = 0; c < 3; ++c) h(p, c) = static_cast<Real>(host[static_cast<std::size_t>(3 * p + c)]);
    Kokkos::deep_copy(x, h);
  }
  const Kokkos::View<const Real* [3], Kokkos::LayoutRight, MemSpace> xc = x;
  const ExecSpace space;
  const tdmaps::triplets::AtmParams params{};  // c9 = 1, no cutoffs
  double energy = 0.0;
  // Bytes: the points, read once per call (the kernel is compute-bound).
  time_launches(
      state, triplets, 3.0 * sizeof(Real) * static_cast<double>(n),
      [&] { energy = tdmaps::triplets::atm_energy<Real>(space, map, xc, params); }, "triplets");
  state.counters["energy"] = energy;
  if (o.check && n <= check_max_n) {
    const double ref = oracle(host, n);
    const double rel = std::abs(energy - ref) / std::abs(ref);
    // fp64: summation order only; fp32: per-triplet rounding of the terms.
    const double tol = std::is_same<Real, double>::value ? 1e-9 : 1e-3;
    state.counters["rel_err"] = rel;
    state.counters["errors"] = rel <= tol ? 0.0 : 1.0;
  }
}

}  // namespace

void register_atm_benchmarks(const Options& o) {
  for (const char* precision : {"fp64", "fp32"})
    for (int rho : o.atm_rho)
      for (index_t n : o.atm_n)
        for (const char* map : {"bb3", "lambda3_cbrt"}) {
          if (!map3_selected(o, map)) continue;
          const bool fp64 = std::string(precision) == "fp64";
          const bool bb = std::string(map) == "bb3";
          register_case(case_name("atm", precision, map, rho, n), o, [&o, fp64, bb, rho, n](benchmark::State& state) {
            const tdmaps::Domain3 d(n, rho, tdmaps::Triangle::strict_lower);
            const tdmaps::BoundingBox3Map box(d);
            const tdmaps::Lambda3Map<tdmaps::CbrtFloat, tdmaps::SqrtRsqrt, tdmaps::Exact> lambda(d);
            if (fp64) {
              if (bb) run_atm<double>(state, o, box);
              else run_atm<double>(state, o, lambda);
            } else {
              if (bb) run_atm<float>(state, o, box);
              else run_atm<float>(state, o, lambda);
            }
          });
        }
}

}  // namespace tdmaps_bench
