// tdmaps-edm: Euclidean distance matrix of a point set on a tdmaps map.
// See --help. Errors print "tdmaps-edm: error: ..." and exit non-zero; the
// output file is written atomically (temp file + rename), so a failed run
// never leaves a partial one.
#include "edm/edm.hpp"

#include "common/launch_options.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <tdmaps/tdmaps.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using tdmaps::index_t;
namespace app = tdmaps::app;
namespace edm = tdmaps::edm;
using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;

struct Options {
  std::string input;
  index_t random_n = -1;
  int dims = 3;
  std::uint64_t seed = 1;
  std::string output;
  std::string layout = "condensed";
  bool symmetric = false;
  tdmaps::MapSpec map;
  int block = 0;  // 0: the backend's default
  std::string kernel = "auto";
  std::string precision;  // empty: the input's (fp64 for csv and --random)
  int repeat = 1;
  bool json = false;
  bool reject_nonfinite = false;
  tdmaps::LaunchHints hints;  // --team-threads, --blocks-per-team
};

edm::Layout parse_layout(const std::string& s) {
  if (s == "packed") return edm::Layout::packed;
  if (s == "condensed") return edm::Layout::condensed;
  return edm::Layout::full;
}
edm::Kernel parse_kernel(const std::string& s) {
  if (s == "element") return edm::Kernel::element;
  if (s == "tile") return edm::Kernel::tile;
  if (s == "gemm") return edm::Kernel::gemm;
  if (s == "linear") return edm::Kernel::linear;
  return edm::Kernel::automatic;
}

/// Default block side 32 on every backend: on host the largest tile
/// amortises the per-block map and staging cost (a host team is one thread);
/// on the H100 the tile kernel ran 2.7x faster at 32 than at 16 (n = 65536,
/// d = 3, condensed: 14.3 vs 39.5 ms fp32), a 16-lane half warp writing only
/// 64 contiguous bytes.
int default_block() { return 32; }

struct Result {
  double ms_mean = 0, ms_min = 0, ms_warmup = 0;
  edm::Kernel kernel = edm::Kernel::element;
};

// Called from the generic lambda of with_map: the kernels are instantiated
// here, in a named template, never in the generic lambda itself.
template <class Map, class Real>
Result run_map(const Map& map, const Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace>& x,
               const Kokkos::View<Real*, MemSpace>& out, edm::Layout layout, edm::Kernel kind, bool symmetric,
               int repeat, const tdmaps::LaunchHints& hints) {
  ExecSpace space;
  Result r;
  r.kernel = edm::resolve_kernel<ExecSpace, Map, Real>(kind, static_cast<int>(x.extent(1)), map.domain.rho);
  // Warm-up, reported apart: first touch of the output pages, scratch
  // allocation, GPU module loading.
  app::Timer warm;
  edm::edm(space, x, out, map, layout, kind, symmetric, hints);
  space.fence();
  r.ms_warmup = 1e3 * warm.seconds();
  double sum = 0, best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < repeat; ++k) {
    app::Timer t;
    edm::edm(space, x, out, map, layout, kind, symmetric, hints);
    space.fence();
    const double s = t.seconds();
    sum += s;
    best = std::min(best, s);
  }
  r.ms_mean = 1e3 * sum / repeat;
  r.ms_min = 1e3 * best;
  return r;
}

template <class Real>
app::Matrix<Real> load_points(const Options& o) {
  if (!o.input.empty()) return app::read_matrix<Real>(o.input);
  app::Matrix<Real> m;
  m.rows = o.random_n;
  m.cols = o.dims;
  m.dtype = "random";
  const std::int64_t count = m.rows * m.cols;
  const std::int64_t bytes = count * static_cast<std::int64_t>(sizeof(Real));
  if (bytes > app::host_available_bytes())
    throw app::Error("the random points need " + app::format_bytes(bytes) + " of host memory, more than is available");
  m.values.resize(static_cast<std::size_t>(count));
  std::mt19937_64 gen(o.seed);
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  for (auto& v : m.values) v = static_cast<Real>(dist(gen));
  return m;
}

std::string json_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r;
}

