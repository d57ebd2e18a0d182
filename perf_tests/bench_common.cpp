// Options, context and memory helpers of tdmaps_bench_maps (see bench_common.hpp).
#include "bench_common.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <unistd.h>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime.h>
#endif

namespace tdmaps_bench {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, sep)) out.push_back(item);
  return out;
}

long long parse_integer(const std::string& flag, const std::string& s) {
  std::size_t pos = 0;
  long long v = 0;
  try {
    v = std::stoll(s, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (s.empty() || pos != s.size()) throw std::invalid_argument(flag + ": '" + s + "' is not an integer");
  return v;
}

/// The papers' range (1..30 x 1024) and the sizes past the fp32 limit of their lambda.
std::vector<index_t> papers_sides() {
  std::vector<index_t> n;
  for (index_t k = 1024; k <= 30720; k += 1024) n.push_back(k);
  for (index_t k : {49152, 65536, 100000}) n.push_back(k);
  return n;
}

}  // namespace

namespace {

/// Integers and first:last:step ranges, comma-separated; no range check.
std::vector<index_t> parse_integers(const std::string& flag, const std::string& text) {
  std::vector<index_t> out;
  for (const std::string& item : split(text, ',')) {
    const auto parts = split(item, ':');
    if (parts.size() == 1) {
      out.push_back(parse_integer(flag, parts[0]));
    } else if (parts.size() == 3) {
      const index_t first = parse_integer(flag, parts[0]), last = parse_integer(flag, parts[1]),
                    step = parse_integer(flag, parts[2]);
      if (step <= 0 || last < first)
        throw std::invalid_argument(flag + ": range '" + item + "' needs first <= last and step > 0");
      for (index_t v = first; v <= last; v += step) out.push_back(v);
    } else {
      throw std::invalid_argument(flag + ": '" + item + "' is neither a number nor first:last:step");
    }
  }
  if (out.empty()) throw std::invalid_argument(flag + ": empty list");
  return out;
}

}  // namespace

std::vector<index_t> parse_index_list(const std::string& flag, const std::string& text) {
  std::vector<index_t> out = parse_integers(flag, text);
  for (index_t v : out)
    if (v < 2 || v > tdmaps::max_side)
      throw std::invalid_argument(flag + ": side " + std::to_string(v) + " is outside 2.." +
                                  std::to_string(tdmaps::max_side));
  return out;
}

namespace {

/// Sides of a tetrahedron: 3 (the smallest with a strict triplet) .. max_side3.
std::vector<index_t> parse_side3_list(const std::string& flag, const std::string& text) {
  std::vector<index_t> out = parse_integers(flag, text);
  for (index_t v : out)
    if (v < 3 || v > tdmaps::max_side3)
      throw std::invalid_argument(flag + ": side " + std::to_string(v) + " is outside 3.." +
                                  std::to_string(tdmaps::max_side3));
  return out;
}

/// Every label with_map3 can produce: bb3, then lambda3_<cbrt>[_eps].
std::vector<std::string> map3_labels() {
  std::vector<std::string> all{"bb3"};
  for (const auto& c : tdmaps::cbrt_names())
    for (const auto& f : tdmaps::form_names()) all.push_back(tdmaps::MapSpec3{"lambda3", c, f}.label());
  return all;
}

}  // namespace

std::vector<int> parse_int_list(const std::string& flag, const std::string& text) {
  // Block sides, dimensions, team shapes: positive ints (each option checks
  // its own range; sides are parse_index_list's).
  std::vector<int> out;
  for (index_t v : parse_integers(flag, text)) {
    if (v < 1 || v > 1048576) throw std::invalid_argument(flag + ": " + std::to_string(v) + " is outside 1..1048576");
    out.push_back(static_cast<int>(v));
  }
  return out;
}

std::vector<std::string> parse_name_list(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& s : split(text, ','))
    if (!s.empty()) out.push_back(s);
  return out;
}

