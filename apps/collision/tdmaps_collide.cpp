// tdmaps-collide: all-pairs collision detection of spheres (3-D) or intervals
// (1-D) under any tdmaps map; see apps/collision/collision.hpp for the kernels
// and the output layouts, and --help for the options.
//
// Sizes: n = 0 is an error (no spheres: almost certainly a mistake upstream);
// n = 1 is allowed and has 0 pairs (empty outputs), so pipelines over filtered
// data need no special case. Everything that can fail on the input or the
// options fails before Kokkos starts; outputs are written atomically (temp file
// + rename), so a failed run never leaves a partial file.
#include "collision/collision.hpp"
#include "common/launch_options.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"

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

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
      continue;
    }
    o += c;
  }
  return o + "\"";
}

Input load(const Options& o, bool dims_given) {
  Input in;
  if (!o.input.empty()) {
    app::Matrix<float> m;
    try {
      m = app::read_matrix<float>(o.input);
    } catch (const app::Error& e) {
      app::fail(e.what());
    }
    if (m.rows == 0) app::fail(o.input + ": no spheres (0 rows); need at least 1 (1 sphere has 0 pairs)");
    if (m.cols != 2 && m.cols != 4)
      app::fail(o.input + ": " + std::to_string(m.cols) + " columns; expected 2 (x, r: intervals) or 4 (x, y, z, r: spheres)");
    in.dims = m.cols == 2 ? 1 : 3;
    if (dims_given && o.dims != in.dims)
      app::fail(o.input + ": --dims " + std::to_string(o.dims) + " but the file has " + std::to_string(m.cols) +
                " columns (" + std::to_string(in.dims) + "-D)");
    if (m.rows > tdmaps::max_side)
      app::fail(o.input + ": " + std::to_string(m.rows) + " spheres exceed the largest supported n = " +
                std::to_string(tdmaps::max_side));
    in.n = m.rows;
    in.xyzr.assign(static_cast<std::size_t>(in.n) * 4, 0.0f);
    for (index_t r = 0; r < in.n; ++r) {
      float* row = &in.xyzr[static_cast<std::size_t>(r) * 4];
      for (int c = 0; c < in.dims; ++c) row[c] = m.at(r, c);
      row[3] = m.at(r, m.cols - 1);
      const std::string bad = tc::check_sphere(row);
      if (!bad.empty()) app::fail(o.input + ": row " + std::to_string(r) + " (0-based data row): " + bad);
    }
    in.source = o.input + " (" + m.dtype + ")";
    return in;
  }
  if (o.random_n == 0) app::fail("--random 0: no spheres; need n >= 1 (n = 1 gives 0 pairs)");
  if (o.random_n < 0) app::fail("--random " + std::to_string(o.random_n) + ": the number of spheres must be positive");
  if (o.random_n > tdmaps::max_side)
    app::fail("--random " + std::to_string(o.random_n) + " exceeds the largest supported n = " +
              std::to_string(tdmaps::max_side));
  in.dims = o.dims;
  in.n = o.random_n;
  tc::RadiusRange r = tc::default_radii(o.dims, o.density == "dense" ? tc::Density::dense : tc::Density::sparse);
  if (o.radii_given) r = {o.rmin, o.rmax};
  // Radii beyond 1 would leave the 2^-24 grid on which the result is exact.
  if (!(r.r_min >= 0 && r.r_min <= r.r_max && r.r_max <= 1))
    app::fail("--rmin " + fmt(r.r_min) + " --rmax " + fmt(r.r_max) + ": need 0 <= rmin <= rmax <= 1");
  // The host vector plus its device copy.
  const index_t bytes = in.n * 16;
  if (bytes > app::host_available_bytes())
    app::fail("--random " + std::to_string(in.n) + ": the spheres need " + app::format_bytes(bytes) + " but only " +
              app::format_bytes(app::host_available_bytes()) + " are available");
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
  std::string output_note;
};

