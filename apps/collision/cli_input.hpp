#ifndef TDMAPS_COLLISION_CLI_INPUT_HPP
#define TDMAPS_COLLISION_CLI_INPUT_HPP

// tdmaps-collide's options and its input: the spheres generated (--random)
// or read (.npy float32 / float64, .csv) and rounded to the float32 the
// kernels use, with an error for a value float32 cannot hold and one
// warning when the rounding changed values. Part of the CLI, not installed.

#include <tdmaps/collision.hpp>

#include "common/cli.hpp"
#include "common/cli_options.hpp"
#include "common/npy.hpp"

#include <tdmaps/maps/dispatch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace tdmaps {
namespace collide_cli {

namespace app = tdmaps::app;
namespace tc = tdmaps::collision;

struct Options {
  app::InputOptions in;    // --input, --random, --seed
  std::string dims_text;  // parsed strictly (app::parse_int)
  int dims = 3;
  std::string density = "dense";
  std::string rmin_text, rmax_text;  // parsed strictly (app::parse_double), reported as typed
  double rmin = 0, rmax = 0;
  bool radii_given = false;
  std::string result = "count";
  std::string output;
  std::string save_input;
  tdmaps::MapSpec spec;
  int block = 32;
  std::string kernel = "tile";
  app::RunOptions run;  // --repeat, --json, --quiet, the launch shape
};

/// The spheres as the run uses them, host side.
struct Input {
  std::vector<float> xyzr;  ///< n x 4
  index_t n = 0;
  int dims = 3;
  std::string source;  ///< for the report
};

/// n and the dimension before any data: from --random, the .npy header, or
/// the whole .csv (read here; `m` keeps it).
inline void input_shape(const Options& o, index_t& n, int& dims, app::Matrix<double>& m) {
  if (o.in.input.empty()) {
    n = o.in.random_n;
    dims = o.dims;
    return;
  }
  const std::string& input = o.in.input;
  std::int64_t rows = 0, cols = 0;
  app::input_shape(input, rows, cols, m);
  if (rows == 0) throw app::Error(input + ": no spheres (0 rows); need at least 1 (1 sphere has 0 pairs)");
  if (cols != 2 && cols != 4)
    throw app::Error(input + ": " + std::to_string(cols) +
                     " columns; expected 2 (x, r: intervals) or 4 (x, y, z, r: spheres)");
  if (rows > tdmaps::max_side)
    throw app::Error(input + ": " + std::to_string(rows) + " spheres exceed the largest supported n = " +
                     std::to_string(tdmaps::max_side));
  n = rows;
  dims = cols == 2 ? 1 : 3;
}

inline const char* const column_name[4] = {"x", "y", "z", "radius"};

/// The float f with the 9 digits that tell it from its neighbours (0.1f: 0.100000001).
inline std::string float_text(float f) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
  return buf;
}

/// What rounding the input to float32 (the kernels' precision) changed.
struct Rounding {
  index_t changed = 0;
  std::string first, zeroed;
  void report(const std::string& input, const std::string& dtype, index_t values) const {
    if (!zeroed.empty())
      app::warning(input + ": " + zeroed + " in float32, the kernels' precision: the sphere is a point there");
    if (changed > 0)
      app::warning(input + " (" + dtype + "): tdmaps-collide computes in float32 and " + std::to_string(changed) +
                   " of the " + std::to_string(values) + " values change when rounded to it (first: " + first +
                   "); spheres whose gap |c_i - c_j| - (r_i + r_j) is within that rounding (about 1e-7 of the "
                   "coordinates) may be judged otherwise than in float64");
  }
};

/// Value (r, col) of the input as the float32 the kernels use: a finite
/// value that overflows float32 is an error (with the value as in the file),
/// a rounding that changes it is counted for one warning.
inline float to_float(const std::string& input, const app::Matrix<double>& m, index_t r, index_t col, int role,
               Rounding& rounding) {
  const double v = m.at(r, col);
  const float f = static_cast<float>(v);
  if (app::overflows_float32(v))
    throw app::Error(input + ": row " + std::to_string(r) + " (0-based data row): " + column_name[role] + " = " +
                     app::number_text(v) + " overflows float32, the precision tdmaps-collide computes in (largest "
                     "finite 3.4028235e+38)");
  if (std::isfinite(v) && static_cast<double>(f) != v) {
    if (rounding.changed++ == 0)
      rounding.first = "row " + std::to_string(r) + ", " + column_name[role] + " = " + app::number_text(v) + " -> " +
                       float_text(f);
    if (f == 0.0f && rounding.zeroed.empty())
      rounding.zeroed = "row " + std::to_string(r) + ", " + column_name[role] + " = " + app::number_text(v) +
                        " becomes 0";
  }
  return f;
}

inline Input load(const Options& o, bool dims_given, app::Matrix<double>& m) {
  Input in;
  const std::string& input = o.in.input;
  if (!input.empty()) {
    if (m.values.empty()) m = app::read_matrix<double>(input);
    in.dims = m.cols == 2 ? 1 : 3;
    if (dims_given && o.dims != in.dims)
      throw app::UsageError("--dims " + std::to_string(o.dims) + " but " + input + " has " + std::to_string(m.cols) +
                            " columns (" + std::to_string(in.dims) + "-D)");
    in.n = m.rows;
    in.xyzr.assign(static_cast<std::size_t>(in.n) * 4, 0.0f);
    Rounding rounding;
    for (index_t r = 0; r < in.n; ++r) {
      float* row = &in.xyzr[static_cast<std::size_t>(r) * 4];
      for (int c = 0; c < in.dims; ++c) row[c] = to_float(input, m, r, c, c, rounding);
      row[3] = to_float(input, m, r, m.cols - 1, 3, rounding);
      const std::string bad = tc::check_sphere(row);
      if (!bad.empty()) throw app::Error(input + ": row " + std::to_string(r) + " (0-based data row): " + bad);
    }
    rounding.report(input, m.dtype, in.n * (in.dims + 1));
    in.source = input + " (" + m.dtype + ")";
    m = app::Matrix<double>();
    return in;
  }
  in.dims = o.dims;
  in.n = o.in.random_n;
  tc::RadiusRange r = tc::default_radii(o.dims, o.density == "dense" ? tc::Density::dense : tc::Density::sparse);
  if (o.radii_given) r = {o.rmin, o.rmax};
  in.xyzr = tc::random_spheres_host(in.n, in.dims, r, o.in.seed);
  in.source = "random (seed " + std::to_string(o.in.seed) + ", radii [" + app::fmt(r.r_min) + ", " + app::fmt(r.r_max) + "]" +
              (o.radii_given ? "" : ", " + o.density) + ")";
  return in;
}

/// (n, D + 1) float32: the columns an --input file would have.
inline void save_input(const std::string& path, const Input& in) {
  const int cols = in.dims + 1;
  std::vector<float> out(static_cast<std::size_t>(in.n) * static_cast<std::size_t>(cols));
  for (index_t r = 0; r < in.n; ++r) {
    for (int c = 0; c < in.dims; ++c) out[static_cast<std::size_t>(r * cols + c)] = in.xyzr[static_cast<std::size_t>(4 * r + c)];
    out[static_cast<std::size_t>(r * cols + in.dims)] = in.xyzr[static_cast<std::size_t>(4 * r + 3)];
  }
  app::write_npy(path, out.data(), {in.n, cols});
}

}  // namespace collide_cli
}  // namespace tdmaps

#endif
