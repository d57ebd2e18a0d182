// The pairlaw group of tdmaps_bench_maps: a user's own pair laws through the
// public walk (tdmaps::for_each_pair_law, launch/pair_law.hpp), written here
// as a Kokkos user writes them, beside the N-body app on the same walk:
//
//   pairlaw/<law>/fp32/<variant>/<map>/r32/n<n>
//     gravity_acc  softened gravity, accelerations alone
//       forces     tdmaps::nbody::Forces<float>::compute(..., Terms::accelerations)
//       user       the law below (UserGravity: x, y, z, m in registers, a
//                  float3 sum, its own flush into an (n x 3) View)
//     kde          a Gaussian kernel sum s_i = sum_j w_j exp(-|x_i - x_j|^2 / h^2), d = 3
//       user       the law below (UserKde)
//     nearest      tdmaps::edm::nearest_neighbour of fp32 points in [0, 1)^3 over
//                  the whole triangle (the app's pair law, nearest_law.hpp), n = --reduce-n (10^6)
//       app
//     count        tdmaps::edm::count_within (radius: a ball of 32 / n of the
//                  unit cube, about 32 neighbours a point), the same points
//       app        the app's call (the reduce form of the walk on GPUs: reduce_pair_law)
//       element    the element walk it took before (reduce_pairs with the same kernel)
//     histogram    tdmaps::edm::pair_histogram (100 bins, rmax 1), the same points
//       app        the app's call (histogram_pair_law on GPUs)
//       element    histogram_pairs with the same kernel
//     nearest_d4, count_d4   the nearest neighbour and the count at d = 4 (points in
//                  [0, 1)^4, the ball of 32 / n), app, lambda only
//     map: lambda, and bb (the bounding box of the same run: I = t_bb / t_lambda)
//
// Counters (time_launches): ms_median, ms_min, pairs_per_s = n (n - 1) / 2 / t,
// and interactions_per_s = n^2 / t (the all-pairs kernels' count, so that it
// reads against the CUDA samples' kernel). user gravity: max_rel_vs_forces,
// the worst component of 1024 sampled bodies against the app's result (both
// fp32, the same walk); kde: max_rel_err, 256 sampled points against a host
// fp64 sum. Bodies: the nbody group's Plummer sphere (G = 1, masses 1 / n,
// softening 0.01); kde: uniform points in the unit cube, weights in [0.5, 1.5),
// h = 0.1.
#include "bench_common.hpp"

#include <tdmaps/edm/reduce.hpp>
#include <tdmaps/nbody.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace tdmaps_bench {

namespace {

namespace nb = tdmaps::nbody;
using View4 = Kokkos::View<float* [4], Kokkos::LayoutRight, MemSpace>;
using View3 = Kokkos::View<float* [3], Kokkos::LayoutRight, MemSpace>;

constexpr float softening = 0.01f;
constexpr float kde_h = 0.1f;

KOKKOS_FORCEINLINE_FUNCTION float exp_f(float v) {
#if KOKKOS_VERSION >= 40000
  return Kokkos::exp(v);
#else
  return Kokkos::Experimental::exp(v);
#endif
}

/// Softened gravity, accelerations alone, as a user writes it.
struct UserGravity {
  using point_type = Kokkos::Array<float, 4>;  // x, y, z, m
  using value_type = Kokkos::Array<float, 3>;  // acceleration
  View4 xm;
  float eps2 = softening * softening;
  KOKKOS_FUNCTION point_type load(index_t i) const { return {{xm(i, 0), xm(i, 1), xm(i, 2), xm(i, 3)}}; }
  KOKKOS_FUNCTION void operator()(const point_type& a, const point_type& b, value_type& to_a, value_type& to_b) const {
    const float dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
    const float inv = tdmaps::intrinsics::rsqrt(dx * dx + dy * dy + dz * dz + eps2);
    const float inv3 = inv * inv * inv;
    const float sa = b[3] * inv3, sb = a[3] * inv3;
    to_a[0] += sa * dx, to_a[1] += sa * dy, to_a[2] += sa * dz;
    to_b[0] -= sb * dx, to_b[1] -= sb * dy, to_b[2] -= sb * dz;
  }
  KOKKOS_FUNCTION void flush(const View3& out, index_t i, const value_type& v) const {
    for (int c = 0; c < 3; ++c) Kokkos::atomic_add(&out(i, c), v[c]);
  }
};

/// A Gaussian kernel sum, as a user writes it.
struct UserKde {
  using point_type = Kokkos::Array<float, 4>;  // x, y, z, w
  using value_type = float;
  View4 xw;
  float inv_h2 = 1.0f / (kde_h * kde_h);
  KOKKOS_FUNCTION point_type load(index_t i) const { return {{xw(i, 0), xw(i, 1), xw(i, 2), xw(i, 3)}}; }
  KOKKOS_FUNCTION void operator()(const point_type& a, const point_type& b, float& to_a, float& to_b) const {
    const float dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
    const float k = exp_f(-(dx * dx + dy * dy + dz * dz) * inv_h2);
    to_a += b[3] * k;
    to_b += a[3] * k;
  }
};

/// Bodies on the host (x, y, z, m / w per row), fp32.
std::vector<float> host_points(bool kde, index_t n) {
  std::vector<float> h(static_cast<std::size_t>(4 * n));
  if (!kde) {
    const std::vector<double> b = nb::plummer_host(n, 20261201u);
    for (index_t i = 0; i < n; ++i)
      for (int c = 0; c < 4; ++c)
        h[static_cast<std::size_t>(4 * i + c)] =
            static_cast<float>(b[static_cast<std::size_t>(i) * nb::body_columns + static_cast<std::size_t>(c)]);
    return h;
  }
  std::mt19937_64 g(20261128u);
  std::uniform_real_distribution<double> u(0.0, 1.0), w(0.5, 1.5);
  for (index_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) h[static_cast<std::size_t>(4 * i + c)] = static_cast<float>(u(g));
    h[static_cast<std::size_t>(4 * i + 3)] = static_cast<float>(w(g));
  }
  return h;
}

