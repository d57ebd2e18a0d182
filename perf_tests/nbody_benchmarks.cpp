// The nbody group of tdmaps_bench_maps: direct-sum N-body accelerations
// (and each body's share of the potential energy), all-pairs on the square
// against the triangle of apps/nbody:
//
//   nbody/<gravity|lj>[_acc]/<fp32|fp64>/<variant>/<n>
//     _acc: accelerations alone (the chapter's kernel computes no energy;
//     tdmaps::nbody::Terms::accelerations, the steps between reports);
//     unsuffixed: accelerations and energy shares, every variant
//     gems    plain CUDA, GPU Gems 3 ch. 31's kernel (cuda_nbody_reference.hpp)
//     square  plain CUDA, register-blocked all-pairs; its launch shape
//             (bodies per thread, groups splitting the sources) picked per
//             case by timing every shape once before the timed runs (label)
//     lambda[_r<rho>][_k<K>], bb[_r<rho>][_k<K>]
//             tdmaps::nbody::Forces<Real>(space, params, m).compute(map, x,
//             acc, LaunchHints{0, K}) under LambdaMap / BoundingBoxMap over
//             the strict lower triangle (each pair evaluated once, both ends
//             updated); rho = 32 and K = 0 (the library's default) unsuffixed
//   nbody/<law>/<precision>/check/4099
//             every variant (every square shape, every rho and K) against a
//             host fp64 loop with compensated sums over all 4099 bodies (n
//             not a multiple of any tile or block side): counters
//             err_<variant> (the worst body's |a - a_ref| / |a_ref|) and
//             err_energy (the summed energy shares' relative error, worst
//             variant); the case fails (SkipWithError) above 1e-4 in fp32,
//             1e-10 in fp64. On CUDA also err_reference: the device
//             reference below against the host's (fails above 1e-12)
//
// Rates: interactions_per_s = n^2 / t for every variant, so that ratios read
// as speed-ups (the square evaluates n^2 pairs, the triangle n (n - 1) / 2,
// also given as pairs_per_s). Timing: a warm-up launch, then per benchmark
// iteration a batch of back-to-back launches (>= 0.1 s, sized from the
// warm-up) between two fences, the iteration's time the batch's over its
// launches; ms_median and ms_min over the iterations. Iterations by size
// (--nbody-iters): 5, 3, or 1 where a launch takes about a second or more,
// which times that one launch without a warm-up. Accuracy (unless
// --no-check): max_rel_err, the worst of 1024 sampled bodies (every
// (n / 1024)-th) of |a - a_ref| / |a_ref|, a_ref in fp64 with compensated
// sums from the gems kernel on CUDA (cuda_nbody::reference; a host loop on
// host backends), so that fp64 variants are measured too; energy_rel_err
// likewise for the sample's summed energy shares.
//
// Bodies (fixed seeds; every value rounded to fp32, so both precisions and
// the fp64 references see the same inputs): gravity a Plummer sphere
// (tdmaps::nbody::plummer_host, G = 1, masses 1 / n, softening 0.01);
// Lennard-Jones (sigma = epsilon = 1, no cutoff) a cubic lattice of spacing
// 1.1 with each coordinate jittered by up to 0.05 (no two bodies closer than
// 1.0), masses in [0.5, 1.5). gems and square run on CUDA only.
#include "bench_common.hpp"

#include <tdmaps/nbody.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include "cuda_nbody_reference.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tdmaps_bench {