template <class Real>
int run(const Options& o, std::vector<char*>& kokkos_args) {
  const edm::Layout layout = parse_layout(o.layout);
  const edm::Kernel kind = parse_kernel(o.kernel);
  const int rho = o.block > 0 ? o.block : default_block();
  if (!o.output.empty()) app::check_output_path(o.output);

  // Host side first (before Kokkos starts): read and check the input, and
  // every size in int64 (for --random before the points are generated).
  const std::string source = o.input.empty() ? "--random" : o.input;
  auto check_sizes = [&](index_t n, index_t d) {
    if (n == 0) throw app::Error(source + ": no points (the input has 0 rows)");
    if (d == 0) throw app::Error(source + ": points have 0 dimensions (the input has 0 columns)");
    if (n > tdmaps::max_side)
      throw app::Error("n = " + std::to_string(n) + " points exceed the largest supported side " +
                       std::to_string(tdmaps::max_side));
    if (edm::output_size(layout, n) > std::numeric_limits<index_t>::max() / static_cast<index_t>(sizeof(Real)))
      throw app::Error("the " + o.layout + " output of n = " + std::to_string(n) + " points overflows 64-bit byte counts");
  };
  if (o.input.empty()) check_sizes(o.random_n, o.dims);
  app::Matrix<Real> pts = load_points<Real>(o);
  const index_t n = pts.rows, d = pts.cols;
  check_sizes(n, d);
  const index_t elements = edm::output_size(layout, n);
  const index_t out_bytes = elements * static_cast<index_t>(sizeof(Real));
  const index_t in_bytes = n * d * static_cast<index_t>(sizeof(Real));
  if (o.reject_nonfinite) {
    for (index_t i = 0; i < n; ++i)
      for (index_t k = 0; k < d; ++k)
        if (!std::isfinite(pts.at(i, k))) {
          std::ostringstream v;
          v << pts.at(i, k);
          throw app::Error(source + ": row " + std::to_string(i) + " (0-based), column " + std::to_string(k) + " is " +
                           v.str() + " (--reject-nonfinite)");
        }
  }

  // Views below are destroyed before the guard finalizes Kokkos, also when
  // an exception leaves this function.
  int kargc = static_cast<int>(kokkos_args.size());
  Kokkos::ScopeGuard guard(kargc, kokkos_args.data());

  // Does it fit? (No chunking yet.) The device's free memory, and the host's
  // for the copy written to the file when the output lives elsewhere.
  app::check_fits<MemSpace>(out_bytes + in_bytes, "the " + o.layout + " output of n = " + std::to_string(n) + " points (" +
                                                      std::to_string(elements) + " elements) plus the input");
  if (!std::is_same<MemSpace, Kokkos::HostSpace>::value && !o.output.empty())
    app::check_fits<Kokkos::HostSpace>(out_bytes, "the host copy of the output for writing it");

  Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace> x(
      Kokkos::view_alloc(ExecSpace(), Kokkos::WithoutInitializing, "tdmaps::edm::points"), static_cast<std::size_t>(n),
      static_cast<std::size_t>(d));
  Kokkos::deep_copy(x, Kokkos::View<const Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           pts.values.data(), static_cast<std::size_t>(n), static_cast<std::size_t>(d)));
  pts.values = std::vector<Real>();
  // The full layout without --symmetric leaves the upper triangle alone:
  // zero it, so the file never holds uninitialised memory. (Transparent huge
  // pages for a host output were tried: no gain in the timed runs, and a
  // first touch between 0.23 and 1.6 s against a steady 0.48 s on 4 KiB pages
  // for 1 GB on the development VM, the kernel compacting memory on fault.)
  Kokkos::View<Real*, MemSpace> out(Kokkos::view_alloc(ExecSpace(), Kokkos::WithoutInitializing, "tdmaps::edm::out"),
                                    static_cast<std::size_t>(elements));
  if (layout == edm::Layout::full && !o.symmetric) Kokkos::deep_copy(ExecSpace(), out, Real(0));

  const tdmaps::Domain2 domain = edm::make_domain(n, rho, layout);
  Result res;
  Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace> cx = x;
  const bool tile_only = kind == edm::Kernel::tile;
  tdmaps::with_map(
      o.map, domain,
      [&](auto map) { res = run_map(map, cx, out, layout, kind, o.symmetric, o.repeat, o.hints); }, tile_only);

  const double gbps = app::gb_per_s(static_cast<double>(out_bytes), res.ms_mean * 1e-3);
  const double gbps_best = app::gb_per_s(static_cast<double>(out_bytes), res.ms_min * 1e-3);
  const std::string precision = std::is_same<Real, float>::value ? "fp32" : "fp64";

  if (!o.output.empty()) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    std::vector<std::int64_t> shape;
    if (layout == edm::Layout::full) shape = {n, n};
    else shape = {elements};
    app::write_npy(o.output, h.data(), shape);
  }

  if (o.json) {
    std::printf(
        "{\"n\": %lld, \"d\": %lld, \"map\": \"%s\", \"block\": %d, \"layout\": \"%s\", \"symmetric\": %s, "
        "\"kernel\": \"%s\", \"precision\": \"%s\", \"backend\": \"%s\", \"concurrency\": %d, \"repeat\": %d, "
        "\"bytes\": %lld, \"ms\": %.6f, \"ms_min\": %.6f, \"ms_warmup\": %.6f, \"gbps\": %.6f, \"gbps_best\": %.6f, "
        "\"output\": \"%s\"}\n",
        static_cast<long long>(n), static_cast<long long>(d), json_escape(o.map.label()).c_str(), rho, o.layout.c_str(),
        o.symmetric ? "true" : "false", edm::kernel_name(res.kernel), precision.c_str(), ExecSpace::name(),
        ExecSpace().concurrency(), o.repeat, static_cast<long long>(out_bytes), res.ms_mean, res.ms_min, res.ms_warmup, gbps, gbps_best,
        json_escape(o.output).c_str());
  } else {
    std::printf("tdmaps-edm: n = %lld, d = %lld, %s, map %s (block %d), %s kernel, %s layout%s, %s, %d thread(s)\n",
                static_cast<long long>(n), static_cast<long long>(d), precision.c_str(), o.map.label().c_str(), rho,
                edm::kernel_name(res.kernel), o.layout.c_str(), o.symmetric ? " (symmetric)" : "", ExecSpace::name(),
                ExecSpace().concurrency());
    std::printf("  output %s\n", app::format_bytes(out_bytes).c_str());
    std::printf("  time   %.3f ms mean, %.3f ms best over %d repetition(s); warm-up %.3f ms\n", res.ms_mean, res.ms_min,
                o.repeat, res.ms_warmup);
    std::printf("  rate   %.2f GB/s mean, %.2f GB/s best (output bytes / time)\n", gbps, gbps_best);
    if (!o.output.empty()) std::printf("  wrote  %s\n", o.output.c_str());
  }
  std::fflush(stdout);
  return 0;
}

