// The N-body kernels (<tdmaps/nbody.hpp>, apps/nbody/include) against an
// independent oracle: a host fp64 loop over every ordered pair i != j that
// writes each law's force on i straight from its formula (the kernels go
// through s_i, s_j and Newton's third law). Every block-space map, n = 0 ..
// 257 (odd and prime sides), block sides 8, 16, 32, fp64 and fp32, omega
// ranges of 1 .. 40 parts, accelerations without the energies, momentum conservation, Lennard-Jones' cutoff and
// shift, Coulomb, the leapfrog's second order on a Plummer sphere, and the
// checks of parameters and bodies. Inputs: fixed seeds, named in failures.
#include <tdmaps/nbody.hpp>
#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace nb = tdmaps::nbody;
using tdmaps::index_t;
using tdmaps::Triangle;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;

/// Bodies on the host in fp64: positions uniform in [-1, 1)^3 (values exact
/// in fp32), masses in [0.5, 2), charges +-1 with magnitudes in [0.5, 1.5).
struct HostBodies {
  std::vector<double> x, m, q;
  index_t n = 0;
  HostBodies(index_t n_, std::uint64_t seed, double spread = 1.0) : n(n_) {
    std::mt19937_64 g(seed);
    std::uniform_real_distribution<double> u(-spread, spread), um(0.5, 2.0), uq(0.5, 1.5);
    for (index_t i = 0; i < n; ++i) {
      for (int c = 0; c < 3; ++c) x.push_back(static_cast<double>(static_cast<float>(u(g))));
      m.push_back(static_cast<double>(static_cast<float>(um(g))));
      q.push_back(static_cast<double>(static_cast<float>((i % 2 ? -1 : 1) * uq(g))));
    }
  }
};

/// The oracle: what every body receives, and the sum of the magnitudes of
/// its terms (the scale its rounding refers to).
struct Expected {
  std::vector<double> a, mag;  // n x 4: x, y, z, energy share
};

Expected oracle(const HostBodies& b, const nb::ForceParams& p) {
  const index_t n = b.n;
  Expected e;
  e.a.assign(static_cast<std::size_t>(4 * n), 0.0);
  e.mag = e.a;
  const double s6c = std::isfinite(p.cutoff) ? std::pow(p.sigma / p.cutoff, 6) : 0.0;
  const double shift = 4 * p.epsilon * (s6c * s6c - s6c);
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      if (i == j) continue;
      double r[3];  // x_i - x_j
      for (int c = 0; c < 3; ++c) r[c] = b.x[std::size_t(3 * i + c)] - b.x[std::size_t(3 * j + c)];
      const double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
      double f[3] = {0, 0, 0}, u = 0;  // the force on i, the pair's energy
      if (p.law == nb::Law::gravity) {
        const double d2 = r2 + p.softening * p.softening, d = std::sqrt(d2);
        for (int c = 0; c < 3; ++c) f[c] = -p.G * b.m[std::size_t(i)] * b.m[std::size_t(j)] * r[c] / (d2 * d);
        u = -p.G * b.m[std::size_t(i)] * b.m[std::size_t(j)] / d;
      } else if (p.law == nb::Law::coulomb) {
        const double d2 = r2 + p.softening * p.softening, d = std::sqrt(d2);
        const double kqq = p.k * b.q[std::size_t(i)] * b.q[std::size_t(j)];
        for (int c = 0; c < 3; ++c) f[c] = kqq * r[c] / (d2 * d);
        u = kqq / d;
      } else if (std::sqrt(r2) < p.cutoff) {
        const double sr6 = std::pow(p.sigma * p.sigma / r2, 3);
        for (int c = 0; c < 3; ++c) f[c] = 24 * p.epsilon * (2 * sr6 * sr6 - sr6) / r2 * r[c];
        u = 4 * p.epsilon * (sr6 * sr6 - sr6) - shift;
      }
      for (int c = 0; c < 3; ++c) {
        e.a[std::size_t(4 * i + c)] += f[c] / b.m[std::size_t(i)];
        e.mag[std::size_t(4 * i + c)] += std::fabs(f[c] / b.m[std::size_t(i)]);
      }
      e.a[std::size_t(4 * i + 3)] += 0.5 * u;
      e.mag[std::size_t(4 * i + 3)] += std::fabs(0.5 * u);
    }
  return e;
}

