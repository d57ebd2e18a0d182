#ifndef TDMAPS_EDM_CLI_COMMON_HPP
#define TDMAPS_EDM_CLI_COMMON_HPP

// tdmaps-edm's options, the helpers its modes share (the points generated or
// read and copied to the device) and the modes, each its own translation
// unit so that the kernels of every map compile in parallel:
//   cli_matrix_fp32.cpp, cli_matrix_fp64.cpp  the matrix in device memory
//                                              (cli_matrix.hpp)
//   cli_stream.cpp  the packed or condensed matrix in chunks (past
//                   --max-device-memory, or over MPI ranks)
//   cli_reduce_fp32.cpp, cli_reduce_fp64.cpp  --reduce hist | nn | knn | count
//                                              (cli_reduce.hpp)
//   cli_common.cpp  what MPI ranks agree on, --max-device-memory's parser
// Part of the CLI, not installed.

#include <tdmaps/edm.hpp>
#include <tdmaps/tdmaps.hpp>

#include "common/cli.hpp"
#include "common/cli_options.hpp"
#include "common/npy.hpp"
#include "common/progress.hpp"
#include "common/ranks.hpp"
#include "common/sizes.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace tdmaps {
namespace edm_cli {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using app::add_sat;
using app::bytes_text;
using app::mul_sat;

struct ReduceOptions {
  std::string what;  // hist, nn, knn, count
  int bins = 64;
  int k = 0;  // knn
  double rmax = 0;    // hist
  double radius = 0;  // count
  std::string output;
};

/// What one reduction run gives (host side).
struct ReduceResult {
  std::vector<std::int64_t> hist;
  std::vector<double> nn;  // (n, 2): index, distance
  std::vector<double> knn;  // (n, k, 2): index, distance
  index_t count = 0;
  app::Timing times;  // ms_combine: the results of the ranks met (copies and all-reductions)
};

struct Options {
  app::InputOptions in;   // --input, --random, --seed
  std::string dims_text;  // parsed strictly (app::parse_int)
  int dims = 3;
  std::string output;
  std::string layout = "condensed";
  bool symmetric = false;
  tdmaps::MapSpec map;
  int block = 32;
  std::string kernel = "auto";
  std::string precision;  // empty: the input's (fp64 for csv and --random)
  app::RunOptions run;    // --repeat, --json, --quiet, the launch shape
  bool reject_nonfinite = false;
  ReduceOptions reduce;                // --reduce, --bins, --rmax, --radius
  std::string rmax_text, radius_text;  // parsed strictly (app::parse_double), reported as typed
  std::string max_device_memory;       // bytes, or with a K / M / G / T suffix (powers of 1024)
  index_t budget = -1;                 // parsed --max-device-memory, -1: what is free
  bool kernel_given = false;
};

/// What every mode is given: the options, the ranks, Kokkos' options, the
/// input's shape (its data when read already) and the run's clock.
template <class Real>
struct Run {
  const Options& o;
  const app::Ranks& ranks;
  const std::vector<std::string>& kokkos_options;
  const std::string& argv0;
  index_t n, d;
  app::Matrix<Real>& pts;  ///< the points when read already (a .csv), else empty
  std::string source;      ///< the input as the messages name it
  std::string precision;   ///< "fp32" or "fp64"
  app::Timer total_timer;
};

/// "--max-device-memory" values: bytes, or a number with K, M, G or T (powers of 1024).
index_t parse_bytes(const std::string& opt, const std::string& text);

/// What MPI ranks must agree on before any work (common/ranks.hpp): every
/// option that changes the result or the ranks' collectives, and the input.
app::RunFacts run_facts(const Options& o, const std::string& precision, index_t n, index_t d);

/// The header of every mode's JSON line (app::report_header).
app::ReportHeader report_header(const Options& o, const app::Ranks& ranks, const app::RunShape& shape,
                                const app::Timing& t, double ms_total, const std::string& output);

template <class Real>
app::Matrix<Real> random_points(index_t n, int d, std::uint64_t seed) {
  app::Matrix<Real> m;
  m.rows = n;
  m.cols = d;
  m.dtype = "random";
  m.values.resize(static_cast<std::size_t>(n * d));
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  for (auto& v : m.values) v = static_cast<Real>(dist(gen));
  return m;
}

/// The points on the device: generated (--random) or read (unless read
/// already), checked (--reject-nonfinite), copied; pts is emptied.
template <class Real>
Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace> load_points(const Options& o, index_t n, index_t d,
                                                                app::Matrix<Real>& pts, const std::string& source) {
  if (o.in.input.empty()) pts = random_points<Real>(n, static_cast<int>(d), o.in.seed);
  else if (pts.values.empty()) pts = app::read_matrix<Real>(o.in.input);
  if (pts.rows != n || pts.cols != d)
    throw app::Error(source + ": the data hold " + std::to_string(pts.rows) + " x " + std::to_string(pts.cols) +
                     " values, the header said " + std::to_string(n) + " x " + std::to_string(d));
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

  Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace> x(
      Kokkos::view_alloc(ExecSpace(), Kokkos::WithoutInitializing, "tdmaps::edm::points"), static_cast<std::size_t>(n),
      static_cast<std::size_t>(d));
  Kokkos::deep_copy(x, Kokkos::View<const Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                           pts.values.data(), static_cast<std::size_t>(n), static_cast<std::size_t>(d)));
  pts.values = std::vector<Real>();
  return x;
}

