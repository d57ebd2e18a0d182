#ifndef TDMAPS_EDM_CLI_COMMON_HPP
#define TDMAPS_EDM_CLI_COMMON_HPP

// tdmaps-edm's options and the helpers its modes share (the matrix in memory,
// streamed, the reductions): size arithmetic that saturates, the points
// generated or read and copied to the device. Part of the CLI, not installed.

#include <tdmaps/edm.hpp>
#include <tdmaps/tdmaps.hpp>

#include "cli_reduce.hpp"
#include "common/cli.hpp"
#include "common/npy.hpp"
#include "common/ranks.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace tdmaps {
namespace edm_cli {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;

struct Options {
  std::string input;
  std::string random_text, dims_text, seed_text;  // parsed strictly (app::parse_int)
  index_t random_n = -1;
  int dims = 3;
  std::uint64_t seed = 1;
  std::string output;
  std::string layout = "condensed";
  bool symmetric = false;
  tdmaps::MapSpec map;
  int block = 32;
  std::string kernel = "auto";
  std::string precision;  // empty: the input's (fp64 for csv and --random)
  int repeat = 1;
  bool json = false;
  bool quiet = false;
  bool reject_nonfinite = false;
  tdmaps::LaunchHints hints;  // --team-threads, --blocks-per-team
  tdmaps::edm_cli::ReduceOptions reduce;  // --reduce, --bins, --rmax, --radius
  std::string rmax_text, radius_text;     // parsed strictly (app::parse_double), reported as typed
  std::string max_device_memory;          // bytes, or with a K / M / G / T suffix (powers of 1024)
  index_t budget = -1;                     // parsed --max-device-memory, -1: what is free
  bool kernel_given = false;
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

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct Timing {
  double ms_mean = 0, ms_min = 0, ms_warmup = 0, ms_write = -1;
};

/// a * b, or max when it does not fit (a, b >= 0).
index_t mul_sat(index_t a, index_t b) {
  return b != 0 && a > std::numeric_limits<index_t>::max() / b ? std::numeric_limits<index_t>::max() : a * b;
}
index_t add_sat(index_t a, index_t b) {
  return a > std::numeric_limits<index_t>::max() - b ? std::numeric_limits<index_t>::max() : a + b;
}
/// "--max-device-memory" values: bytes, or a number with K, M, G or T (powers of 1024).
index_t parse_bytes(const std::string& opt, const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = text.substr(used);
  if (unit.size() > 1 && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  if (unit.size() > 1 && unit.back() == 'i') unit.pop_back();
  const std::string units = "KMGT";
  double scale = 1;
  if (unit.size() == 1 && units.find(static_cast<char>(std::toupper(unit[0]))) != std::string::npos)
    scale = std::pow(1024.0, 1.0 + static_cast<double>(units.find(static_cast<char>(std::toupper(unit[0])))));
  else if (!unit.empty() || used == 0)
    throw app::UsageError(opt + " " + text + ": not a size (bytes, or a number with K, M, G or T)");
  const double b = v * scale;
  if (!(b >= 1) || b > 9.0e18) throw app::UsageError(opt + " " + text + ": need at least 1 byte and less than 2^63");
  return static_cast<index_t>(b);
}

std::string bytes_text(index_t b) {
  return b == std::numeric_limits<index_t>::max() ? std::string("more than 2^63 bytes") : app::format_bytes(b);
}

/// The JSON keys every mode shares (apps/common/cli.hpp's report_json);
/// the caller sets the times, the output and the mode's own keys.
inline app::ReportHeader report_header(const Options& o, const app::Ranks& ranks, index_t n, index_t d,
                                       const std::string& precision, const std::string& kernel, index_t elements) {
  app::ReportHeader h;
  h.input = o.input;
  h.seed = o.seed;
  h.n = n;
  h.d = d;
  h.precision = precision;
  h.map = o.map.label();
  h.block = o.block;
  h.kernel = kernel;
  h.backend = ExecSpace::name();
  h.concurrency = ExecSpace().concurrency();
  h.ranks = ranks.size();
  h.elements = elements;
  return h;
}

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
  if (o.input.empty()) pts = random_points<Real>(n, static_cast<int>(d), o.seed);
  else if (pts.values.empty()) pts = app::read_matrix<Real>(o.input);
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

}  // namespace edm_cli
}  // namespace tdmaps

#endif
