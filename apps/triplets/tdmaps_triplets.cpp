// tdmaps-triplets: three-body sums over the triplets k < j < i < n of n
// particles under a tdmaps 3-D map: the Axilrod-Teller-Muto energy (and each
// particle's share), or the 3-D dummy kernels that measure the map alone; see
// apps/triplets/README.md and --help.
//
// Sizes: n = 0 is an error (no particles: almost certainly a mistake
// upstream); n = 1 and 2 are allowed and have no triplets (energy 0, empty
// dummy output), so pipelines over filtered data need no special case. The
// error convention of apps/common/cli.hpp (exit 2 for usage errors, 1 for
// runtime failures); every size (host and device memory, disk) is checked
// before anything is allocated or generated; outputs appear complete or not
// at all, also when the run is interrupted (apps/common/output_file.hpp).
#include <tdmaps/triplets.hpp>

#include "cli_input.hpp"
#include "common/cli.hpp"
#include "common/cli_options.hpp"
#include "common/kokkos_run.hpp"
#include "common/run_scope.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"
#include "common/ranks.hpp"

#include <tdmaps/bench/dummy3.hpp>
#include <tdmaps/maps/dispatch.hpp>

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace app = tdmaps::app;
namespace tt = tdmaps::triplets;
using tdmaps::index_t;

using namespace tdmaps::triplets_cli;

struct Report {
  double energy = 0;
  app::Timing times;  // ms_combine: MPI ranks, the energy and shares summed
  std::string output_note;
};

using app::add_sat;
using app::bytes_text;
using app::mul_sat;

/// Memory and disk of a run, checked before anything is allocated or
/// generated: host (the input, its copy in the run's precision, the output)
/// before Kokkos starts, the device once it has.
template <class mem>
void check_sizes(const Options& o, index_t n, bool device_side) {
  constexpr bool same_memory = std::is_same<mem, Kokkos::HostSpace>::value;
  const index_t real = o.precision == "fp32" ? 4 : 8;
  const index_t points = mul_sat(n, 3 * real);
  const bool write = !o.output.empty();
  index_t out = 0;  // the device output: the shares, or the dummy's packed array
  if (o.kernel == "atm" && write) out = mul_sat(n, 8);
  if (o.kernel == "dummy3") out = mul_sat(tt::triplet_count(n), 4);
  if (o.kernel == "sink3") out = 4;
  const std::string what = out > 4 ? "the " + o.kernel + " output (" + bytes_text(out) + ") and the particles"
                                   : std::string("the particles");
  if (!device_side) {
    // Host: the fp64 input and its copy in the run's precision; on host
    // backends the device copy and the output too, else the output's mirror
    // for the file.
    index_t host = add_sat(mul_sat(n, 24), points);
    if (same_memory) host = add_sat(add_sat(host, points), out);
    else if (write) host = add_sat(host, out);
    const index_t host_free = app::host_available_bytes();
    if (host > host_free)
      throw app::Error(what + " of n = " + std::to_string(n) + " particles need " + bytes_text(host) +
                       " of host memory but only " + app::format_bytes(host_free) + " is available" +
                       (o.kernel == "dummy3" ? "; use --kernel sink3, or fewer particles" : "; use fewer particles"));
    if (write) app::check_filesystem_space(o.output, add_sat(out, 128), "the " + o.kernel + " output");
    if (!o.save_input.empty()) app::check_filesystem_space(o.save_input, mul_sat(n, 24) + 128, "the particles");
    return;
  }
  if (same_memory) return;
  const index_t device = add_sat(points, out);
  const index_t device_free = app::free_memory_bytes<mem>();
  if (device > device_free)
    throw app::Error(what + " of n = " + std::to_string(n) + " particles need " + bytes_text(device) + " of " +
                     mem::name() + " memory but only " + app::format_bytes(device_free) + " is free" +
                     (o.kernel == "dummy3" ? "; use --kernel sink3, or fewer particles" : "; use fewer particles"));
}

