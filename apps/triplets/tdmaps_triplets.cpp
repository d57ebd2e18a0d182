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
#include "common/launch_options.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"
#include "common/rank_device.hpp"
#include "common/ranks.hpp"

#include <tdmaps/kernels/dummy3.hpp>
#include <tdmaps/launch/dispatch.hpp>

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
  std::vector<double> seconds;
  double write_seconds = -1;
  double combine_seconds = 0;  // MPI ranks: the energy and shares summed
  std::string output_note;
};

/// a * b, or max when it does not fit (a, b >= 0).
index_t mul_sat(index_t a, index_t b) {
  return b != 0 && a > std::numeric_limits<index_t>::max() / b ? std::numeric_limits<index_t>::max() : a * b;
}
index_t add_sat(index_t a, index_t b) {
  return a > std::numeric_limits<index_t>::max() - b ? std::numeric_limits<index_t>::max() : a + b;
}
std::string bytes_text(index_t b) {
  return b == std::numeric_limits<index_t>::max() ? std::string("more than 2^63 bytes") : app::format_bytes(b);
}

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
  progress.phase("compute", o.repeat, app::Progress::Unit::runs);
  for (int r = 0; r < o.repeat; ++r) {
    space.fence();
    ranks.barrier();
    app::Timer timer;
    if (o.kernel == "atm") {
      rep.energy = ranks.size() > 1 ? tt::atm_energy<Real>(space, map, range, x, o.params, shares, o.hints)
                                    : tt::atm_energy<Real>(space, map, x, o.params, shares, o.hints);
    } else if (o.kernel == "dummy3") {
      tdmaps::for_each_element(space, map, tdmaps::Dummy3Kernel<mem>{packed, tdmaps::Triangle::strict_lower}, label,
                               o.hints);
    } else {
      tdmaps::for_each_element(space, map, tdmaps::Dummy3Sink<mem>{packed, -1}, label, o.hints);
    }
    space.fence();
    ranks.barrier();  // the time of the slowest rank
    rep.seconds.push_back(timer.seconds());
    progress.advance(r + 1);
  }
  progress.done();
  std::vector<double> shares_host;
  app::Timer combine;
  if (ranks.size() > 1) {
    ranks.sum_f64(&rep.energy, 1);
    if (write) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), shares);
      shares_host.assign(h.data(), h.data() + h.extent(0));
      ranks.sum_f64(shares_host.data(), static_cast<std::int64_t>(shares_host.size()));
    }
    rep.combine_seconds = combine.seconds();
    if (!ranks.root()) return rep;  // rank 0 writes and reports
  }

  if (write) {
    app::Timer write_timer;
    auto report = [&](std::int64_t done, std::int64_t) { progress.advance(done); };
    auto write_1d = [&](const auto& view, const std::string& note) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
      using T = typename decltype(h)::non_const_value_type;
      progress.phase("write " + o.output, static_cast<std::int64_t>(h.extent(0) * sizeof(T)), app::Progress::Unit::bytes);
      app::write_npy(o.output, h.data(), {static_cast<index_t>(h.extent(0))}, report);
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
    rep.write_seconds = write_timer.seconds();
  }
  return rep;
}

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

void print_report(const Options& o, const Input& in, const Report& rep, double total_seconds, int ranks) {
  const index_t triplets = tt::triplet_count(in.n);
  const double best = *std::min_element(rep.seconds.begin(), rep.seconds.end());
  double mean = 0;
  for (double s : rep.seconds) mean += s;
  mean /= static_cast<double>(rep.seconds.size());
  const double rate = best > 0 ? static_cast<double>(triplets) / best : 0.0;
  using Space = Kokkos::DefaultExecutionSpace;
  const std::string backend = Space::name();
  const bool atm = o.kernel == "atm";
  if (o.json) {
    app::ReportHeader h;
    h.input = o.input;
    h.seed = o.seed;
    h.n = in.n;
    h.d = 3;
    h.precision = o.precision;
    h.map = o.spec.label();
    h.block = o.block;
    h.kernel = o.kernel;
    h.backend = backend;
    h.concurrency = Space().concurrency();
    h.repeat = static_cast<int>(rep.seconds.size());
    h.elements = triplets;
    h.ms_mean = mean * 1e3;
    h.ms_min = best * 1e3;
    h.ms_write = rep.write_seconds >= 0 ? rep.write_seconds * 1e3 : -1;
    h.ms_total = total_seconds * 1e3;
    h.output = o.output;
    h.ranks = ranks;
    nlohmann::json j = app::report_json(h);
    j["mode"] = "triplets";
    j["ms_combine"] = rep.combine_seconds * 1e3;
    j["triplets"] = triplets;
    j["energy"] = atm ? finite_or_null(rep.energy) : nlohmann::json(nullptr);
    j["c9"] = atm ? nlohmann::json(o.params.c9) : nlohmann::json(nullptr);
    j["cutoff"] = atm ? finite_or_null(o.params.cutoff) : nlohmann::json(nullptr);
    j["cutoff_triple"] = atm ? finite_or_null(o.params.cutoff_triple) : nlohmann::json(nullptr);
    j["save_input"] = app::string_or_null(o.save_input);
    app::print_json_line(j);
    return;
  }
  std::cout << "tdmaps-triplets: n = " << in.n << " (" << in.source << "), kernel " << o.kernel << ", precision "
            << o.precision << ", map " << o.spec.label() << ", block " << o.block << ", backend " << backend << "\n";
  if (atm) {
    std::ostringstream e;
    e.precision(17);
    e << rep.energy;
    std::cout << "energy: " << e.str() << "\n";
  }
  std::cout << "triplets: " << triplets << "\n";
  std::cout << "compute: best " << fmt(best * 1e3) << " ms, mean " << fmt(mean * 1e3) << " ms over " << rep.seconds.size()
            << " run" << (rep.seconds.size() > 1 ? "s" : "") << "\n";
  std::cout << "triplets/s: " << fmt(rate) << "\n";
  if (!o.output.empty())
    std::cout << "write: " << fmt(rep.write_seconds * 1e3) << " ms: " << o.output << ": " << rep.output_note << "\n";
  std::cout << "total: " << fmt(total_seconds * 1e3) << " ms (input, compute, write)\n";
  std::cout.flush();
}