namespace {

namespace nb = tdmaps::nbody;

enum class Law { gravity, lj };
enum class Variant { gems, square, lambda, bb };

const char* law_label(Law l) { return l == Law::gravity ? "gravity" : "lj"; }

constexpr double softening = 0.01;
constexpr double lattice_spacing = 1.1;
constexpr double lattice_jitter = 0.05;
constexpr std::uint64_t nbody_seed = 20261201u;
constexpr index_t check_n = 4099;
constexpr index_t sample_size = 1024;
constexpr double batch_seconds = 0.1;
constexpr int max_batch = 10000;

nb::ForceParams force_params(Law law) {
  nb::ForceParams p;
  if (law == Law::gravity) {
    p.law = nb::Law::gravity;
    p.G = 1.0;
    p.softening = softening;
  } else {
    p.law = nb::Law::lennard_jones;
    p.sigma = 1.0;
    p.epsilon = 1.0;  // cutoff: infinity (none)
  }
  return p;
}

/// Bodies on the host in fp64: x (n x 3, row-major) and m, every value fp32-exact.
struct HostBodies {
  Law law = Law::gravity;
  index_t n = -1;
  std::vector<double> x, m;
};

double to_float(double v) { return static_cast<double>(static_cast<float>(v)); }

HostBodies make_bodies(Law law, index_t n) {
  HostBodies h;
  h.law = law;
  h.n = n;
  h.x.resize(static_cast<std::size_t>(3 * n));
  h.m.resize(static_cast<std::size_t>(n));
  if (law == Law::gravity) {
    const std::vector<double> b = nb::plummer_host(n, nbody_seed);
    for (index_t i = 0; i < n; ++i) {
      const std::size_t row = static_cast<std::size_t>(i) * nb::body_columns;
      for (int c = 0; c < 3; ++c)
        h.x[static_cast<std::size_t>(3 * i + c)] = to_float(b[row + static_cast<std::size_t>(c)]);
      h.m[static_cast<std::size_t>(i)] = to_float(b[row + 3]);
    }
    return h;
  }
  index_t side = 1;
  while (side * side * side < n) ++side;
  std::mt19937_64 g(nbody_seed);
  std::uniform_real_distribution<double> jitter(-lattice_jitter, lattice_jitter), mass(0.5, 1.5);
  for (index_t i = 0; i < n; ++i) {
    const index_t cell[3] = {i % side, i / side % side, i / (side * side)};
    for (int c = 0; c < 3; ++c)
      h.x[static_cast<std::size_t>(3 * i + c)] = to_float(static_cast<double>(cell[c]) * lattice_spacing + jitter(g));
    h.m[static_cast<std::size_t>(i)] = to_float(mass(g));
  }
  return h;
}

/// The bodies of the last (law, n) asked (the cases of one law and n run back to back).
const HostBodies& host_bodies(Law law, index_t n) {
  static HostBodies cached;
  if (cached.n != n || cached.law != law) cached = make_bodies(law, n);
  return cached;
}

/// A compensated (Neumaier) sum.
struct Sum {
  double s = 0, c = 0;
  void add(double v) {
    const double t = s + v;
    c += std::abs(s) >= std::abs(v) ? (s - t) + v : (v - t) + s;
    s = t;
  }
  double value() const { return s + c; }
};

/// What body i receives, in fp64 on the host, from every j != i, each term
/// straight from the law's formula, compensated sums: out = (ax, ay, az,
/// energy share).
void host_accel(Law law, const HostBodies& h, index_t i, double out[4]) {
  const nb::ForceParams p = force_params(law);
  const double* xi = &h.x[static_cast<std::size_t>(3 * i)];
  const double mi = h.m[static_cast<std::size_t>(i)];
  Sum a[3], e;
  for (index_t j = 0; j < h.n; ++j) {
    if (j == i) continue;
    const double* xj = &h.x[static_cast<std::size_t>(3 * j)];
    const double d[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]};  // x_j - x_i
    const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    const double mj = h.m[static_cast<std::size_t>(j)];
    if (law == Law::gravity) {
      const double d2 = r2 + p.softening * p.softening, inv = 1.0 / std::sqrt(d2);
      const double s = p.G * mj * inv * inv * inv;
      for (int c = 0; c < 3; ++c) a[c].add(s * d[c]);
      e.add(-0.5 * p.G * mi * mj * inv);
    } else {
      const double s2 = p.sigma * p.sigma / r2, s6 = s2 * s2 * s2, s12 = s6 * s6;
      const double g = 24 * p.epsilon * (2 * s12 - s6) / r2;  // force on i: g (x_i - x_j)
      for (int c = 0; c < 3; ++c) a[c].add(-g * d[c] / mi);
      e.add(0.5 * 4 * p.epsilon * (s12 - s6));
    }
  }
  for (int c = 0; c < 3; ++c) out[c] = a[c].value();
  out[3] = e.value();
}

/// fp64 results of the targets t * stride, t < count (4 values each).
struct Reference {
  index_t stride = 1;
  std::vector<double> a;
  index_t count() const { return static_cast<index_t>(a.size() / 4); }
};

Reference reference_host(Law law, const HostBodies& h, index_t count, index_t stride) {
  Reference r;
  r.stride = stride;
  r.a.resize(static_cast<std::size_t>(4 * count));
  for (index_t t = 0; t < count; ++t) host_accel(law, h, t * stride, &r.a[static_cast<std::size_t>(4 * t)]);
  return r;
}