template <class Real>
double tolerance() {
  return std::is_same<Real, double>::value ? 1e-12 : 3e-5;
}

template <class Real>
struct Device {
  Kokkos::View<Real* [3], Kokkos::LayoutRight, Mem> x;
  Kokkos::View<Real*, Mem> m, q;
  explicit Device(const HostBodies& b) : x("x", std::size_t(b.n)), m("m", std::size_t(b.n)), q("q", std::size_t(b.n)) {
    auto hx = Kokkos::create_mirror_view(x);
    auto hm = Kokkos::create_mirror_view(m);
    auto hq = Kokkos::create_mirror_view(q);
    for (index_t i = 0; i < b.n; ++i) {
      for (int c = 0; c < 3; ++c) hx(i, c) = static_cast<Real>(b.x[std::size_t(3 * i + c)]);
      hm(i) = static_cast<Real>(b.m[std::size_t(i)]);
      hq(i) = static_cast<Real>(b.q[std::size_t(i)]);
    }
    Kokkos::deep_copy(x, hx);
    Kokkos::deep_copy(m, hm);
    Kokkos::deep_copy(q, hq);
  }
};

/// acc against the oracle: "" when every value is within tolerance of its scale.
template <class Real>
std::string compare(const Kokkos::View<nb::Accel<Real>*, Mem>& acc, const Expected& e) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), acc);
  const double tol = tolerance<Real>();
  for (std::size_t i = 0; i < h.extent(0); ++i) {
    const double got[4] = {h(i).x, h(i).y, h(i).z, h(i).e};
    for (int c = 0; c < 4; ++c) {
      const double want = e.a[4 * i + std::size_t(c)], mag = e.mag[4 * i + std::size_t(c)];
      if (!(std::fabs(got[c] - want) <= tol * mag + 1e-300))
        return "body " + std::to_string(i) + " component " + std::to_string(c) + ": got " + std::to_string(got[c]) +
               ", want " + std::to_string(want) + " (scale " + std::to_string(mag) + ")";
    }
  }
  return "";
}

template <class F>
void each_map(index_t n, int rho, const F& f) {
  const Triangle t = Triangle::strict_lower;
  f(tdmaps::BoundingBoxMap(n, rho, t));
  f(tdmaps::LambdaMap<>(n, rho, t));
  f(tdmaps::RectangularBoxMap(n, rho, t));
  f(tdmaps::RecursiveMap(n, rho, t));
  f(tdmaps::HadoukenMap(n, rho, t));
}

template <class Real, class Map>
void check_whole(const Map& map, const HostBodies& b, const nb::ForceParams& p, const std::string& what,
                 const Expected& e) {
  const Device<Real> d(b);
  Kokkos::View<nb::Accel<Real>*, Mem> acc("acc", std::size_t(b.n));
  Kokkos::deep_copy(acc, nb::Accel<Real>{Real(7), Real(7), Real(7), Real(7)});  // compute() resets it
  nb::Forces<Real, Space>(Space(), p, d.m, d.q).compute(map, d.x, acc);
  EXPECT_EQ(compare<Real>(acc, e), "") << what << ", map " << Map::name << ", n " << b.n << ", rho " << map.domain.rho;
}

template <class Real, class Map>
void check_whole(const Map& map, const HostBodies& b, const nb::ForceParams& p, const std::string& what) {
  check_whole<Real>(map, b, p, what, oracle(b, p));
}

nb::ForceParams gravity(double eps) {
  nb::ForceParams p;
  p.G = 0.75;
  p.softening = eps;
  return p;
}

}  // namespace