View4 device_points(const std::vector<float>& h, index_t n) {
  View4 d(Kokkos::view_alloc(Kokkos::WithoutInitializing, "pairlaw::points"), static_cast<std::size_t>(n));
  auto m = Kokkos::create_mirror_view(d);
  for (index_t i = 0; i < n; ++i)
    for (int c = 0; c < 4; ++c) m(i, c) = h[static_cast<std::size_t>(4 * i + c)];
  Kokkos::deep_copy(d, m);
  return d;
}

template <class Map>
Map make_map(index_t n) {
  return Map(n, 32, tdmaps::Triangle::strict_lower);
}

void set_interactions(benchmark::State& state, index_t n) {
  const double median = state.counters["ms_median"] * 1e-3;
  state.counters["interactions_per_s"] = median > 0 ? static_cast<double>(n) * static_cast<double>(n) / median : 0.0;
}

/// Positions and masses apart (the app's Views).
struct Split {
  View4 xm;
  View3 x;
  Kokkos::View<float*, MemSpace> m;
  KOKKOS_FUNCTION void operator()(const index_t i) const {
    for (int c = 0; c < 3; ++c) x(i, c) = xm(i, c);
    m(i) = xm(i, 3);
  }
};
/// The app's accelerations as an (n x 3) View.
struct AccOut {
  Kokkos::View<nb::Accel<float>*, MemSpace> acc;
  View3 a3;
  KOKKOS_FUNCTION void operator()(const index_t i) const { a3(i, 0) = acc(i).x, a3(i, 1) = acc(i).y, a3(i, 2) = acc(i).z; }
};

template <class Map>
void run_gravity(benchmark::State& state, index_t n, bool user) {
  const ExecSpace space;
  const auto h = host_points(false, n);
  const View4 xm = device_points(h, n);
  const Map map = make_map<Map>(n);
  const double pairs = 0.5 * static_cast<double>(n) * static_cast<double>(n - 1);
  // The app's bodies: positions (n x 3), masses; its accelerations.
  View3 x("pairlaw::x", static_cast<std::size_t>(n));
  Kokkos::View<float*, MemSpace> m("pairlaw::m", static_cast<std::size_t>(n));
  Kokkos::parallel_for("pairlaw::split", Kokkos::RangePolicy<ExecSpace>(space, 0, n), Split{xm, x, m});
  nb::ForceParams p;
  p.G = 1.0;
  p.softening = softening;
  const nb::Forces<float, ExecSpace> forces(space, p, m);
  Kokkos::View<nb::Accel<float>*, MemSpace> acc("pairlaw::acc", static_cast<std::size_t>(n));
  const auto app = [&] { forces.compute(map, x, acc, tdmaps::LaunchHints(), nb::Terms::accelerations); };
  View3 out("pairlaw::out", static_cast<std::size_t>(n));
  UserGravity law{xm};
  const auto mine = [&] {
    Kokkos::deep_copy(space, out, 0.0f);
    tdmaps::for_each_pair_law(space, map, law, out, tdmaps::PairDiagonal::exclude, "pairlaw::user_gravity");
  };
  if (user)
    time_launches(state, pairs, 0.0, mine);
  else
    time_launches(state, pairs, 0.0, app);
  set_interactions(state, n);
  if (!user) return;
  app();
  space.fence();
  View3 a3("pairlaw::a3", static_cast<std::size_t>(n));
  Kokkos::parallel_for("pairlaw::a3", Kokkos::RangePolicy<ExecSpace>(space, 0, n), AccOut{acc, a3});
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a3);
  auto hu = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  double worst = 0;
  const index_t stride = std::max<index_t>(1, n / 1024);
  for (index_t i = 0; i < n; i += stride) {
    const double norm = std::sqrt(double(ha(i, 0)) * ha(i, 0) + double(ha(i, 1)) * ha(i, 1) + double(ha(i, 2)) * ha(i, 2));
    for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(double(hu(i, c)) - double(ha(i, c))) / norm);
  }
  state.counters["max_rel_vs_forces"] = worst;
}