std::string usage() {
  return R"(tdmaps_bench_maps: every map against the bounding box, in one run.
Google Benchmark's own flags (--benchmark_filter=REGEX, --benchmark_format=json,
--benchmark_out=FILE, --benchmark_list_tests, ...) and Kokkos' (--kokkos-threads=N)
work as usual. Case names: <test>/<variant>/<map>/r<rho>/n<n>.
Own options (LIST: comma-separated numbers or first:last:step ranges):
  --quick               small default lists (a whole sweep in minutes)
  --n=LIST              sides of the dummy/sink tests
                        (GPU default 1024:30720:1024,49152,65536,100000)
  --rho=LIST            block sides, of 8,16,32 (default all three)
  --maps=NAMES          map labels to run (bb is always run): bb,lambda_sqrt,
                        lambda_rsqrt_eps,rb,rec,h,utm,... (default all)
  --ceiling-mib=M       size of the write-ceiling fill (GPU 4096, host 256)
  --edm-n=LIST --edm-d=LIST --edm-rho=LIST
  --edm-layouts=packed,condensed,full --edm-kernels=element,tile,linear
  --collision-n=LIST --collision-rho=LIST --collision-dims=LIST (of 1,3)
  --collision-results=count,intflags,flags,rowflags,tileflags,pairs
                        --collision-kernels=tile,element,linear
  --team-threads=LIST   GPU threads per team of the EDM and collision cases,
                        0 = the library's default (variant suffix _t<threads>)
  --blocks-per-team=LIST  blocks each team takes in turn (EDM and collision
                        cases), 0 = the library's default (suffix _k<K>)
  --launch-n=LIST --launch-rho=LIST   the launch-path comparison (plain
                        CUDA vs tdmaps vs Kokkos variants)
  --n3=LIST              sides of the 3-D tests dummy3, sink3, launch3 (strict
                        triplets k < j < i < n; GPU default 256,512,1024,1536,2048)
  --rho3=LIST            3-D block sides, of 2,4,8 (default 4,8)
  --maps3=NAMES          3-D map labels (bb3 is always run): lambda3_cbrt,
                        lambda3_cardano, lambda3_cardano_eps, lambda3_fp64, ...
                        (default: lambda3_{cbrt,cardano,cardano_eps,fp64})
  --atm-n=LIST --atm-rho=LIST   the atm group (three-body energy; GPU default
                        n 1024,2048,3072,4096, block sides 8,4)
  --nbody-n=LIST --nbody-rho=LIST --nbody-k=LIST   the nbody group (all-pairs
                        forces: plain CUDA gems / square against the triangle
                        under lambda and bb; GPU default n 16384,65536,262144,
                        1048576, host 1024,2048,4096; block sides 32,16; blocks
                        per team 0 = the library's default, suffix _k<K>)
  --nbody-terms=LIST     energy (accelerations and energy shares), acc
                        (accelerations alone: the _acc laws); default both
  --nbody-iters=K       timed iterations of an nbody case (default 5, 3 or 1
                        by its size; each a batch of launches of >= 0.1 s)
  --reduce-n=LIST       points of the pairlaw group's nearest, count and
                        histogram cases (GPU default 1000000, host 20000)
  --iters=K             timed launches per case (GPU 20, host 5)
  --no-check            skip the output checks after timing
  --help, -h            this text (Kokkos' flags: --kokkos-help; Google
                        Benchmark's: its documentation, e.g. --benchmark_filter)
)";
}