TEST(TEST_CATEGORY, nbody_gravity_matches_the_oracle_for_every_map) {
  std::vector<index_t> sides{0, 1, 2, 3, 5, 7, 8, 9, 17, 31, 32, 33, 64, 97, 127, 128, 257};
  for (const index_t n : sides) {
    const HostBodies b(n, 100 + std::uint64_t(n));
    const Expected hard = oracle(b, gravity(0.0)), soft = oracle(b, gravity(0.05));
    for (int rho : {8, 16, 32})
      each_map(n, rho, [&](const auto& map) {
        check_whole<double>(map, b, gravity(0.0), "gravity fp64, seed 100 + n", hard);
        if (rho != 16) check_whole<float>(map, b, gravity(0.05), "gravity fp32, seed 100 + n", soft);
      });
  }
}

TEST(TEST_CATEGORY, nbody_lennard_jones_and_coulomb_match_the_oracle) {
  for (const index_t n : {2, 29, 130, 257}) {
    // Spread so that no pair sits deep in the repulsive wall.
    const HostBodies b(n, 300 + std::uint64_t(n), 4.0);
    nb::ForceParams lj;
    lj.law = nb::Law::lennard_jones;
    lj.sigma = 0.3;
    lj.epsilon = 1.5;
    nb::ForceParams cut = lj;
    cut.cutoff = 1.2;  // cut and shifted: pairs beyond add nothing
    nb::ForceParams cl;
    cl.law = nb::Law::coulomb;
    cl.k = 2.0;
    nb::ForceParams cls = cl;
    cls.softening = 0.1;
    for (int rho : {8, 32}) {
      check_whole<double>(tdmaps::LambdaMap<>(n, rho, Triangle::strict_lower), b, lj, "lj fp64");
      check_whole<double>(tdmaps::BoundingBoxMap(n, rho, Triangle::strict_lower), b, cut, "lj cut fp64");
      check_whole<float>(tdmaps::LambdaMap<>(n, rho, Triangle::strict_lower), b, cut, "lj cut fp32");
      check_whole<double>(tdmaps::HadoukenMap(n, rho, Triangle::strict_lower), b, cl, "coulomb fp64");
      check_whole<float>(tdmaps::LambdaMap<>(n, rho, Triangle::strict_lower), b, cls, "coulomb softened fp32");
    }
  }
}

TEST(TEST_CATEGORY, nbody_lennard_jones_energy_is_zero_at_the_cutoff) {
  // Two bodies just inside and just outside the cutoff: the shifted energy
  // goes to zero continuously, and nothing acts beyond.
  nb::ForceParams p;
  p.law = nb::Law::lennard_jones;
  p.cutoff = 2.5;
  for (double r : {2.5 * (1 - 1e-9), 2.5, 2.6}) {
    HostBodies b(2, 1);
    b.x = {0, 0, 0, r, 0, 0};
    b.m = {1, 1};
    const Device<double> d(b);
    Kokkos::View<nb::Accel<double>*, Mem> acc("acc", 2);
    nb::accelerations<double>(Space(), tdmaps::LambdaMap<>(2, 8, Triangle::strict_lower), d.x, d.m, d.q, p, acc);
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), acc);
    EXPECT_LE(std::fabs(h(0).e + h(1).e), 1e-8) << "r = " << r;
    if (r >= 2.5) {
      EXPECT_EQ(h(0).x, 0.0) << "r = " << r;
    }
  }
}

