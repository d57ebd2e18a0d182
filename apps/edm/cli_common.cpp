// tdmaps-edm: what every mode shares (cli_common.hpp).
#include "cli_common.hpp"

#include <cctype>
#include <cmath>
#include <exception>

namespace tdmaps {
namespace edm_cli {

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

app::RunFacts run_facts(const Options& o, const std::string& precision, index_t n, index_t d) {
  const auto& r = o.reduce;
  const bool matrix = r.what.empty();
  const std::string unused = "not used";
  app::RunFacts f;
  f.add("--reduce", matrix ? std::string("not given") : r.what);
  if (r.what == "hist") f.add("--bins", r.bins).add_real("--rmax", r.rmax);
  else f.add("--bins", unused).add("--rmax", unused);
  if (r.what == "count") f.add_real("--radius", r.radius);
  else f.add("--radius", unused);
  f.add("--layout", matrix ? o.layout : unused).add("--symmetric", o.symmetric ? "yes" : "no");
  f.add("--kernel", matrix ? o.kernel : unused).add("--map", o.map.label()).add("--block", o.block);
  f.add("--precision", precision).add("--repeat", o.run.repeat).add("--reject-nonfinite", o.reject_nonfinite ? "yes" : "no");
  const std::string& output = matrix ? o.output : r.output;
  f.add("--output", output.empty() ? std::string("not given") : output);
  f.add("n", n).add("d", d);
  if (o.in.input.empty()) {
    f.add("input dtype", "random").add("--seed", std::to_string(o.in.seed)).add("input checksum", "none (--random)");
  } else {
    const std::string& input = o.in.input;
    f.add("input dtype", app::is_npy_path(input) ? app::read_npy_header(input).descr : std::string("csv"));
    f.add("--seed", unused).add_file("input checksum", input);
  }
  return f;
}

app::ReportHeader report_header(const Options& o, const app::Ranks& ranks, const app::RunShape& shape,
                                const app::Timing& t, double ms_total, const std::string& output) {
  return app::report_header(o.in, o.map.label(), o.block, ranks.size(), shape, t, ms_total, output);
}

}  // namespace edm_cli
}  // namespace tdmaps