#if defined(KOKKOS_ENABLE_CUDA)
cuda_nbody::Law cuda_law(Law law) {
  return law == Law::gravity ? cuda_nbody::Law::gravity : cuda_nbody::Law::lennard_jones;
}

cuda_nbody::LawParams cuda_params(Law law, bool energy = true) {
  const nb::ForceParams p = force_params(law);
  cuda_nbody::LawParams c;
  c.energy = energy;
  c.G = p.G;
  c.eps2 = p.softening * p.softening;
  c.sigma = p.sigma;
  c.epsilon = p.epsilon;
  return c;
}

/// The reference on the device: the gems kernel in fp64, compensated sums.
Reference reference_device(Law law, const HostBodies& h, index_t count, index_t stride) {
  const index_t n = h.n;
  Kokkos::View<double* [4], Kokkos::LayoutRight, MemSpace> b(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::bench::nbody::ref_bodies"), n);
  Kokkos::View<double* [4], Kokkos::LayoutRight, MemSpace> out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::bench::nbody::ref_out"), count);
  auto hb = Kokkos::create_mirror_view(b);
  for (index_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) hb(i, c) = h.x[static_cast<std::size_t>(3 * i + c)];
    hb(i, 3) = h.m[static_cast<std::size_t>(i)];
  }
  Kokkos::deep_copy(b, hb);
  cuda_nbody::reference(cuda_law(law), cuda_params(law), n, b.data(), count, stride, out.data());
  auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  Reference r;
  r.stride = stride;
  r.a.assign(ho.data(), ho.data() + 4 * count);
  return r;
}
#endif

/// The sampled reference of (law, n): 1024 bodies (all when n <= 1024), cached.
const Reference& sample_reference(Law law, const HostBodies& h) {
  static std::map<std::pair<int, index_t>, Reference> cache;
  const auto key = std::make_pair(static_cast<int>(law), h.n);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const index_t count = std::min(h.n, sample_size), stride = h.n / count;
#if defined(KOKKOS_ENABLE_CUDA)
  Reference r = reference_device(law, h, count, stride);
#else
  Reference r = reference_host(law, h, count, stride);
#endif
  return cache.emplace(key, std::move(r)).first->second;
}

/// The worst body's |a - a_ref| / |a_ref| and the relative error of the
/// targets' summed energy shares.
struct Errors {
  double accel = 0;
  double energy = 0;
};

/// energy = false (accelerations alone): Errors::energy is the largest |e|
/// of the sample, which must be 0.
template <class Real>
Errors compare(const Kokkos::View<nb::Accel<Real>*, MemSpace>& acc, const Reference& ref, bool energy = true) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), acc);
  Errors e;
  double sum = 0, sum_ref = 0, largest_e = 0;
  for (index_t t = 0; t < ref.count(); ++t) {
    const nb::Accel<Real>& a = h(t * ref.stride);
    const double* r = &ref.a[static_cast<std::size_t>(4 * t)];
    const double d[3] = {static_cast<double>(a.x) - r[0], static_cast<double>(a.y) - r[1],
                         static_cast<double>(a.z) - r[2]};
    const double err =
        std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    e.accel = std::isnan(err) || std::isnan(e.accel) ? NAN : std::max(e.accel, err);
    sum += static_cast<double>(a.e);
    sum_ref += r[3];
    largest_e = std::isnan(a.e) ? NAN : std::max(largest_e, std::abs(static_cast<double>(a.e)));
  }
  e.energy = energy ? std::abs(sum - sum_ref) / std::abs(sum_ref) : largest_e;
  return e;
}

#if defined(KOKKOS_ENABLE_CUDA)
/// The worst target's relative error of `got` against `ref` (same targets).
Errors compare(const Reference& got, const Reference& ref) {
  Errors e;
  double sum = 0, sum_ref = 0;
  for (std::size_t t = 0; t < ref.a.size(); t += 4) {
    const double* g = &got.a[t];
    const double* r = &ref.a[t];
    const double d[3] = {g[0] - r[0], g[1] - r[1], g[2] - r[2]};
    const double err =
        std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    e.accel = std::isnan(err) || std::isnan(e.accel) ? NAN : std::max(e.accel, err);
    sum += g[3];
    sum_ref += r[3];
  }
  e.energy = std::abs(sum - sum_ref) / std::abs(sum_ref);
  return e;
}
#endif

