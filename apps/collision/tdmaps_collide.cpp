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
#include "common/cli_options.hpp"
#include "common/kokkos_run.hpp"
#include "common/run_scope.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"
#include "common/ranks.hpp"

#include <tdmaps/maps/dispatch.hpp>

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
  app::Timing times;  // ms_combine: MPI ranks, the results met on rank 0
  std::string output_note;
};

template <class Space, class Map>
Report run_map(const Space& space, const Map& map, const Options& o, const Input& in, const app::Ranks& ranks,
               app::Progress& progress) {
  using mem = typename Space::memory_space;
  constexpr bool same_memory = std::is_same<mem, Kokkos::HostSpace>::value;
  const index_t n = in.n;
  const tc::Result result = *tc::result_from_name(o.result);  // CLI11 checked the names
  const tc::Kernel kernel = *tc::kernel_from_name(o.kernel);
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
  space.fence();
  rep.times = app::timed_runs("compute", o.run.repeat, false, ranks, progress, [&] {
    try {
      const tc::ConstSpheres<mem> cs(spheres);
      rep.count = split ? tc::collide(space, cs, map, range, result, kernel, out, o.run.hints)
                        : tc::collide(space, cs, map, result, kernel, out, o.run.hints);
    } catch (const std::length_error& e) {
      throw app::Error(std::string("the pair list does not fit the free memory (about 48 bytes per pair on the ") +
                       mem::name() + " side, 16 on the host): " + e.what() + "; use --result count or flags");
    }
    space.fence();
  });
  RankResult all;
  if (split) {
    app::Timer combine;
    all = combine_ranks(ranks, result, out, rep.count);
    rep.times.ms_combine = 1e3 * combine.seconds();
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
    rep.times.ms_write = 1e3 * write_timer.seconds();
  } else if (write) {
    app::Timer write_timer;
    auto write_words = [&](const auto& view, const std::string& note) {
      app::write_view_npy(o.output, view, {static_cast<index_t>(view.extent(0))}, progress);
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
      app::write_view_npy(o.output, out.pairs, {rows, 2}, progress);
      rep.output_note = "int64 (" + std::to_string(rows) + ", 2) pairs (i, j), j < i, sorted";
    }
    progress.done();
    rep.times.ms_write = 1e3 * write_timer.seconds();
  }
  return rep;
}

void print_report(const Options& o, const Input& in, const Report& rep, double total_seconds, int ranks) {
  const index_t pairs = tc::pair_count(in.n);
  const app::Timing& t = rep.times;
  const double fraction = pairs > 0 ? static_cast<double>(rep.count) / static_cast<double>(pairs) : 0.0;
  if (o.run.json) {
    const app::RunShape shape{in.n, in.dims, "fp32", o.kernel, pairs};
    nlohmann::json j = app::report_json(
        app::report_header(o.in, o.spec.label(), o.block, ranks, shape, t, total_seconds * 1e3, o.output));
    j["mode"] = "collide";
    j["ms_combine"] = t.ms_combine;
    j["result"] = o.result;
    j["count"] = rep.count;
    j["fraction"] = fraction;
    j["save_input"] = app::string_or_null(o.save_input);
    app::print_json_line(j);
    return;
  }
  using app::fmt;
  std::cout << "tdmaps-collide: n = " << in.n << " (" << in.dims << "-D, " << in.source << "), map " << o.spec.label()
            << ", kernel " << o.kernel << ", block " << o.block << ", backend " << Kokkos::DefaultExecutionSpace::name()
            << "\n";
  std::cout << "count: " << rep.count << "\n";
  std::cout << "pairs tested: " << pairs << " (colliding fraction " << fmt(fraction) << ")\n";
  app::print_times(t, pairs, "pairs", o.output, rep.output_note, total_seconds * 1e3);
}