Options parse_options(int argc, char** argv, bool& show_help) {
  Options o;
  show_help = false;
  bool have_n = false, have_edm_n = false, have_collision_n = false, have_iters = false, have_ceiling = false;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& a : args)
    if (a == "--quick") o.quick = true;
  for (const std::string& a : args) {
    const auto eq = a.find('=');
    const std::string key = a.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : a.substr(eq + 1);
    auto need_value = [&]() {
      if (eq == std::string::npos || value.empty())
        throw std::invalid_argument(key + " needs a value (" + key + "=...)");
    };
    if (key == "--quick") {
    } else if (key == "--help" || key == "-h") {
      show_help = true;
    } else if (key == "--no-check") {
      o.check = false;
    } else if (key == "--n") {
      need_value();
      o.n = parse_index_list(key, value);
      have_n = true;
    } else if (key == "--rho") {
      need_value();
      o.rho = parse_int_list(key, value);
    } else if (key == "--maps") {
      need_value();
      o.maps = parse_name_list(value);
    } else if (key == "--ceiling-mib") {
      need_value();
      const long long m = parse_integer(key, value);
      if (m < 1 || m > (1LL << 20)) throw std::invalid_argument(key + ": " + value + " is outside 1..1048576");
      o.ceiling_bytes = static_cast<std::size_t>(m) << 20;
      have_ceiling = true;
    } else if (key == "--edm-n") {
      need_value();
      o.edm_n = parse_index_list(key, value);
      have_edm_n = true;
    } else if (key == "--edm-d") {
      need_value();
      o.edm_d = parse_int_list(key, value);
    } else if (key == "--edm-rho") {
      need_value();
      o.edm_rho = parse_int_list(key, value);
    } else if (key == "--edm-layouts") {
      need_value();
      o.edm_layouts = parse_name_list(value);
    } else if (key == "--edm-kernels") {
      need_value();
      o.edm_kernels = parse_name_list(value);
    } else if (key == "--collision-n") {
      need_value();
      o.collision_n = parse_index_list(key, value);
      have_collision_n = true;
    } else if (key == "--collision-rho") {
      need_value();
      o.collision_rho = parse_int_list(key, value);
    } else if (key == "--launch-n") {
      need_value();
      o.launch_n = parse_index_list(key, value);
    } else if (key == "--launch-rho") {
      need_value();
      o.launch_rho = parse_int_list(key, value);
    } else if (key == "--collision-dims") {
      need_value();
      o.collision_dims = parse_int_list(key, value);
      for (int d : o.collision_dims)
        if (d != 1 && d != 3) throw std::invalid_argument("--collision-dims: " + std::to_string(d) + " is not 1 or 3");
    } else if (key == "--collision-results") {
      need_value();
      o.collision_results = parse_name_list(value);
      for (const auto& r : o.collision_results)
        if (r != "count" && r != "intflags" && r != "flags" && r != "rowflags" && r != "tileflags" && r != "pairs")
          throw std::invalid_argument("--collision-results: unknown result '" + r +
                                      "' (known: count, intflags, flags, rowflags, tileflags, pairs)");
    } else if (key == "--collision-kernels") {
      need_value();
      o.collision_kernels = parse_name_list(value);
      for (const auto& k : o.collision_kernels)
        if (k != "tile" && k != "element" && k != "linear")
          throw std::invalid_argument("--collision-kernels: unknown kernel '" + k + "' (known: tile, element, linear)");
    } else if (key == "--team-threads") {
      need_value();
      o.team_threads.clear();
      for (const auto& item : parse_name_list(value)) {
        const long long t = parse_integer(key, item);
        if (t != 0 && (t < 8 || t > 1024 || (t & (t - 1)) != 0))
          throw std::invalid_argument("--team-threads: " + item + " is not 0 or a power of two in 8..1024");
        o.team_threads.push_back(static_cast<int>(t));
      }
    } else if (key == "--blocks-per-team") {
      need_value();
      o.blocks_per_team.clear();
      for (const auto& item : parse_name_list(value)) {
        const long long k = parse_integer(key, item);
        if (k < 0 || k > tdmaps::max_blocks_per_team)
          throw std::invalid_argument("--blocks-per-team: " + item + " is outside 0.." +
                                      std::to_string(tdmaps::max_blocks_per_team));
        o.blocks_per_team.push_back(static_cast<int>(k));
      }
    } else if (key == "--n3") {
      need_value();
      o.n3 = parse_side3_list(key, value);
    } else if (key == "--rho3" || key == "--atm-rho") {
      need_value();
      auto& list = key == "--rho3" ? o.rho3 : o.atm_rho;
      list = parse_int_list(key, value);
      for (int r : list)
        if (!tdmaps::is_valid_block_side3(r))
          throw std::invalid_argument(key + ": block side " + std::to_string(r) + " is not one of 2, 4, 8");
    } else if (key == "--maps3") {
      need_value();
      o.maps3 = parse_name_list(value);
      const auto known = map3_labels();
      for (const auto& m : o.maps3)
        if (std::find(known.begin(), known.end(), m) == known.end())
          throw std::invalid_argument("--maps3: unknown 3-D map '" + m + "' (known: " + tdmaps::join_names(known) +
                                      ")");
    } else if (key == "--atm-n") {
      need_value();
      o.atm_n = parse_side3_list(key, value);
    } else if (key == "--nbody-n") {
      need_value();
      o.nbody_n = parse_index_list(key, value);
    } else if (key == "--reduce-n") {
      need_value();
      o.reduce_n = parse_index_list(key, value);
    } else if (key == "--nbody-rho") {
      need_value();
      o.nbody_rho = parse_int_list(key, value);
    } else if (key == "--nbody-k") {
      need_value();
      o.nbody_k.clear();
      for (const auto& item : parse_name_list(value)) {
        const long long k = parse_integer(key, item);
        if (k < 0 || k > tdmaps::max_blocks_per_team)
          throw std::invalid_argument("--nbody-k: " + item + " is outside 0.." +
                                      std::to_string(tdmaps::max_blocks_per_team));
        o.nbody_k.push_back(static_cast<int>(k));
      }
      if (o.nbody_k.empty()) throw std::invalid_argument("--nbody-k: empty list");
    } else if (key == "--nbody-terms") {
      need_value();
      o.nbody_energy.clear();
      for (const auto& item : parse_name_list(value)) {
        if (item != "energy" && item != "acc")
          throw std::invalid_argument("--nbody-terms: '" + item + "' is neither energy nor acc");
        o.nbody_energy.push_back(item == "energy");
      }
      if (o.nbody_energy.empty()) throw std::invalid_argument("--nbody-terms: empty list");
    } else if (key == "--nbody-iters") {
      need_value();
      const long long k = parse_integer(key, value);
      if (k < 1 || k > 100000) throw std::invalid_argument(key + ": " + value + " is outside 1..100000");
      o.nbody_iters = static_cast<int>(k);
    } else if (key == "--iters") {
      need_value();
      const long long k = parse_integer(key, value);
      if (k < 1 || k > 100000) throw std::invalid_argument(key + ": " + value + " is outside 1..100000");
      o.iterations = static_cast<int>(k);
      have_iters = true;
    } else {
      throw std::invalid_argument("unknown option '" + a + "' (see --help)");
    }
  }
  for (const auto* list : {&o.rho, &o.edm_rho, &o.collision_rho, &o.launch_rho, &o.nbody_rho})
    for (int r : *list)
      if (!tdmaps::is_valid_block_side(r))
        throw std::invalid_argument("block side " + std::to_string(r) + " is not one of 8, 16, 32");
  for (int d : o.edm_d)
    if (d < 1 || d > 64) throw std::invalid_argument("--edm-d: dimension " + std::to_string(d) + " is outside 1..64");

  if (!have_n) {
    if (on_gpu)
      o.n = o.quick ? std::vector<index_t>{1024, 8192, 16384, 30720, 65536} : papers_sides();
    else
      o.n = o.quick ? std::vector<index_t>{256, 1024, 2048} : std::vector<index_t>{256, 512, 1024, 2048, 4096};
  }
  if (!have_edm_n) {
    if (on_gpu)
      o.edm_n = o.quick ? std::vector<index_t>{8192, 30720} : o.n;
    else
      o.edm_n = o.quick ? std::vector<index_t>{512, 2048} : o.n;
  }
  if (!have_collision_n) o.collision_n = o.edm_n;
  if (o.edm_rho.empty()) o.edm_rho = o.quick ? std::vector<int>{32} : o.rho;
  if (o.collision_rho.empty()) o.collision_rho = o.quick ? std::vector<int>{32} : o.rho;
  if (o.launch_n.empty()) {
    if (on_gpu)
      o.launch_n =
          o.quick ? std::vector<index_t>{2048, 16384, 30720} : std::vector<index_t>{2048, 8192, 16384, 30720, 65536};
    else
      o.launch_n = o.quick ? std::vector<index_t>{1024} : std::vector<index_t>{1024, 2048};
  }
  if (o.launch_rho.empty()) o.launch_rho = o.quick ? std::vector<int>{16, 32} : o.rho;
  if (o.n3.empty()) {
    if (on_gpu)
      o.n3 = o.quick ? std::vector<index_t>{512, 1024, 2048} : std::vector<index_t>{256, 512, 1024, 1536, 2048};
    else
      o.n3 = o.quick ? std::vector<index_t>{64, 128} : std::vector<index_t>{64, 128, 256};
  }
  if (o.atm_n.empty()) {
    if (on_gpu)
      o.atm_n = o.quick ? std::vector<index_t>{1024, 4096} : std::vector<index_t>{1024, 2048, 3072, 4096};
    else
      o.atm_n = o.quick ? std::vector<index_t>{64, 128} : std::vector<index_t>{64, 128, 256};
  }
  if (o.nbody_n.empty()) {
    if (on_gpu)
      o.nbody_n = o.quick ? std::vector<index_t>{16384, 65536} : std::vector<index_t>{16384, 65536, 262144, 1048576};
    else
      o.nbody_n = o.quick ? std::vector<index_t>{1024} : std::vector<index_t>{1024, 2048, 4096};
  }
  if (o.reduce_n.empty()) o.reduce_n = {on_gpu ? index_t(1000000) : index_t(20000)};
  if (!have_iters) o.iterations = on_gpu ? (o.quick ? 10 : 20) : (o.quick ? 3 : 5);
  if (!have_ceiling) o.ceiling_bytes = on_gpu ? (std::size_t(4) << 30) : (std::size_t(256) << 20);
  return o;
}

