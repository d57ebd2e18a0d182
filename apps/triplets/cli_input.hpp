#ifndef TDMAPS_TRIPLETS_CLI_INPUT_HPP
#define TDMAPS_TRIPLETS_CLI_INPUT_HPP

// tdmaps-triplets' options (checked strictly, values reported as typed) and
// its input: the particles generated (--random) or read (.npy, .csv) in
// float64, refused where float32 (--precision fp32) cannot hold them. Part
// of the CLI, not installed.

#include <tdmaps/triplets.hpp>

#include "common/cli.hpp"
#include "common/cli_options.hpp"
#include "common/npy.hpp"

#include <tdmaps/maps/dispatch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace tdmaps {
namespace triplets_cli {

namespace app = tdmaps::app;
namespace tt = tdmaps::triplets;

struct Options {
  app::InputOptions in;                          // --input, --random, --seed
  std::string c9_text, cutoff_text, triple_text;  // parsed strictly below
  std::string output, save_input;
  std::string kernel = "atm";
  std::string precision = "fp64";
  tdmaps::MapSpec3 spec;
  int block = 8;
  app::RunOptions run;  // --repeat, --json, --quiet, the launch shape
  tt::AtmParams params;
};

/// The particles as the run uses them, host side, fp64 (n x 3).
struct Input {
  std::vector<double> x;
  index_t n = 0;
  std::string source;  ///< for the report
};

/// n before any data: from --random, the .npy header, or the whole .csv (read here; `m` keeps it).
inline index_t input_rows(const Options& o, app::Matrix<double>& m) {
  const std::string& input = o.in.input;
  if (input.empty()) return o.in.random_n;
  std::int64_t rows = 0, cols = 0;
  app::input_shape(input, rows, cols, m);
  if (rows == 0) throw app::Error(input + ": no particles (0 rows); need at least 1 (fewer than 3 have no triplets)");
  if (cols != 3) throw app::Error(input + ": " + std::to_string(cols) + " columns; expected 3 (x, y, z)");
  if (rows > tdmaps::max_side3)
    throw app::Error(input + ": " + std::to_string(rows) + " particles exceed the largest supported n = " +
                     std::to_string(tdmaps::max_side3));
  return rows;
}

inline Input load(const Options& o, app::Matrix<double>& m) {
  Input in;
  const std::string& input = o.in.input;
  if (input.empty()) {
    in.n = o.in.random_n;
    in.x = tt::random_points_host(in.n, o.in.seed);
    in.source = "random in [0, " + app::fmt(tt::random_box_side(in.n)) + ")^3, seed " + std::to_string(o.in.seed);
    return in;
  }
  if (m.values.empty()) m = app::read_matrix<double>(input);
  static const char* const axis[3] = {"x", "y", "z"};
  const bool fp32 = o.precision == "fp32";
  for (index_t r = 0; r < m.rows; ++r)
    for (int c = 0; c < 3; ++c) {
      const double v = m.at(r, c);
      if (!std::isfinite(v))
        throw app::Error(input + ": row " + std::to_string(r) + " (0-based data row): " + axis[c] + " is " +
                         app::number_text(v) + " (not finite)");
      if (fp32 && app::overflows_float32(v))
        throw app::Error(input + ": row " + std::to_string(r) + " (0-based data row): " + axis[c] + " = " +
                         app::number_text(v) + " overflows float32 (largest finite 3.4028235e+38; --precision fp32)");
    }
  in.n = m.rows;
  in.x = std::move(m.values);
  in.source = input + " (" + m.dtype + ")";
  m = app::Matrix<double>();
  return in;
}

/// The options' values and combinations (after parsing, before any file is read).
inline void check_options(Options& o) {
  app::check_input_options(o.in, tdmaps::max_side3, "particles");
  const bool atm = o.kernel == "atm";
  const std::pair<const char*, const std::string*> atm_only[] = {
      {"--c9", &o.c9_text}, {"--cutoff", &o.cutoff_text}, {"--cutoff-triple", &o.triple_text}};
  for (const auto& a : atm_only)
    if (!atm && !a.second->empty())
      throw app::UsageError(std::string(a.first) + " applies to --kernel atm only (not " + o.kernel + ")");
  constexpr double inf = std::numeric_limits<double>::infinity(), tiny = std::numeric_limits<double>::denorm_min();
  const std::string cut_rule = "the cutoff must be a number > 0 (inf: none)";
  if (!o.c9_text.empty())
    o.params.c9 = app::parse_double("--c9", o.c9_text, 0, std::numeric_limits<double>::max(),
                                    "C9 must be a finite number >= 0");
  if (!o.cutoff_text.empty()) o.params.cutoff = app::parse_double("--cutoff", o.cutoff_text, tiny, inf, cut_rule);
  if (!o.triple_text.empty())
    o.params.cutoff_triple = app::parse_double("--cutoff-triple", o.triple_text, tiny, inf, cut_rule);
  if (!o.output.empty() && o.kernel == "sink3")
    throw app::UsageError("--output needs --kernel atm (per-particle energies) or dummy3 (its values); sink3 writes "
                          "nothing");
  app::check_npy_output("--output", o.output, {{"--input", o.in.input}, {"--save-input", o.save_input}});
  app::check_npy_output("--save-input", o.save_input);
}

/// Why the energy is not finite, for the warning: the first two particles
/// at the same position in the run's precision (a zero distance: 0 / 0),
/// or else a term beyond float64's range.
inline std::string nonfinite_cause(const Input& in, bool fp32) {
  std::vector<index_t> order(static_cast<std::size_t>(in.n));
  for (index_t k = 0; k < in.n; ++k) order[static_cast<std::size_t>(k)] = k;
  auto at = [&](index_t k, int c) {
    const double v = in.x[static_cast<std::size_t>(3 * k + c)];
    return fp32 ? static_cast<double>(static_cast<float>(v)) : v;
  };
  auto less = [&](index_t a, index_t b) {
    for (int c = 0; c < 3; ++c)
      if (at(a, c) != at(b, c)) return at(a, c) < at(b, c);
    return a < b;
  };
  std::sort(order.begin(), order.end(), less);
  for (std::size_t k = 1; k < order.size(); ++k) {
    const index_t a = order[k - 1], b = order[k];
    if (at(a, 0) == at(b, 0) && at(a, 1) == at(b, 1) && at(a, 2) == at(b, 2))
      return "particles " + std::to_string(a) + " and " + std::to_string(b) + " (0-based) share a position" +
             (fp32 ? " in float32" : "") + " (a zero distance)";
  }
  return "no two particles share a position, so a triplet's term is beyond float64's range (distances below "
         "about 1e-34 or above 1e34)";
}

}  // namespace triplets_cli
}  // namespace tdmaps

#endif
