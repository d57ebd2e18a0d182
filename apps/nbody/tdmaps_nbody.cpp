// tdmaps-nbody: direct-sum N-body under a tdmaps map, each pair (i, j),
// i > j, evaluated once and applied to both ends: accelerations and
// potential energy for gravity (Plummer softening), Lennard-Jones (cut and
// shifted) or Coulomb, and leapfrog kick-drift-kick time stepping with
// energy, momentum and drift reports; see apps/nbody/README.md and --help.
//
// Sizes: n = 0 is an error; n = 1 is allowed (no pairs: zero accelerations,
// energy 0). The error convention of apps/common/cli.hpp (exit 2 for usage
// errors, 1 for runtime failures); sizes are checked before anything is
// allocated; outputs appear complete or not at all, also when the run is
// interrupted (apps/common/output_file.hpp). MPI ranks: each its omega
// range of the map, one sum of the accelerations per force evaluation,
// every rank integrating the same state; rank 0 reports and writes.
#include <tdmaps/nbody.hpp>

#include "cli_input.hpp"
#include "cli_report.hpp"
#include "common/cli.hpp"
#include "common/cli_options.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"
#include "common/ranks.hpp"
#include "common/run_scope.hpp"
#include "common/sizes.hpp"
#include "rank_sums.hpp"

#include <tdmaps/maps/dispatch.hpp>

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace app = tdmaps::app;
namespace nb = tdmaps::nbody;
using tdmaps::index_t;
using namespace tdmaps::nbody_cli;

/// Throws AllRanksError (every rank holds the same sums) when the last force
/// evaluation gave a body a result that is not finite although its inputs
/// were: the first such body and the likely cause, law- and precision-aware
/// (checks.hpp). One reduction on the device; the host copies only on failure.
template <class Real, class Space, class Mem>
void check_finite(const Space& space, const nb::State<Real, Mem>& s, const Options& o, const Input& in,
                  std::int64_t step) {
  const index_t i = nb::first_non_finite(space, s.a);
  if (i < 0) return;
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.x);
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.a);
  std::vector<double> x(static_cast<std::size_t>(3 * in.n));
  for (index_t k = 0; k < in.n; ++k)
    for (int c = 0; c < 3; ++c) x[static_cast<std::size_t>(3 * k + c)] = static_cast<double>(hx(k, c));
  const double a[4] = {double(ha(i).x), double(ha(i).y), double(ha(i).z), double(ha(i).e)};
  const std::string when = o.steps > 0 ? "step " + std::to_string(step) + ": " : std::string();
  nb::Remedies fix;
  fix.softening = "--softening", fix.fp64 = "--precision fp64";
  throw app::AllRanksError(
      when + nb::non_finite_cause(o.params, o.precision == "fp32", x, in.m, in.q, static_cast<std::size_t>(i), a, fix));
}