/// a * b <= limit without overflow (a, b >= 0).
bool fits(index_t a, index_t b, index_t limit) { return b == 0 || a <= limit / b; }

template <class Space, class Map>
Report run_map(const Space& space, const Map& map, const Options& o, const Input& in) {
  using mem = typename Space::memory_space;
  constexpr bool same_memory = std::is_same<mem, Kokkos::HostSpace>::value;
  const index_t n = in.n;
  const tc::Result result = result_of(o.result);
  const tc::Kernel kernel = o.kernel == "tile"     ? tc::Kernel::tile
                            : o.kernel == "linear" ? tc::Kernel::linear
                                                   : tc::Kernel::element;
  const bool write = !o.output.empty();

  // Outputs: size check in int64 against free memory before allocating.
  tc::Output<mem> out;
  const index_t device_free = app::free_memory_bytes<mem>();
  const index_t host_free = app::host_available_bytes();
  auto check = [&](index_t items, index_t item_bytes, const std::string& what) {
    const index_t host_bytes_needed = write && !same_memory ? item_bytes : 0;
    if (!fits(items, item_bytes, device_free) || !fits(items, host_bytes_needed, host_free)) {
      const bool dev = !fits(items, item_bytes, device_free);
      const std::string need = fits(items, item_bytes, std::numeric_limits<index_t>::max())
                                   ? app::format_bytes(items * item_bytes)
                                   : std::to_string(items) + " x " + std::to_string(item_bytes) + " bytes";
      throw app::Error(what + " of n = " + std::to_string(n) + " spheres needs " + need + " but only " +
                       app::format_bytes(dev ? device_free : host_free) + " of " + (dev ? mem::name() : "host") +
                       " memory is free; use --result count, or fewer spheres");
    }
  };
  if (result == tc::Result::flags) {
    check(tc::flag_words(n), 4, "the flags output");
    out.flags = Kokkos::View<std::uint32_t*, mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collide::flags"), tc::flag_words(n));
  } else if (result == tc::Result::rowflags) {
    check(tc::row_flag_words(n), 4, "the rowflags output");
    out.rowflags = Kokkos::View<std::uint32_t*, mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collide::rowflags"), tc::row_flag_words(n));
  } else if (result == tc::Result::tileflags) {
    check(tc::tile_flag_words(n), 4, "the tileflags output");
    out.tileflags = Kokkos::View<std::uint32_t*, mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collide::tileflags"), tc::tile_flag_words(n));
  } else if (result == tc::Result::intflags) {
    check(tc::pair_count(n), 4, "the intflags output");
    out.intflags = Kokkos::View<std::int32_t*, mem>(
        Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::collide::intflags"), tc::pair_count(n));
  } else if (result == tc::Result::pairs) {
    // Device: keys 8 + sort working space ~24 + the (k, 2) list 16 bytes per
    // pair, rounded up; host: the list's mirror when it is written.
    const index_t dev_cap = device_free / 48;
    const index_t host_cap = write && !same_memory ? host_free / 16 : dev_cap;
    out.max_pairs = std::min(dev_cap, host_cap);
  }

  const tc::Spheres<mem> spheres = tc::to_device(space, in.xyzr);
  Report rep;
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
  }

  if (write) {
    if (result == tc::Result::flags) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.flags);
      app::write_npy(o.output, h.data(), {static_cast<index_t>(h.extent(0))});
      rep.output_note = "uint32 (" + std::to_string(h.extent(0)) + ",) bit-packed flags";
    } else if (result == tc::Result::rowflags) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.rowflags);
      app::write_npy(o.output, h.data(), {static_cast<index_t>(h.extent(0))});
      rep.output_note = "uint32 (" + std::to_string(h.extent(0)) + ",) row-aligned bit flags";
    } else if (result == tc::Result::tileflags) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.tileflags);
      app::write_npy(o.output, h.data(), {static_cast<index_t>(h.extent(0))});
      rep.output_note = "uint32 (" + std::to_string(h.extent(0)) + ",) tiled bit flags";
    } else if (result == tc::Result::intflags) {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.intflags);
      app::write_npy(o.output, h.data(), {static_cast<index_t>(h.extent(0))});
      rep.output_note = "int32 (" + std::to_string(h.extent(0)) + ",) flags";
    } else {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.pairs);
      app::write_npy(o.output, h.data(), {static_cast<index_t>(h.extent(0)), 2});
      rep.output_note = "int64 (" + std::to_string(h.extent(0)) + ", 2) pairs (i, j), j < i, sorted";
    }
  }
  return rep;
}

