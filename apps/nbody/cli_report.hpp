#ifndef TDMAPS_NBODY_CLI_REPORT_HPP
#define TDMAPS_NBODY_CLI_REPORT_HPP

// tdmaps-nbody's reports: a line per report of a run with --steps (text, or
// a JSON line of the report schema, apps/common/report_schema.json) and the
// summary at the end, and the warning of an energy that is not finite. Part
// of the CLI, not installed.

#include <tdmaps/nbody.hpp>

#include "cli_input.hpp"
#include "common/cli.hpp"
#include "common/cli_options.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>

namespace tdmaps {
namespace nbody_cli {

/// What a report line shows.
struct Point {
  std::int64_t step = 0;
  double time = 0;
  nb::Diagnostics d;
  double drift = 0;  ///< (E - E0) / |E0|; NaN when E0 = 0
};

struct Report {
  app::Timing times;  // ms_combine: MPI ranks, the last evaluation's all-reduction (inside ms_min)
  Point last;
  double e0 = 0;
  std::string rank_sums;  ///< MPI ranks: how the accelerations were summed (RankSums::path)
  double ms_writes = 0;   ///< every file the run wrote (snapshots, final state, forces), for the text summary
};

inline std::string g(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

inline nlohmann::json header_json(const Options& o, const Input& in, const app::Timing& t, double ms_total, int ranks,
                                  const std::string& mode) {
  const app::RunShape shape{in.n, 3, o.precision, nb::law_name(o.params.law), pair_count(in.n)};
  nlohmann::json j =
      app::report_json(app::report_header(o.in, o.spec.label(), o.block, ranks, shape, t, ms_total, o.output));
  j["mode"] = mode;
  j["generator"] = o.plummer_n > 0      ? nlohmann::json("plummer")
                   : o.in.input.empty() ? nlohmann::json("random")
                                        : nlohmann::json(nullptr);
  return j;
}

inline void add_point(nlohmann::json& j, const Point& p) {
  using app::finite_or_null;
  j["step"] = p.step;
  j["time"] = p.time;
  j["energy"] = finite_or_null(p.d.total());
  j["kinetic"] = finite_or_null(p.d.kinetic);
  j["potential"] = finite_or_null(p.d.potential);
  j["momentum"] = {finite_or_null(p.d.px), finite_or_null(p.d.py), finite_or_null(p.d.pz)};
  j["energy_drift"] = finite_or_null(p.drift);
}

/// A report line of a run with --steps.
inline void print_point(const Options& o, const Input& in, const Point& p, const app::Timing& t, double ms_total,
                        int ranks) {
  if (o.run.json) {
    nlohmann::json j = header_json(o, in, t, ms_total, ranks, "nbody_step");
    add_point(j, p);
    app::print_json_line(j);
  } else {
    std::cout << "step " << p.step << "  t " << g(p.time) << "  E " << g(p.d.total()) << "  K " << g(p.d.kinetic)
              << "  U " << g(p.d.potential) << "  P (" << g(p.d.px) << ", " << g(p.d.py) << ", " << g(p.d.pz)
              << ")  dE/|E0| " << g(p.drift) << std::endl;
  }
}

/// Why the energy of a run whose every force evaluation was finite is not:
/// its fp64 sums overflowed (the diagnostics sum in fp64 whatever the
/// run's precision), named by part and by the law's own scales.
inline std::string energy_warning(const Options& o, const nb::Diagnostics& d) {
  const bool kinetic = !std::isfinite(d.kinetic);
  std::string why;
  if (kinetic) {
    why = "the kinetic energy, sum of m |v|^2 / 2, overflowed float64 (masses and velocities too large: smaller units)";
  } else {
    const char* scale = o.params.law == nb::Law::gravity   ? "G and the masses"
                        : o.params.law == nb::Law::coulomb ? "k and the charges"
                                                           : "epsilon";
    why = std::string("the potential energy, sum of the pair energies, overflowed float64 (") + scale +
          " too large: smaller units)";
  }
  return "the energy is not finite (kinetic " + g(d.kinetic) + ", potential " + g(d.potential) + "): " + why +
         "; every force evaluation was finite in " + (o.precision == "fp32" ? "float32" : "float64");
}

inline void print_report(const Options& o, const Input& in, const Report& rep, double total_seconds, int ranks) {
  using app::finite_or_null;
  const std::int64_t pairs = pair_count(in.n);
  if (o.run.json) {
    nlohmann::json j = header_json(o, in, rep.times, total_seconds * 1e3, ranks, "nbody");
    add_point(j, rep.last);
    j["ms_combine"] = rep.times.ms_combine;
    j["rank_sums"] = rep.rank_sums;
    j["steps"] = o.steps;
    j["dt"] = o.steps > 0 ? nlohmann::json(o.dt) : nlohmann::json(nullptr);
    j["G"] = o.params.law == nb::Law::gravity ? nlohmann::json(o.params.G) : nlohmann::json(nullptr);
    j["softening"] =
        o.params.law != nb::Law::lennard_jones ? nlohmann::json(o.params.softening) : nlohmann::json(nullptr);
    j["cutoff"] = o.params.law == nb::Law::lennard_jones ? finite_or_null(o.params.cutoff) : nlohmann::json(nullptr);
    j["forces"] = app::string_or_null(o.forces);
    j["snapshots"] = app::string_or_null(o.snapshots);
    j["save_input"] = app::string_or_null(o.save_input);
    app::print_json_line(j);
    return;
  }
  std::cout << "tdmaps-nbody: n = " << in.n << " (" << in.source << "), law " << nb::law_name(o.params.law)
            << ", precision " << o.precision << ", map " << o.spec.label() << ", block " << o.block << ", backend "
            << Kokkos::DefaultExecutionSpace::name() << "\n";
  if (o.steps == 0)
    std::cout << "energy: " << g(rep.last.d.total()) << " (kinetic " << g(rep.last.d.kinetic) << ", potential "
              << g(rep.last.d.potential) << ")\n";
  else
    std::cout << "steps: " << o.steps << " of dt " << g(o.dt) << "; energy drift " << g(rep.last.drift) << "\n";
  std::cout << "pairs: " << pairs << " per force evaluation\n";
  // The write line: every file this run wrote and the time all took.
  std::string outputs, what;
  const std::pair<const std::string*, const char*> files[] = {
      {&o.output, "the final state"}, {&o.forces, "the forces"}, {&o.snapshots, "the snapshots"}};
  for (const auto& f : files)
    if (!f.first->empty()) {
      outputs += (outputs.empty() ? "" : ", ") + *f.first;
      what += (what.empty() ? "" : ", ") + std::string(f.second);
    }
  app::Timing t = rep.times;
  t.ms_write = rep.ms_writes;
  app::print_times(t, pairs, o.steps > 0 ? "pairs (per step)" : "pairs", outputs, what, total_seconds * 1e3);
}

}  // namespace nbody_cli
}  // namespace tdmaps

#endif
