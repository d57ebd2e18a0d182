// tdmaps-edm: Euclidean distance matrix of a point set on a tdmaps map.
// See --help. The error convention of apps/common/cli.hpp (exit 2 for usage
// errors, 1 for runtime failures, "tdmaps-edm: error: ..."); every size
// (host and device memory, the output file's disk space) is checked before
// anything is allocated; the output appears complete or not at all, also
// when the run is interrupted (apps/common/output_file.hpp).
#include <tdmaps/edm.hpp>

#include "cli_common.hpp"
#include "cli_modes.hpp"
#include "common/cli.hpp"
#include "common/launch_options.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"
#include "common/output_file.hpp"
#include "common/progress.hpp"
#include "common/rank_device.hpp"
#include "common/ranks.hpp"

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <tdmaps/tdmaps.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using tdmaps::index_t;
namespace app = tdmaps::app;
namespace edm = tdmaps::edm;
using namespace tdmaps::edm_cli;

// Called from the generic lambda of with_map: the kernels are instantiated
// here, in a named template, never in the generic lambda itself.
template <class Map, class Real>
Timing run_map(const Map& map, const Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace>& x,
               const Kokkos::View<Real*, MemSpace>& out, edm::Layout layout, edm::Kernel kind, bool symmetric,
               int repeat, const tdmaps::LaunchHints& hints, app::Progress& progress) {
  ExecSpace space;
  Timing r;
  // Warm-up, reported apart: first touch of the output pages, scratch
  // allocation, GPU module loading.
  progress.phase("compute (warm-up run)", 1, app::Progress::Unit::runs);
  app::Timer warm;
  edm::edm(space, x, out, map, layout, kind, symmetric, hints);
  space.fence();
  const double warm_s = warm.seconds();
  r.ms_warmup = 1e3 * warm_s;
  progress.phase("compute", repeat, app::Progress::Unit::runs, warm_s);
  double sum = 0, best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < repeat; ++k) {
    app::Timer t;
    edm::edm(space, x, out, map, layout, kind, symmetric, hints);
    space.fence();
    const double s = t.seconds();
    sum += s;
    best = std::min(best, s);
    progress.advance(k + 1);
  }
  progress.done();
  r.ms_mean = 1e3 * sum / repeat;
  r.ms_min = 1e3 * best;
  return r;
}

template <class Map, class Real>
edm::Kernel resolve(const Map&, edm::Kernel kind, int d, int rho) {
  return edm::resolve_kernel<ExecSpace, Map, Real>(kind, d, rho);
}

