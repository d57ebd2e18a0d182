// Implementation of apps/common/cli.hpp.
#include "cli.hpp"

#include <Kokkos_Macros.hpp>
#include <tdmaps/version.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <stdexcept>

namespace tdmaps {
namespace app {

namespace {

// Kokkos 3.7 renamed --kokkos-threads to --kokkos-num-threads (4.x ignores the
// old name with a warning) and --kokkos-tools-library to --kokkos-tools-libs.
#if KOKKOS_VERSION >= 30700
constexpr bool kokkos_new_names = true;
#else
constexpr bool kokkos_new_names = false;
#endif
#if KOKKOS_VERSION >= 40000
constexpr bool kokkos_4 = true;
#else
constexpr bool kokkos_4 = false;
#endif

struct KokkosOption {
  const char* name;     ///< after "--kokkos-"
  bool value;           ///< takes "=VALUE"
  bool v3, v4;          ///< read by Kokkos 3.x / 4.x
  const char* renamed;  ///< the spelling this Kokkos reads, when it differs
};

const KokkosOption* find_kokkos_option(const std::string& name) {
  static const KokkosOption options[] = {
      {"threads", true, true, true, kokkos_new_names ? "num-threads" : nullptr},
      {"num-threads", true, true, true, kokkos_new_names ? nullptr : "threads"},
      {"device-id", true, true, true, nullptr},
      {"numa", true, true, false, nullptr},
      {"ndevices", true, true, false, nullptr},
      {"num-devices", true, true, false, nullptr},
      {"skip-device", true, true, false, nullptr},
      {"map-device-id-by", true, false, true, nullptr},
      {"tools-library", true, true, true, kokkos_new_names ? "tools-libs" : nullptr},
      {"tools-libs", true, true, true, kokkos_new_names ? nullptr : "tools-library"},
      {"tools-args", true, true, true, nullptr},
      {"tools-help", false, true, true, nullptr},
      {"disable-warnings", false, true, true, nullptr},
      {"tune-internals", false, true, true, nullptr},
      {"print-configuration", false, false, true, nullptr},
      {"help", false, true, true, nullptr},
  };
  for (const auto& o : options)
    if (name == o.name) return &o;
  return nullptr;
}

std::string kokkos_option_names() {
  return "--kokkos-threads=N (or --kokkos-num-threads=N), --kokkos-device-id=N, --kokkos-disable-warnings, "
         "--kokkos-tune-internals, --kokkos-tools-libs=LIB, --kokkos-tools-args=ARGS, --kokkos-help";
}

bool all_digits(const std::string& s, std::size_t from) {
  if (s.size() <= from) return false;
  for (std::size_t k = from; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return false;
  return true;
}

}  // namespace

const char* version() { return TDMAPS_VERSION_STRING; }

std::string program_name() { return "tdmaps-" + app_name(); }

SplitArgs split_kokkos_args(int argc, char* argv[]) {
  SplitArgs r;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s.rfind("--kokkos-", 0) != 0) {
      r.rest.push_back(s);
      continue;
    }
    const std::size_t eq = s.find('=');
    const std::string name = s.substr(9, eq == std::string::npos ? std::string::npos : eq - 9);
    const KokkosOption* o = find_kokkos_option(name);
    if (o == nullptr)
      throw UsageError("unknown Kokkos option '" + s + "' (known: " + kokkos_option_names() + ")");
    if (!(kokkos_4 ? o->v4 : o->v3))
      throw UsageError("'" + s + "' is not an option of the Kokkos " + std::to_string(KOKKOS_VERSION / 10000) + "." +
                       std::to_string(KOKKOS_VERSION / 100 % 100) + " this program was built with (known: " +
                       kokkos_option_names() + ")");
    if (o->value && eq == std::string::npos)
      throw UsageError("'" + s + "' needs a value: --kokkos-" + name + "=VALUE");
    if (!o->value && eq != std::string::npos) throw UsageError("'" + s + "' takes no value");
    const std::string value = eq == std::string::npos ? std::string() : s.substr(eq + 1);
    if (name == "threads" || name == "num-threads") parse_int("--kokkos-" + name, value, 1, 1 << 20, "the thread count");
    if (name == "device-id") parse_int("--kokkos-device-id", value, 0, 1 << 20, "the device id");
    const std::string spelled = o->renamed ? o->renamed : o->name;
    r.kokkos.push_back("--kokkos-" + spelled + (o->value ? "=" + value : std::string()));
  }
  return r;
}

KokkosArgv::KokkosArgv(const std::string& argv0, const std::vector<std::string>& options) {
  storage_.push_back(argv0);
  storage_.insert(storage_.end(), options.begin(), options.end());
  for (auto& s : storage_) ptrs_.push_back(&s[0]);
  argc_ = static_cast<int>(storage_.size());
  ptrs_.push_back(nullptr);
}

std::int64_t parse_int(const std::string& option, const std::string& text, std::int64_t lo, std::int64_t hi,
                       const std::string& what) {
  const std::string range = " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  const bool negative = !text.empty() && text[0] == '-';
  if (!all_digits(text, negative ? 1 : 0)) throw UsageError(option + " " + text + ": " + what + range);
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || v < lo || v > hi) throw UsageError(option + " " + text + ": " + what + range);
  return static_cast<std::int64_t>(v);
}

