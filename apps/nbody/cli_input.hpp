#ifndef TDMAPS_NBODY_CLI_INPUT_HPP
#define TDMAPS_NBODY_CLI_INPUT_HPP

// tdmaps-nbody's options (checked strictly, values reported as typed) and
// its input: bodies generated (--random, --plummer) or read (.npy, .csv:
// n rows of x, y, z, m [, vx, vy, vz] [, q], as write_state writes them) in
// float64 and checked (tdmaps::nbody::check_params, check_bodies: also in
// the run's precision) before any run; the sizes of a run, checked
// before anything is allocated, and what MPI ranks must agree on. Part of
// the CLI, not installed.

#include <tdmaps/nbody.hpp>

#include "common/cli.hpp"
#include "common/cli_options.hpp"
#include "common/memory.hpp"
#include "common/npy.hpp"
#include "common/output_file.hpp"
#include "common/ranks.hpp"
#include "common/sizes.hpp"

#include <tdmaps/maps/dispatch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tdmaps {
namespace nbody_cli {

namespace app = tdmaps::app;
namespace nb = tdmaps::nbody;

/// The largest n: the pair count n (n - 1) / 2 and every index stay far inside int64.
constexpr std::int64_t max_bodies = std::int64_t(1) << 31;

struct Options {
  app::InputOptions in;  // --input, --random, --seed
  std::string plummer_text;
  std::int64_t plummer_n = -1;
  std::string law_text = "gravity";
  std::string g_text, softening_text, sigma_text, epsilon_text, cutoff_text, k_text;
  std::string steps_text, dt_text, every_text;
  std::int64_t steps = 0, every = 0;
  double dt = 0;
  std::string output, forces, snapshots, save_input;
  std::string precision = "fp64";
  tdmaps::MapSpec spec;
  int block = 32;
  app::RunOptions run;  // --repeat, --json, --quiet, the launch shape
  nb::ForceParams params;
};

/// The bodies as the run starts them, host side, fp64.
struct Input {
  std::vector<double> x, v, m, q;  // n x 3, n x 3, n, n (q: Coulomb only)
  std::int64_t n = 0;
  std::string source;  ///< for the report
};

/// The input file's columns for a law: 4 or 7 (with velocities), one more
/// (the last, q) for Coulomb's charges: what write_state writes.
inline std::string columns_rule(nb::Law law) {
  return law == nb::Law::coulomb ? "5 (x, y, z, m, q) or 8 (x, y, z, m, vx, vy, vz, q)"
                                 : "4 (x, y, z, m) or 7 (x, y, z, m, vx, vy, vz)";
}

/// n before any data: from --random / --plummer, the .npy header, or the whole .csv (read here; `m` keeps it).
inline std::int64_t input_rows(const Options& o, app::Matrix<double>& m) {
  if (o.plummer_n > 0) return o.plummer_n;
  const std::string& input = o.in.input;
  if (input.empty()) return o.in.random_n;
  std::int64_t rows = 0, cols = 0;
  app::input_shape(input, rows, cols, m);
  if (rows == 0) throw app::Error(input + ": no bodies (0 rows); need at least 1");
  const std::int64_t extra = o.params.law == nb::Law::coulomb ? 1 : 0;
  if (cols != 4 + extra && cols != 7 + extra) {
    // A Coulomb input (a charge column) under another law would run without its charges.
    const bool charged = extra == 0 && (cols == 5 || cols == 8);
    throw app::Error(input + ": " + std::to_string(cols) + " columns" +
                     (charged
                          ? ", the layout of --law coulomb (" + columns_rule(nb::Law::coulomb) +
                                ": the last column the charges); give --law coulomb, or for --law " + o.law_text + " "
                          : "; expected ") +
                     columns_rule(o.params.law));
  }
  if (rows > max_bodies)
    throw app::Error(input + ": " + std::to_string(rows) + " bodies exceed the largest supported n = " +
                     std::to_string(max_bodies));
  return rows;
}

/// The bodies, generated or read, then checked for the law and precision.
inline Input load(const Options& o, app::Matrix<double>& file) {
  Input in;
  std::vector<double> rows;  // n x 7
  std::int64_t cols = nb::body_columns;
  const bool coulomb = o.params.law == nb::Law::coulomb;
  if (o.plummer_n > 0) {
    in.n = o.plummer_n;
    rows = nb::plummer_host(in.n, o.in.seed);
    in.source = "Plummer sphere, Henon units, seed " + std::to_string(o.in.seed);
  } else if (o.in.input.empty()) {
    in.n = o.in.random_n;
    const double mass = o.params.law == nb::Law::gravity ? 1.0 / static_cast<double>(in.n) : 1.0;
    rows = nb::random_host(in.n, o.in.seed, mass);
    in.source = "random in [0, " + app::fmt(std::cbrt(static_cast<double>(in.n))) + ")^3, masses " + app::fmt(mass) +
                ", seed " + std::to_string(o.in.seed);
  } else {
    if (file.values.empty()) file = app::read_matrix<double>(o.in.input);
    in.n = file.rows;
    cols = file.cols;
    rows = std::move(file.values);
    in.source = o.in.input + " (" + file.dtype + ")";
    file = app::Matrix<double>();
  }
  const bool velocities = cols >= 7;
  in.x.resize(static_cast<std::size_t>(3 * in.n));
  in.v.assign(static_cast<std::size_t>(3 * in.n), 0.0);
  in.m.resize(static_cast<std::size_t>(in.n));
  if (coulomb) in.q.resize(static_cast<std::size_t>(in.n));
  for (std::int64_t i = 0; i < in.n; ++i) {
    const double* r = &rows[static_cast<std::size_t>(i * cols)];
    for (int c = 0; c < 3; ++c) {
      in.x[static_cast<std::size_t>(3 * i + c)] = r[c];
      if (velocities) in.v[static_cast<std::size_t>(3 * i + c)] = r[4 + c];
    }
    in.m[static_cast<std::size_t>(i)] = r[3];
    // Generated bodies carry alternating charges +1, -1 (a neutral set for even n).
    if (coulomb) in.q[static_cast<std::size_t>(i)] = o.in.input.empty() ? (i % 2 ? -1.0 : 1.0) : r[cols - 1];
  }
  const std::string where = o.in.input.empty() ? std::string("the generated bodies") : o.in.input;
  const bool fp32 = o.precision == "fp32";
  for (std::size_t k = 0; k < in.v.size(); ++k) {
    const std::string body = ": body " + std::to_string(k / 3) + ": velocity ";
    if (!std::isfinite(in.v[k])) throw app::Error(where + body + app::number_text(in.v[k]) + " is not finite");
    if (fp32 && app::overflows_float32(in.v[k]))
      throw app::Error(where + body + app::number_text(in.v[k]) +
                       " overflows float32 (largest finite 3.4028235e+38; --precision fp32)");
  }
  // Positions, masses and charges: check_bodies, in the run's precision.
  try {
    nb::check_bodies(in.x, in.m, in.q, o.params, fp32);
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    const std::string prefix = "tdmaps::nbody: ";
    if (what.compare(0, prefix.size(), prefix) == 0) what = what.substr(prefix.size());
    if (what.find("share a position") != std::string::npos && o.params.law != nb::Law::lennard_jones)
      what += "; --softening";
    else if (fp32 && what.find("flows float32") != std::string::npos)
      what += "; --precision fp32";
    throw app::Error(where + ": " + what);
  }
  return in;
}

/// check_params' message as the CLI's, the parameter named by its option as
/// typed ("--G 1e39 overflows float32 (...); --precision fp32").
inline std::string param_message(std::string what, const Options& o) {
  const std::string prefix = "tdmaps::nbody: ";
  if (what.compare(0, prefix.size(), prefix) == 0) what = what.substr(prefix.size());
  const std::pair<const char*, const std::string*> options[] = {
      {"G", &o.g_text},           {"softening", &o.softening_text},
      {"sigma", &o.sigma_text},   {"epsilon", &o.epsilon_text},
      {"cutoff", &o.cutoff_text}, {"k", &o.k_text}};
  for (const auto& p : options) {
    const std::string lead = std::string(p.first) + " = ";
    const std::size_t value_end = what.find_first_of(" :", lead.size());
    if (what.compare(0, lead.size(), lead) == 0 && value_end != std::string::npos) {
      what = "--" + std::string(p.first) + " " +
             (p.second->empty() ? what.substr(lead.size(), value_end - lead.size()) : *p.second) +
             what.substr(value_end);
      break;
    }
  }
  return o.precision == "fp32" ? what + "; --precision fp32" : what;
}

/// The options' values and combinations (after parsing, before any file is read).
inline void check_options(Options& o) {
  if (!o.plummer_text.empty()) {
    if (!o.in.input.empty() || !o.in.random_text.empty())
      throw app::UsageError("--plummer excludes --input and --random");
    o.plummer_n = app::parse_int("--plummer", o.plummer_text, 1, max_bodies, "the number of bodies");
    if (!o.in.seed_text.empty()) o.in.seed = app::parse_uint64("--seed", o.in.seed_text, "the seed");
  } else {
    if (!o.in.seed_text.empty() && o.in.random_text.empty())
      throw app::UsageError("--seed needs --random or --plummer");
    if (o.in.input.empty() && o.in.random_text.empty())
      throw app::UsageError("give the bodies with --input FILE, --random N or --plummer N");
    app::check_input_options(o.in, max_bodies, "bodies");
  }
  if (!nb::law_from_name(o.law_text, o.params.law))
    throw app::UsageError("--law " + o.law_text + ": unknown (known: gravity, lj, coulomb)");
  const nb::Law law = o.params.law;
  struct Only {
    const char* option;
    const std::string* text;
    bool allowed;
  };
  const Only only[] = {{"--G", &o.g_text, law == nb::Law::gravity},
                       {"--softening", &o.softening_text, law != nb::Law::lennard_jones},
                       {"--sigma", &o.sigma_text, law == nb::Law::lennard_jones},
                       {"--epsilon", &o.epsilon_text, law == nb::Law::lennard_jones},
                       {"--cutoff", &o.cutoff_text, law == nb::Law::lennard_jones},
                       {"--k", &o.k_text, law == nb::Law::coulomb}};
  for (const Only& a : only)
    if (!a.allowed && !a.text->empty())
      throw app::UsageError(std::string(a.option) + " does not apply to --law " + o.law_text);
  constexpr double inf = std::numeric_limits<double>::infinity(), big = std::numeric_limits<double>::max();
  constexpr double tiny = std::numeric_limits<double>::denorm_min();
  const std::string positive = "must be a finite number > 0";
  if (!o.g_text.empty()) o.params.G = app::parse_double("--G", o.g_text, tiny, big, "G " + positive);
  if (!o.softening_text.empty())
    o.params.softening = app::parse_double("--softening", o.softening_text, 0, big, "the softening must be a finite number >= 0");
  if (!o.sigma_text.empty()) o.params.sigma = app::parse_double("--sigma", o.sigma_text, tiny, big, "sigma " + positive);
  if (!o.epsilon_text.empty())
    o.params.epsilon = app::parse_double("--epsilon", o.epsilon_text, tiny, big, "epsilon " + positive);
  if (!o.cutoff_text.empty())
    o.params.cutoff = app::parse_double("--cutoff", o.cutoff_text, tiny, inf, "the cutoff must be a number > 0 (inf: none)");
  if (!o.k_text.empty()) o.params.k = app::parse_double("--k", o.k_text, tiny, big, "k " + positive);
  try {
    nb::check_params(o.params, o.precision == "fp32");
  } catch (const std::invalid_argument& e) {
    throw app::UsageError(param_message(e.what(), o));
  }
  if (!o.steps_text.empty()) o.steps = app::parse_int("--steps", o.steps_text, 0, 1000000000, "the number of steps");
  if (o.steps > 0 && o.dt_text.empty()) throw app::UsageError("--steps " + o.steps_text + " needs --dt");
  if (!o.dt_text.empty()) {
    if (o.steps == 0) throw app::UsageError("--dt needs --steps N (N > 0)");
    o.dt = app::parse_double("--dt", o.dt_text, tiny, big, "the time step must be a finite number > 0");
  }
  if (!o.every_text.empty()) {
    if (o.steps == 0) throw app::UsageError("--every needs --steps N (N > 0)");
    o.every = app::parse_int("--every", o.every_text, 1, o.steps, "the report interval (steps)");
  } else if (o.steps > 0) {
    o.every = o.steps >= 10 ? o.steps / 10 : 1;
  }
  if (!o.snapshots.empty() && o.steps == 0) throw app::UsageError("--snapshots needs --steps N (N > 0)");
  if (o.steps > 0 && o.run.repeat != 1) throw app::UsageError("--repeat times a force evaluation; not with --steps");
  if (!o.save_input.empty() && !o.in.input.empty()) throw app::UsageError("--save-input needs --random or --plummer");
  const std::vector<std::pair<std::string, std::string>> inputs{{"--input", o.in.input}};
  app::check_npy_output("--output", o.output, inputs);
  app::check_npy_output("--forces", o.forces, inputs);
  app::check_npy_output("--snapshots", o.snapshots, inputs);
  app::check_npy_output("--save-input", o.save_input, inputs);
  const std::pair<const char*, const std::string*> outs[] = {
      {"--output", &o.output}, {"--forces", &o.forces}, {"--snapshots", &o.snapshots}, {"--save-input", &o.save_input}};
  for (std::size_t a = 0; a < 4; ++a)
    for (std::size_t b = a + 1; b < 4; ++b)
      if (!outs[a].second->empty() && !outs[b].second->empty())
        app::check_not_same_file(outs[b].first, *outs[b].second, outs[a].first, *outs[a].second);
}

/// Writes bodies as FILE.npy rows x, y, z, m, vx, vy, vz [, q] (float64
/// (n, 7), or (n, 8) with the charges q when q is not empty: the --input
/// layout of the run's law, so that the file starts a next run under the
/// same options): x(i, c) and v(i, c) give positions and velocities.
template <class X, class V>
void write_state(const std::string& path, std::int64_t n, const X& x, const V& v, const std::vector<double>& m,
                 const std::vector<double>& q) {
  const std::int64_t cols = nb::body_columns + (q.empty() ? 0 : 1);
  std::vector<double> rows(static_cast<std::size_t>(n * cols));
  for (std::int64_t i = 0; i < n; ++i) {
    double* r = &rows[static_cast<std::size_t>(i * cols)];
    for (int c = 0; c < 3; ++c) r[c] = x(i, c), r[4 + c] = v(i, c);
    r[3] = m[static_cast<std::size_t>(i)];
    if (!q.empty()) r[nb::body_columns] = q[static_cast<std::size_t>(i)];
  }
  app::write_npy(path, rows.data(), {n, cols});
}

/// Pairs i > j of n bodies; snapshot frames of a run (steps 0, K, 2K, ...).
inline std::int64_t pair_count(std::int64_t n) { return n * (n - 1) / 2; }
inline std::int64_t frames(const Options& o) { return o.steps / o.every + 1; }

/// Memory and disk of a run, checked before anything is allocated: host
/// (the input rows and the run's arrays) before Kokkos starts, the device
/// once it has.
template <class mem>
void check_sizes(const Options& o, index_t n, bool device_side) {
  using app::add_sat;
  using app::mul_sat;
  const index_t real = o.precision == "fp32" ? 4 : 8;
  const index_t device = mul_sat(n, 13 * real);  // x, v, a (4), m, q, 1 / m
  if (!device_side) {
    index_t host = mul_sat(n, 2 * 15 * 8);  // the rows, the fp64 arrays
    if (std::is_same<mem, Kokkos::HostSpace>::value) host = add_sat(host, device);
    const index_t host_free = app::host_available_bytes();
    if (host > host_free)
      throw app::Error(std::to_string(n) + " bodies need " + app::bytes_text(host) + " of host memory but only " +
                       app::format_bytes(host_free) + " is available; use fewer bodies");
    if (!o.snapshots.empty())
      app::check_filesystem_space(o.snapshots, add_sat(mul_sat(mul_sat(frames(o), n), 24), 128), "the snapshots");
    const index_t row = o.params.law == nb::Law::coulomb ? 64 : 56;  // 7 or 8 float64
    if (!o.output.empty()) app::check_filesystem_space(o.output, add_sat(mul_sat(n, row), 128), "the final state");
    if (!o.forces.empty()) app::check_filesystem_space(o.forces, add_sat(mul_sat(n, 32), 128), "the forces");
    return;
  }
  if (std::is_same<mem, Kokkos::HostSpace>::value) return;
  const index_t device_free = app::free_memory_bytes<mem>();
  if (device > device_free)
    throw app::Error(std::to_string(n) + " bodies need " + app::bytes_text(device) + " of " + mem::name() +
                     " memory but only " + app::format_bytes(device_free) + " is free; use fewer bodies");
}

/// What MPI ranks must agree on before any work (common/ranks.hpp).
inline app::RunFacts run_facts(const Options& o, index_t n) {
  app::RunFacts f;
  f.add("--law", o.law_text).add("--precision", o.precision).add("--map", o.spec.label()).add("--block", o.block);
  f.add_real("--G", o.params.G).add_real("--softening", o.params.softening).add_real("--sigma", o.params.sigma);
  f.add_real("--epsilon", o.params.epsilon).add_real("--cutoff", o.params.cutoff).add_real("--k", o.params.k);
  f.add("--steps", o.steps).add_real("--dt", o.dt).add("--every", o.every).add("--repeat", o.run.repeat).add("n", n);
  if (o.in.input.empty()) f.add("--seed", std::to_string(o.in.seed)).add("input checksum", o.plummer_n > 0 ? "plummer" : "random");
  else f.add("--seed", "not used").add_file("input checksum", o.in.input);
  return f;
}

}  // namespace nbody_cli
}  // namespace tdmaps

#endif
