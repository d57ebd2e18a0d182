// tdmaps-collide: all-pairs collision detection of spheres (3-D) or intervals
// (1-D) under any tdmaps map; see apps/collision/README.md for the kernels
// and the output layouts, and --help for the options.
//
// Sizes: n = 0 is an error (no spheres: almost certainly a mistake upstream);
// n = 1 is allowed and has 0 pairs (empty outputs), so pipelines over filtered
// data need no special case. The error convention of apps/common/cli.hpp (exit
// 2 for usage errors, 1 for runtime failures); every size (host and device
// memory, disk) is checked before anything is allocated or generated; outputs
// appear complete or not at all, also when the run is interrupted
// (apps/common/output_file.hpp).
#include <tdmaps/collision.hpp>

#include "cli_input.hpp"
#include "cli_ranks.hpp"
#include "cli_sizes.hpp"
#include "common/cli.hpp"
#include "common/launch_options.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"
#include "common/rank_device.hpp"
#include "common/ranks.hpp"

#include <tdmaps/launch/dispatch.hpp>

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace app = tdmaps::app;
namespace tc = tdmaps::collision;
using tdmaps::index_t;

using namespace tdmaps::collide_cli;

struct Report {
  index_t count = 0;
  std::vector<double> seconds;
  double write_seconds = -1;
  double combine_seconds = 0;  // MPI ranks: the results met on rank 0
  std::string output_note;
};