const char* examples =
    "Examples:\n"
    "  tdmaps-edm --random 10000 --dims 3 --seed 7 --output d.npy\n"
    "      condensed (scipy.spatial.distance.pdist order) fp64 distances of 10,000 random points\n"
    "  tdmaps-edm --input points.npy --layout full --symmetric --output d.npy\n"
    "      n x n matrix, both halves; precision follows the file ('<f4' -> fp32, '<f8' -> fp64)\n"
    "  tdmaps-edm --random 16384 --dims 4 --map bb --kernel element --repeat 5 --json\n"
    "      time the element kernel on the bounding-box map, one JSON line of results\n"
    "  tdmaps-edm --input points.csv --precision fp32 --reject-nonfinite --output d.npy\n"
    "\n"
    "Kokkos options (--kokkos-threads=N, --kokkos-device-id=N, ...) are passed to Kokkos.\n"
    "OpenMP: OMP_PROC_BIND=spread OMP_PLACES=threads give the best host timings.\n";

}  // namespace

int main(int argc, char* argv[]) {
  app::set_app_name("edm");

  // Kokkos' own options go to Kokkos, the rest to CLI11 (which rejects
  // anything it does not know).
  std::vector<char*> kokkos_args{argv[0]}, cli_args{argv[0]};
  for (int a = 1; a < argc; ++a) (std::strncmp(argv[a], "--kokkos-", 9) == 0 ? kokkos_args : cli_args).push_back(argv[a]);

  Options o;
  CLI::App cli("tdmaps-edm: Euclidean distance matrix of n points in d dimensions, launched on a triangular map",
               "tdmaps-edm");
  cli.footer(examples);
  auto* in = cli.add_option("--input", o.input, "points: .npy (2-D, '<f4' or '<f8', C order) or .csv (n rows of d numbers)");
  auto* rnd = cli.add_option("--random", o.random_n, "N random points, uniform in [0, 1)^D (std::mt19937_64)")
                  ->check(CLI::NonNegativeNumber);
  auto* dims = cli.add_option("--dims", o.dims, "D for --random")->capture_default_str()->check(CLI::Range(1, 1 << 20));
  auto* seed = cli.add_option("--seed", o.seed, "seed for --random")->capture_default_str();
  in->excludes(rnd);
  dims->needs(rnd);
  seed->needs(rnd);
  cli.add_option("--output", o.output, "write the distances to this .npy (dtype = precision; shape (n(n+1)/2,) packed, "
                                       "(n(n-1)/2,) condensed, (n, n) full)");
  cli.add_option("--layout", o.layout, "output layout")
      ->capture_default_str()
      ->check(CLI::IsMember({"packed", "condensed", "full"}));
  cli.add_flag("--symmetric", o.symmetric, "full layout: write both halves (default: the lower triangle only)");
  cli.add_option("--map", o.map.map, "triangular map")->capture_default_str()->check(CLI::IsMember(tdmaps::map_names()));
  cli.add_option("--sqrt", o.map.sqrt, "lambda map: square root")
      ->capture_default_str()
      ->check(CLI::IsMember(tdmaps::sqrt_names()));
  cli.add_option("--form", o.map.form, "lambda map: exact (integer-corrected) or eps (the papers')")
      ->capture_default_str()
      ->check(CLI::IsMember(tdmaps::form_names()));
  cli.add_option("--block", o.block, "block side rho (default 32)")->check(CLI::IsMember({8, 16, 32}));
  cli.add_option("--kernel", o.kernel,
                 "element | tile | gemm (Kokkos Kernels) | linear (packed / condensed in memory order) | auto")
      ->capture_default_str()
      ->check(CLI::IsMember({"element", "tile", "gemm", "linear", "auto"}));
  cli.add_option("--precision", o.precision, "fp32 or fp64 (default: the .npy's dtype, fp64 otherwise)")
      ->check(CLI::IsMember({"fp32", "fp64"}));
  app::add_launch_options(cli, o.hints);
  cli.add_option("--repeat", o.repeat, "timed repetitions after one untimed warm-up")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cli.add_flag("--json", o.json, "print one JSON line of results instead of text");
  cli.add_flag("--reject-nonfinite", o.reject_nonfinite, "fail on a NaN or Inf coordinate (default: NaN propagates like SciPy)");

  try {
    cli.parse(static_cast<int>(cli_args.size()), cli_args.data());
  } catch (const CLI::CallForHelp& e) {
    return cli.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "tdmaps-edm: error: " << e.what() << "\nRun with --help for more information." << std::endl;
    return 2;
  }
  if (o.input.empty() && o.random_n < 0) {
    std::cerr << "tdmaps-edm: error: give the points with --input FILE or --random N\nRun with --help for more information."
              << std::endl;
    return 2;
  }
  if (!o.output.empty()) {
    const std::string& p = o.output;
    if (p.size() < 4 || p.compare(p.size() - 4, 4, ".npy") != 0) {
      std::cerr << "tdmaps-edm: error: --output " << p << ": the output is written as .npy; name it *.npy" << std::endl;
      return 2;
    }
  }
  if (o.symmetric && o.layout != "full") {
    std::cerr << "tdmaps-edm: error: --symmetric applies to --layout full only" << std::endl;
    return 2;
  }

  int rc = 1;
  try {
    if (o.random_n == 0) throw app::Error("--random 0: no points");
    // Precision: explicit, else the file's dtype.
    std::string precision = o.precision;
    if (precision.empty()) {
      precision = "fp64";
      if (!o.input.empty() && o.input.size() >= 4 && o.input.compare(o.input.size() - 4, 4, ".npy") == 0 &&
          app::read_npy_header(o.input).descr == "<f4")
        precision = "fp32";
    }
    rc = precision == "fp32" ? run<float>(o, kokkos_args) : run<double>(o, kokkos_args);
  } catch (const std::exception& e) {
    std::cerr << "tdmaps-edm: error: " << e.what() << std::endl;
    rc = 1;
  }
  return rc;
}
