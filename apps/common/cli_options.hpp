#ifndef TDMAPS_APPS_COMMON_CLI_OPTIONS_HPP
#define TDMAPS_APPS_COMMON_CLI_OPTIONS_HPP

// The skeleton every tdmaps CLI is built from (target tdmaps::app_common),
// the way launch_options.hpp adds the launch shape: option groups added by
// add_*_options(CLI::App&, Struct&) and checked by check_*_options after
// parsing, the timed runs, and the report header every tool and mode fills
// through one call (report_header). A tool's main file is then its own
// options and its run.
//
//   InputOptions  --input FILE | --random N [--seed S]
//   map options   --map, --sqrt / --cbrt, --form, --block
//   RunOptions    --repeat, --json, --quiet, --team-threads, --blocks-per-team
//   outputs       check_npy_output: *.npy, not an input, a writable place

#include "cli.hpp"
#include "launch_options.hpp"
#include "npy.hpp"
#include "progress.hpp"
#include "ranks.hpp"

#include <CLI/CLI.hpp>
#include <tdmaps/maps/dispatch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace tdmaps {
namespace app {

/// The start of every tool's main: its name in messages ("edm":
/// "tdmaps-edm: error: ..."), outputs removed on interrupts
/// (install_signal_cleanup), argv split into Kokkos' options and the rest.
SplitArgs start_tool(const std::string& name, int argc, char* argv[]);

/// Where the points (spheres, particles) come from.
struct InputOptions {
  std::string input;                   ///< empty: --random
  std::string random_text, seed_text;  ///< as typed; parsed strictly by check_input_options
  std::int64_t random_n = -1;
  std::uint64_t seed = 1;
};

/// --input FILE and --random N (exclusive) and --seed S (needs --random);
/// returns --random's option, for the tool's options that need it.
CLI::Option* add_input_options(CLI::App& cli, InputOptions& o, const std::string& input_help,
                               const std::string& random_help);
/// After parsing: one of --input and --random given, --random N in [1,
/// max_n], --seed in [0, 2^64 - 1]; `items` names them ("points").
void check_input_options(InputOptions& o, std::int64_t max_n, const std::string& items);

/// --map, --sqrt, --form and --block (8, 16 or 32) of the 2-D maps.
void add_map_options(CLI::App& cli, tdmaps::MapSpec& spec, int& block);
/// --map, --cbrt, --form and --block (2, 4 or 8) of the 3-D maps.
void add_map_options(CLI::App& cli, tdmaps::MapSpec3& spec, int& block);

/// How the run is repeated and reported.
struct RunOptions {
  int repeat = 1;
  bool json = false;
  bool quiet = false;
  tdmaps::LaunchHints hints;  ///< --team-threads, --blocks-per-team
};

/// --repeat (1 to 10^6), --json, --quiet and the launch shape
/// (add_launch_options).
void add_run_options(CLI::App& cli, RunOptions& o, const std::string& repeat_help);

/// The checks of a .npy output given with `option` before any work: named
/// *.npy, not the file of any of `inputs` ({option, path}), in a writable
/// place. Nothing for an empty path.
void check_npy_output(const std::string& option, const std::string& path,
                      const std::vector<std::pair<std::string, std::string>>& inputs = {});

/// The --help footer's lines on the conventions every tool shares (exit
/// status, progress, interrupts, Kokkos' options).
const char* conventions_help();

/// Whether s ends with suffix.
bool ends_with(const std::string& s, const std::string& suffix);
/// v with `digits` significant digits ("0.1235").
std::string fmt(double v, int digits = 4);

/// n and the columns of an input file before its data: from the .npy
/// header, or from the whole .csv (read into m, which keeps it; also for a
/// .npy that is not 2-D, whose reader's message is the error).
template <class Real>
void input_shape(const std::string& path, std::int64_t& rows, std::int64_t& cols, Matrix<Real>& m) {
  if (is_npy_path(path)) {
    const NpyHeader h = read_npy_header(path);
    if (h.shape.size() == 2) {
      rows = h.shape[0];
      cols = h.shape[1];
      return;
    }
  }
  m = read_matrix<Real>(path);
  rows = m.rows;
  cols = m.cols;
}

/// The times of a run, in milliseconds (negative: not measured, null in JSON).
struct Timing {
  double ms_mean = 0, ms_min = 0, ms_warmup = -1, ms_write = -1;
  double ms_combine = 0;  ///< MPI ranks: the results met
  int runs = 1;
};

/// Runs once() (which fences its own work): an untimed warm-up when
/// `warmup`, then `repeat` timed runs, each between barriers of the ranks
/// (the time of the slowest rank), with progress phases "<name> (warm-up
/// run)" and "<name>".
template <class Once>
Timing timed_runs(const std::string& name, int repeat, bool warmup, const Ranks& ranks, Progress& progress,
                  Once&& once) {
  Timing t;
  double warm_s = -1;
  if (warmup) {
    // Reported apart: first touch of the output pages, scratch allocation,
    // GPU module loading.
    progress.phase(name + " (warm-up run)", 1, Progress::Unit::runs);
    Timer warm;
    once();
    warm_s = warm.seconds();
    t.ms_warmup = 1e3 * warm_s;
  }
  progress.phase(name, repeat, Progress::Unit::runs, warm_s);
  double sum = 0, best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < repeat; ++k) {
    ranks.barrier();
    Timer timer;
    once();
    ranks.barrier();
    const double s = timer.seconds();
    sum += s;
    best = std::min(best, s);
    progress.advance(k + 1);
  }
  progress.done();
  t.runs = repeat;
  t.ms_mean = 1e3 * sum / repeat;
  t.ms_min = 1e3 * best;
  return t;
}

/// What a run computed, for its report.
struct RunShape {
  std::int64_t n = 0, d = 0;
  std::string precision, kernel;
  std::int64_t elements = 0;  ///< pairs, triplets or matrix entries
};

/// The header of every tool's and mode's JSON line (report_json): the input
/// and map options, the run's shape and times, the backend and its
/// concurrency (Kokkos' default execution space).
ReportHeader report_header(const InputOptions& in, const std::string& map, int block, int ranks, const RunShape& shape,
                           const Timing& t, double ms_total, const std::string& output);

/// The text report's lines on the times: compute (best, mean, runs), the
/// rate of `elements` (named `what`) per second of the best run, the write
/// of `output` (with its note) when given, the total.
void print_times(const Timing& t, std::int64_t elements, const std::string& what, const std::string& output,
                 const std::string& output_note, double ms_total);

}  // namespace app
}  // namespace tdmaps

#endif