template <class Space, class Map>
Report run_map(const Space& space, const Map& map, const Options& o, const Input& in, const app::Ranks& ranks,
               app::Progress& progress) {
  using mem = typename Space::memory_space;
  constexpr bool same_memory = std::is_same<mem, Kokkos::HostSpace>::value;
  const index_t n = in.n;
  const tc::Result result = result_of(o.result);
  const tc::Kernel kernel = o.kernel == "tile"     ? tc::Kernel::tile
                            : o.kernel == "linear" ? tc::Kernel::linear
                                                   : tc::Kernel::element;
  const bool write = !o.output.empty();

  // Outputs (their sizes were checked against free memory by check_sizes).
  tc::Output<mem> out;
  if (result == tc::Result::flags) {
    out.flags = Kokkos::View<std::uint32_t*, mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collide::flags"), tc::flag_words(n));
  } else if (result == tc::Result::rowflags) {
    out.rowflags = Kokkos::View<std::uint32_t*, mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collide::rowflags"), tc::row_flag_words(n));
  } else if (result == tc::Result::tileflags) {
    out.tileflags = Kokkos::View<std::uint32_t*, mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collide::tileflags"), tc::tile_flag_words(n));
  } else if (result == tc::Result::intflags) {
    out.intflags = Kokkos::View<std::int32_t*, mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collide::intflags"), tc::pair_count(n));
  } else if (result == tc::Result::pairs) {
    // Device: keys 8 + sort working space ~24 + the (k, 2) list 16 bytes per
    // pair, rounded up; host: the list's mirror when it is written.
    const index_t device_free = app::free_memory_bytes<mem>();
    const index_t host_free = app::host_available_bytes();
    const index_t dev_cap = device_free / 48;
    const index_t host_cap = write && !same_memory ? host_free / 16 : dev_cap;
    out.max_pairs = std::min(dev_cap, host_cap);
  }

  const tc::Spheres<mem> spheres = tc::to_device(space, in.xyzr);
  Report rep;
  // MPI ranks: each its omega range of the league (cli_ranks.hpp).
  const bool split = ranks.size() > 1;
  tdmaps::OmegaRange range;
  if constexpr (tdmaps::is_block_space_map_v<Map> && !tdmaps::is_multi_launch_map_v<Map>)
    range = tdmaps::omega_range(map, ranks.rank(), ranks.size());
  progress.phase("compute", o.repeat, app::Progress::Unit::runs);
  for (int r = 0; r < o.repeat; ++r) {
    space.fence();
    ranks.barrier();
    app::Timer timer;
    try {
      const tc::ConstSpheres<mem> cs(spheres);
      rep.count = split ? tc::collide(space, cs, map, range, result, kernel, out, o.hints)
                        : tc::collide(space, cs, map, result, kernel, out, o.hints);
    } catch (const std::length_error& e) {
      throw app::Error(std::string("the pair list does not fit the free memory (about 48 bytes per pair on the ") +
                       mem::name() + " side, 16 on the host): " + e.what() + "; use --result count or flags");
    }
    space.fence();
    ranks.barrier();  // the time of the slowest rank
    rep.seconds.push_back(timer.seconds());
    progress.advance(r + 1);
  }
  progress.done();
  RankResult all;
  if (split) {
    app::Timer combine;
    all = combine_ranks(ranks, result, out, rep.count);
    rep.combine_seconds = combine.seconds();
    rep.count = all.count;
    if (!ranks.root()) return rep;  // rank 0 writes and reports
  }
  if (write && split) {
    app::Timer write_timer;
    auto report = [&](std::int64_t done, std::int64_t) { progress.advance(done); };
    const index_t items = result == tc::Result::pairs ? static_cast<index_t>(all.pairs.size() / 2)
                                                      : static_cast<index_t>(all.words.size());
    progress.phase("write " + o.output, items * (result == tc::Result::pairs ? 16 : 4), app::Progress::Unit::bytes);
    if (result == tc::Result::pairs) {
      app::check_filesystem_space(o.output, items * 16 + 128, "the pair list");
      app::write_npy(o.output, all.pairs.data(), {items, 2}, report);
    } else if (result == tc::Result::intflags) {
      app::write_npy(o.output, reinterpret_cast<const std::int32_t*>(all.words.data()), {items}, report);
    } else {
      app::write_npy(o.output, all.words.data(), {items}, report);
    }
    rep.output_note = std::to_string(items) + " " + o.result + " entries of " + std::to_string(ranks.size()) + " ranks";
    progress.done();
    rep.write_seconds = write_timer.seconds();
  } else if (write) {
    app::Timer write_timer;
    auto report = [&](std::int64_t done, std::int64_t) { progress.advance(done); };
    auto write_words = [&](const auto& view, const std::string& note) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
      using T = typename decltype(h)::non_const_value_type;
      progress.phase("write " + o.output, static_cast<std::int64_t>(h.extent(0) * sizeof(T)), app::Progress::Unit::bytes);
      app::write_npy(o.output, h.data(), {static_cast<index_t>(h.extent(0))}, report);
      rep.output_note = note;
    };
    if (result == tc::Result::flags) {
      write_words(out.flags, "uint32 (" + std::to_string(out.flags.extent(0)) + ",) bit-packed flags");
    } else if (result == tc::Result::rowflags) {
      write_words(out.rowflags, "uint32 (" + std::to_string(out.rowflags.extent(0)) + ",) row-aligned bit flags");
    } else if (result == tc::Result::tileflags) {
      write_words(out.tileflags, "uint32 (" + std::to_string(out.tileflags.extent(0)) + ",) tiled bit flags");
    } else if (result == tc::Result::intflags) {
      write_words(out.intflags, "int32 (" + std::to_string(out.intflags.extent(0)) + ",) flags");
    } else {
      const index_t rows = static_cast<index_t>(out.pairs.extent(0));
      app::check_filesystem_space(o.output, rows * 16 + 128, "the pair list");
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.pairs);
      progress.phase("write " + o.output, rows * 16, app::Progress::Unit::bytes);
      app::write_npy(o.output, h.data(), {rows, 2}, report);
      rep.output_note = "int64 (" + std::to_string(rows) + ", 2) pairs (i, j), j < i, sorted";
    }
    progress.done();
    rep.write_seconds = write_timer.seconds();
  }
  return rep;
}