template <class Real, class Space, class Map>
Report run_map(const Space& space, const Map& map, const Options& o, const Input& in, const app::Ranks& ranks,
               app::Progress& progress) {
  using mem = typename Space::memory_space;
  const index_t n = in.n;
  const bool write = !o.output.empty();
  Report rep;
  Kokkos::View<double*, mem> shares;
  Kokkos::View<std::uint32_t*, mem> packed;
  Kokkos::View<const Real* [3], Kokkos::LayoutRight, mem> x;
  if (o.kernel == "atm") {
    x = tt::to_device<Real>(space, in.x);
    if (write)
      shares = Kokkos::View<double*, mem>(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::triplets::shares"),
                                          static_cast<std::size_t>(n));
  } else {
    const index_t words = o.kernel == "dummy3" ? tt::triplet_count(n) : 1;
    packed = Kokkos::View<std::uint32_t*, mem>(Kokkos::view_alloc(space, "tdmaps::triplets::" + o.kernel),
                                               static_cast<std::size_t>(words));
  }
  const std::string label = "tdmaps::triplets::" + o.kernel + "::" + o.spec.label();
  // MPI ranks: each its omega range of the league, balanced by triplets; one
  // sum of the energy (and of the shares) finishes the result.
  const tdmaps::OmegaRange range = tdmaps::omega_range(map, ranks.rank(), ranks.size());
  space.fence();
  rep.times = app::timed_runs("compute", o.run.repeat, false, ranks, progress, [&] {
    if (o.kernel == "atm") {
      rep.energy = ranks.size() > 1 ? tt::atm_energy<Real>(space, map, range, x, o.params, shares, o.run.hints)
                                    : tt::atm_energy<Real>(space, map, x, o.params, shares, o.run.hints);
    } else if (o.kernel == "dummy3") {
      tdmaps::for_each_element(space, map, tdmaps::bench::Dummy3Kernel<mem>{packed, tdmaps::Triangle::strict_lower}, label,
                               o.run.hints);
    } else {
      tdmaps::for_each_element(space, map, tdmaps::bench::Dummy3Sink<mem>{packed, -1}, label, o.run.hints);
    }
    space.fence();
  });
  std::vector<double> shares_host;
  app::Timer combine;
  if (ranks.size() > 1) {
    ranks.sum_f64(&rep.energy, 1);
    if (write) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), shares);
      shares_host.assign(h.data(), h.data() + h.extent(0));
      ranks.sum_f64(shares_host.data(), static_cast<std::int64_t>(shares_host.size()));
    }
    rep.times.ms_combine = 1e3 * combine.seconds();
    if (!ranks.root()) return rep;  // rank 0 writes and reports
  }

  if (write) {
    app::Timer write_timer;
    auto report = [&](std::int64_t done, std::int64_t) { progress.advance(done); };
    auto write_1d = [&](const auto& view, const std::string& note) {
      app::write_view_npy(o.output, view, {static_cast<index_t>(view.extent(0))}, progress);
      rep.output_note = note;
    };
    if (o.kernel == "atm" && ranks.size() > 1) {
      progress.phase("write " + o.output, static_cast<std::int64_t>(shares_host.size() * sizeof(double)),
                     app::Progress::Unit::bytes);
      app::write_npy(o.output, shares_host.data(), {n}, report);
      rep.output_note = "float64 (" + std::to_string(n) + ",) per-particle energies";
    } else if (o.kernel == "atm") write_1d(shares, "float64 (" + std::to_string(n) + ",) per-particle energies");
    else write_1d(packed, "uint32 (" + std::to_string(packed.extent(0)) + ",) dummy3 values, packed triplet order");
    progress.done();
    rep.times.ms_write = 1e3 * write_timer.seconds();
  }
  return rep;
}

using app::finite_or_null;