void print_report(const Options& o, const Input& in, const Report& rep) {
  const index_t pairs = tc::pair_count(in.n);
  const double best = *std::min_element(rep.seconds.begin(), rep.seconds.end());
  double mean = 0;
  for (double s : rep.seconds) mean += s;
  mean /= static_cast<double>(rep.seconds.size());
  const double rate = best > 0 ? static_cast<double>(pairs) / best : 0.0;
  const double fraction = pairs > 0 ? static_cast<double>(rep.count) / static_cast<double>(pairs) : 0.0;
  const std::string backend = Kokkos::DefaultExecutionSpace::name();
  if (o.json) {
    std::cout << "{\"n\": " << in.n << ", \"dims\": " << in.dims << ", \"input\": " << json_string(in.source)
              << ", \"map\": " << json_string(o.spec.label()) << ", \"kernel\": " << json_string(o.kernel)
              << ", \"block\": " << o.block << ", \"result\": " << json_string(o.result) << ", \"backend\": "
              << json_string(backend) << ", \"pairs_tested\": " << pairs << ", \"count\": " << rep.count
              << ", \"fraction\": " << fraction << ", \"repeat\": " << rep.seconds.size()
              << ", \"seconds_best\": " << best << ", \"seconds_mean\": " << mean << ", \"pairs_per_second\": " << rate
              << ", \"output\": " << (o.output.empty() ? std::string("null") : json_string(o.output)) << "}"
              << std::endl;
    return;
  }
  std::cout << "tdmaps-collide: n = " << in.n << " (" << in.dims << "-D, " << in.source << "), map " << o.spec.label()
            << ", kernel " << o.kernel << ", block " << o.block << ", backend " << backend << "\n";
  std::cout << "count: " << rep.count << "\n";
  std::cout << "pairs tested: " << pairs << " (colliding fraction " << fmt(fraction) << ")\n";
  std::cout << "time: best " << fmt(best * 1e3) << " ms, mean " << fmt(mean * 1e3) << " ms over " << rep.seconds.size()
            << " run" << (rep.seconds.size() > 1 ? "s" : "") << "\n";
  std::cout << "pairs/s: " << fmt(rate) << "\n";
  if (!o.output.empty()) std::cout << "output: " << o.output << ": " << rep.output_note << "\n";
  std::cout.flush();
}

}  // namespace