/// What a streamed run was given (tdmaps_edm.cpp fills it).
struct StreamPlan {
  index_t n = 0, d = 0;
  edm::Layout layout = edm::Layout::packed;
  index_t elements = 0;  ///< of the whole output
  index_t in_bytes = 0;
  index_t budget = 0;     ///< device bytes the run may use
  index_t host_free = 0;  ///< host bytes available
  std::string output;     ///< empty: host memory
  std::string what;       ///< "the packed output of n = ... points (...)"
  // filled by the run
  index_t e0 = 0, e1 = 0;  ///< this rank's elements
  index_t chunk = 0;       ///< elements per chunk
  index_t chunks = 0;
  double d2h_gbps = 0;       ///< device-to-host copy rate into the output after the stream (device backends, to memory)
  double d2h_cold_gbps = 0;  ///< the same before the stream, into pages not yet written
};

/// The matrix in device memory (cli_matrix.hpp), or streamed when it does not fit.
template <class Real>
int run_matrix(Run<Real>& r);
/// The packed or condensed output in chunks (cli_stream.cpp), to --output
/// (one file; with MPI ranks each writes its slab) or to host memory.
template <class Real>
app::Timing stream_matrix(const Run<Real>& r, StreamPlan& plan, const tdmaps::Domain2& domain, app::Progress& progress);
/// The report of a streamed run (rank 0).
int report_stream(const Options& o, const app::Ranks& ranks, const StreamPlan& plan, const std::string& precision,
                  const app::Timing& t, const app::Timer& total_timer);
/// --reduce hist | nn | knn | count (cli_reduce.hpp): no matrix, any n that fits the points.
template <class Real>
int run_reduce_mode(Run<Real>& r);

extern template int run_matrix<float>(Run<float>&);
extern template int run_matrix<double>(Run<double>&);
extern template app::Timing stream_matrix<float>(const Run<float>&, StreamPlan&, const tdmaps::Domain2&, app::Progress&);
extern template app::Timing stream_matrix<double>(const Run<double>&, StreamPlan&, const tdmaps::Domain2&,
                                                  app::Progress&);
extern template int run_reduce_mode<float>(Run<float>&);
extern template int run_reduce_mode<double>(Run<double>&);

}  // namespace edm_cli
}  // namespace tdmaps

#endif