void print_report(const Options& o, const Input& in, const Report& rep, double total_seconds, int ranks) {
  const index_t triplets = tt::triplet_count(in.n);
  const app::Timing& t = rep.times;
  const bool atm = o.kernel == "atm";
  if (o.run.json) {
    const app::RunShape shape{in.n, 3, o.precision, o.kernel, triplets};
    nlohmann::json j = app::report_json(
        app::report_header(o.in, o.spec.label(), o.block, ranks, shape, t, total_seconds * 1e3, o.output));
    j["mode"] = "triplets";
    j["ms_combine"] = t.ms_combine;
    j["triplets"] = triplets;
    j["energy"] = atm ? finite_or_null(rep.energy) : nlohmann::json(nullptr);
    j["c9"] = atm ? nlohmann::json(o.params.c9) : nlohmann::json(nullptr);
    j["cutoff"] = atm ? finite_or_null(o.params.cutoff) : nlohmann::json(nullptr);
    j["cutoff_triple"] = atm ? finite_or_null(o.params.cutoff_triple) : nlohmann::json(nullptr);
    j["save_input"] = app::string_or_null(o.save_input);
    app::print_json_line(j);
    return;
  }
  using app::fmt;
  std::cout << "tdmaps-triplets: n = " << in.n << " (" << in.source << "), kernel " << o.kernel << ", precision "
            << o.precision << ", map " << o.spec.label() << ", block " << o.block << ", backend "
            << Kokkos::DefaultExecutionSpace::name() << "\n";
  if (atm) {
    std::ostringstream e;
    e.precision(17);
    e << rep.energy;
    std::cout << "energy: " << e.str() << "\n";
  }
  std::cout << "triplets: " << triplets << "\n";
  app::print_times(t, triplets, "triplets", o.output, rep.output_note, total_seconds * 1e3);
}

/// What MPI ranks must agree on before any work (common/ranks.hpp).
app::RunFacts run_facts(const Options& o, index_t n) {
  app::RunFacts f;
  f.add("--kernel", o.kernel).add("--precision", o.precision).add("--map", o.spec.label()).add("--block", o.block);
  f.add_real("--c9", o.params.c9).add_real("--cutoff", o.params.cutoff).add_real("--cutoff-triple", o.params.cutoff_triple);
  f.add("--repeat", o.run.repeat).add("--output", o.output.empty() ? std::string("not given") : o.output).add("n", n);
  if (o.in.input.empty()) f.add("--seed", std::to_string(o.in.seed)).add("input checksum", "none (--random)");
  else f.add("--seed", "not used").add_file("input checksum", o.in.input);
  return f;
}