void print_report(const Options& o, const Input& in, const Report& rep, double total_seconds, int ranks) {
  const index_t pairs = tc::pair_count(in.n);
  const double best = *std::min_element(rep.seconds.begin(), rep.seconds.end());
  double mean = 0;
  for (double s : rep.seconds) mean += s;
  mean /= static_cast<double>(rep.seconds.size());
  const double rate = best > 0 ? static_cast<double>(pairs) / best : 0.0;
  const double fraction = pairs > 0 ? static_cast<double>(rep.count) / static_cast<double>(pairs) : 0.0;
  using Space = Kokkos::DefaultExecutionSpace;
  const std::string backend = Space::name();
  if (o.json) {
    app::ReportHeader h;
    h.input = o.input;
    h.seed = o.seed;
    h.n = in.n;
    h.d = in.dims;
    h.precision = "fp32";
    h.map = o.spec.label();
    h.block = o.block;
    h.kernel = o.kernel;
    h.backend = backend;
    h.concurrency = Space().concurrency();
    h.repeat = static_cast<int>(rep.seconds.size());
    h.elements = pairs;
    h.ms_mean = mean * 1e3;
    h.ms_min = best * 1e3;
    h.ms_write = rep.write_seconds >= 0 ? rep.write_seconds * 1e3 : -1;
    h.ms_total = total_seconds * 1e3;
    h.output = o.output;
    h.ranks = ranks;
    nlohmann::json j = app::report_json(h);
    j["mode"] = "collide";
    j["ms_combine"] = rep.combine_seconds * 1e3;
    j["result"] = o.result;
    j["count"] = rep.count;
    j["fraction"] = fraction;
    j["save_input"] = app::string_or_null(o.save_input);
    app::print_json_line(j);
    return;
  }
  std::cout << "tdmaps-collide: n = " << in.n << " (" << in.dims << "-D, " << in.source << "), map " << o.spec.label()
            << ", kernel " << o.kernel << ", block " << o.block << ", backend " << backend << "\n";
  std::cout << "count: " << rep.count << "\n";
  std::cout << "pairs tested: " << pairs << " (colliding fraction " << fmt(fraction) << ")\n";
  std::cout << "compute: best " << fmt(best * 1e3) << " ms, mean " << fmt(mean * 1e3) << " ms over " << rep.seconds.size()
            << " run" << (rep.seconds.size() > 1 ? "s" : "") << "\n";
  std::cout << "pairs/s: " << fmt(rate) << "\n";
  if (!o.output.empty())
    std::cout << "write: " << fmt(rep.write_seconds * 1e3) << " ms: " << o.output << ": " << rep.output_note << "\n";
  std::cout << "total: " << fmt(total_seconds * 1e3) << " ms (input, compute, write)\n";
  std::cout.flush();
}

/// What MPI ranks must agree on before any work (common/ranks.hpp).
app::RunFacts run_facts(const Options& o, index_t n) {
  app::RunFacts f;
  f.add("--result", o.result).add("--kernel", o.kernel).add("--map", o.spec.label()).add("--block", o.block);
  f.add("--repeat", o.repeat).add("--output", o.output.empty() ? std::string("not given") : o.output).add("n", n);
  f.add("--dims", o.dims_text.empty() ? std::string("not given") : o.dims_text);
  if (o.input.empty()) {
    f.add("--seed", std::to_string(o.seed)).add("--density", o.radii_given ? std::string("not used") : o.density);
    f.add("--rmin", o.radii_given ? o.rmin_text : std::string("not given"));
    f.add("--rmax", o.radii_given ? o.rmax_text : std::string("not given")).add("input checksum", "none (--random)");
  } else {
    f.add("--seed", "not used").add_file("input checksum", o.input);
  }
  return f;
}