TEST(TEST_CATEGORY, nbody_omega_ranges_sum_to_the_whole) {
  for (const index_t n : {45, 257, 300}) {
    const HostBodies b(n, 500 + std::uint64_t(n));
    const Device<double> d(b);
    const nb::ForceParams p = gravity(0.01);
    const Expected e = oracle(b, p);
    const nb::Forces<double, Space> f(Space(), p, d.m, d.q);
    for (int rho : {8, 32})
      for (int parts = 1; parts <= 40; parts += (parts < 8 ? 1 : 4)) {
        const auto run = [&](const auto& map) {
          Kokkos::View<nb::Accel<double>*, Mem> acc("acc", std::size_t(n));
          for (int k = 0; k < parts; ++k) f.add(map, tdmaps::omega_range(map, k, parts), d.x, acc);
          EXPECT_EQ(compare<double>(acc, e), "") << "map " << std::decay_t<decltype(map)>::name << ", n " << n
                                                 << ", rho " << rho << ", " << parts << " parts";
        };
        run(tdmaps::LambdaMap<>(n, rho, Triangle::strict_lower));
        run(tdmaps::BoundingBoxMap(n, rho, Triangle::strict_lower));
        // add_part: the parts of the backend's own league (on CUDA, of the warp kernel's 128-blocks).
        const auto run_parts = [&](const auto& map) {
          Kokkos::View<nb::Accel<double>*, Mem> acc("acc", std::size_t(n));
          for (int k = 0; k < parts; ++k) f.add_part(map, k, parts, d.x, acc);
          EXPECT_EQ(compare<double>(acc, e), "") << "add_part, map " << std::decay_t<decltype(map)>::name << ", n " << n
                                                 << ", rho " << rho << ", " << parts << " parts";
        };
        run_parts(tdmaps::LambdaMap<>(n, rho, Triangle::strict_lower));
        run_parts(tdmaps::BoundingBoxMap(n, rho, Triangle::strict_lower));
      }
  }
}

TEST(TEST_CATEGORY, nbody_accelerations_alone_match_the_oracle_and_leave_e_zero) {
  // Terms::accelerations drops the pair energies only: x, y, z as the
  // oracle's, e exactly 0, by compute() and by the parts of add_part().
  nb::ForceParams lj;
  lj.law = nb::Law::lennard_jones;
  lj.sigma = 0.3;
  lj.cutoff = 1.2;
  nb::ForceParams cl;
  cl.law = nb::Law::coulomb;
  cl.softening = 0.1;
  for (const index_t n : {2, 33, 130, 257, 300}) {
    const HostBodies b(n, 700 + std::uint64_t(n), 4.0);
    const auto check = [&](auto real, const nb::ForceParams& p, const char* what) {
      using Real = decltype(real);
      Expected e = oracle(b, p);
      for (index_t i = 0; i < n; ++i) e.a[std::size_t(4 * i + 3)] = e.mag[std::size_t(4 * i + 3)] = 0;  // e: exactly 0
      const Device<Real> d(b);
      const nb::Forces<Real, Space> f(Space(), p, d.m, d.q);
      const auto run = [&](const auto& map) {
        Kokkos::View<nb::Accel<Real>*, Mem> whole("whole", std::size_t(n)), parts("parts", std::size_t(n));
        Kokkos::deep_copy(whole, nb::Accel<Real>{Real(7), Real(7), Real(7), Real(7)});  // compute() resets it
        f.compute(map, d.x, whole, tdmaps::LaunchHints(), nb::Terms::accelerations);
        for (int k = 0; k < 3; ++k) f.add_part(map, k, 3, d.x, parts, tdmaps::LaunchHints(), nb::Terms::accelerations);
        const std::string where = std::string(what) + ", map " + std::decay_t<decltype(map)>::name + ", n " +
                                  std::to_string(n) + ", seed 700 + n";
        EXPECT_EQ(compare<Real>(whole, e), "") << where;
        EXPECT_EQ(compare<Real>(parts, e), "") << where << ", 3 parts";
      };
      run(tdmaps::LambdaMap<>(n, 32, Triangle::strict_lower));
      run(tdmaps::BoundingBoxMap(n, 8, Triangle::strict_lower));
    };
    check(double(), gravity(0.01), "gravity fp64");
    check(float(), gravity(0.01), "gravity fp32");
    check(float(), lj, "lj cut fp32");
    check(double(), cl, "coulomb softened fp64");
  }
}