int main(int argc, char* argv[]) {
  app::set_app_name("collide");
  // Kokkos' own options (--kokkos-threads=4, ...) go to Kokkos, the rest to CLI11.
  std::vector<std::string> kokkos_args{argv[0]};
  std::vector<std::string> cli_args;
  for (int a = argc - 1; a >= 1; --a) {  // CLI11 parses a reversed vector
    const std::string s = argv[a];
    (s.rfind("--kokkos-", 0) == 0 ? kokkos_args : cli_args).push_back(s);
  }
  std::reverse(kokkos_args.begin() + 1, kokkos_args.end());

  Options o;
  CLI::App cli{"tdmaps-collide: all-pairs collision detection of n spheres (3-D) or intervals (1-D): counts, "
               "bit flags, int flags or the list of pairs i > j with |c_i - c_j| < r_i + r_j, under any tdmaps map."};
  cli.set_version_flag("--version", "tdmaps-collide 0.1.0");
  auto* random = cli.add_option("--random", o.random_n, "N random spheres (centres uniform in [0,1)^D)");
  auto* input = cli.add_option("--input", o.input,
                               "spheres from a .npy (float32/float64, C order) or .csv file: n rows of x, r (1-D) or "
                               "x, y, z, r (3-D)");
  random->excludes(input);
  auto* dims = cli.add_option("--dims", o.dims, "1 (intervals) or 3 (spheres); with --input, taken from the columns")
                   ->check(CLI::IsMember({1, 3}));
  cli.add_option("--seed", o.seed, "seed of --random (std::mt19937_64)")->capture_default_str()->needs(random);
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
  cli.add_option("--output", o.output, "write the --result array to FILE.npy (atomically)");
  cli.add_option("--save-input", o.save_input, "write the --random spheres to FILE.npy, (n, D+1) float32")->needs(random);
  cli.add_option("--map", o.spec.map, "map: " + tdmaps::impl::join(tdmaps::map_names()))
      ->check(CLI::IsMember(tdmaps::map_names()))
      ->capture_default_str();
  cli.add_option("--sqrt", o.spec.sqrt, "lambda's square root: " + tdmaps::impl::join(tdmaps::sqrt_names()))
      ->check(CLI::IsMember(tdmaps::sqrt_names()))
      ->capture_default_str();
  cli.add_option("--form", o.spec.form, "lambda's form: " + tdmaps::impl::join(tdmaps::form_names()))
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
  cli.add_flag("--json", o.json, "print one JSON object instead of text");
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
      "do not collide. n = 1 is allowed (0 pairs); n = 0 is an error. Kokkos options (--kokkos-threads=N, ...)\n"
      "are passed to Kokkos.");
  try {
    cli.parse(cli_args);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e);
  }
  o.radii_given = rmin->count() > 0;

  if (random->count() == 0 && input->count() == 0) app::fail("give --random N or --input FILE (see --help)");
  const bool writes = !o.output.empty();
  if (writes && o.result == "count")
    app::fail("--output needs --result flags, rowflags, tileflags, pairs or intflags (a count is printed, not written)");
  try {
    if (writes) {
      if (!ends_with(o.output, ".npy")) throw app::Error(o.output + ": --output must be a .npy file");
      app::check_output_path(o.output);
    }
    if (!o.save_input.empty()) {
      if (!ends_with(o.save_input, ".npy")) throw app::Error(o.save_input + ": --save-input must be a .npy file");
      app::check_output_path(o.save_input);
    }
  } catch (const app::Error& e) {
    app::fail(e.what());
  }
  if (o.kernel == "tile" && o.spec.map == "utm")
    app::fail("--map utm is a thread-space map and cannot run the tile kernel; use --kernel element");

  Input in;
  try {
    in = load(o, dims->count() > 0);
    if (!o.save_input.empty()) save_input(o.save_input, in);
  } catch (const std::exception& e) {
    app::fail(e.what());
  }
  if (in.n == 1) app::warn("1 sphere has no pairs: the count is 0 and the outputs are empty");

  std::vector<char*> kargv;
  for (auto& s : kokkos_args) kargv.push_back(&s[0]);
  int kargc = static_cast<int>(kargv.size());
  kargv.push_back(nullptr);
  Kokkos::initialize(kargc, kargv.data());
  std::string error;
  {
    try {
      using Space = Kokkos::DefaultExecutionSpace;
      const Space space;
      const tdmaps::Domain2 domain(in.n, o.block, tdmaps::Triangle::strict_lower);
      Report rep;
      tdmaps::with_map(
          o.spec, domain, [&](auto map) { rep = run_map(space, map, o, in); }, o.kernel == "tile");
      print_report(o, in, rep);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  Kokkos::finalize();
  if (!error.empty()) app::fail(error);
  return 0;
}
