// The CLI skeleton's option groups and report header (cli_options.hpp).
#include "cli_options.hpp"

#include "output_file.hpp"

#include <Kokkos_Core.hpp>

#include <iostream>
#include <sstream>

namespace tdmaps {
namespace app {

SplitArgs start_tool(const std::string& name, int argc, char* argv[]) {
  set_app_name(name);
  install_signal_cleanup();
  return split_kokkos_args(argc, argv);
}

CLI::Option* add_input_options(CLI::App& cli, InputOptions& o, const std::string& input_help,
                               const std::string& random_help) {
  auto* input = cli.add_option("--input", o.input, input_help);
  auto* random = cli.add_option("--random", o.random_text, random_help + " (std::mt19937_64)");
  input->excludes(random);
  cli.add_option("--seed", o.seed_text, "seed of --random, 0 to 2^64 - 1 (default 1)")->needs(random);
  return random;
}

void check_input_options(InputOptions& o, std::int64_t max_n, const std::string& items) {
  if (o.input.empty() && o.random_text.empty())
    throw UsageError("give the " + items + " with --input FILE or --random N");
  if (!o.random_text.empty()) o.random_n = parse_int("--random", o.random_text, 1, max_n, "the number of " + items);
  if (!o.seed_text.empty()) o.seed = parse_uint64("--seed", o.seed_text, "the seed");
}

void add_map_options(CLI::App& cli, tdmaps::MapSpec& spec, int& block) {
  cli.add_option("--map", spec.map, "map: " + tdmaps::join_names(tdmaps::map_names()))
      ->check(CLI::IsMember(tdmaps::accepted_map_names()))
      ->capture_default_str();
  cli.add_option("--sqrt", spec.sqrt, "lambda's square root: " + tdmaps::join_names(tdmaps::sqrt_names()))
      ->check(CLI::IsMember(tdmaps::sqrt_names()))
      ->capture_default_str();
  cli.add_option("--form", spec.form, "lambda's form: exact (integer-corrected) or eps (the papers')")
      ->check(CLI::IsMember(tdmaps::form_names()))
      ->capture_default_str();
  cli.add_option("--block", block, "block side rho (threads per block per dimension): 8, 16 or 32")
      ->check(CLI::IsMember({8, 16, 32}))
      ->capture_default_str();
}

void add_map_options(CLI::App& cli, tdmaps::MapSpec3& spec, int& block) {
  cli.add_option("--map", spec.map, "3-D map: " + tdmaps::join_names(tdmaps::map3_names()))
      ->check(CLI::IsMember(tdmaps::map3_names()))
      ->capture_default_str();
  cli.add_option("--cbrt", spec.cbrt, "lambda3's cube root: " + tdmaps::join_names(tdmaps::cbrt_names()))
      ->check(CLI::IsMember(tdmaps::cbrt_names()))
      ->capture_default_str();
  cli.add_option("--form", spec.form, "lambda3's form: " + tdmaps::join_names(tdmaps::form_names()))
      ->check(CLI::IsMember(tdmaps::form_names()))
      ->capture_default_str();
  cli.add_option("--block", block, "block side rho (a block of rho^3 triplets): 2, 4 or 8")
      ->check(CLI::IsMember({2, 4, 8}))
      ->capture_default_str();
}

void add_run_options(CLI::App& cli, RunOptions& o, const std::string& repeat_help) {
  add_launch_options(cli, o.hints);
  cli.add_option("--repeat", o.repeat, repeat_help)->check(CLI::Range(1, 1000000))->capture_default_str();
  cli.add_flag("--json", o.json, "print one JSON line of results instead of text (no progress)");
  cli.add_flag("--quiet", o.quiet, "no progress or warnings on stderr");
}

void check_npy_output(const std::string& option, const std::string& path,
                      const std::vector<std::pair<std::string, std::string>>& inputs) {
  if (path.empty()) return;
  if (!ends_with(path, ".npy")) throw UsageError(option + " " + path + ": the output is written as .npy; name it *.npy");
  for (const auto& in : inputs) check_not_same_file(option, path, in.first, in.second);
  check_output_path(path);
}

const char* conventions_help() {
  static const std::string text =
      std::string("Input: ") + input_format_rule() + "; " + csv_number_rule() +
      ".\n"
      "Exit status: 0 on success, 2 on a usage error (options and their values), 1 on a runtime failure (input, "
      "memory, disk).\n"
      "Progress of runs longer than ~2 s goes to stderr (a bar on a terminal, a line every 10 s otherwise);\n"
      "--quiet and --json silence it. An interrupted run (Ctrl-C, SIGTERM, SIGHUP) leaves no output file behind.\n"
      "Kokkos options (--kokkos-threads=N, --kokkos-device-id=N, ...) are passed to Kokkos; unknown ones are "
      "refused.";
  return text.c_str();
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string fmt(double v, int digits) {
  std::ostringstream o;
  o.precision(digits);
  o << v;
  return o.str();
}

ReportHeader report_header(const InputOptions& in, const std::string& map, int block, int ranks, const RunShape& shape,
                           const Timing& t, double ms_total, const std::string& output) {
  using Space = Kokkos::DefaultExecutionSpace;
  ReportHeader h;
  h.input = in.input;
  h.seed = in.seed;
  h.n = shape.n;
  h.d = shape.d;
  h.precision = shape.precision;
  h.map = map;
  h.block = block;
  h.kernel = shape.kernel;
  h.backend = Space::name();
  h.concurrency = Space().concurrency();
  h.ranks = ranks;
  h.repeat = t.runs;
  h.elements = shape.elements;
  h.ms_mean = t.ms_mean;
  h.ms_min = t.ms_min;
  h.ms_warmup = t.ms_warmup;
  h.ms_write = t.ms_write;
  h.ms_total = ms_total;
  h.output = output;
  return h;
}

void print_times(const Timing& t, std::int64_t elements, const std::string& what, const std::string& output,
                 const std::string& output_note, double ms_total) {
  const double rate = t.ms_min > 0 ? static_cast<double>(elements) / (t.ms_min * 1e-3) : 0.0;
  std::cout << "compute: best " << fmt(t.ms_min) << " ms, mean " << fmt(t.ms_mean) << " ms over " << t.runs << " run"
            << (t.runs > 1 ? "s" : "") << "\n";
  std::cout << what << "/s: " << fmt(rate) << "\n";
  if (!output.empty()) std::cout << "write: " << fmt(t.ms_write) << " ms: " << output << ": " << output_note << "\n";
  std::cout << "total: " << fmt(ms_total) << " ms (input, compute, write)\n";
  std::cout.flush();
}

}  // namespace app
}  // namespace tdmaps