std::uint64_t parse_uint64(const std::string& option, const std::string& text, const std::string& what) {
  const std::string range = " must be an integer from 0 to " + std::to_string(std::numeric_limits<std::uint64_t>::max());
  if (!all_digits(text, 0)) throw UsageError(option + " " + text + ": " + what + range);
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno == ERANGE) throw UsageError(option + " " + text + ": " + what + range);
  return static_cast<std::uint64_t>(v);
}

double parse_double(const std::string& option, const std::string& text, double lo, double hi, const std::string& rule) {
  errno = 0;
  char* end = nullptr;
  const double v = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
  const bool whole = !text.empty() && end == text.c_str() + text.size() && !std::isspace(static_cast<unsigned char>(text[0]));
  // ERANGE with a finite result: an underflow to 0 or a subnormal ("1e-400"), not the value typed.
  if (!whole || std::isnan(v) || (errno == ERANGE && std::isfinite(v)) || !(v >= lo && v <= hi))
    throw UsageError(option + " " + text + ": " + rule);
  return v;
}

namespace {

/// The absolute path with "." and ".." and repeated slashes gone, the
/// directory part resolved (symlinks) where it exists.
std::string normalised_path(const std::string& path) {
  std::string abs = path;
  if (abs.empty() || abs[0] != '/') {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) != nullptr) abs = std::string(cwd) + "/" + path;
  }
  std::vector<std::string> parts;
  std::size_t from = 0;
  while (from <= abs.size()) {
    const std::size_t slash = abs.find('/', from);
    const std::string part = abs.substr(from, slash == std::string::npos ? std::string::npos : slash - from);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    if (slash == std::string::npos) break;
    from = slash + 1;
  }
  std::string dir;
  for (std::size_t k = 0; k + 1 < parts.size(); ++k) dir += "/" + parts[k];
  const std::string base = parts.empty() ? std::string() : parts.back();
  char resolved[PATH_MAX];
  if (::realpath(dir.empty() ? "/" : dir.c_str(), resolved) != nullptr) dir = resolved;
  return (dir == "/" ? std::string() : dir) + "/" + base;
}

}  // namespace

void check_not_same_file(const std::string& output_option, const std::string& output, const std::string& input_option,
                         const std::string& input) {
  if (output.empty() || input.empty()) return;
  bool same = output == input;
  struct stat so, si;
  if (!same && ::stat(output.c_str(), &so) == 0 && ::stat(input.c_str(), &si) == 0)
    same = so.st_dev == si.st_dev && so.st_ino == si.st_ino;
  else if (!same)
    same = normalised_path(output) == normalised_path(input);
  if (same)
    throw UsageError(output_option + " " + output + " would overwrite the " + input_option + " file " + input +
                     "; name another output");
}

bool is_npy_path(const std::string& path) {
  if (path.size() < 4) return false;
  std::string e = path.substr(path.size() - 4);
  for (auto& c : e) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return e == ".npy";
}