template <class Real, class Space, class Map>
Report run_map(const Space& space, const Map& map, const Options& o, const Input& in, const app::Ranks& ranks,
               app::Progress& progress, const app::Timer& total) {
  using mem = typename Space::memory_space;
  const index_t n = in.n;
  const bool coulomb = o.params.law == nb::Law::coulomb;
  const nb::State<Real, mem> s = nb::make_state<Real>(space, n, coulomb);
  {
    auto hx = Kokkos::create_mirror_view(Kokkos::HostSpace(), s.x);
    auto hv = Kokkos::create_mirror_view(Kokkos::HostSpace(), s.v);
    auto hm = Kokkos::create_mirror_view(Kokkos::HostSpace(), s.m);
    auto hq = Kokkos::create_mirror_view(Kokkos::HostSpace(), s.q);
    for (index_t i = 0; i < n; ++i) {
      for (int c = 0; c < 3; ++c) {
        hx(i, c) = static_cast<Real>(in.x[static_cast<std::size_t>(3 * i + c)]);
        hv(i, c) = static_cast<Real>(in.v[static_cast<std::size_t>(3 * i + c)]);
      }
      hm(i) = static_cast<Real>(in.m[static_cast<std::size_t>(i)]);
      if (coulomb) hq(i) = static_cast<Real>(in.q[static_cast<std::size_t>(i)]);
    }
    Kokkos::deep_copy(space, s.x, hx);
    Kokkos::deep_copy(space, s.v, hv);
    Kokkos::deep_copy(space, s.m, hm);
    if (coulomb) Kokkos::deep_copy(space, s.q, hq);
    space.fence();
  }
  const nb::Forces<Real, Space> f(space, o.params, s.m, s.q);
  // MPI ranks: each its part of the map's league (balanced by pairs), then
  // one sum of the accelerations per evaluation (rank_sums.hpp).
  constexpr bool one_launch = !tdmaps::is_multi_launch_map_v<Map>;
  const RankSums<Real, Space> sum_ranks(s.a, ranks);
  double ms_combine = 0;
  // The energy shares only where a report reads them (terms).
  const auto forces = [&](nb::Terms terms) {
    if (ranks.size() == 1) {
      f.compute(map, s.x, s.a, o.run.hints, terms);
      return;
    }
    Kokkos::deep_copy(space, s.a, nb::Accel<Real>{Real(0), Real(0), Real(0), Real(0)});
    if constexpr (one_launch) f.add_part(map, ranks.rank(), ranks.size(), s.x, s.a, o.run.hints, terms);
    space.fence();
    ms_combine = sum_ranks(space);
  };

  Report rep;
  rep.rank_sums = sum_ranks.path();
  const bool root = ranks.root();
  if (o.steps == 0) {
    rep.times = app::timed_runs("forces", o.run.repeat, false, ranks, progress, [&] {
      forces(nb::Terms::accelerations_and_energy);
      space.fence();
    });
    rep.times.ms_combine = ms_combine;
    check_finite(space, s, o, in, 0);
    rep.last.d = nb::diagnostics(space, s);
    rep.e0 = rep.last.d.total();
  } else {
    // Snapshots: positions every --every steps from step 0, written as the
    // run goes into a temporary file, named only once complete.
    std::unique_ptr<app::OutputFile> snap;
    std::vector<double> frame;
    auto host_x = Kokkos::create_mirror_view(Kokkos::HostSpace(), s.x);
    const auto snapshot = [&] {
      if (!snap) return;
      app::Timer timer;
      Kokkos::deep_copy(space, host_x, s.x);
      space.fence();
      for (index_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) frame[static_cast<std::size_t>(3 * i + c)] = static_cast<double>(host_x(i, c));
      snap->write(frame.data(), static_cast<std::int64_t>(frame.size() * sizeof(double)));
      rep.ms_writes += 1e3 * timer.seconds();
    };
    if (root && !o.snapshots.empty()) {
      const std::string header = app::npy_header<double>({frames(o), n, 3});
      snap =
          std::make_unique<app::OutputFile>(o.snapshots, static_cast<std::int64_t>(header.size()) + frames(o) * n * 24);
      snap->write(header.data(), static_cast<std::int64_t>(header.size()));
      frame.resize(static_cast<std::size_t>(3 * n));
    }
    double sum_s = 0, best = std::numeric_limits<double>::infinity();
    const auto point = [&](std::int64_t step) {
      Point p;
      p.step = step;
      p.time = static_cast<double>(step) * o.dt;
      p.d = nb::diagnostics(space, s);
      if (step == 0) rep.e0 = p.d.total();
      p.drift = rep.e0 != 0 ? (p.d.total() - rep.e0) / std::fabs(rep.e0) : std::nan("");
      rep.last = p;
      if (!root) return;
      app::Timing t;
      t.runs =
          static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(step, std::numeric_limits<int>::max())));
      t.ms_mean = step > 0 ? 1e3 * sum_s / static_cast<double>(step) : 0;
      t.ms_min = step > 0 ? 1e3 * best : 0;
      print_point(o, in, p, t, 1e3 * total.seconds(), ranks.size());
    };
    forces(nb::Terms::accelerations_and_energy);
    check_finite(space, s, o, in, 0);
    point(0);
    snapshot();
    progress.phase("steps", o.steps, app::Progress::Unit::runs);
    for (std::int64_t step = 1; step <= o.steps; ++step) {
      const bool reported = step % o.every == 0 || step == o.steps;
      const nb::Terms terms = reported ? nb::Terms::accelerations_and_energy : nb::Terms::accelerations;
      ranks.barrier();
      app::Timer timer;
      nb::leapfrog_step(space, s, o.dt, [&] { forces(terms); });
      space.fence();
      const double t = timer.seconds();
      sum_s += t;
      best = std::min(best, t);
      check_finite(space, s, o, in, step);
      progress.advance(step);
      if (reported) {
        point(step);
        if (step % o.every == 0) snapshot();
      }
    }
    progress.done();
    rep.times.runs = static_cast<int>(std::min<std::int64_t>(o.steps, std::numeric_limits<int>::max()));
    rep.times.ms_mean = 1e3 * sum_s / static_cast<double>(o.steps);
    rep.times.ms_min = 1e3 * best;
    rep.times.ms_combine = ms_combine;
    if (snap) {
      app::Timer timer;
      snap->commit();
      rep.ms_writes += 1e3 * timer.seconds();
    }
  }
  if (!root || (o.output.empty() && o.forces.empty())) return rep;
  app::Timer write_timer;
  if (!o.output.empty()) {
    auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.x);
    auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.v);
    write_state(
        o.output, n, [&](index_t i, int c) { return double(hx(i, c)); },
        [&](index_t i, int c) { return double(hv(i, c)); }, in.m, in.q);
  }
  if (!o.forces.empty()) {
    auto host_a = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.a);
    std::vector<double> rows(static_cast<std::size_t>(4 * n));
    for (index_t i = 0; i < n; ++i) {
      double* r = &rows[static_cast<std::size_t>(4 * i)];
      r[0] = host_a(i).x, r[1] = host_a(i).y, r[2] = host_a(i).z, r[3] = host_a(i).e;
    }
    app::write_npy(o.forces, rows.data(), {n, 4});
  }
  // The JSON report's write time goes with its "output" (--output); the
  // text summary's counts every file written.
  if (!o.output.empty()) rep.times.ms_write = 1e3 * write_timer.seconds();
  rep.ms_writes += 1e3 * write_timer.seconds();
  return rep;
}