template <class Map>
void run_kde(benchmark::State& state, index_t n) {
  const ExecSpace space;
  const auto h = host_points(true, n);
  const View4 xw = device_points(h, n);
  const Map map = make_map<Map>(n);
  Kokkos::View<float*, MemSpace> s("pairlaw::kde", static_cast<std::size_t>(n));
  const UserKde law{xw};
  time_launches(state, 0.5 * static_cast<double>(n) * static_cast<double>(n - 1), 0.0, [&] {
    Kokkos::deep_copy(space, s, 0.0f);
    tdmaps::for_each_pair_law(space, map, law, s, tdmaps::PairDiagonal::exclude, "pairlaw::user_kde");
  });
  set_interactions(state, n);
  auto hs = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s);
  double worst = 0;
  const index_t stride = std::max<index_t>(1, n / 256);
  for (index_t i = 0; i < n; i += stride) {
    double want = 0;
    const float* a = &h[static_cast<std::size_t>(4 * i)];
    for (index_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const float* b = &h[static_cast<std::size_t>(4 * j)];
      const double r2 = (double(b[0]) - a[0]) * (double(b[0]) - a[0]) + (double(b[1]) - a[1]) * (double(b[1]) - a[1]) +
                        (double(b[2]) - a[2]) * (double(b[2]) - a[2]);
      want += double(b[3]) * std::exp(-r2 / (double(kde_h) * kde_h));
    }
    worst = std::max(worst, std::abs(double(hs(i)) - want) / want);
  }
  state.counters["max_rel_err"] = worst;
}

/// n fp32 points uniform in [0, 1)^d (seed 7).
Kokkos::View<float**, Kokkos::LayoutRight, MemSpace> cube_points(index_t n, int d = 3) {
  Kokkos::View<float**, Kokkos::LayoutRight, MemSpace> pts("pairlaw::points", static_cast<std::size_t>(n),
                                                           static_cast<std::size_t>(d));
  auto h = Kokkos::create_mirror_view(pts);
  std::mt19937_64 g(7u);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (index_t i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c) h(i, c) = static_cast<float>(u(g));
  Kokkos::deep_copy(pts, h);
  return pts;
}

/// The radius of the d-ball of volume k / n (the peers' radius, perf_tests/peers/: about k neighbours a point).
double ball_radius(index_t n, int d, double k) {
  const double log_unit_ball = 0.5 * d * std::log(3.141592653589793) - std::lgamma(0.5 * d + 1);
  return std::exp((std::log(k / static_cast<double>(n)) - log_unit_ball) / d);
}

template <class Map>
void run_nearest(benchmark::State& state, index_t n, int d = 3) {
  const ExecSpace space;
  const auto pts = cube_points(n, d);
  const Map map = make_map<Map>(n);
  Kokkos::View<tdmaps::edm::NearestKey*, MemSpace> keys("pairlaw::nn_keys", static_cast<std::size_t>(n));
  time_launches(state, 0.5 * static_cast<double>(n) * static_cast<double>(n - 1), 0.0, [&] {
    Kokkos::deep_copy(space, keys, tdmaps::edm::nearest_init());
    tdmaps::edm::nearest_neighbour(space, pts, map, tdmaps::full_range(map), keys);
  });
  set_interactions(state, n);
}

/// count_within (radius: a ball of 32 / n of the cube) and pair_histogram (100 bins, rmax 1) of points
/// in the unit cube: `app` the edm calls (the reduce walk on GPUs), `element`
/// the element walk the app took before (reduce_pairs / histogram_pairs with
/// the same kernels), in the same run. Counter `check`: the count, or the
/// histogram's total, equal between the two. The count also at d = 4 (app only).
template <class Map>
void run_count(benchmark::State& state, index_t n, bool app, int d = 3) {
  const ExecSpace space;
  const auto pts = cube_points(n, d);
  const Map map = make_map<Map>(n);
  const double radius = ball_radius(n, d, 32.0);
  index_t c = 0;
  time_launches(state, 0.5 * static_cast<double>(n) * static_cast<double>(n - 1), 0.0, [&] {
    if (app) {
      c = tdmaps::edm::count_within(space, pts, map, radius);
    } else {
      c = 0;
      if (d != 3) throw std::invalid_argument("pairlaw count: the element walk is benchmarked at d = 3 only");
      tdmaps::reduce_pairs(space, map, tdmaps::edm::detail::count_kernel<3>(pts, radius), Kokkos::Sum<index_t>(c));
    }
  });
  state.counters["check"] = static_cast<double>(c);
}

