// tdmaps-edm: Euclidean distance matrix of a point set on a tdmaps map.
// See --help. The error convention of apps/common/cli.hpp (exit 2 for usage
// errors, 1 for runtime failures, "tdmaps-edm: error: ..."); every size
// (host and device memory, the output file's disk space) is checked before
// anything is allocated; the output appears complete or not at all, also
// when the run is interrupted (apps/common/output_file.hpp).
#include "cli_common.hpp"
#include "common/cli.hpp"
#include "common/cli_options.hpp"
#include "common/npy.hpp"
#include "common/output_file.hpp"
#include "common/rank_device.hpp"
#include "common/ranks.hpp"

#include <tdmaps/edm.hpp>
#include <tdmaps/tdmaps.hpp>

#include <CLI/CLI.hpp>

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace {

using tdmaps::index_t;
namespace app = tdmaps::app;
namespace edm = tdmaps::edm;
using namespace tdmaps::edm_cli;

template <class Real>
int run(const Options& o, const app::Ranks& ranks, const std::vector<std::string>& kokkos_options,
        const std::string& argv0) {
  const app::Timer total_timer;
  const std::string precision = std::is_same<Real, float>::value ? "fp32" : "fp64";
  const std::string source = o.in.input.empty() ? "--random " + o.in.random_text : o.in.input;

  // n and d before any data: from --random, the .npy header, or the .csv.
  app::Matrix<Real> pts;
  index_t n = o.in.random_n, d = o.dims;
  if (!o.in.input.empty()) app::input_shape(o.in.input, n, d, pts);
  if (n == 0) throw app::Error(source + ": no points (the input has 0 rows)");
  if (d == 0) throw app::Error(source + ": points have 0 dimensions (the input has 0 columns)");
  if (n > tdmaps::max_side)
    throw app::Error(source + ": n = " + std::to_string(n) + " points exceed the largest supported side " +
                     std::to_string(tdmaps::max_side));
  if (d > (index_t(1) << 20)) throw app::Error(source + ": d = " + std::to_string(d) + " dimensions exceed 2^20");
  if (ranks.size() > 1) ranks.set_run_facts(run_facts(o, precision, n, d));
  Run<Real> r{o, ranks, kokkos_options, argv0, n, d, pts, source, precision, total_timer};
  return o.reduce.what.empty() ? run_matrix<Real>(r) : run_reduce_mode<Real>(r);
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
    "\n";

int edm_main(int argc, char* argv[], const app::Ranks& ranks) {
  const app::SplitArgs args = app::start_tool("edm", argc, argv);

  Options o;
  CLI::App cli("tdmaps-edm: Euclidean distance matrix of n points in d dimensions, launched on a triangular map",
               "tdmaps-edm");
  cli.footer(examples + std::string(app::conventions_help()) +
             "\nOpenMP: OMP_PROC_BIND=spread OMP_PLACES=threads give the best host timings.\n");
  cli.set_version_flag("--version", std::string("tdmaps-edm ") + app::version());
  auto* rnd = app::add_input_options(cli, o.in,
                                     "points: .npy (2-D, '<f4' or '<f8', C order) or .csv / .txt (n rows of d numbers)",
                                     "N random points, uniform in [0, 1)^D");
  cli.add_option("--dims", o.dims_text, "D for --random (default 3)")->needs(rnd);
  cli.add_option("--output", o.output, "write the distances to this .npy (dtype = precision; shape (n(n+1)/2,) packed, "
                                       "(n(n-1)/2,) condensed, (n, n) full)");
  cli.add_option("--layout", o.layout, "output layout")
      ->capture_default_str()
      ->check(CLI::IsMember(edm::layout_names()));
  cli.add_flag("--symmetric", o.symmetric, "full layout: write both halves (default: the lower triangle only)");
  app::add_map_options(cli, o.map, o.block);
  cli.add_option("--kernel", o.kernel,
                 "auto (tile where it fits, else element: SciPy's pdist bit for bit on host) | element | tile | gemm (Kokkos Kernels, "
                 "guarded: see below) | linear (packed / condensed in memory order)")
      ->capture_default_str()
      ->check(CLI::IsMember(edm::kernel_names()));
  cli.add_option("--precision", o.precision, "fp32 or fp64 (default: the .npy's dtype, fp64 otherwise)")
      ->check(CLI::IsMember({"fp32", "fp64"}));
  app::add_run_options(cli, o.run, "timed repetitions after one untimed warm-up");
  cli.add_flag("--reject-nonfinite", o.reject_nonfinite, "fail on a NaN or Inf coordinate (default: NaN propagates like SciPy)");
  auto* reduce = cli.add_option("--reduce", o.reduce.what,
                                "no matrix, a reduction over the pairs i < j: hist (distance histogram, --bins, --rmax), "
                                "nn (each point's nearest other point), knn (its --k nearest), count (pairs closer than "
                                "--radius)")
                     ->check(CLI::IsMember({"hist", "nn", "knn", "count"}));
  auto* knn_k = cli.add_option("--k", o.reduce.k,
                               "--reduce knn: neighbours per point, 1 .. n - 1 (sorted by the exact squared distance, equal "
                               "ones by the smaller index; --output: (n, k, 2) float64, index then distance)")
                    ->check(CLI::Range(1, 1 << 20));
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
    if (o.reduce.what == "knn" && knn_k->count() == 0) throw app::UsageError("--reduce knn needs --k K");
    if (o.reduce.what == "knn" && o.block != 16 && o.block != 32)
      throw app::UsageError("--reduce knn runs on blocks of side 16 or 32 (--block " + std::to_string(o.block) + ")");
    if (o.reduce.what == "hist")
      o.reduce.rmax = app::parse_double("--rmax", o.rmax_text, std::numeric_limits<double>::denorm_min(),
                                        std::numeric_limits<double>::max(), "need a finite value > 0");
    if (o.reduce.what == "count")
      o.reduce.radius = app::parse_double("--radius", o.radius_text, -std::numeric_limits<double>::infinity(),
                                          std::numeric_limits<double>::infinity(), "need a number (inf: every pair)");
    if (o.reduce.what == "count" && !o.output.empty())
      throw app::UsageError("--reduce count prints its result (and --json has it); --output takes hist, nn or knn");
    // A thread-space map has no blocks to stage for the tile reductions; count takes any map.
    if (o.reduce.what != "count" && tdmaps::canonical_map_name(o.map.map) == "utm")
      throw app::UsageError("--reduce " + o.reduce.what + " runs on the block-space maps (bb, hadouken, lambda, rb, "
                            "rec); --map utm is a thread-space map (--reduce count takes it)");
  }
  if (bins->count() > 0 && o.reduce.what != "hist") throw app::UsageError("--bins applies to --reduce hist");
  if (rmax->count() > 0 && o.reduce.what != "hist") throw app::UsageError("--rmax applies to --reduce hist");
  if (radius->count() > 0 && o.reduce.what != "count") throw app::UsageError("--radius applies to --reduce count");
  if (knn_k->count() > 0 && o.reduce.what != "knn") throw app::UsageError("--k applies to --reduce knn");
  if (!o.max_device_memory.empty()) o.budget = parse_bytes("--max-device-memory", o.max_device_memory);
  app::check_input_options(o.in, tdmaps::max_side, "points");
  if (!o.dims_text.empty()) o.dims = static_cast<int>(app::parse_int("--dims", o.dims_text, 1, 1 << 20, "the dimension"));
  app::check_npy_output("--output", o.output, {{"--input", o.in.input}});
  if (reduce->count() > 0) std::swap(o.reduce.output, o.output);  // checked above like any output: the reduction's
  app::configure_warnings(o.run.json, o.run.quiet);
  if (o.symmetric && o.layout != "full") throw app::UsageError("--symmetric applies to --layout full only");

  // Precision: explicit, else the file's dtype.
  std::string precision = o.precision;
  if (precision.empty()) {
    precision = "fp64";
    if (!o.in.input.empty() && app::is_npy_path(o.in.input) && app::read_npy_header(o.in.input).descr == "<f4")
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