/// The largest d whose tile-kernel scratch fits at block side rho (0: none).
template <class Real>
int largest_tile_d(int rho) {
  int lo = 0, hi = 1 << 20;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (edm::tile_fits<ExecSpace, Real>(rho, mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

template <class Real>
int run(const Options& o, const app::Ranks& ranks, const std::vector<std::string>& kokkos_options,
        const std::string& argv0) {
  app::Timer total_timer;
  const edm::Layout layout = parse_layout(o.layout);
  const edm::Kernel kind = parse_kernel(o.kernel);
  const int rho = o.block;
  constexpr index_t real_bytes = static_cast<index_t>(sizeof(Real));
  const std::string precision = std::is_same<Real, float>::value ? "fp32" : "fp64";
  const std::string source = o.input.empty() ? "--random " + o.random_text : o.input;

  // n and d before any data: from --random, the .npy header, or the .csv.
  app::Matrix<Real> pts;
  index_t n = o.random_n, d = o.dims;
  if (!o.input.empty()) {
    if (app::is_npy_path(o.input)) {
      const app::NpyHeader h = app::read_npy_header(o.input);
      n = h.shape.size() == 2 ? h.shape[0] : 0;
      d = h.shape.size() == 2 ? h.shape[1] : 0;
      if (h.shape.size() != 2) pts = app::read_matrix<Real>(o.input);  // the reader's own message
    } else {
      pts = app::read_matrix<Real>(o.input);
      n = pts.rows;
      d = pts.cols;
    }
  }
  if (n == 0) throw app::Error(source + ": no points (the input has 0 rows)");
  if (d == 0) throw app::Error(source + ": points have 0 dimensions (the input has 0 columns)");
  if (n > tdmaps::max_side)
    throw app::Error(source + ": n = " + std::to_string(n) + " points exceed the largest supported side " +
                     std::to_string(tdmaps::max_side));
  if (d > (index_t(1) << 20)) throw app::Error(source + ": d = " + std::to_string(d) + " dimensions exceed 2^20");
  if (ranks.size() > 1) ranks.set_run_facts(run_facts(o, precision, n, d));
  if (!o.reduce.what.empty())
    return run_reduce_mode<Real>(o, ranks, kokkos_options, argv0, n, d, pts, source, precision, total_timer);
  if (o.symmetric && layout != edm::Layout::full) throw app::UsageError("--symmetric applies to --layout full only");
  if (kind == edm::Kernel::linear && layout == edm::Layout::full)
    throw app::UsageError("--kernel linear writes the packed and condensed layouts; --layout full takes "
                          "--kernel tile, element or auto");

  // Every size in saturating int64 arithmetic, checked in milliseconds,
  // before anything is allocated or generated.
  const index_t elements = edm::output_size(layout, n);
  const index_t out_bytes = mul_sat(elements, real_bytes);
  const index_t in_bytes = mul_sat(mul_sat(n, d), real_bytes);
  constexpr bool host_memory = std::is_same<MemSpace, Kokkos::HostSpace>::value;
  // Host: the points as read or generated, the Kokkos copy on host backends,
  // and the output on host backends or its host copy for the file.
  index_t host_need = in_bytes;
  if (host_memory) host_need = add_sat(host_need, add_sat(in_bytes, out_bytes));
  else if (!o.output.empty()) host_need = add_sat(host_need, out_bytes);
  const index_t host_free = app::host_available_bytes();
  std::string smaller_hint = "use fewer points";
  if (precision == "fp64") smaller_hint += ", --precision fp32";
  if (layout == edm::Layout::full) smaller_hint += ", --layout condensed";
  const std::string what = "the " + o.layout + " output of n = " + std::to_string(n) + " points (" +
                           std::to_string(elements) + " " + precision + " elements, " + bytes_text(out_bytes) + ")";
  // A packed or condensed output may still stream (below): judged there.
  if (host_need > host_free && (layout == edm::Layout::full || (host_memory && o.budget < 0)))
    throw app::Error(what + " and the input need " + bytes_text(host_need) + " of host memory but only " +
                     app::format_bytes(host_free) + " is available; " + smaller_hint);
  const index_t file_bytes = add_sat(out_bytes, 128);  // + the .npy header
  if (!o.output.empty()) app::check_filesystem_space(o.output, file_bytes, what);

  // Views below are destroyed before the guard finalizes Kokkos, also when
  // an exception leaves this function.
  app::KokkosArgv kargs(argv0, kokkos_options);
  Kokkos::ScopeGuard guard(kargs.argc(), kargs.argv());
  app::Progress progress(o.quiet || o.json);

  const tdmaps::Domain2 domain = edm::make_domain(n, rho, layout);
  const bool tile_only = kind == edm::Kernel::tile;
  edm::Kernel resolved = kind;
  tdmaps::with_map(
      o.map, domain, [&](auto map) { resolved = resolve<decltype(map), Real>(map, kind, static_cast<int>(d), rho); },
      tile_only);
  if (resolved == edm::Kernel::tile && !edm::tile_fits<ExecSpace, Real>(rho, static_cast<int>(d))) {
    std::string hint = "use --kernel auto or element";
    if (edm::has_gemm()) hint += " (or gemm)";
    for (int smaller : {16, 8})
      if (smaller < rho && edm::tile_fits<ExecSpace, Real>(smaller, static_cast<int>(d)))
        hint += ", or --block " + std::to_string(smaller) + " (its tile fits up to d = " +
                std::to_string(largest_tile_d<Real>(smaller)) + ")";
    throw app::UsageError("--kernel tile: the tile of " + std::to_string(rho) + " + " + std::to_string(rho) + " " +
                          precision + " points of d = " + std::to_string(d) + " needs " +
                          std::to_string(edm::tile_scratch_bytes<ExecSpace, Real>(rho, static_cast<int>(d))) +
                          " bytes of team scratch, more than " + ExecSpace::name() + " allows at block side " +
                          std::to_string(rho) + " (d <= " + std::to_string(largest_tile_d<Real>(rho)) + "); " + hint);
  }
  if (resolved == edm::Kernel::gemm && !edm::has_gemm())
    throw app::Error("--kernel gemm needs Kokkos Kernels, which this build did not find; use --kernel auto");
  index_t device_need = add_sat(in_bytes, out_bytes);
  if (resolved == edm::Kernel::gemm)
    device_need = add_sat(device_need, edm::gemm_workspace_bytes<Real>(n, d));
  {
    const index_t device_free = host_memory ? host_free - in_bytes : app::free_memory_bytes<MemSpace>();
    const index_t budget = o.budget > 0 ? std::min(o.budget, device_free) : device_free;
    if (ranks.size() > 1 || (layout != edm::Layout::full && (device_need > budget || host_need > host_free))) {
      tdmaps::edm_cli::StreamPlan plan{n, d, layout, elements, in_bytes, budget, host_free, o.output, what};
      const Timing t = stream_matrix<Real>(o, ranks, plan, domain, pts, source, progress);
      return report_stream(o, ranks, plan, precision, t, total_timer);
    }
    if (device_need > budget)
      throw app::Error(what + ", the input and the kernel's workspace need " + bytes_text(device_need) +
                       " of device memory, more than --max-device-memory " + app::format_bytes(budget) +
                       "; the packed and condensed layouts stream in chunks past it (--layout packed or condensed)");
  }
  if (!host_memory) {
    const index_t device_free = app::free_memory_bytes<MemSpace>();
    if (device_need > device_free)
      throw app::Error(what + ", the input and the kernel's workspace need " + bytes_text(device_need) + " of " +
                       MemSpace::name() + " memory but only " + app::format_bytes(device_free) +
                       " is free; " + smaller_hint);
  } else if (add_sat(host_need, device_need - in_bytes - out_bytes) > host_free) {
    throw app::Error(what + ", the input and the kernel's workspace need " +
                     bytes_text(add_sat(host_need, device_need - in_bytes - out_bytes)) + " of host memory but only " +
                     app::format_bytes(host_free) + " is available");
  }

  auto x = load_points<Real>(o, n, d, pts, source);
  // The full layout without --symmetric leaves the upper triangle alone:
  // zero it, so the file never holds uninitialised memory.
  Kokkos::View<Real*, MemSpace> out(Kokkos::view_alloc(ExecSpace(), Kokkos::WithoutInitializing, "tdmaps::edm::out"),
                                    static_cast<std::size_t>(elements));
  if (layout == edm::Layout::full && !o.symmetric) Kokkos::deep_copy(ExecSpace(), out, Real(0));

  Timing res;
  Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace> cx = x;
  tdmaps::with_map(
      o.map, domain,
      [&](auto map) { res = run_map(map, cx, out, layout, kind, o.symmetric, o.repeat, o.hints, progress); },
      tile_only);

  if (!o.output.empty()) {
    app::Timer write_timer;
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    std::vector<std::int64_t> shape;
    if (layout == edm::Layout::full) shape = {n, n};
    else shape = {elements};
    progress.phase("write " + o.output, out_bytes, app::Progress::Unit::bytes);
    app::write_npy(o.output, h.data(), shape,
                   [&](std::int64_t done, std::int64_t) { progress.advance(done); });
    progress.done();
    res.ms_write = 1e3 * write_timer.seconds();
  }

  const double gbps = app::gb_per_s(static_cast<double>(out_bytes), res.ms_mean * 1e-3);
  const double gbps_best = app::gb_per_s(static_cast<double>(out_bytes), res.ms_min * 1e-3);
  const double ms_total = 1e3 * total_timer.seconds();
  if (o.json) {
    app::ReportHeader h = report_header(o, ranks, n, d, precision, edm::kernel_name(resolved), elements);
    h.repeat = o.repeat;
    h.ms_mean = res.ms_mean;
    h.ms_min = res.ms_min;
    h.ms_warmup = res.ms_warmup;
    h.ms_write = res.ms_write;
    h.ms_total = ms_total;
    h.output = o.output;
    nlohmann::json j = app::report_json(h);
    j["mode"] = "matrix";
    j["layout"] = o.layout;
    j["symmetric"] = o.symmetric;
    j["bytes"] = out_bytes;
    j["gbps"] = gbps;
    j["gbps_best"] = gbps_best;
    app::print_json_line(j);
  } else {
    std::printf("tdmaps-edm: n = %lld, d = %lld, %s, map %s (block %d), %s kernel, %s layout%s, %s, %d thread(s)\n",
                static_cast<long long>(n), static_cast<long long>(d), precision.c_str(), o.map.label().c_str(), rho,
                edm::kernel_name(resolved), o.layout.c_str(), o.symmetric ? " (symmetric)" : "", ExecSpace::name(),
                ExecSpace().concurrency());
    std::printf("  output  %s\n", app::format_bytes(out_bytes).c_str());
    std::printf("  compute %.3f ms mean, %.3f ms best over %d repetition(s); warm-up %.3f ms\n", res.ms_mean, res.ms_min,
                o.repeat, res.ms_warmup);
    std::printf("  rate    %.2f GB/s mean, %.2f GB/s best (output bytes / compute time)\n", gbps, gbps_best);
    if (!o.output.empty()) std::printf("  write   %.3f ms: %s\n", res.ms_write, o.output.c_str());
    std::printf("  total   %.3f ms (reading or generating the input, compute with warm-up, write)\n", ms_total);
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
    "Kernels: every kernel is exact to the rounding of the direct formula sqrt(sum_k (x_ik - x_jk)^2) in the\n"
    "chosen precision. gemm forms |x|^2 + |y|^2 - 2 x.y from centred points in fp64 and recomputes directly\n"
    "every pair whose value is within the fp64 cancellation bound of losing that accuracy (duplicates, close\n"
    "pairs of far points), so it is never less exact than the element kernel; auto never picks it (not bit for bit the direct sum): ask with --kernel gemm.\n"
    "\n"
    "Exit status: 0 on success, 2 on a usage error (options and their values), 1 on a runtime failure (input, memory, disk).\n"
    "Progress of runs longer than ~2 s goes to stderr (a bar on a terminal, a line every 10 s otherwise);\n"
    "--quiet and --json silence it. An interrupted run (Ctrl-C, SIGTERM, SIGHUP) leaves no output file behind.\n"
    "Kokkos options (--kokkos-threads=N, --kokkos-device-id=N, ...) are passed to Kokkos; unknown ones are refused.\n"
    "OpenMP: OMP_PROC_BIND=spread OMP_PLACES=threads give the best host timings.\n";

int edm_main(int argc, char* argv[], const app::Ranks& ranks) {
  app::set_app_name("edm");
  app::install_signal_cleanup();
  const app::SplitArgs args = app::split_kokkos_args(argc, argv);

  Options o;
  CLI::App cli("tdmaps-edm: Euclidean distance matrix of n points in d dimensions, launched on a triangular map",
               "tdmaps-edm");
  cli.footer(examples);
  cli.set_version_flag("--version", std::string("tdmaps-edm ") + app::version());
  auto* in = cli.add_option("--input", o.input, "points: .npy (2-D, '<f4' or '<f8', C order) or .csv (n rows of d numbers)");
  auto* rnd = cli.add_option("--random", o.random_text, "N random points, uniform in [0, 1)^D (std::mt19937_64)");
  auto* dims = cli.add_option("--dims", o.dims_text, "D for --random (default 3)");
  auto* seed = cli.add_option("--seed", o.seed_text, "seed for --random, 0 to 2^64 - 1 (default 1)");
  in->excludes(rnd);
  dims->needs(rnd);
  seed->needs(rnd);
  cli.add_option("--output", o.output, "write the distances to this .npy (dtype = precision; shape (n(n+1)/2,) packed, "
                                       "(n(n-1)/2,) condensed, (n, n) full)");
  cli.add_option("--layout", o.layout, "output layout")
      ->capture_default_str()
      ->check(CLI::IsMember({"packed", "condensed", "full"}));
  cli.add_flag("--symmetric", o.symmetric, "full layout: write both halves (default: the lower triangle only)");
  cli.add_option("--map", o.map.map, "triangular map")->capture_default_str()->check(CLI::IsMember(tdmaps::accepted_map_names()));
  cli.add_option("--sqrt", o.map.sqrt, "lambda map: square root")
      ->capture_default_str()
      ->check(CLI::IsMember(tdmaps::sqrt_names()));
  cli.add_option("--form", o.map.form, "lambda map: exact (integer-corrected) or eps (the papers')")
      ->capture_default_str()
      ->check(CLI::IsMember(tdmaps::form_names()));
  cli.add_option("--block", o.block, "block side rho")->capture_default_str()->check(CLI::IsMember({8, 16, 32}));
  cli.add_option("--kernel", o.kernel,
                 "auto (tile where it fits, else element: SciPy's pdist bit for bit on host) | element | tile | gemm (Kokkos Kernels, "
                 "guarded: see below) | linear (packed / condensed in memory order)")
      ->capture_default_str()
      ->check(CLI::IsMember({"element", "tile", "gemm", "linear", "auto"}));
  cli.add_option("--precision", o.precision, "fp32 or fp64 (default: the .npy's dtype, fp64 otherwise)")
      ->check(CLI::IsMember({"fp32", "fp64"}));
  app::add_launch_options(cli, o.hints);
  cli.add_option("--repeat", o.repeat, "timed repetitions after one untimed warm-up")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cli.add_flag("--json", o.json, "print one JSON line of results instead of text (no progress)");
  cli.add_flag("--quiet", o.quiet, "no progress on stderr");
  cli.add_flag("--reject-nonfinite", o.reject_nonfinite, "fail on a NaN or Inf coordinate (default: NaN propagates like SciPy)");
  auto* reduce = cli.add_option("--reduce", o.reduce.what,
                                "no matrix, a reduction over the pairs i < j: hist (distance histogram, --bins, --rmax), "
                                "nn (each point's nearest other point), count (pairs closer than --radius)")
                     ->check(CLI::IsMember({"hist", "nn", "count"}));
  auto* bins = cli.add_option("--bins", o.reduce.bins, "--reduce hist: number of bins B (default 64)")
                   ->check(CLI::Range(1, 1 << 24));
  auto* rmax = cli.add_option("--rmax", o.rmax_text, "--reduce hist: np.histogram's bins over [0, R): edges np.linspace(0, R, B + 1), a distance on an edge in the bin it starts");
  auto* radius = cli.add_option("--radius", o.radius_text, "--reduce count: count the pairs closer than R");
  cli.add_option("--max-device-memory", o.max_device_memory,
                 "device memory the matrix may use, bytes or with a K, M, G, T suffix (default: what is free); a larger "
                 "packed or condensed output is computed in chunks and streamed to --output or host memory");

  if (const auto status = app::parse_command_line(cli, args.rest)) return *status;
  o.kernel_given = cli.get_option("--kernel")->count() > 0;
  if (reduce->count() > 0) {
    for (const char* opt : {"--layout", "--symmetric", "--kernel", "--max-device-memory"})
      if (cli.get_option(opt)->count() > 0)
        throw app::UsageError(std::string(opt) + " applies to the distance matrix, not to --reduce " + o.reduce.what);
    if (o.reduce.what == "hist" && rmax->count() == 0) throw app::UsageError("--reduce hist needs --rmax R");
    if (o.reduce.what == "count" && radius->count() == 0) throw app::UsageError("--reduce count needs --radius R");
    if (o.reduce.what == "hist")
      o.reduce.rmax = app::parse_double("--rmax", o.rmax_text, std::numeric_limits<double>::denorm_min(),
                                        std::numeric_limits<double>::max(), "need a finite value > 0");
    if (o.reduce.what == "count")
      o.reduce.radius = app::parse_double("--radius", o.radius_text, -std::numeric_limits<double>::infinity(),
                                          std::numeric_limits<double>::infinity(), "need a number (inf: every pair)");
    if (o.reduce.what == "count" && !o.output.empty())
      throw app::UsageError("--reduce count prints its result (and --json has it); --output takes hist or nn");
    // A thread-space map has no blocks to stage for the tile reductions; count takes any map.
    if (o.reduce.what != "count" && tdmaps::canonical_map_name(o.map.map) == "utm")
      throw app::UsageError("--reduce " + o.reduce.what + " runs on the block-space maps (bb, hadouken, lambda, rb, "
                            "rec); --map utm is a thread-space map (--reduce count takes it)");
    o.reduce.repeat = o.repeat;
    o.reduce.hints = o.hints;
  }
  if (bins->count() > 0 && o.reduce.what != "hist") throw app::UsageError("--bins applies to --reduce hist");
  if (rmax->count() > 0 && o.reduce.what != "hist") throw app::UsageError("--rmax applies to --reduce hist");
  if (radius->count() > 0 && o.reduce.what != "count") throw app::UsageError("--radius applies to --reduce count");
  if (!o.max_device_memory.empty()) o.budget = parse_bytes("--max-device-memory", o.max_device_memory);
  if (o.input.empty() && o.random_text.empty())
    throw app::UsageError("give the points with --input FILE or --random N");
  if (!o.random_text.empty())
    o.random_n = app::parse_int("--random", o.random_text, 1, tdmaps::max_side, "the number of points");
  if (!o.dims_text.empty()) o.dims = static_cast<int>(app::parse_int("--dims", o.dims_text, 1, 1 << 20, "the dimension"));
  if (!o.seed_text.empty()) o.seed = app::parse_uint64("--seed", o.seed_text, "the seed");
  if (!o.output.empty()) {
    if (!ends_with(o.output, ".npy"))
      throw app::UsageError("--output " + o.output + ": the output is written as .npy; name it *.npy");
    app::check_not_same_file("--output", o.output, "--input", o.input);
    app::check_output_path(o.output);
  }
  if (reduce->count() > 0) std::swap(o.reduce.output, o.output);  // checked above like any output: the reduction's
  app::configure_warnings(o.json, o.quiet);
  if (o.symmetric && o.layout != "full") throw app::UsageError("--symmetric applies to --layout full only");

  // Precision: explicit, else the file's dtype.
  std::string precision = o.precision;
  if (precision.empty()) {
    precision = "fp64";
    if (!o.input.empty() && app::is_npy_path(o.input) && app::read_npy_header(o.input).descr == "<f4")
      precision = "fp32";
  }
  const std::vector<std::string> kokkos = app::rank_device_args(ranks, args.kokkos);
  return precision == "fp32" ? run<float>(o, ranks, kokkos, argv[0]) : run<double>(o, ranks, kokkos, argv[0]);
}

}  // namespace

int main(int argc, char* argv[]) {
  app::Ranks ranks(argc, argv);  // MPI_Init under mpirun, before Kokkos
  // Errors printed once, ranks that disagree stopped, no rank left waiting.
  return ranks.run([&] { return edm_main(argc, argv, ranks); });
}