bool map_selected(const Options& o, const std::string& label) {
  if (o.maps.empty() || label == "bb") return true;
  return std::find(o.maps.begin(), o.maps.end(), label) != o.maps.end();
}

bool map3_selected(const Options& o, const std::string& label) {
  if (label == "bb3") return true;
  if (o.maps3.empty())  // the default set: each cube root exact, and the papers' form
    return label == "lambda3_cbrt" || label == "lambda3_cardano" || label == "lambda3_cardano_eps" ||
           label == "lambda3_fp64";
  return std::find(o.maps3.begin(), o.maps3.end(), label) != o.maps3.end();
}

namespace {

std::string compiler_string() {
  std::ostringstream s;
#if defined(__clang__)
  s << "clang " << __clang_major__ << "." << __clang_minor__ << "." << __clang_patchlevel__;
#elif defined(__GNUC__)
  s << "g++ " << __GNUC__ << "." << __GNUC_MINOR__ << "." << __GNUC_PATCHLEVEL__;
#else
  s << "unknown";
#endif
#if defined(__CUDACC_VER_MAJOR__)
  s << " + nvcc " << __CUDACC_VER_MAJOR__ << "." << __CUDACC_VER_MINOR__ << "." << __CUDACC_VER_BUILD__;
#endif
  return s.str();
}

[[maybe_unused]] std::string host_cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

}  // namespace