int nbody_main(int argc, char* argv[], const app::Ranks& ranks) {
  app::Timer total_timer;
  // mpirun kills a rank one second after its SIGTERM (SIGKILL): the rank's
  // watchdog then removes a named temporary file of its OutputFile.
  if (ranks.size() > 1)
    app::set_temporary_observer([&ranks](const std::string& path, bool exists) {
      if (exists)
        ranks.arm_watchdog(path);
      else
        ranks.disarm_watchdog();
    });
  const app::SplitArgs args = app::start_tool("nbody", argc, argv);
  Options o;
  CLI::App cli{
      "tdmaps-nbody: direct-sum N-body on the triangle of a tdmaps map: each pair evaluated once and its "
               "force applied to both ends. Accelerations and potential energy under gravity (Plummer softening), "
               "Lennard-Jones (cut and shifted) or Coulomb; leapfrog kick-drift-kick time stepping.",
               "tdmaps-nbody"};
  cli.set_version_flag("--version", std::string("tdmaps-nbody ") + app::version());
  auto* random = app::add_input_options(
      cli, o.in,
      "bodies from a .npy (float64/float32, C order) or .csv file: n rows of x, y, z, m (4 columns), with vx, vy, vz "
      "(7); with --law coulomb one more column, the charge q",
      "N bodies uniform in [0, N^(1/3))^3 at rest, masses 1/N (gravity) or 1; charges +1, -1 alternating");
  auto* plummer = cli.add_option("--plummer", o.plummer_text,
                                 "a Plummer sphere of N bodies in Henon units (G = M = 1, E = -1/4), masses 1/N");
  plummer->excludes(random)->excludes(cli.get_option("--input"));
  auto* seed = cli.get_option("--seed");
  seed->remove_needs(random);
  seed->description("seed of --random or --plummer, 0 to 2^64 - 1 (default 1)");
  cli.add_option("--save-input", o.save_input,
                 "write the generated bodies to FILE.npy, (n, 7) float64 x, y, z, m, vx, vy, vz (with --law coulomb "
                 "(n, 8), q last): an --input of the same run");
  cli.add_option("--law", o.law_text, "gravity, lj (Lennard-Jones) or coulomb")->capture_default_str();
  cli.add_option("--G", o.g_text, "gravity: the constant G (default 1)");
  cli.add_option("--softening", o.softening_text,
                 "gravity, coulomb: Plummer softening eps, r^2 -> r^2 + eps^2 (default 0)");
  cli.add_option("--sigma", o.sigma_text, "lj: sigma (default 1)");
  cli.add_option("--epsilon", o.epsilon_text, "lj: the well depth epsilon (default 1)");
  cli.add_option("--cutoff", o.cutoff_text,
                 "lj: pairs at r >= CUTOFF add nothing, energy shifted to 0 there (default none)");
  cli.add_option("--k", o.k_text, "coulomb: the constant k (default 1)");
  cli.add_option("--precision", o.precision, "the pair terms and the state in fp64 or fp32 (diagnostics in fp64)")
      ->check(CLI::IsMember({"fp64", "fp32"}))
      ->capture_default_str();
  cli.add_option("--steps", o.steps_text, "leapfrog steps (default 0: one force evaluation, timed --repeat times)");
  cli.add_option("--dt", o.dt_text, "the time step (needed with --steps)");
  cli.add_option("--every", o.every_text, "report (and snapshot) every K steps (default steps / 10)");
  cli.add_option("--snapshots", o.snapshots,
                 "write the positions every --every steps from step 0 to FILE.npy, (frames, n, 3) float64");
  cli.add_option("--output", o.output,
                 "write the final state to FILE.npy, (n, 7) float64 x, y, z, m, vx, vy, vz (with --law coulomb (n, 8), "
                 "q last): an --input for a next run under the same options");
  cli.add_option("--forces", o.forces,
                 "write the final accelerations and energy shares to FILE.npy, (n, 4) float64 ax, ay, az, e");
  app::add_map_options(cli, o.spec, o.block);
  app::add_run_options(cli, o.run, "timed force evaluations without --steps (best and mean are reported)");
  cli.footer(
      "Examples:\n"
      "  tdmaps-nbody --plummer 16384 --softening 0.01 --steps 1000 --dt 0.001 --every 100\n"
      "  tdmaps-nbody --random 65536 --precision fp32 --repeat 5 --json\n"
      "  tdmaps-nbody --input bodies.npy --law lj --cutoff 2.5 --steps 100 --dt 1e-3 --snapshots x.npy\n"
      "  tdmaps-nbody --plummer 4096 --law coulomb --softening 0.05 --forces f.npy\n"
      "\n"
      "Each pair i > j is evaluated once; a step is kick (dt / 2), drift (dt), forces, kick (dt / 2). The energy\n"
      "shares e (--forces) sum to the potential energy. Bodies at the same position are an error unless softened\n"
      "(gravity, coulomb). n = 1 is allowed (no pairs); n = 0 is an error.\n"
      "Warnings go to stderr, or with --json to the line's \"warnings\" array; --quiet drops them.\n" +
      std::string(app::conventions_help()));
  if (const auto status = app::parse_command_line(cli, args.rest)) return *status;
  check_options(o);
  app::configure_warnings(o.run.json, o.run.quiet || !ranks.root());
  const std::string map_name = tdmaps::canonical_map_name(o.spec.map);
  if (map_name == "utm")
    throw app::UsageError(
        "--map utm is a thread-space map; the pair walk needs blocks (bb, hadouken, lambda, rb, rec)");
  if (ranks.size() > 1 && map_name != "lambda" && map_name != "bb")
    throw app::UsageError("MPI ranks split the omega range of a one-launch map (--map lambda or bb), not --map " +
                          o.spec.map);

  using Space = Kokkos::DefaultExecutionSpace;
  app::Matrix<double> file;
  const index_t n = input_rows(o, file);
  app::RunScope scope(
      ranks, argv[0], args.kokkos, o.run, [&](bool device) { check_sizes<Space::memory_space>(o, n, device); },
      [&] { return run_facts(o, n); });
  app::Progress& progress = scope.progress;
  const Input in = load(o, file);
  ranks.agree();  // every check above passed on every rank; no work before
  if (!o.save_input.empty() && ranks.root()) {
    const auto at = [&](const std::vector<double>& a) {
      return [&a](index_t i, int c) { return a[static_cast<std::size_t>(3 * i + c)]; };
    };
    write_state(o.save_input, n, at(in.x), at(in.v), in.m, in.q);
  }
  if (n == 1) app::warning("1 body has no pairs: its acceleration and the potential energy are 0");
  const Space space;
  const tdmaps::Domain2 domain(n, o.block, tdmaps::Triangle::strict_lower);
  Report rep;
  tdmaps::with_map(
      o.spec, domain,
      [&](auto map) {
        using Map = decltype(map);
        if constexpr (tdmaps::is_block_space_map_v<Map>) {
          rep = o.precision == "fp32" ? run_map<float>(space, map, o, in, ranks, progress, total_timer)
                                    : run_map<double>(space, map, o, in, ranks, progress, total_timer);
        }
      },
      true);
  if (!ranks.root()) return 0;
  if (!std::isfinite(rep.last.d.total())) app::warning(energy_warning(o, rep.last.d));
  print_report(o, in, rep, total_timer.seconds(), ranks.size());
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  app::Ranks ranks(argc, argv);  // MPI_Init under mpirun, before Kokkos
  return ranks.run([&] { return nbody_main(argc, argv, ranks); });
}
