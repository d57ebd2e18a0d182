#ifndef TDMAPS_APPS_COMMON_CLI_HPP
#define TDMAPS_APPS_COMMON_CLI_HPP

// The conventions every tdmaps CLI follows (target tdmaps::app_common):
//
// - Errors: "tdmaps-<tool>: error: <what, with the value the user typed>" on
//   stderr; exit 2 for usage errors (UsageError: options, their values, their
//   combinations; also std::invalid_argument from the library's own argument
//   checks), 1 for runtime failures (Error and anything else: unreadable or
//   bad input files, memory, disk, Kokkos). run_main() applies it.
// - Kokkos' own options (--kokkos-*) are checked against the names Kokkos
//   knows (an unknown one is a usage error, as for any other option) and
//   given to Kokkos in the spelling of the Kokkos the binary was built with:
//   --kokkos-threads and --kokkos-num-threads are the same option.
// - --help and --version never need a device: Kokkos starts after parsing.
// - Numbers are parsed strictly (parse_int / parse_uint64): "-1",
//   "99999999999999999999", "1e3" or "12abc" are refused with the text typed
//   and the accepted range.
// - JSON results are one line through nlohmann::json (print_json_line), one
//   schema for every tool and mode (report_json, report_schema.json): the
//   same keys in every line (report_keys), absent values null, numbers are
//   numbers, warnings in "warnings".

#include "npy.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tdmaps {
namespace app {

/// A mistake in the command line: exit status 2.
struct UsageError : Error {
  using Error::Error;
};

constexpr int exit_runtime_error = 1;
constexpr int exit_usage_error = 2;

/// The tools' version (both CLIs, --version and the JSON "version").
const char* version();

/// "tdmaps-edm" for set_app_name("edm").
std::string program_name();

/// argv split into Kokkos' options (validated, in the spelling this Kokkos
/// reads) and the rest (for CLI11, in order, without argv[0]).
struct SplitArgs {
  std::vector<std::string> kokkos;
  std::vector<std::string> rest;
};
SplitArgs split_kokkos_args(int argc, char* argv[]);

/// Kokkos::initialize's (argc, argv) over strings, argv[0] first.
class KokkosArgv {
 public:
  KokkosArgv(const std::string& argv0, const std::vector<std::string>& options);
  int& argc() { return argc_; }
  char** argv() { return ptrs_.data(); }

 private:
  std::vector<std::string> storage_;
  std::vector<char*> ptrs_;
  int argc_ = 0;
};

/// Strict decimal integer in [lo, hi]; UsageError "<option> <text>: <what>
/// must be an integer from lo to hi" otherwise.
std::int64_t parse_int(const std::string& option, const std::string& text, std::int64_t lo, std::int64_t hi,
                       const std::string& what);
/// Strict non-negative decimal integer up to 2^64 - 1 (seeds).
std::uint64_t parse_uint64(const std::string& option, const std::string& text, const std::string& what);

/// Strict decimal number (strtod's syntax, the whole text) in [lo, hi] (inf
/// only where hi or lo is infinite); UsageError "<option> <text>: <rule>"
/// otherwise, the text as typed.
double parse_double(const std::string& option, const std::string& text, double lo, double hi,
                    const std::string& rule);

/// UsageError when writing `output` would replace `input`: the same file by
/// device and inode (another path, a symlink, a hard link), or, where either
/// does not exist, the same normalised path (directories resolved, "." and
/// ".." removed). Called before any work, for every output of every mode.
void check_not_same_file(const std::string& output_option, const std::string& output, const std::string& input_option,
                         const std::string& input);

/// Parses `args` (SplitArgs::rest) with CLI11. Returns an exit status when
/// the program is done (--help, --version: 0); throws UsageError for a
/// parse error (CLI11's message, prefixed by the convention).
std::optional<int> parse_command_line(CLI::App& cli, const std::vector<std::string>& args);

/// Whether `path` names a .npy file (the extension in any case, as
/// read_matrix takes it).
bool is_npy_path(const std::string& path);

/// Prints "tdmaps-<tool>: error: what" (and a --help hint for usage errors).
void print_error(const std::string& what, bool usage);

/// Runs body() under the error convention: returns its status, 2 after a
/// UsageError, 1 after any other exception (message printed).
int run_main(const std::function<int()>& body);

/// One JSON object on one line of stdout (invalid UTF-8 in strings replaced,
/// never thrown).
void print_json_line(const nlohmann::json& j);

/// A string value or null when empty.
nlohmann::json string_or_null(const std::string& s);

/// A number or null when it is not finite (NaN, inf: JSON has neither).
nlohmann::json finite_or_null(double v);

/// Warnings of a run: printed at once as "tdmaps-<tool>: warning: ..." in
/// text mode, kept for the JSON line's "warnings" array with --json, dropped
/// with --quiet. configure_warnings once after parsing.
void configure_warnings(bool json, bool quiet);
void warning(const std::string& what);
const std::vector<std::string>& warnings();

/// The keys every tool's JSON line has, in every mode (the schema:
/// apps/common/report_schema.json). Empty strings and negative times are
/// null. elements: what the run computed (pairs i > j, triplets, or matrix
/// entries), so elements_per_second = elements / the best run's time is the
/// one rate key of every tool.
struct ReportHeader {
  std::string input;            ///< empty: --random, then seed is set
  std::uint64_t seed = 0;
  std::int64_t n = 0, d = 0;
  std::string precision, map, kernel;
  int block = 0;
  std::string backend;
  int concurrency = 0;
  int ranks = 1;
  int repeat = 1;
  std::int64_t elements = 0;
  double ms_mean = 0, ms_min = 0, ms_warmup = -1, ms_write = -1, ms_total = 0;
  std::string output;
};
/// The keys of every JSON line of every tool and mode: the schema's
/// "required" list (apps/common/report_schema.json), each mode's own keys
/// included, null in the lines of the other modes.
const std::vector<std::string>& report_keys();

/// The header as JSON, with "warnings" (warnings()) and every other key of
/// report_keys() null; the caller sets its mode's own keys (none outside
/// report_keys()) and prints it with print_json_line.
nlohmann::json report_json(const ReportHeader& h);

}  // namespace app
}  // namespace tdmaps

#endif
