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

#include "common/cli.hpp"
#include "common/launch_options.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"

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

struct Options {
  std::string random_text, dims_text, seed_text;  // parsed strictly (app::parse_int)
  index_t random_n = -1;
  std::string input;
  int dims = 3;
  std::uint64_t seed = 1;
  std::string density = "dense";
  double rmin = 0, rmax = 0;
  bool radii_given = false;
  std::string result = "count";
  std::string output;
  std::string save_input;
  tdmaps::MapSpec spec;
  int block = 32;
  std::string kernel = "tile";
  int repeat = 1;
  bool json = false;
  bool quiet = false;
  tdmaps::LaunchHints hints;  // --team-threads, --blocks-per-team
};

/// The spheres as the run uses them, host side.
struct Input {
  std::vector<float> xyzr;  ///< n x 4
  index_t n = 0;
  int dims = 3;
  std::string source;  ///< for the report
};

tc::Result result_of(const std::string& s) {
  if (s == "flags") return tc::Result::flags;
  if (s == "pairs") return tc::Result::pairs;
  if (s == "intflags") return tc::Result::intflags;
  if (s == "rowflags") return tc::Result::rowflags;
  if (s == "tileflags") return tc::Result::tileflags;
  return tc::Result::count;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string fmt(double v, int digits = 4) {
  std::ostringstream o;
  o.precision(digits);
  o << v;
  return o.str();
}

/// n and the dimension before any data: from --random, the .npy header, or
/// the whole .csv (read here; `m` keeps it).
void input_shape(const Options& o, index_t& n, int& dims, app::Matrix<float>& m) {
  if (o.input.empty()) {
    n = o.random_n;
    dims = o.dims;
    return;
  }
  std::int64_t rows = 0, cols = 0;
  if (app::is_npy_path(o.input)) {
    const app::NpyHeader h = app::read_npy_header(o.input);
    if (h.shape.size() != 2) {
      m = app::read_matrix<float>(o.input);  // the reader's own message
      return;
    }
    rows = h.shape[0];
    cols = h.shape[1];
  } else {
    m = app::read_matrix<float>(o.input);
    rows = m.rows;
    cols = m.cols;
  }
  if (rows == 0) throw app::Error(o.input + ": no spheres (0 rows); need at least 1 (1 sphere has 0 pairs)");
  if (cols != 2 && cols != 4)
    throw app::Error(o.input + ": " + std::to_string(cols) +
                     " columns; expected 2 (x, r: intervals) or 4 (x, y, z, r: spheres)");
  if (rows > tdmaps::max_side)
    throw app::Error(o.input + ": " + std::to_string(rows) + " spheres exceed the largest supported n = " +
                     std::to_string(tdmaps::max_side));
  n = rows;
  dims = cols == 2 ? 1 : 3;
}

Input load(const Options& o, bool dims_given, app::Matrix<float>& m) {
  Input in;
  if (!o.input.empty()) {
    if (m.values.empty()) m = app::read_matrix<float>(o.input);
    in.dims = m.cols == 2 ? 1 : 3;
    if (dims_given && o.dims != in.dims)
      throw app::UsageError("--dims " + std::to_string(o.dims) + " but " + o.input + " has " + std::to_string(m.cols) +
                            " columns (" + std::to_string(in.dims) + "-D)");
    in.n = m.rows;
    in.xyzr.assign(static_cast<std::size_t>(in.n) * 4, 0.0f);
    for (index_t r = 0; r < in.n; ++r) {
      float* row = &in.xyzr[static_cast<std::size_t>(r) * 4];
      for (int c = 0; c < in.dims; ++c) row[c] = m.at(r, c);
      row[3] = m.at(r, m.cols - 1);
      const std::string bad = tc::check_sphere(row);
      if (!bad.empty()) throw app::Error(o.input + ": row " + std::to_string(r) + " (0-based data row): " + bad);
    }
    in.source = o.input + " (" + m.dtype + ")";
    m = app::Matrix<float>();
    return in;
  }
  in.dims = o.dims;
  in.n = o.random_n;
  tc::RadiusRange r = tc::default_radii(o.dims, o.density == "dense" ? tc::Density::dense : tc::Density::sparse);
  if (o.radii_given) r = {o.rmin, o.rmax};
  in.xyzr = tc::random_spheres_host(in.n, in.dims, r, o.seed);
  in.source = "random (seed " + std::to_string(o.seed) + ", radii [" + fmt(r.r_min) + ", " + fmt(r.r_max) + "]" +
              (o.radii_given ? "" : ", " + o.density) + ")";
  return in;
}

/// (n, D + 1) float32: the columns an --input file would have.
void save_input(const std::string& path, const Input& in) {
  const int cols = in.dims + 1;
  std::vector<float> out(static_cast<std::size_t>(in.n) * static_cast<std::size_t>(cols));
  for (index_t r = 0; r < in.n; ++r) {
    for (int c = 0; c < in.dims; ++c) out[static_cast<std::size_t>(r * cols + c)] = in.xyzr[static_cast<std::size_t>(4 * r + c)];
    out[static_cast<std::size_t>(r * cols + in.dims)] = in.xyzr[static_cast<std::size_t>(4 * r + 3)];
  }
  app::write_npy(path, out.data(), {in.n, cols});
}

struct Report {
  index_t count = 0;
  std::vector<double> seconds;
  double write_seconds = -1;
  std::string output_note;
};

/// a * b, or max when it does not fit (a, b >= 0).
index_t mul_sat(index_t a, index_t b) {
  return b != 0 && a > std::numeric_limits<index_t>::max() / b ? std::numeric_limits<index_t>::max() : a * b;
}
std::string bytes_text(index_t b) {
  return b == std::numeric_limits<index_t>::max() ? std::string("more than 2^63 bytes") : app::format_bytes(b);
}

/// The --result array's words and bytes per word for n spheres (0 words for
/// count; pairs: unknown before the count).
void result_size(const std::string& result, index_t n, index_t& items, index_t& item_bytes) {
  items = 0;
  item_bytes = 4;
  if (result == "flags") items = tc::flag_words(n);
  else if (result == "rowflags") items = tc::row_flag_words(n);
  else if (result == "tileflags") items = tc::tile_flag_words(n);
  else if (result == "intflags") items = tc::pair_count(n);
}

/// Memory and disk of a run, checked in milliseconds before anything is
/// allocated or generated: host (the spheres, the file's host copy of the
/// result) before Kokkos starts, the device once it has.
template <class mem>
void check_sizes(const Options& o, index_t n, bool device_side) {
  constexpr bool same_memory = std::is_same<mem, Kokkos::HostSpace>::value;
  index_t items, item_bytes;
  result_size(o.result, n, items, item_bytes);
  const index_t result_bytes = mul_sat(items, item_bytes);
  const index_t spheres = mul_sat(n, 16);  // x, y, z, r as float32
  const bool write = !o.output.empty();
  const std::string what = o.result == "count" ? std::string("the spheres") : "the " + o.result + " output (" +
                                                                                   bytes_text(result_bytes) + ") and the spheres";
  if (!device_side) {
    // Host: the spheres as read / generated, their device copy on host
    // backends, and the result (host backends) or its copy for the file.
    index_t host = spheres;
    if (same_memory) host = mul_sat(spheres, 2) + result_bytes;
    else if (write) host = spheres + result_bytes;
    if (host < 0 || result_bytes == std::numeric_limits<index_t>::max()) host = std::numeric_limits<index_t>::max();
    const index_t host_free = app::host_available_bytes();
    if (host > host_free)
      throw app::Error(what + " of n = " + std::to_string(n) + " spheres need " + bytes_text(host) +
                       " of host memory but only " + app::format_bytes(host_free) +
                       " is available; use --result count, or fewer spheres");
    if (write && o.result != "pairs") app::check_filesystem_space(o.output, result_bytes + 128, "the " + o.result + " output");
    if (!o.save_input.empty()) app::check_filesystem_space(o.save_input, spheres + 128, "the spheres");
    return;
  }
  if (same_memory) return;
  index_t device = spheres + result_bytes;
  if (result_bytes == std::numeric_limits<index_t>::max()) device = result_bytes;
  const index_t device_free = app::free_memory_bytes<mem>();
  if (device > device_free)
    throw app::Error(what + " of n = " + std::to_string(n) + " spheres need " + bytes_text(device) + " of " +
                     mem::name() + " memory but only " + app::format_bytes(device_free) +
                     " is free; use --result count, or fewer spheres");
}

template <class Space, class Map>
Report run_map(const Space& space, const Map& map, const Options& o, const Input& in, app::Progress& progress) {
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
  progress.phase("compute", o.repeat, app::Progress::Unit::runs);
  for (int r = 0; r < o.repeat; ++r) {
    space.fence();
    app::Timer timer;
    try {
      rep.count = tc::collide(space, tc::ConstSpheres<mem>(spheres), map, result, kernel, out, o.hints);
    } catch (const std::length_error& e) {
      throw app::Error(std::string("the pair list does not fit the free memory (about 48 bytes per pair on the ") +
                       mem::name() + " side, 16 on the host): " + e.what() + "; use --result count or flags");
    }
    space.fence();
    rep.seconds.push_back(timer.seconds());
    progress.advance(r + 1);
  }
  progress.done();

  if (write) {
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

void print_report(const Options& o, const Input& in, const Report& rep, double total_seconds) {
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
    nlohmann::json j;
    j["tool"] = app::program_name();
    j["version"] = app::version();
    j["input"] = app::string_or_null(o.input);
    j["seed"] = o.input.empty() ? nlohmann::json(o.seed) : nlohmann::json(nullptr);
    j["n"] = in.n;
    j["d"] = in.dims;
    j["precision"] = "fp32";
    j["map"] = o.spec.label();
    j["block"] = o.block;
    j["kernel"] = o.kernel;
    j["result"] = o.result;
    j["backend"] = backend;
    j["concurrency"] = Space().concurrency();
    j["repeat"] = rep.seconds.size();
    j["pairs_tested"] = pairs;
    j["count"] = rep.count;
    j["fraction"] = fraction;
    j["ms"] = mean * 1e3;
    j["ms_min"] = best * 1e3;
    j["ms_warmup"] = nullptr;
    j["ms_write"] = rep.write_seconds >= 0 ? nlohmann::json(rep.write_seconds * 1e3) : nlohmann::json(nullptr);
    j["ms_total"] = total_seconds * 1e3;
    j["pairs_per_second"] = rate;
    j["output"] = app::string_or_null(o.output);
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

int collide_main(int argc, char* argv[]) {
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
  auto* rmin = cli.add_option("--rmin", o.rmin, "smallest radius of --random (with --rmax, instead of --density)")
                   ->needs(random);
  auto* rmax = cli.add_option("--rmax", o.rmax, "largest radius of --random, <= 1")->needs(random);
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
  if (o.radii_given && !(o.rmin >= 0 && o.rmin <= o.rmax && o.rmax <= 1))
    throw app::UsageError("--rmin " + fmt(o.rmin) + " --rmax " + fmt(o.rmax) + ": need 0 <= rmin <= rmax <= 1");
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
  if (!o.save_input.empty()) app::check_output_path(o.save_input);
  if (o.kernel == "tile" && o.spec.map == "utm")
    throw app::UsageError("--map utm is a thread-space map and cannot run the tile kernel; use --kernel element");

  using Space = Kokkos::DefaultExecutionSpace;
  app::Matrix<float> file;
  index_t n = 0;
  int file_dims = 3;
  input_shape(o, n, file_dims, file);
  check_sizes<Space::memory_space>(o, n, false);

  app::KokkosArgv kargs(argv[0], args.kokkos);
  Kokkos::ScopeGuard guard(kargs.argc(), kargs.argv());
  check_sizes<Space::memory_space>(o, n, true);
  app::Progress progress(o.quiet || o.json);
  Input in = load(o, dims->count() > 0, file);
  if (!o.save_input.empty()) save_input(o.save_input, in);
  if (in.n == 1) app::warn("1 sphere has no pairs: the count is 0 and the outputs are empty");
  const Space space;
  const tdmaps::Domain2 domain(in.n, o.block, tdmaps::Triangle::strict_lower);
  Report rep;
  tdmaps::with_map(
      o.spec, domain, [&](auto map) { rep = run_map(space, map, o, in, progress); }, o.kernel == "tile");
  print_report(o, in, rep, total_timer.seconds());
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  return app::run_main([&] { return collide_main(argc, argv); });
}