/// The group's device buffers, reused across cases (BufferCache slots).
template <class Real>
struct DeviceBodies {
  Kokkos::View<Real* [3], Kokkos::LayoutRight, MemSpace> x;   ///< positions
  Kokkos::View<Real*, MemSpace> m;                            ///< masses
  Kokkos::View<Real* [4], Kokkos::LayoutRight, MemSpace> b4;  ///< (x, y, z, m): gems' and square's input (CUDA)
  Kokkos::View<nb::Accel<Real>*, MemSpace> acc;               ///< what every body receives
};

const std::vector<std::string> nbody_slots{"nbody::x", "nbody::m", "nbody::b4", "nbody::acc"};

template <class Real>
double device_bytes(index_t n) {
  return static_cast<double>(n) * sizeof(Real) * (3 + 1 + (on_gpu ? 4 : 0) + 4);
}

template <class Real>
DeviceBodies<Real> upload(const HostBodies& h) {
  using X = Kokkos::View<Real* [3], Kokkos::LayoutRight, MemSpace>;
  const index_t n = h.n;
  DeviceBodies<Real> d;
  d.x = buffers().get<X>("nbody::x", n);
  d.m = buffers().get<Kokkos::View<Real*, MemSpace>>("nbody::m", n);
  d.acc = buffers().get<Kokkos::View<nb::Accel<Real>*, MemSpace>>("nbody::acc", n);
  auto hx = Kokkos::create_mirror_view(d.x);
  auto hm = Kokkos::create_mirror_view(d.m);
  for (index_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) hx(i, c) = static_cast<Real>(h.x[static_cast<std::size_t>(3 * i + c)]);
    hm(i) = static_cast<Real>(h.m[static_cast<std::size_t>(i)]);
  }
  Kokkos::deep_copy(d.x, hx);
  Kokkos::deep_copy(d.m, hm);
#if defined(KOKKOS_ENABLE_CUDA)
  d.b4 = buffers().get<Kokkos::View<Real* [4], Kokkos::LayoutRight, MemSpace>>("nbody::b4", n);
  auto hb = Kokkos::create_mirror_view(d.b4);
  for (index_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) hb(i, c) = hx(i, c);
    hb(i, 3) = hm(i);
  }
  Kokkos::deep_copy(d.b4, hb);
#endif
  return d;
}

#if defined(KOKKOS_ENABLE_CUDA)
template <class Real>
Real* raw(const Kokkos::View<nb::Accel<Real>*, MemSpace>& acc) {
  static_assert(sizeof(nb::Accel<Real>) == 4 * sizeof(Real), "Accel is (x, y, z, e)");
  return reinterpret_cast<Real*>(acc.data());
}

/// Shapes timed per (law, precision, n): n <= 65536 every shape on the
/// case itself; larger n (thousands of blocks for any shape) the one-group
/// shapes on a sum over the first 65536 sources, all n targets.
constexpr index_t tune_full_max = 65536;

template <class Real>
cuda_nbody::SquareShape tune_square(Law law, bool energy, const DeviceBodies<Real>& d) {
  static std::map<std::pair<int, index_t>, cuda_nbody::SquareShape> tuned;
  const index_t n = static_cast<index_t>(d.m.extent(0));
  const auto key =
      std::make_pair(static_cast<int>(law) * 4 + (std::is_same<Real, double>::value ? 1 : 0) + (energy ? 2 : 0), n);
  const cuda_nbody::LawParams p = cuda_params(law, energy);
  auto it = tuned.find(key);
  if (it != tuned.end()) return it->second;
  const ExecSpace space;
  const bool full = n <= tune_full_max;
  const index_t sources = full ? n : tune_full_max;
  const int rounds = full ? 3 : 1;
  std::vector<cuda_nbody::SquareShape> shapes;
  for (const auto& s : cuda_nbody::square_shapes())
    if (full || s.splits == 1) shapes.push_back(s);
  // Each kernel once on a small sum: module loading stays out of the timings.
  for (const auto& s : shapes)
    cuda_nbody::square<Real>(cuda_law(law), p, s, std::min<index_t>(n, 256), std::min<index_t>(n, 256), d.b4.data(),
                             raw(d.acc));
  space.fence();
  std::vector<double> best(shapes.size(), 1e300);
  Kokkos::Timer timer;
  for (int round = 0; round < rounds; ++round)
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      timer.reset();
      cuda_nbody::square<Real>(cuda_law(law), p, shapes[k], n, sources, d.b4.data(), raw(d.acc));
      space.fence();
      best[k] = std::min(best[k], timer.seconds());
    }
  const std::size_t pick = static_cast<std::size_t>(std::min_element(best.begin(), best.end()) - best.begin());
  return tuned.emplace(key, shapes[pick]).first->second;
}
#endif