/// What MPI ranks must agree on before any work (common/ranks.hpp).
app::RunFacts run_facts(const Options& o, index_t n) {
  app::RunFacts f;
  f.add("--result", o.result).add("--kernel", o.kernel).add("--map", o.spec.label()).add("--block", o.block);
  f.add("--repeat", o.run.repeat).add("--output", o.output.empty() ? std::string("not given") : o.output).add("n", n);
  f.add("--dims", o.dims_text.empty() ? std::string("not given") : o.dims_text);
  if (o.in.input.empty()) {
    f.add("--seed", std::to_string(o.in.seed)).add("--density", o.radii_given ? std::string("not used") : o.density);
    f.add("--rmin", o.radii_given ? o.rmin_text : std::string("not given"));
    f.add("--rmax", o.radii_given ? o.rmax_text : std::string("not given")).add("input checksum", "none (--random)");
  } else {
    f.add("--seed", "not used").add_file("input checksum", o.in.input);
  }
  return f;
}

int collide_main(int argc, char* argv[], const app::Ranks& ranks) {
  app::Timer total_timer;
  const app::SplitArgs args = app::start_tool("collide", argc, argv);

  Options o;
  CLI::App cli{"tdmaps-collide: all-pairs collision detection of n spheres (3-D) or intervals (1-D): counts, "
               "bit flags, int flags or the list of pairs i > j with |c_i - c_j| < r_i + r_j, under any tdmaps map.",
               "tdmaps-collide"};
  cli.set_version_flag("--version", std::string("tdmaps-collide ") + app::version());
  auto* random =
      app::add_input_options(cli, o.in,
                             "spheres from a .npy (float32/float64, C order) or .csv / .txt file: n rows of x, r "
                             "(1-D) or x, y, z, r (3-D)",
                             "N random spheres (centres uniform in [0,1)^D)");
  auto* dims = cli.add_option("--dims", o.dims_text, "1 (intervals) or 3 (spheres, default); with --input, taken from the columns");
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
      ->check(CLI::IsMember(tc::result_names()))
      ->capture_default_str();
  cli.add_option("--output", o.output, "write the --result array to FILE.npy (complete or not at all)");
  cli.add_option("--save-input", o.save_input, "write the --random spheres to FILE.npy, (n, D+1) float32")->needs(random);
  app::add_map_options(cli, o.spec, o.block);
  cli.add_option("--kernel", o.kernel,
                 "tile (spheres staged in team scratch; block-space maps), element (any map, utm included) or "
                 "linear (the pairs in packed order, consecutive pairs per thread)")
      ->check(CLI::IsMember(tc::kernel_names()))
      ->capture_default_str();
  app::add_run_options(cli, o.run, "timed runs (best and mean are reported)");
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
      "do not collide. n = 1 is allowed (0 pairs); n = 0 is an error.\n" +
      std::string(app::conventions_help()));
  if (const auto status = app::parse_command_line(cli, args.rest)) return *status;
  o.radii_given = rmin->count() > 0;

  app::check_input_options(o.in, tdmaps::max_side, "spheres");
  if (!o.dims_text.empty()) {
    o.dims = static_cast<int>(app::parse_int("--dims", o.dims_text, 1, 3, "the dimension"));
    if (o.dims == 2) throw app::UsageError("--dims 2: the dimension must be 1 (intervals) or 3 (spheres)");
  }
  if (o.radii_given) {
    const std::string rule = "need 0 <= rmin <= rmax <= 1";
    o.rmin = app::parse_double("--rmin", o.rmin_text, 0, 1, rule);
    o.rmax = app::parse_double("--rmax", o.rmax_text, 0, 1, rule);
    if (o.rmin > o.rmax) throw app::UsageError("--rmin " + o.rmin_text + " --rmax " + o.rmax_text + ": " + rule);
  }
  if (!o.output.empty() && o.result == "count")
    throw app::UsageError("--output needs --result flags, rowflags, tileflags, pairs or intflags (a count is printed, "
                          "not written)");
  app::check_npy_output("--output", o.output, {{"--input", o.in.input}, {"--save-input", o.save_input}});
  app::check_npy_output("--save-input", o.save_input);
  app::configure_warnings(o.run.json, o.run.quiet || !ranks.root());
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
  app::RunScope scope(
      ranks, argv[0], args.kokkos, o.run, [&](bool device) { check_sizes<Space::memory_space>(o, n, device); },
      [&] { return run_facts(o, n); });
  app::Progress& progress = scope.progress;
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