/// What MPI ranks must agree on before any work (common/ranks.hpp).
app::RunFacts run_facts(const Options& o, index_t n) {
  app::RunFacts f;
  f.add("--kernel", o.kernel).add("--precision", o.precision).add("--map", o.spec.label()).add("--block", o.block);
  f.add_real("--c9", o.params.c9).add_real("--cutoff", o.params.cutoff).add_real("--cutoff-triple", o.params.cutoff_triple);
  f.add("--repeat", o.repeat).add("--output", o.output.empty() ? std::string("not given") : o.output).add("n", n);
  if (o.input.empty()) f.add("--seed", std::to_string(o.seed)).add("input checksum", "none (--random)");
  else f.add("--seed", "not used").add_file("input checksum", o.input);
  return f;
}

int triplets_main(int argc, char* argv[], const app::Ranks& ranks) {
  app::Timer total_timer;
  app::set_app_name("triplets");
  app::install_signal_cleanup();
  const app::SplitArgs args = app::split_kokkos_args(argc, argv);

  Options o;
  CLI::App cli{"tdmaps-triplets: three-body sums over the triplets k < j < i < n of n particles under a tdmaps 3-D "
               "map: the Axilrod-Teller-Muto energy sum of c9 (1 + 3 cos g1 cos g2 cos g3) / (r_ij r_jk r_ki)^3 "
               "(and each particle's share), or the 3-D dummy kernels (the map alone).",
               "tdmaps-triplets"};
  cli.set_version_flag("--version", std::string("tdmaps-triplets ") + app::version());
  auto* random = cli.add_option("--random", o.random_text,
                                "N random particles, uniform in [0, N^(1/3))^3 (unit density; std::mt19937_64)");
  auto* input = cli.add_option("--input", o.input,
                               "particles from a .npy (float64/float32, C order) or .csv file: n rows of x, y, z");
  random->excludes(input);
  cli.add_option("--seed", o.seed_text, "seed of --random, 0 to 2^64 - 1 (default 1)")->needs(random);
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
  cli.add_option("--map", o.spec.map, "3-D map: " + tdmaps::join_names(tdmaps::map3_names()))
      ->check(CLI::IsMember(tdmaps::map3_names()))
      ->capture_default_str();
  cli.add_option("--cbrt", o.spec.cbrt, "lambda3's cube root: " + tdmaps::join_names(tdmaps::cbrt_names()))
      ->check(CLI::IsMember(tdmaps::cbrt_names()))
      ->capture_default_str();
  cli.add_option("--form", o.spec.form, "lambda3's form: " + tdmaps::join_names(tdmaps::form_names()))
      ->check(CLI::IsMember(tdmaps::form_names()))
      ->capture_default_str();
  cli.add_option("--block", o.block, "block side rho (a block of rho^3 triplets): 2, 4 or 8")
      ->check(CLI::IsMember({2, 4, 8}))
      ->capture_default_str();
  app::add_launch_options(cli, o.hints);
  cli.add_option("--repeat", o.repeat, "timed runs (best and mean are reported)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cli.add_flag("--json", o.json, "print one JSON object instead of text (no progress)");
  cli.add_flag("--quiet", o.quiet, "no progress or warnings on stderr");
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
      "Warnings go to stderr, or with --json to the line's \"warnings\" array; --quiet drops them.\n"
      "Exit status: 0 on success, 2 on a usage error (options and their values), 1 on a runtime failure (input, memory, disk).\n"
      "Progress of runs longer than ~2 s goes to stderr (a bar on a terminal, a line every 10 s otherwise);\n"
      "--quiet and --json silence it. An interrupted run (Ctrl-C, SIGTERM, SIGHUP) leaves no output file behind.\n"
      "Kokkos options (--kokkos-threads=N, --kokkos-device-id=N, ...) are passed to Kokkos; unknown ones are refused.");
  if (const auto status = app::parse_command_line(cli, args.rest)) return *status;
  check_options(o);
  app::configure_warnings(o.json, o.quiet || !ranks.root());
  if (ranks.size() > 1 && o.kernel != "atm")
    throw app::UsageError("MPI ranks split the ATM energy (--kernel atm); --kernel " + o.kernel + " runs on one rank");

  using Space = Kokkos::DefaultExecutionSpace;
  app::Matrix<double> file;
  const index_t n = input_rows(o, file);
  check_sizes<Space::memory_space>(o, n, false);

  if (ranks.size() > 1) ranks.set_run_facts(run_facts(o, n));
  app::KokkosArgv kargs(argv[0], app::rank_device_args(ranks, args.kokkos));
  Kokkos::ScopeGuard guard(kargs.argc(), kargs.argv());
  check_sizes<Space::memory_space>(o, n, true);
  app::Progress progress(o.quiet || o.json || !ranks.root());
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