/// Runs launch() once untimed (and once more, timed, when that was short),
/// then per benchmark iteration a batch of launches between fences. A case
/// of one iteration (a launch of about a second or more) skips the warm-up
/// and times one launch: its kernels were loaded by the smaller n before it.
template <class Launch>
void time_nbody(benchmark::State& state, index_t n, bool triangle, Launch&& launch) {
  const ExecSpace space;
  Kokkos::Timer timer;
  int batch = 1;
  if (state.max_iterations > 1) {
    launch();  // warm-up: module load, first touch
    space.fence();
    double t = timer.seconds();
    if (t < batch_seconds) {
      timer.reset();
      launch();
      space.fence();
      t = timer.seconds();
    }
    if (t < batch_seconds)
      batch = static_cast<int>(std::min<double>(max_batch, std::ceil(batch_seconds / std::max(t, 1e-7))));
  }
  std::vector<double> seconds;
  for (auto _ : state) {
    timer.reset();
    for (int b = 0; b < batch; ++b) launch();
    space.fence();
    const double s = timer.seconds() / batch;
    state.SetIterationTime(s);
    seconds.push_back(s);
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds.empty() ? 0.0 : seconds[seconds.size() / 2];
  const double nn = static_cast<double>(n) * static_cast<double>(n);
  const double pairs = static_cast<double>(n) * static_cast<double>(n - 1) / 2;
  state.counters["ms_median"] = median * 1e3;
  state.counters["ms_min"] = seconds.empty() ? 0.0 : seconds.front() * 1e3;
  state.counters["interactions_per_s"] = median > 0 ? nn / median : 0.0;
  state.counters["interactions/s"] = benchmark::Counter(nn, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["launches_per_iteration"] = batch;
  if (triangle) {
    state.counters["pairs_per_s"] = median > 0 ? pairs / median : 0.0;
    state.counters["pairs"] = pairs;
  }
}

struct Case {
  Law law = Law::gravity;
  Variant variant = Variant::gems;
  index_t n = 0;
  int rho = 32;
  int k = 0;
  bool energy = true;  ///< false: accelerations alone (the _acc laws)
};

/// The law's part of a case name: gravity, lj, gravity_acc, lj_acc.
std::string terms_label(Law law, bool energy) { return std::string(law_label(law)) + (energy ? "" : "_acc"); }

std::string variant_label(Variant v, int rho, int k) {
  switch (v) {
    case Variant::gems:
      return "gems";
    case Variant::square:
      return "square";
    case Variant::lambda:
    case Variant::bb:
      return std::string(v == Variant::lambda ? "lambda" : "bb") + (rho == 32 ? "" : "_r" + std::to_string(rho)) +
             (k == 0 ? "" : "_k" + std::to_string(k));
  }
  return "?";
}

/// The triangle under `map`: Forces::compute (acc reset, then one pass).
template <class Real, class Map>
auto triangle_launch(const nb::Forces<Real, ExecSpace>& forces, const Map& map, const DeviceBodies<Real>& d, int k,
                     bool energy) {
  const tdmaps::LaunchHints hints{0, k};
  const nb::Terms terms = energy ? nb::Terms::accelerations_and_energy : nb::Terms::accelerations;
  return [&forces, map, d, hints, terms] { forces.compute(map, d.x, d.acc, hints, terms); };
}

template <class Real>
void run_nbody(benchmark::State& state, const Options& o, const Case& c) {
  const index_t n = c.n;
  if (!fits_in_memory(state, device_bytes<Real>(n), nbody_slots)) return;
  const HostBodies& h = host_bodies(c.law, n);
  const DeviceBodies<Real> d = upload<Real>(h);
  const ExecSpace space;
  const nb::Forces<Real, ExecSpace> forces(space, force_params(c.law), d.m);
  switch (c.variant) {
    case Variant::gems:
    case Variant::square: {
#if defined(KOKKOS_ENABLE_CUDA)
      const cuda_nbody::Law law = cuda_law(c.law);
      const cuda_nbody::LawParams p = cuda_params(c.law, c.energy);
      if (c.variant == Variant::gems) {
        time_nbody(state, n, false, [&] { cuda_nbody::gems<Real>(law, p, n, d.b4.data(), n, 1, raw(d.acc)); });
      } else {
        const cuda_nbody::SquareShape s = tune_square<Real>(c.law, c.energy, d);
        state.SetLabel(cuda_nbody::shape_label(s) + " " + cuda_nbody::square_attributes<Real>(law, p, s));
        state.counters["bodies_per_thread"] = s.rows;
        state.counters["splits"] = s.splits;
        time_nbody(state, n, false, [&] { cuda_nbody::square<Real>(law, p, s, n, n, d.b4.data(), raw(d.acc)); });
      }
#else
      state.SkipWithError("gems and square are plain CUDA");
      return;
#endif
      break;
    }
    case Variant::lambda:
      time_nbody(
          state, n, true,
          triangle_launch(forces, tdmaps::LambdaMap<>(n, c.rho, tdmaps::Triangle::strict_lower), d, c.k, c.energy));
      break;
    case Variant::bb:
      time_nbody(
          state, n, true,
          triangle_launch(forces, tdmaps::BoundingBoxMap(n, c.rho, tdmaps::Triangle::strict_lower), d, c.k, c.energy));
      break;
  }
  if (c.variant == Variant::lambda || c.variant == Variant::bb) {
    state.counters["rho"] = c.rho;
    state.counters["blocks_per_team"] = c.k;
  }
  if (o.check) {
    const Errors e = compare<Real>(d.acc, sample_reference(c.law, h), c.energy);
    state.counters["max_rel_err"] = e.accel;
    state.counters[c.energy ? "energy_rel_err" : "max_abs_e"] = e.energy;
  }
}

/// The check case: every variant at n = check_n against the host fp64 loop.
template <class Real>
void run_check(benchmark::State& state, const Options& o, Law law) {
  const index_t n = check_n;
  const double tol = std::is_same<Real, double>::value ? 1e-10 : 1e-4;
  if (!fits_in_memory(state, device_bytes<Real>(n), nbody_slots)) return;
  Kokkos::Timer timer;
  const HostBodies h = make_bodies(law, n);
  static std::map<int, Reference> full;  // per law
  auto it = full.find(static_cast<int>(law));
  if (it == full.end()) it = full.emplace(static_cast<int>(law), reference_host(law, h, n, 1)).first;
  const Reference& ref = it->second;
  const DeviceBodies<Real> d = upload<Real>(h);
  const ExecSpace space;
  const nb::Forces<Real, ExecSpace> forces(space, force_params(law), d.m);
  std::map<std::string, double> worst;  // per variant family
  double worst_energy = 0;
  std::string failed;
  // energy = false: accelerations alone, e must come out 0 (the poison is -1).
  const auto test = [&](const std::string& family, const std::string& label, const auto& launch, bool energy) {
    Kokkos::deep_copy(d.acc, nb::Accel<Real>{Real(-1), Real(-1), Real(-1), Real(-1)});  // poison
    launch();
    space.fence();
    const Errors e = compare<Real>(d.acc, ref, energy);
    double& w = worst[family];
    w = std::isnan(e.accel) ? e.accel : std::max(w, e.accel);
    if (energy) worst_energy = std::isnan(e.energy) ? e.energy : std::max(worst_energy, e.energy);
    if (failed.empty() && !(e.accel <= tol && (energy ? e.energy <= tol : e.energy == 0)))
      failed = label + (energy ? "" : " (accelerations alone)") + ": acceleration error " + std::to_string(e.accel) +
               (energy ? ", energy error " : ", largest energy share (must be 0) ") + std::to_string(e.energy) +
               " (tolerance " + std::to_string(tol) + ")";
  };
#if defined(KOKKOS_ENABLE_CUDA)
  {  // the accuracy reference of the timed cases against the host's
    const Errors e = compare(reference_device(law, h, n, 1), ref);
    state.counters["err_reference"] = std::max(e.accel, e.energy);
    if (!(e.accel <= 1e-12 && e.energy <= 1e-12))
      failed = "the device reference (compensated fp64 gems): acceleration error " + std::to_string(e.accel) +
               ", energy error " + std::to_string(e.energy) + " (tolerance 1e-12)";
  }
  const cuda_nbody::Law cl = cuda_law(law);
  for (const bool energy : {true, false}) {
    const cuda_nbody::LawParams p = cuda_params(law, energy);
    test(
        "gems", "gems", [&] { cuda_nbody::gems<Real>(cl, p, n, d.b4.data(), n, 1, raw(d.acc)); }, energy);
  for (const auto& s : cuda_nbody::square_shapes())
      test(
          "square", "square " + cuda_nbody::shape_label(s),
          [&] { cuda_nbody::square<Real>(cl, p, s, n, n, d.b4.data(), raw(d.acc)); }, energy);
  }
#endif
  for (const bool energy : {true, false})
  for (int rho : o.nbody_rho)
    for (int k : o.nbody_k) {
      test("lambda", variant_label(Variant::lambda, rho, k),
             triangle_launch(forces, tdmaps::LambdaMap<>(n, rho, tdmaps::Triangle::strict_lower), d, k, energy),
             energy);
      test("bb", variant_label(Variant::bb, rho, k),
             triangle_launch(forces, tdmaps::BoundingBoxMap(n, rho, tdmaps::Triangle::strict_lower), d, k, energy),
             energy);
    }
  for (const auto& w : worst) state.counters["err_" + w.first] = w.second;
  state.counters["err_energy"] = worst_energy;
  state.counters["tolerance"] = tol;
  if (!failed.empty()) {
    state.SkipWithError(("nbody check failed: " + failed).c_str());
    return;
  }
  const double seconds = timer.seconds();
  for (auto _ : state) state.SetIterationTime(seconds);
}

/// Iterations of a case from a rough n^2 / t (the slowest variant's): a
/// few where a launch is short (each iteration a 0.1 s batch), one where a
/// launch takes most of a second.
int iterations_for(const Options& o, Law law, bool fp64, index_t n) {
  if (o.nbody_iters > 0) return o.nbody_iters;
  double rate = on_gpu ? (fp64 ? 4e11 : 1.5e12) : (fp64 ? 5e8 : 1e9);
  if (law == Law::lj) rate *= 0.5;
  const double t = static_cast<double>(n) * static_cast<double>(n) / rate;
  return t < 0.05 ? 5 : (t < 0.4 ? 3 : 1);
}

benchmark::internal::Benchmark* register_nbody(const std::string& name, int iterations,
                                               std::function<void(benchmark::State&)> f) {
  return benchmark::RegisterBenchmark(name.c_str(), std::move(f))
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(iterations);
}

}  // namespace

void register_nbody_benchmarks(const Options& o) {
  const Law laws[] = {Law::gravity, Law::lj};
  const char* precisions[] = {"fp32", "fp64"};
  if (o.check)
    for (Law law : laws)
      for (const char* precision : precisions) {
        const bool fp64 = std::string(precision) == "fp64";
        const std::string name =
            std::string("nbody/") + law_label(law) + "/" + precision + "/check/" + std::to_string(check_n);
        register_nbody(name, 1, [&o, law, fp64](benchmark::State& state) {
          if (fp64)
            run_check<double>(state, o, law);
          else
            run_check<float>(state, o, law);
        });
      }
  for (Law law : laws)
    for (const bool energy : o.nbody_energy)
    for (const char* precision : precisions)
      for (index_t n : o.nbody_n) {
        const bool fp64 = std::string(precision) == "fp64";
        std::vector<Case> cases;
        if (on_gpu) {
#if defined(KOKKOS_ENABLE_CUDA)
            cases.push_back(Case{law, Variant::gems, n, 32, 0, energy});
            cases.push_back(Case{law, Variant::square, n, 32, 0, energy});
#endif
        }
        for (Variant v : {Variant::lambda, Variant::bb})
          for (int rho : o.nbody_rho)
              for (int k : o.nbody_k) cases.push_back(Case{law, v, n, rho, k, energy});
        for (const Case& c : cases) {
            const std::string name = "nbody/" + terms_label(law, energy) + "/" + precision + "/" +
                                   variant_label(c.variant, c.rho, c.k) + "/" + std::to_string(n);
          register_nbody(name, iterations_for(o, law, fp64, n), [&o, c, fp64](benchmark::State& state) {
              if (fp64)
                run_nbody<double>(state, o, c);
              else
                run_nbody<float>(state, o, c);
          });
        }
      }
}

}  // namespace tdmaps_bench