void print_error(const std::string& what, bool usage) {
  std::cout.flush();
  std::cerr << program_name() << ": error: " << what << "\n";
  if (usage) std::cerr << "Run " << program_name() << " --help for more information.\n";
  std::cerr.flush();
}

int run_main(const std::function<int()>& body) {
  try {
    return body();
  } catch (const UsageError& e) {
    print_error(e.what(), true);
    return exit_usage_error;
  } catch (const std::invalid_argument& e) {
    // The library's argument checks (launch hints, maps, kernels for a map)
    // reached through options the CLI could not judge alone.
    print_error(e.what(), true);
    return exit_usage_error;
  } catch (const std::exception& e) {
    print_error(e.what(), false);
    return exit_runtime_error;
  }
}

void print_json_line(const nlohmann::json& j) {
  std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
}

nlohmann::json string_or_null(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

namespace {
bool g_warnings_json = false, g_warnings_quiet = false;
std::vector<std::string> g_warnings;
}  // namespace

void configure_warnings(bool json, bool quiet) {
  g_warnings_json = json;
  g_warnings_quiet = quiet;
}

void warning(const std::string& what) {
  if (g_warnings_quiet) return;
  if (g_warnings_json) g_warnings.push_back(what);
  else warn(what);
}

const std::vector<std::string>& warnings() { return g_warnings; }

const std::vector<std::string>& report_keys() {
  // Every mode's keys in every line, so that a consumer reads any line of any
  // tool with one set of column names (a table of runs, a DataFrame).
  static const std::vector<std::string> keys = {
      // every tool and mode
      "tool", "version", "mode", "input", "seed", "n", "d", "precision", "map", "block", "kernel", "backend",
      "concurrency", "ranks", "repeat", "elements", "ms_mean", "ms_min", "ms_warmup", "ms_write", "ms_combine",
      "ms_total", "elements_per_second", "output", "save_input", "warnings",
      // tdmaps-edm: matrix, stream
      "layout", "symmetric", "bytes", "gbps", "gbps_best", "chunks", "chunk_bytes", "d2h_gbps", "d2h_cold_gbps",
      // tdmaps-edm --reduce
      "reduce", "k", "bins", "rmax", "counted", "radius", "count",
      // tdmaps-collide (and count)
      "result", "fraction",
      // tdmaps-triplets (and energy, cutoff)
      "triplets", "energy", "c9", "cutoff", "cutoff_triple",
      // tdmaps-nbody: nbody, nbody_step
      "generator", "step", "time", "kinetic", "potential", "momentum", "energy_drift", "rank_sums", "steps", "dt", "G",
      "softening", "forces", "snapshots"};
  return keys;
}

nlohmann::json report_json(const ReportHeader& h) {
  const auto time_or_null = [](double ms) { return ms >= 0 ? nlohmann::json(ms) : nlohmann::json(nullptr); };
  nlohmann::json j = nlohmann::json::object();
  for (const auto& k : report_keys()) j[k] = nullptr;
  j["tool"] = program_name();
  j["version"] = version();
  j["input"] = string_or_null(h.input);
  j["seed"] = h.input.empty() ? nlohmann::json(h.seed) : nlohmann::json(nullptr);
  j["n"] = h.n;
  j["d"] = h.d;
  j["precision"] = string_or_null(h.precision);
  j["map"] = string_or_null(h.map);
  j["block"] = h.block;
  j["kernel"] = string_or_null(h.kernel);
  j["backend"] = string_or_null(h.backend);
  j["concurrency"] = h.concurrency;
  j["ranks"] = h.ranks;
  j["repeat"] = h.repeat;
  j["elements"] = h.elements;
  j["ms_mean"] = h.ms_mean;
  j["ms_min"] = h.ms_min;
  j["ms_warmup"] = time_or_null(h.ms_warmup);
  j["ms_write"] = time_or_null(h.ms_write);
  j["ms_total"] = h.ms_total;
  j["elements_per_second"] =
      h.ms_min > 0 ? nlohmann::json(static_cast<double>(h.elements) / (h.ms_min * 1e-3)) : nlohmann::json(nullptr);
  j["output"] = string_or_null(h.output);
  j["warnings"] = g_warnings;
  return j;
}

}  // namespace app
}  // namespace tdmaps