TEST(TEST_CATEGORY, nbody_momentum_is_conserved) {
  // sum of m a = 0 up to the rounding of the sums: Newton's third law.
  for (const index_t n : {100, 257}) {
    const HostBodies b(n, 900 + std::uint64_t(n));
    for (const nb::Law law : {nb::Law::gravity, nb::Law::coulomb}) {
      nb::ForceParams p = gravity(0.0);
      p.law = law;
      const Device<double> d(b);
      Kokkos::View<nb::Accel<double>*, Mem> acc("acc", std::size_t(n));
      nb::accelerations<double>(Space(), tdmaps::LambdaMap<>(n, 32, Triangle::strict_lower), d.x, d.m, d.q, p, acc);
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), acc);
      const Expected e = oracle(b, p);
      for (int c = 0; c < 3; ++c) {
        double sum = 0, scale = 0;
        for (index_t i = 0; i < n; ++i) {
          const double a = c == 0 ? h(i).x : c == 1 ? h(i).y : h(i).z;
          sum += b.m[std::size_t(i)] * a;
          scale += b.m[std::size_t(i)] * e.mag[std::size_t(4 * i + c)];
        }
        EXPECT_LE(std::fabs(sum), 1e-13 * scale) << nb::law_name(law) << ", n " << n << ", axis " << c;
      }
    }
  }
}

TEST(TEST_CATEGORY, nbody_leapfrog_is_second_order_on_a_plummer_sphere) {
  // 256 bodies, fp64, softening 0.05, to t = 4 (about 1.5 crossing times):
  // the largest relative energy error falls about 4x when dt halves.
  const index_t n = 256;
  const std::vector<double> ic = nb::plummer_host(n, 42);
  nb::ForceParams p = gravity(0.05);
  p.G = 1.0;
  const auto drift = [&](double dt, int steps) {
    auto s = nb::make_state<double>(Space(), n, false);
    auto hx = Kokkos::create_mirror_view(s.x);
    auto hv = Kokkos::create_mirror_view(s.v);
    auto hm = Kokkos::create_mirror_view(s.m);
    for (index_t i = 0; i < n; ++i) {
      const double* row = &ic[std::size_t(i) * nb::body_columns];
      for (int c = 0; c < 3; ++c) hx(i, c) = row[c], hv(i, c) = row[4 + c];
      hm(i) = row[3];
    }
    Kokkos::deep_copy(s.x, hx);
    Kokkos::deep_copy(s.v, hv);
    Kokkos::deep_copy(s.m, hm);
    const tdmaps::LambdaMap<> map(n, 16, Triangle::strict_lower);
    const nb::Forces<double, Space> f(Space(), p, s.m);
    const auto forces = [&] { f.compute(map, s.x, s.a); };
    forces();
    const nb::Diagnostics d0 = nb::diagnostics(Space(), s);
    double worst = 0;
    for (int k = 0; k < steps; ++k) {
      nb::leapfrog_step(Space(), s, dt, forces);
      const nb::Diagnostics d = nb::diagnostics(Space(), s);
      worst = std::max(worst, std::fabs((d.total() - d0.total()) / d0.total()));
      EXPECT_LE(std::fabs(d.px) + std::fabs(d.py) + std::fabs(d.pz), 1e-12) << "step " << k;
    }
    EXPECT_NEAR(d0.total(), -0.25, 0.05) << "a Plummer sphere in Henon units has E = -1/4 (softened, finite n)";
    return worst;
  };
  const double coarse = drift(1.0 / 250, 1000), fine = drift(1.0 / 500, 2000);
  EXPECT_LT(coarse, 1e-3);
  EXPECT_GT(coarse / fine, 3.2) << "coarse " << coarse << ", fine " << fine;
  EXPECT_LT(coarse / fine, 5.0) << "coarse " << coarse << ", fine " << fine;
}