void add_context() {
  std::ostringstream config;
  Kokkos::print_configuration(config, true);
  benchmark::AddCustomContext("kokkos_configuration", config.str());
  benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION / 10000) + "." +
                                                    std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                                                    std::to_string(KOKKOS_VERSION % 100));
  benchmark::AddCustomContext("execution_space", ExecSpace::name());
  benchmark::AddCustomContext("concurrency", std::to_string(ExecSpace().concurrency()));
  benchmark::AddCustomContext("compiler", compiler_string());
#if defined(KOKKOS_ENABLE_CUDA)
  cudaDeviceProp prop;
  const int device = Kokkos::Cuda().cuda_device();
  if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
    benchmark::AddCustomContext("device", prop.name);
    benchmark::AddCustomContext("device_memory_gib", std::to_string(double(prop.totalGlobalMem) / double(1 << 30)));
    benchmark::AddCustomContext("device_sms", std::to_string(prop.multiProcessorCount));
    benchmark::AddCustomContext("device_cc", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  }
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  benchmark::AddCustomContext("cuda_runtime",
                              std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10));
  benchmark::AddCustomContext("cuda_driver", std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10));
#else
  benchmark::AddCustomContext("device",
                              host_cpu_name() + " (" + std::to_string(ExecSpace().concurrency()) + " threads)");
#endif
}

std::size_t free_bytes() {
#if defined(KOKKOS_ENABLE_CUDA)
  if (on_gpu) {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) == cudaSuccess) return free;
    return 0;
  }
#endif
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

bool fits_in_memory(benchmark::State& state, double bytes, const std::vector<std::string>& reused) {
  double avail = static_cast<double>(free_bytes());
  for (const auto& slot : reused) avail += static_cast<double>(buffers().held_bytes(slot));
  if (bytes <= 0.95 * avail) return true;
  state.SkipWithError(
      ("needs " + std::to_string(bytes / 1e9) + " GB, " + std::to_string(avail / 1e9) + " GB free").c_str());
  return false;
}

BufferCache& buffers() {
  static BufferCache cache;
  return cache;
}

}  // namespace tdmaps_bench