int collide_main(int argc, char* argv[], const app::Ranks& ranks) {
  app::Timer total_timer;
  app::set_app_name("collide");
  app::install_signal_cleanup();
  const app::SplitArgs args = app::split_kokkos_args(argc, argv);

  Options o;
  CLI::App cli{"tdmaps-collide: all-pairs collision detection of n spheres (3-D) or intervals (1-D): counts, "
               "bit flags, int flags or the list of pairs i > j with |c_i - c_j| < r_i + r_j, under any tdmaps map.",
               "tdmaps-collide"};
  cli.set_version_flag("--version", std::string("tdmaps-collide ") + app::version());
  auto* random = cli.add_option("--random", o.random_text, "N random spheres (centres uniform in [0,1)^D)");
  auto* input = cli.add_option("--input", o.input,
                               "spheres from a .npy (float32/float64, C order) or .csv file: n rows of x, r (1-D) or "
                               "x, y, z, r (3-D)");
  random->excludes(input);
  auto* dims = cli.add_option("--dims", o.dims_text, "1 (intervals) or 3 (spheres, default); with --input, taken from the columns");
  cli.add_option("--seed", o.seed_text, "seed of --random (std::mt19937_64), 0 to 2^64 - 1 (default 1)")->needs(random);
  auto* density = cli.add_option("--density", o.density,
                                 "radius preset of --random: dense (3-D r in [0.05,0.15], 1-D [0.005,0.015]) or sparse "
                                 "(3-D [0.01,0.03], 1-D [5e-5,1.5e-4])")
                      ->check(CLI::IsMember({"dense", "sparse"}))
                      ->capture_default_str()
                      ->needs(random);
  auto* rmin = cli.add_option("--rmin", o.rmin_text, "smallest radius of --random (with --rmax, instead of --density)")
                   ->needs(random);
  auto* rmax = cli.add_option("--rmax", o.rmax_text, "largest radius of --random, <= 1")->needs(random);
  rmin->needs(rmax);
  rmax->needs(rmin);
  density->excludes(rmin)->excludes(rmax);
  cli.add_option("--result", o.result,
                 "count, flags (uint32 words, bit T(i-1)+j), rowflags (uint32 words, row i from word "
                 "R(i) = sum of ceil(k/32) over k < i, bit j at word R(i)+j/32, bit j%32), tileflags (uint32 words, "
                 "32 per 32x32 tile, tile T(i/32)+j/32, word i%32, bit j%32), pairs (int64 (k, 2)), "
                 "intflags (int32 per pair)")
      ->check(CLI::IsMember({"count", "flags", "rowflags", "tileflags", "pairs", "intflags"}))
      ->capture_default_str();
  cli.add_option("--output", o.output, "write the --result array to FILE.npy (complete or not at all)");
  cli.add_option("--save-input", o.save_input, "write the --random spheres to FILE.npy, (n, D+1) float32")->needs(random);
  cli.add_option("--map", o.spec.map, "map: " + tdmaps::join_names(tdmaps::map_names()))
      ->check(CLI::IsMember(tdmaps::accepted_map_names()))
      ->capture_default_str();
  cli.add_option("--sqrt", o.spec.sqrt, "lambda's square root: " + tdmaps::join_names(tdmaps::sqrt_names()))
      ->check(CLI::IsMember(tdmaps::sqrt_names()))
      ->capture_default_str();
  cli.add_option("--form", o.spec.form, "lambda's form: " + tdmaps::join_names(tdmaps::form_names()))
      ->check(CLI::IsMember(tdmaps::form_names()))
      ->capture_default_str();
  app::add_launch_options(cli, o.hints);
  cli.add_option("--block", o.block, "block side rho (threads per block per dimension): 8, 16 or 32")
      ->check(CLI::IsMember({8, 16, 32}))
      ->capture_default_str();
  cli.add_option("--kernel", o.kernel,
                 "tile (spheres staged in team scratch; block-space maps), element (any map, utm included) or "
                 "linear (the pairs in packed order, consecutive pairs per thread)")
      ->check(CLI::IsMember({"tile", "element", "linear"}))
      ->capture_default_str();
  cli.add_option("--repeat", o.repeat, "timed runs (best and mean are reported)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cli.add_flag("--json", o.json, "print one JSON object instead of text (no progress)");
  cli.add_flag("--quiet", o.quiet, "no progress on stderr");
  cli.footer(
      "Examples:\n"
      "  tdmaps-collide --random 30720 --map lambda --repeat 10\n"
      "  tdmaps-collide --random 100000 --density sparse --result pairs --output pairs.npy --json\n"
      "  tdmaps-collide --random 4096 --dims 1 --rmin 0.001 --rmax 0.002 --seed 7 --save-input s.npy\n"
      "  tdmaps-collide --input spheres.npy --result flags --output flags.npy --map bb --block 16\n"
      "  tdmaps-collide --random 30720 --result rowflags --output rows.npy\n"
      "  tdmaps-collide --random 30720 --result tileflags --output tiles.npy --block 32\n"
      "  tdmaps-collide --input intervals.csv --result intflags --output f.npy --map utm --kernel element\n"
      "\n"
      "Pairs are (i, j) with j < i, packed index p = i (i - 1) / 2 + j (row-major); spheres touching exactly\n"
      "do not collide. n = 1 is allowed (0 pairs); n = 0 is an error.\n"
      "Exit status: 0 on success, 2 on a usage error (options and their values), 1 on a runtime failure (input, memory, disk).\n"
      "Progress of runs longer than ~2 s goes to stderr (a bar on a terminal, a line every 10 s otherwise);\n"
      "--quiet and --json silence it. An interrupted run (Ctrl-C, SIGTERM, SIGHUP) leaves no output file behind.\n"
      "Kokkos options (--kokkos-threads=N, --kokkos-device-id=N, ...) are passed to Kokkos; unknown ones are refused.");
  if (const auto status = app::parse_command_line(cli, args.rest)) return *status;
  o.radii_given = rmin->count() > 0;

  if (o.random_text.empty() && o.input.empty()) throw app::UsageError("give --random N or --input FILE");
  if (!o.random_text.empty())
    o.random_n = app::parse_int("--random", o.random_text, 1, tdmaps::max_side, "the number of spheres");
  if (!o.dims_text.empty()) {
    o.dims = static_cast<int>(app::parse_int("--dims", o.dims_text, 1, 3, "the dimension"));
    if (o.dims == 2) throw app::UsageError("--dims 2: the dimension must be 1 (intervals) or 3 (spheres)");
  }
  if (!o.seed_text.empty()) o.seed = app::parse_uint64("--seed", o.seed_text, "the seed");
  if (o.radii_given) {
    const std::string rule = "need 0 <= rmin <= rmax <= 1";
    o.rmin = app::parse_double("--rmin", o.rmin_text, 0, 1, rule);
    o.rmax = app::parse_double("--rmax", o.rmax_text, 0, 1, rule);
    if (o.rmin > o.rmax) throw app::UsageError("--rmin " + o.rmin_text + " --rmax " + o.rmax_text + ": " + rule);
  }
  const bool writes = !o.output.empty();
  if (writes && o.result == "count")
    throw app::UsageError("--output needs --result flags, rowflags, tileflags, pairs or intflags (a count is printed, "
                          "not written)");
  if (writes && !ends_with(o.output, ".npy")) throw app::UsageError("--output " + o.output + ": must be a .npy file");
  if (!o.save_input.empty() && !ends_with(o.save_input, ".npy"))
    throw app::UsageError("--save-input " + o.save_input + ": must be a .npy file");
  app::check_not_same_file("--output", o.output, "--input", o.input);
  app::check_not_same_file("--output", o.output, "--save-input", o.save_input);
  if (writes) app::check_output_path(o.output);
  app::configure_warnings(o.json, o.quiet || !ranks.root());
  if (!o.save_input.empty()) app::check_output_path(o.save_input);
  if (ranks.size() > 1 && (o.kernel == "linear" || o.spec.map == "rec" || o.spec.map == "hadouken" ||
                           o.spec.map == "h" || o.spec.map == "utm"))
    throw app::UsageError("MPI ranks split the league of a one-launch block-space map into omega ranges: --map "
                          "lambda, bb or rb with --kernel tile or element (got --map " + o.spec.map + ", --kernel " +
                          o.kernel + ")");
  if (o.kernel == "tile" && o.spec.map == "utm")
    throw app::UsageError("--map utm is a thread-space map and cannot run the tile kernel; use --kernel element");

  using Space = Kokkos::DefaultExecutionSpace;
  app::Matrix<double> file;
  index_t n = 0;
  int file_dims = 3;
  input_shape(o, n, file_dims, file);
  check_sizes<Space::memory_space>(o, n, false);

  if (ranks.size() > 1) ranks.set_run_facts(run_facts(o, n));
  app::KokkosArgv kargs(argv[0], app::rank_device_args(ranks, args.kokkos));
  Kokkos::ScopeGuard guard(kargs.argc(), kargs.argv());
  check_sizes<Space::memory_space>(o, n, true);
  app::Progress progress(o.quiet || o.json || !ranks.root());
  Input in = load(o, dims->count() > 0, file);
  ranks.agree();  // every check above passed on every rank; no work before
  if (!o.save_input.empty() && ranks.root()) save_input(o.save_input, in);
  if (in.n == 1) app::warning("1 sphere has no pairs: the count is 0 and the outputs are empty");
  const Space space;
  const tdmaps::Domain2 domain(in.n, o.block, tdmaps::Triangle::strict_lower);
  Report rep;
  tdmaps::with_map(
      o.spec, domain, [&](auto map) { rep = run_map(space, map, o, in, ranks, progress); }, o.kernel == "tile");
  if (!ranks.root()) return 0;
  print_report(o, in, rep, total_timer.seconds(), ranks.size());
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  app::Ranks ranks(argc, argv);  // MPI_Init under mpirun, before Kokkos
  return ranks.run([&] { return collide_main(argc, argv, ranks); });
}