TEST(TEST_CATEGORY, nbody_plummer_and_random_inputs) {
  const std::vector<double> a = nb::plummer_host(1000, 7), b = nb::plummer_host(1000, 7), c = nb::plummer_host(1000, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  double cm[6] = {0, 0, 0, 0, 0, 0}, mass = 0, rmax = 0;
  for (std::size_t i = 0; i < 1000; ++i) {
    const double* row = &a[i * nb::body_columns];
    for (int k = 0; k < 3; ++k) cm[k] += row[k], cm[3 + k] += row[4 + k];
    mass += row[3];
    rmax = std::max(rmax, std::sqrt(row[0] * row[0] + row[1] * row[1] + row[2] * row[2]));
  }
  EXPECT_NEAR(mass, 1.0, 1e-12);
  for (double v : cm) EXPECT_LE(std::fabs(v), 1e-9);
  EXPECT_LT(rmax, 3 * 3.14159265358979 / 16 / std::sqrt(std::pow(0.999, -2.0 / 3) - 1) + 1e-3);
  const std::vector<double> r = nb::random_host(64, 3, 2.0);
  for (std::size_t i = 0; i < 64; ++i) {
    EXPECT_EQ(r[i * 7 + 3], 2.0);
    for (int k = 0; k < 3; ++k) EXPECT_TRUE(r[i * 7 + k] >= 0 && r[i * 7 + k] < 4.0);
  }
  EXPECT_THROW(nb::plummer_host(-1, 1), std::invalid_argument);
  EXPECT_THROW(nb::random_host(4, 1, 0.0), std::invalid_argument);
}

TEST(TEST_CATEGORY, nbody_rejects_bad_parameters_and_bodies) {
  nb::ForceParams p;
  p.G = 0;
  EXPECT_THROW(nb::check_params(p), std::invalid_argument);
  p = nb::ForceParams();
  p.softening = std::nan("");
  EXPECT_THROW(nb::check_params(p), std::invalid_argument);
  p = nb::ForceParams();
  p.law = nb::Law::lennard_jones;
  p.sigma = -1;
  EXPECT_THROW(nb::check_params(p), std::invalid_argument);
  p.sigma = 1;
  p.cutoff = 0;
  EXPECT_THROW(nb::check_params(p), std::invalid_argument);
  const nb::ForceParams g;
  const std::vector<double> x{0, 0, 0, 1, 0, 0}, m{1, 1};
  EXPECT_NO_THROW(nb::check_bodies(x, m, {}, g));
  EXPECT_THROW(nb::check_bodies({0, 0, 0, 1, 0, std::nan("")}, m, {}, g), std::invalid_argument);
  EXPECT_THROW(nb::check_bodies(x, {1, 0}, {}, g), std::invalid_argument);
  EXPECT_THROW(nb::check_bodies(x, {1, -2}, {}, g), std::invalid_argument);
  EXPECT_THROW(nb::check_bodies(x, {1}, {}, g), std::invalid_argument);
  // Coincident bodies: an error without softening, allowed with it.
  const std::vector<double> same{0.5, 0, 0, 0.5, 0, 0};
  try {
    nb::check_bodies(same, m, {}, g);
    ADD_FAILURE() << "coincident bodies accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bodies 0 and 1 share a position"), std::string::npos) << e.what();
  }
  nb::ForceParams soft;
  soft.softening = 0.1;
  EXPECT_NO_THROW(nb::check_bodies(same, m, {}, soft));
  // Distinct in fp64, one position in fp32.
  const std::vector<double> close{1.0, 0, 0, 1.0 + 1e-12, 0, 0};
  EXPECT_NO_THROW(nb::check_bodies(close, m, {}, g));
  EXPECT_THROW(nb::check_bodies(close, m, {}, g, true), std::invalid_argument);
  nb::ForceParams c;
  c.law = nb::Law::coulomb;
  EXPECT_THROW(nb::check_bodies(x, m, {1}, c), std::invalid_argument);
  EXPECT_THROW(nb::check_bodies(x, m, {1, std::nan("")}, c), std::invalid_argument);
  // Sizes that disagree reach no kernel.
  const HostBodies b(10, 1);
  const Device<double> d(b);
  Kokkos::View<nb::Accel<double>*, Mem> acc("acc", 9);
  EXPECT_THROW(nb::accelerations<double>(Space(), tdmaps::LambdaMap<>(10, 8), d.x, d.m, d.q, g, acc),
               std::invalid_argument);
  Kokkos::View<nb::Accel<double>*, Mem> acc10("acc", 10);
  EXPECT_THROW(nb::accelerations<double>(Space(), tdmaps::LambdaMap<>(11, 8), d.x, d.m, d.q, g, acc10),
               std::invalid_argument);
  using ForcesD = nb::Forces<double, Space>;
  const Kokkos::View<double*, Mem> q3("q", 3);
  EXPECT_THROW(ForcesD(Space(), c, d.m, q3), std::invalid_argument);
}