template <class Map>
void run_histogram(benchmark::State& state, index_t n, bool app) {
  const ExecSpace space;
  const auto pts = cube_points(n);
  const Map map = make_map<Map>(n);
  Kokkos::View<std::int64_t*, MemSpace> counts("pairlaw::hist", 100);
  time_launches(state, 0.5 * static_cast<double>(n) * static_cast<double>(n - 1), 0.0, [&] {
    Kokkos::deep_copy(space, counts, std::int64_t(0));
    if (app)
      tdmaps::edm::pair_histogram(space, pts, map, 1.0, counts);
    else
      tdmaps::histogram_pairs(space, map, tdmaps::edm::detail::histogram_kernel<3>(pts, 1.0, counts), counts);
  });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), counts);
  double total = 0;
  for (std::size_t b = 0; b < h.extent(0); ++b) total += static_cast<double>(h(b));
  state.counters["check"] = total;
}

std::string name(const std::string& law, const std::string& variant, const std::string& map, index_t n) {
  return "pairlaw/" + law + "/fp32/" + variant + "/" + map + "/r32/n" + std::to_string(n);
}

}  // namespace

void register_pair_law_benchmarks(const Options& o) {
  for (const index_t n : o.nbody_n) {
    const int iters = o.nbody_iters > 0 ? o.nbody_iters : (n >= 1000000 ? 3 : 5);
    register_case(name("gravity_acc", "forces", "lambda", n), o,
                  [n](benchmark::State& s) { run_gravity<tdmaps::LambdaMap<>>(s, n, false); })
        ->Iterations(iters);
    register_case(name("gravity_acc", "user", "lambda", n), o,
                  [n](benchmark::State& s) { run_gravity<tdmaps::LambdaMap<>>(s, n, true); })
        ->Iterations(iters);
    register_case(name("gravity_acc", "user", "bb", n), o,
                  [n](benchmark::State& s) { run_gravity<tdmaps::BoundingBoxMap>(s, n, true); })
        ->Iterations(iters);
    register_case(name("kde", "user", "lambda", n), o, [n](benchmark::State& s) { run_kde<tdmaps::LambdaMap<>>(s, n); })
        ->Iterations(iters);
    register_case(name("kde", "user", "bb", n), o, [n](benchmark::State& s) { run_kde<tdmaps::BoundingBoxMap>(s, n); })
        ->Iterations(iters);
  }
  for (const index_t nn : o.reduce_n) {
    const int iters = nn >= 1000000 ? 3 : 5;
    register_case(name("nearest", "app", "lambda", nn), o,
                  [nn](benchmark::State& s) { run_nearest<tdmaps::LambdaMap<>>(s, nn); })
        ->Iterations(iters);
    register_case(name("nearest", "app", "bb", nn), o,
                  [nn](benchmark::State& s) { run_nearest<tdmaps::BoundingBoxMap>(s, nn); })
        ->Iterations(iters);
    // d = 4: the other dimension of the register walks (ArborX's at d = 4 beside them, perf_tests/peers/).
    register_case(name("nearest_d4", "app", "lambda", nn), o,
                  [nn](benchmark::State& s) { run_nearest<tdmaps::LambdaMap<>>(s, nn, 4); })
        ->Iterations(iters);
    register_case(name("count_d4", "app", "lambda", nn), o,
                  [nn](benchmark::State& s) { run_count<tdmaps::LambdaMap<>>(s, nn, true, 4); })
        ->Iterations(iters);
    for (const bool app : {true, false}) {
      const std::string v = app ? "app" : "element";
      register_case(name("count", v, "lambda", nn), o,
                    [nn, app](benchmark::State& s) { run_count<tdmaps::LambdaMap<>>(s, nn, app); })
          ->Iterations(iters);
      register_case(name("count", v, "bb", nn), o,
                    [nn, app](benchmark::State& s) { run_count<tdmaps::BoundingBoxMap>(s, nn, app); })
          ->Iterations(iters);
      register_case(name("histogram", v, "lambda", nn), o,
                    [nn, app](benchmark::State& s) { run_histogram<tdmaps::LambdaMap<>>(s, nn, app); })
          ->Iterations(iters);
      register_case(name("histogram", v, "bb", nn), o,
                    [nn, app](benchmark::State& s) { run_histogram<tdmaps::BoundingBoxMap>(s, nn, app); })
          ->Iterations(iters);
    }
  }
}

}  // namespace tdmaps_bench