int triplets_main(int argc, char* argv[], const app::Ranks& ranks) {
  app::Timer total_timer;
  const app::SplitArgs args = app::start_tool("triplets", argc, argv);

  Options o;
  CLI::App cli{"tdmaps-triplets: three-body sums over the triplets k < j < i < n of n particles under a tdmaps 3-D "
               "map: the Axilrod-Teller-Muto energy sum of c9 (1 + 3 cos g1 cos g2 cos g3) / (r_ij r_jk r_ki)^3 "
               "(and each particle's share), or the 3-D dummy kernels (the map alone).",
               "tdmaps-triplets"};
  cli.set_version_flag("--version", std::string("tdmaps-triplets ") + app::version());
  auto* random = app::add_input_options(
      cli, o.in, "particles from a .npy (float64/float32, C order) or .csv / .txt file: n rows of x, y, z",
      "N random particles, uniform in [0, N^(1/3))^3 (unit density)");
  cli.add_option("--save-input", o.save_input, "write the --random particles to FILE.npy, (n, 3) float64")
      ->needs(random);
  cli.add_option("--kernel", o.kernel,
                 "atm (the energy; a tile kernel), dummy3 (writes a value per triplet: the map and the stores) or "
                 "sink3 (the map alone)")
      ->check(CLI::IsMember({"atm", "dummy3", "sink3"}))
      ->capture_default_str();
  cli.add_option("--precision", o.precision, "the triplet terms in fp64 or fp32 (sums in fp64 either way)")
      ->check(CLI::IsMember({"fp64", "fp32"}))
      ->capture_default_str();
  cli.add_option("--c9", o.c9_text, "the coefficient C9 (default 1)");
  cli.add_option("--cutoff", o.cutoff_text, "count a triplet only when all three distances are < CUTOFF (default none)");
  cli.add_option("--cutoff-triple", o.triple_text,
                 "count a triplet only when r_ij r_jk r_ki < CUTOFF^3 (default none)");
  cli.add_option("--output", o.output,
                 "write FILE.npy (complete or not at all): atm, the per-particle energies (float64 (n,)); dummy3, "
                 "its uint32 values in packed triplet order");
  app::add_map_options(cli, o.spec, o.block);
  app::add_run_options(cli, o.run, "timed runs (best and mean are reported)");
  cli.footer(
      "Examples:\n"
      "  tdmaps-triplets --random 4096 --repeat 5\n"
      "  tdmaps-triplets --random 2048 --precision fp32 --map bb3 --block 4 --json\n"
      "  tdmaps-triplets --input points.npy --c9 0.5 --cutoff 2.5 --output shares.npy\n"
      "  tdmaps-triplets --random 1000 --seed 7 --save-input p.npy --cutoff-triple 1.5\n"
      "  tdmaps-triplets --random 512 --kernel dummy3 --output values.npy\n"
      "  tdmaps-triplets --random 8192 --kernel sink3 --map lambda3 --cbrt cardano --form eps\n"
      "\n"
      "Triplets are (i, j, k) with k < j < i; there are n (n - 1) (n - 2) / 6. n = 1 and 2 are allowed (no\n"
      "triplets: energy 0); n = 0 is an error. Particles at the same position give a NaN energy (JSON: null).\n"
      "Warnings go to stderr, or with --json to the line's \"warnings\" array; --quiet drops them.\n" +
      std::string(app::conventions_help()));
  if (const auto status = app::parse_command_line(cli, args.rest)) return *status;
  check_options(o);
  app::configure_warnings(o.run.json, o.run.quiet || !ranks.root());
  if (ranks.size() > 1 && o.kernel != "atm")
    throw app::UsageError("MPI ranks split the ATM energy (--kernel atm); --kernel " + o.kernel + " runs on one rank");

  using Space = Kokkos::DefaultExecutionSpace;
  app::Matrix<double> file;
  const index_t n = input_rows(o, file);
  app::RunScope scope(
      ranks, argv[0], args.kokkos, o.run, [&](bool device) { check_sizes<Space::memory_space>(o, n, device); },
      [&] { return run_facts(o, n); });
  app::Progress& progress = scope.progress;
  const Input in = load(o, file);
  ranks.agree();  // every check above passed on every rank; no work before
  if (!o.save_input.empty() && ranks.root()) app::write_npy(o.save_input, in.x.data(), {in.n, 3});
  if (in.n < 3)
    app::warning(std::to_string(in.n) + " particle" + (in.n == 1 ? " has" : "s have") +
              " no triplets: the energy is 0 and the outputs hold no triplet");
  const Space space;
  const tdmaps::Domain3 domain(in.n, o.block, tdmaps::Triangle::strict_lower);
  Report rep;
  tdmaps::with_map3(o.spec, domain, [&](auto map) {
    rep = o.precision == "fp32" ? run_map<float>(space, map, o, in, ranks, progress)
                                : run_map<double>(space, map, o, in, ranks, progress);
  });
  if (!ranks.root()) return 0;
  if (o.kernel == "atm" && !std::isfinite(rep.energy))
    app::warning(std::string("the energy is ") + (std::isnan(rep.energy) ? "NaN" : "infinite") + ": " +
                 nonfinite_cause(in, o.precision == "fp32"));
  print_report(o, in, rep, total_timer.seconds(), ranks.size());
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  app::Ranks ranks(argc, argv);  // MPI_Init under mpirun, before Kokkos
  return ranks.run([&] { return triplets_main(argc, argv, ranks); });
}
