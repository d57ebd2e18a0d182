// A Plummer sphere stepped with the installed N-body kernels (tdmaps::nbody),
// the code of apps/nbody/README.md "From your own Kokkos code": 20 leapfrog
// steps of 512 bodies, checked for momentum (zero) and energy (conserved to
// 1e-4). Built by .ci/run against the installed package.
#include <tdmaps/nbody.hpp>
#include <tdmaps/tdmaps.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  namespace nb = tdmaps::nbody;
  using Space = Kokkos::DefaultExecutionSpace;
  const tdmaps::index_t n = 512;
  const double dt = 1e-3;
  const int steps = 20;
  const std::vector<double> ic = nb::plummer_host(n, 1);  // rows x, y, z, m, vx, vy, vz
  auto s = nb::make_state<float>(Space(), n, false);        // x, v, m, a (fill x, v, m)
  auto hx = Kokkos::create_mirror_view(s.x);
  auto hv = Kokkos::create_mirror_view(s.v);
  auto hm = Kokkos::create_mirror_view(s.m);
  for (tdmaps::index_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) hx(i, c) = float(ic[7 * i + c]), hv(i, c) = float(ic[7 * i + 4 + c]);
    hm(i) = float(ic[7 * i + 3]);
  }
  Kokkos::deep_copy(s.x, hx);
  Kokkos::deep_copy(s.v, hv);
  Kokkos::deep_copy(s.m, hm);

  nb::ForceParams p;  // gravity, G = 1
  p.softening = 0.01;
  const nb::Forces<float, Space> f(Space(), p, s.m);
  const tdmaps::LambdaMap<> map(n, 32, tdmaps::Triangle::strict_lower);
  f.compute(map, s.x, s.a);  // a = accelerations, energy shares
  const nb::Diagnostics d0 = nb::diagnostics(Space(), s);
  for (int k = 0; k < steps; ++k) nb::leapfrog_step(Space(), s, dt, [&] { f.compute(map, s.x, s.a); });
  const nb::Diagnostics d = nb::diagnostics(Space(), s);
  const double drift = std::fabs((d.total() - d0.total()) / d0.total());
  const double p_abs = std::fabs(d.px) + std::fabs(d.py) + std::fabs(d.pz);
  std::printf("nbody_steps: E0 %.6f, E %.6f, drift %.2e, |P| %.2e\n", d0.total(), d.total(), drift, p_abs);
  return drift < 1e-4 && p_abs < 1e-5 && std::fabs(d0.total() + 0.25) < 0.05 ? 0 : 1;
}
