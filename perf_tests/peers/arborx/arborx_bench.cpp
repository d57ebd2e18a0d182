// ArborX 2.1 peer benchmark: nearest neighbour and radius count of every point
// among the others, with ArborX's BVH and BruteForce indexes, timed the way a
// user of ArborX would call them (index built and queried each round). A peer
// measured beside tdmaps, not part of it: see perf_tests/peers/README.md.
//
// CSV on stdout, one line per (method, query, d, n):
//   peer,method,query,d,n,rounds,median_ms,min_ms,max_ms,check
// check: nn    -> idxsum=<sum of nearest indices, int64>;distsum=<sum of distances>;missing=<points without one>
//        count -> pairs=<ordered pairs i != j with |xi - xj| <= r>;unordered=<pairs/2>;r=<radius>
// Diagnostics (radius, device, BVH/BruteForce agreement) go to stderr.

#include <ArborX.hpp>
#include <ArborX_Version.hpp>

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;

constexpr int kSupportedDims[] = {2, 3, 4, 5, 6, 7, 8, 9, 10};

// ------------------------------------------------------------------ options
struct Options {
  std::vector<long long> n{1000, 10000, 100000, 1000000};
  std::vector<int> d{3, 8};
  std::vector<std::string> queries{"nn", "count"};
  std::vector<std::string> methods{"bvh", "bruteforce"};
  int rounds = 5;
  int warmup = 1;
  double mean_neighbours = 32;
  double r = 0;  // 0: from mean_neighbours, n and d
  unsigned long long seed = 20261128ULL;
  long long bf_max_n = 1000000;  // BruteForce is O(n^2): skip it above this n (0: no limit)
  double slow_ms = 30000;        // a warm-up longer than this: 1 timed round only
  std::string input;             // .npy (n, d) float32/float64: n, d from the file
  bool header = true;
  bool compare = true;  // cross-check BVH against BruteForce when both run
};

[[noreturn]] void usage_error(const std::string& msg) {
  std::cerr << "arborx_bench: error: " << msg << "\n(run arborx_bench --help for the options)\n";
  std::exit(2);
}

void print_help() {
  std::cout <<
      "arborx_bench: ArborX 2.1 nearest neighbour and radius count of uniform random fp32 points\n"
      "in [0,1)^d (fixed seed), BVH and BruteForce, index build + query timed together.\n"
      "\n"
      "usage: arborx_bench [options] [--kokkos-... options]\n"
      "  --n LIST            point counts, e.g. 1000,10000,100000,1000000 (default)\n"
      "  --d LIST            dimensions among 2 .. 10 (default 3,8)\n"
      "  --queries LIST      nn,count (default both)\n"
      "  --methods LIST      bvh,bruteforce (default both)\n"
      "  --rounds R          timed rounds after the warm-up, median reported (default 5)\n"
      "  --warmup W          untimed rounds first (default 1, at least 1: its results are the check)\n"
      "  --neighbours K      radius count: r from volume of the d-ball = K / n (default 32)\n"
      "  --r R               radius count: this radius for every n and d instead\n"
      "  --seed S            generator seed (default 20261128)\n"
      "  --input FILE.npy    points from a C-order (n, d) float32/float64 .npy instead (n, d from it)\n"
      "  --bf-max-n N        skip BruteForce above N points (default 1000000; 0: never skip)\n"
      "  --slow-ms MS        a warm-up slower than MS ms gets 1 timed round (default 30000)\n"
      "  --no-compare        do not cross-check BVH against BruteForce results\n"
      "  --no-header         no CSV header line\n"
      "  --help              this text\n"
      "\n"
      "stdout: CSV peer,method,query,d,n,rounds,median_ms,min_ms,max_ms,check\n"
      "  nn:    k = 2 nearest (the point itself is among them), self dropped;\n"
      "         check idxsum=<sum of nearest indices>;distsum=<sum of fp32 distances>;missing=<count>\n"
      "  count: intersects(Sphere(x_i, r)) counted in a callback (ArborX: distance <= r);\n"
      "         check pairs=<ordered pairs, self excluded>;unordered=<pairs/2>;r=<r>\n"
      "exit status: 0 ok, 2 bad arguments, 3 no usable device, 4 a BVH/BruteForce mismatch.\n";
}

long long parse_ll(const std::string& s, const std::string& what) {
  if (s.empty()) usage_error(what + " needs a value");
  errno = 0;
  char* end = nullptr;
  // Accept 1e6 style as well as plain integers.
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end == s.c_str() || *end != '\0' || !std::isfinite(v) || v != std::floor(v) ||
      v < 0 || v > 9.0e15)
    usage_error(what + ": '" + s + "' is not a non-negative integer");
  return static_cast<long long>(v);
}

double parse_double(const std::string& s, const std::string& what) {
  if (s.empty()) usage_error(what + " needs a value");
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end == s.c_str() || *end != '\0' || !std::isfinite(v))
    usage_error(what + ": '" + s + "' is not a finite number");
  return v;
}

std::vector<std::string> split(const std::string& s, const std::string& what) {
  std::vector<std::string> out;
  std::string item;
  std::stringstream ss(s);
  while (std::getline(ss, item, ',')) {
    if (item.empty()) usage_error(what + ": empty item in '" + s + "'");
    out.push_back(item);
  }
  if (out.empty()) usage_error(what + " needs a non-empty list");
  return out;
}

Options parse(int argc, char** argv) {
  Options o;
  bool n_given = false, d_given = false;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    std::string val;
    bool has_eq = false;
    if (arg.rfind("--", 0) == 0) {
      const auto eq = arg.find('=');
      if (eq != std::string::npos) {
        val = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_eq = true;
      }
    }
    auto value = [&]() -> std::string {
      if (has_eq) return val;
      if (a + 1 >= argc) usage_error(arg + " needs a value");
      return argv[++a];
    };
    if (arg == "--help" || arg == "-h") {
      print_help();
      std::exit(0);
    } else if (arg == "--n") {
      o.n.clear();
      for (auto& s : split(value(), "--n")) {
        const long long v = parse_ll(s, "--n");
        if (v < 2) usage_error("--n: every n must be at least 2, got " + s);
        if (v > 2000000000LL) usage_error("--n: " + s + " is more than ArborX's int indices hold (2e9)");
        o.n.push_back(v);
      }
      n_given = true;
    } else if (arg == "--d") {
      o.d.clear();
      for (auto& s : split(value(), "--d")) {
        const long long v = parse_ll(s, "--d");
        if (std::find(std::begin(kSupportedDims), std::end(kSupportedDims), v) == std::end(kSupportedDims))
          usage_error("--d: " + s + " is not built in (built: 2 .. 10, as ArborX's BVH allows)");
        o.d.push_back(static_cast<int>(v));
      }
      d_given = true;
    } else if (arg == "--queries") {
      o.queries = split(value(), "--queries");
      for (auto& q : o.queries)
        if (q != "nn" && q != "count") usage_error("--queries: unknown query '" + q + "' (known: nn, count)");
    } else if (arg == "--methods") {
      o.methods = split(value(), "--methods");
      for (auto& m : o.methods) {
        if (m == "bf" || m == "brute_force") m = "bruteforce";
        if (m != "bvh" && m != "bruteforce")
          usage_error("--methods: unknown method '" + m + "' (known: bvh, bruteforce)");
      }
    } else if (arg == "--rounds") {
      const long long v = parse_ll(value(), "--rounds");
      if (v < 1 || v > 100000) usage_error("--rounds must be 1 .. 100000");
      o.rounds = static_cast<int>(v);
    } else if (arg == "--warmup") {
      const long long v = parse_ll(value(), "--warmup");
      if (v < 1 || v > 1000) usage_error("--warmup must be 1 .. 1000");
      o.warmup = static_cast<int>(v);
    } else if (arg == "--neighbours" || arg == "--neighbors") {
      o.mean_neighbours = parse_double(value(), arg);
      if (o.mean_neighbours <= 0) usage_error(arg + " must be positive");
    } else if (arg == "--r") {
      o.r = parse_double(value(), "--r");
      if (o.r <= 0) usage_error("--r must be positive");
    } else if (arg == "--seed") {
      o.seed = static_cast<unsigned long long>(parse_ll(value(), "--seed"));
    } else if (arg == "--input") {
      o.input = value();
      if (o.input.empty()) usage_error("--input needs a file name");
    } else if (arg == "--bf-max-n") {
      o.bf_max_n = parse_ll(value(), "--bf-max-n");
    } else if (arg == "--slow-ms") {
      o.slow_ms = parse_double(value(), "--slow-ms");
      if (o.slow_ms <= 0) usage_error("--slow-ms must be positive");
    } else if (arg == "--no-header") {
      o.header = false;
    } else if (arg == "--no-compare") {
      o.compare = false;
    } else if (arg.rfind("--kokkos-", 0) == 0) {
      // Kokkos' own options: Kokkos::initialize consumes them.
      if (!has_eq && a + 1 < argc && argv[a + 1][0] != '-') ++a;
    } else {
      usage_error("unknown argument '" + std::string(argv[a]) + "'");
    }
  }
  if (!o.input.empty() && (n_given || d_given))
    usage_error("--input takes n and d from the file: drop --n / --d");
  return o;
}

// ------------------------------------------------------------------ points
struct HostPoints {
  long long n = 0;
  int d = 0;
  std::vector<float> xyz;  // row-major (n, d)
};

// Uniform in [0,1): 24 random bits per coordinate, exact fp32 values (never 1).
HostPoints generate(long long n, int d, unsigned long long seed) {
  HostPoints p{n, d, std::vector<float>(static_cast<std::size_t>(n) * d)};
  std::mt19937_64 gen(seed ^ (0x9E3779B97F4A7C15ULL * static_cast<unsigned long long>(d)) ^
                      static_cast<unsigned long long>(n));
  for (auto& v : p.xyz) v = static_cast<float>(gen() >> 40) * (1.0f / 16777216.0f);
  return p;
}

HostPoints read_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) usage_error("--input: cannot open '" + path + "'");
  char magic[8];
  if (!f.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    usage_error("--input: '" + path + "' is not a .npy file");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t hlen = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!f.read(reinterpret_cast<char*>(b), 2)) usage_error("--input: truncated header");
    hlen = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!f.read(reinterpret_cast<char*>(b), 4)) usage_error("--input: truncated header");
    hlen = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
  } else {
    usage_error("--input: unknown .npy version " + std::to_string(major));
  }
  std::string header(hlen, '\0');
  if (!f.read(header.data(), hlen)) usage_error("--input: truncated header");
  auto field = [&](const std::string& key) {
    const auto k = header.find("'" + key + "'");
    if (k == std::string::npos) usage_error("--input: header lacks '" + key + "'");
    return header.substr(header.find(':', k) + 1);
  };
  const std::string descr = field("descr");
  const bool f4 = descr.find("<f4") != std::string::npos, f8 = descr.find("<f8") != std::string::npos;
  if (!f4 && !f8) usage_error("--input: dtype must be little-endian float32 or float64");
  if (field("fortran_order").find("True") < field("fortran_order").find("False"))
    usage_error("--input: Fortran-order arrays are not supported (np.ascontiguousarray first)");
  std::string shape = field("shape");
  shape = shape.substr(shape.find('(') + 1);
  shape = shape.substr(0, shape.find(')'));
  std::vector<long long> dims;
  std::stringstream ss(shape);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (!item.empty()) dims.push_back(std::atoll(item.c_str()));
  }
  if (dims.size() != 2) usage_error("--input: the array must be 2-D (n, d)");
  HostPoints p;
  p.n = dims[0];
  p.d = static_cast<int>(dims[1]);
  if (p.n < 2) usage_error("--input: needs at least 2 points");
  if (std::find(std::begin(kSupportedDims), std::end(kSupportedDims), p.d) == std::end(kSupportedDims))
    usage_error("--input: d = " + std::to_string(p.d) + " is not built in (2 .. 10)");
  const std::size_t count = static_cast<std::size_t>(p.n) * p.d;
  p.xyz.resize(count);
  if (f4) {
    if (!f.read(reinterpret_cast<char*>(p.xyz.data()), count * 4)) usage_error("--input: truncated data");
  } else {
    std::vector<double> tmp(count);
    if (!f.read(reinterpret_cast<char*>(tmp.data()), count * 8)) usage_error("--input: truncated data");
    for (std::size_t i = 0; i < count; ++i) p.xyz[i] = static_cast<float>(tmp[i]);
  }
  return p;
}

// r with (volume of the d-ball of radius r) = k / n: mean count ~k away from the cube's faces.
double radius_for(long long n, int d, double k) {
  const double pi = 3.14159265358979323846;
  const double log_unit_ball = 0.5 * d * std::log(pi) - std::lgamma(0.5 * d + 1);
  return std::exp((std::log(k / static_cast<double>(n)) - log_unit_ball) / d);
}

// ------------------------------------------------------------------ ArborX predicates
template <int D>
using Point = ArborX::Point<D, float>;
template <int D>
using PointView = Kokkos::View<Point<D>*, MemSpace>;

template <int D>
struct NearestQueries {
  PointView<D> points;
  int k;
};
template <int D>
struct RadiusQueries {
  PointView<D> points;
  float r;
};

}  // namespace

template <int D>
struct ArborX::AccessTraits<NearestQueries<D>> {
  using memory_space = MemSpace;
  static KOKKOS_FUNCTION std::size_t size(NearestQueries<D> const& q) { return q.points.extent(0); }
  static KOKKOS_FUNCTION auto get(NearestQueries<D> const& q, std::size_t i) {
    return ArborX::attach(ArborX::nearest(q.points(i), q.k), static_cast<int>(i));
  }
};

template <int D>
struct ArborX::AccessTraits<RadiusQueries<D>> {
  using memory_space = MemSpace;
  static KOKKOS_FUNCTION std::size_t size(RadiusQueries<D> const& q) { return q.points.extent(0); }
  static KOKKOS_FUNCTION auto get(RadiusQueries<D> const& q, std::size_t i) {
    return ArborX::attach(ArborX::intersects(ArborX::Sphere<D, float>{q.points(i), q.r}), static_cast<int>(i));
  }
};

namespace {

// Nearest: k = 2 results per query arrive in increasing distance (both
// indexes sort them before the callbacks); the first that is not the query
// point itself is its nearest other point. One thread per query in both
// indexes, so plain stores.
template <int D>
struct NearestCallback {
  PointView<D> points;
  Kokkos::View<int*, MemSpace> nn;
  Kokkos::View<float*, MemSpace> dist;
  template <class Predicate, class Value>
  KOKKOS_FUNCTION void operator()(Predicate const& pred, Value const& value) const {
    const int i = ArborX::getData(pred);
    const int j = static_cast<int>(value.index);
    if (j == i || nn(i) >= 0) return;
    nn(i) = j;
    float s = 0;
    for (int c = 0; c < D; ++c) {
      const float t = points(i)[c] - value.value[c];
      s += t * t;
    }
    dist(i) = Kokkos::sqrt(s);
  }
};

// Radius count: per query the number of points in its sphere (itself
// included). ArborX's BVH traverses each query in one thread (plain
// increment); BruteForce offers one query to many threads (atomic).
template <bool Atomic>
struct CountCallback {
  Kokkos::View<int*, MemSpace> counts;
  template <class Predicate, class Value>
  KOKKOS_FUNCTION void operator()(Predicate const& pred, Value const&) const {
    const int i = ArborX::getData(pred);
    if constexpr (Atomic)
      Kokkos::atomic_inc(&counts(i));
    else
      ++counts(i);
  }
};

struct SumCounts {
  Kokkos::View<int*, MemSpace> counts;
  KOKKOS_FUNCTION void operator()(std::int64_t i, long long& acc) const { acc += counts(i); }
};

struct Timing {
  int rounds = 0;
  double median = 0, min = 0, max = 0;
};

Timing summarize(std::vector<double> ms) {
  Timing t;
  t.rounds = static_cast<int>(ms.size());
  std::sort(ms.begin(), ms.end());
  const std::size_t m = ms.size();
  t.median = m % 2 ? ms[m / 2] : 0.5 * (ms[m / 2 - 1] + ms[m / 2]);
  t.min = ms.front();
  t.max = ms.back();
  return t;
}

// Runs body() warmup times untimed, then rounds times timed (fenced); returns ms.
template <class Body>
Timing time_rounds(const Options& o, Body&& body, const std::string& what) {
  ExecSpace space;
  Kokkos::Timer timer;
  double warm_ms = 0;
  for (int w = 0; w < o.warmup; ++w) {
    space.fence();
    timer.reset();
    body();
    space.fence();
    warm_ms = timer.seconds() * 1e3;
  }
  int rounds = o.rounds;
  if (warm_ms > o.slow_ms && rounds > 1) {
    std::cerr << "# " << what << ": warm-up took " << warm_ms << " ms > --slow-ms " << o.slow_ms
              << ": 1 timed round\n";
    rounds = 1;
  }
  std::vector<double> ms;
  for (int r = 0; r < rounds; ++r) {
    space.fence();
    timer.reset();
    body();
    space.fence();
    ms.push_back(timer.seconds() * 1e3);
  }
  return summarize(ms);
}

void emit(const std::string& method, const std::string& query, int d, long long n, const Timing& t,
          const std::string& check) {
  std::printf("arborx,%s,%s,%d,%lld,%d,%.4f,%.4f,%.4f,%s\n", method.c_str(), query.c_str(), d, n, t.rounds,
              t.median, t.min, t.max, check.c_str());
  std::fflush(stdout);
}

template <int D>
int run_dim(const Options& o, const HostPoints& hp) {
  const long long n = hp.n;
  ExecSpace space;
  // Device points from the host rows.
  PointView<D> points(Kokkos::view_alloc(Kokkos::WithoutInitializing, "arborx_bench::points"), n);
  {
    auto h = Kokkos::create_mirror_view(Kokkos::WithoutInitializing, points);
    for (long long i = 0; i < n; ++i)
      for (int c = 0; c < D; ++c) h(i)[c] = hp.xyz[static_cast<std::size_t>(i) * D + c];
    Kokkos::deep_copy(points, h);
  }
  const auto values = ArborX::Experimental::attach_indices(points);
  const float r = static_cast<float>(o.r > 0 ? o.r : radius_for(n, D, o.mean_neighbours));
  int status = 0;

  // Per query, the first method's results, to cross-check the second's.
  std::vector<int> ref_nn;
  long long ref_pairs = -1;
  std::string ref_method;

  for (const auto& query : o.queries) {
    ref_nn.clear();
    ref_pairs = -1;
    for (const auto& method : o.methods) {
      const bool bvh = method == "bvh";
      if (!bvh && o.bf_max_n > 0 && n > o.bf_max_n) {
        std::cerr << "# skip bruteforce " << query << " d=" << D << " n=" << n << " (> --bf-max-n " << o.bf_max_n
                  << ")\n";
        continue;
      }
      const std::string what = method + " " + query + " d=" + std::to_string(D) + " n=" + std::to_string(n);
      std::string check;
      if (query == "nn") {
        Kokkos::View<int*, MemSpace> nn(Kokkos::view_alloc(Kokkos::WithoutInitializing, "arborx_bench::nn"), n);
        Kokkos::View<float*, MemSpace> dist(Kokkos::view_alloc(Kokkos::WithoutInitializing, "arborx_bench::dist"),
                                            n);
        const NearestQueries<D> preds{points, 2};
        const NearestCallback<D> cb{points, nn, dist};
        auto body = [&]() {
          Kokkos::deep_copy(space, nn, -1);
          if (bvh) {
            ArborX::BoundingVolumeHierarchy index(space, values);
            index.query(space, preds, cb);
          } else {
            ArborX::BruteForce index(space, values);
            index.query(space, preds, cb);
          }
        };
        const Timing t = time_rounds(o, body, what);
        auto hnn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), nn);
        auto hdist = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), dist);
        long long idxsum = 0, missing = 0;
        double distsum = 0;
        for (long long i = 0; i < n; ++i) {
          if (hnn(i) < 0) {
            ++missing;
            continue;
          }
          idxsum += hnn(i);
          distsum += hdist(i);
        }
        char buf[160];
        std::snprintf(buf, sizeof buf, "idxsum=%lld;distsum=%.9g;missing=%lld", idxsum, distsum, missing);
        check = buf;
        emit(method, query, D, n, t, check);
        if (missing) {
          std::cerr << "# " << what << ": " << missing << " points got no nearest other point\n";
          status = 4;
        }
        if (o.compare) {
          std::vector<int> cur(hnn.data(), hnn.data() + n);
          if (ref_nn.empty()) {
            ref_nn = std::move(cur);
            ref_method = method;
          } else {
            long long diff = 0;
            for (long long i = 0; i < n; ++i) diff += ref_nn[i] != cur[i];
            std::cerr << "# check nn d=" << D << " n=" << n << ": " << method << " vs " << ref_method << ": " << diff
                      << " nearest indices differ" << (diff ? " (ties at equal distance can)" : "") << "\n";
          }
        }
      } else {
        Kokkos::View<int*, MemSpace> counts("arborx_bench::counts", n);
        const RadiusQueries<D> preds{points, r};
        long long pairs = 0;
        auto body = [&]() {
          Kokkos::deep_copy(space, counts, 0);
          if (bvh) {
            ArborX::BoundingVolumeHierarchy index(space, values);
            index.query(space, preds, CountCallback<false>{counts});
          } else {
            ArborX::BruteForce index(space, values);
            index.query(space, preds, CountCallback<true>{counts});
          }
          // The total, as tdmaps' count_within returns it (self pairs removed).
          long long total = 0;
          Kokkos::parallel_reduce("arborx_bench::sum_counts", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                                  SumCounts{counts}, total);
          pairs = total - n;
        };
        const Timing t = time_rounds(o, body, what);
        char buf[160];
        std::snprintf(buf, sizeof buf, "pairs=%lld;unordered=%lld;r=%.9g", pairs, pairs / 2, static_cast<double>(r));
        check = buf;
        emit(method, query, D, n, t, check);
        std::cerr << "# " << what << ": r = " << r << ", mean neighbours " << static_cast<double>(pairs) / n
                  << "\n";
        if (pairs % 2) std::cerr << "# " << what << ": odd ordered pair count (asymmetric rounding)\n";
        if (o.compare) {
          if (ref_pairs < 0) {
            ref_pairs = pairs;
            ref_method = method;
          } else {
            std::cerr << "# check count d=" << D << " n=" << n << ": " << method << " " << pairs << " vs "
                      << ref_method << " " << ref_pairs << (pairs == ref_pairs ? " (equal)" : " MISMATCH") << "\n";
            if (pairs != ref_pairs) status = 4;
          }
        }
      }
    }
  }
  return status;
}

int run_points(const Options& o, const HostPoints& hp) {
  switch (hp.d) {
    case 2: return run_dim<2>(o, hp);
    case 3: return run_dim<3>(o, hp);
    case 4: return run_dim<4>(o, hp);
    case 5: return run_dim<5>(o, hp);
    case 6: return run_dim<6>(o, hp);
    case 7: return run_dim<7>(o, hp);
    case 8: return run_dim<8>(o, hp);
    case 9: return run_dim<9>(o, hp);
    case 10: return run_dim<10>(o, hp);
    default: usage_error("d = " + std::to_string(hp.d) + " is not built in");
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);

#if defined(KOKKOS_ENABLE_CUDA)
  {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      std::cerr << "arborx_bench: error: no usable CUDA device ("
                << (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") << "); this build needs an NVIDIA GPU"
                << " (sm_90) and its driver\n";
      return 3;
    }
  }
#endif

  Kokkos::ScopeGuard guard(argc, argv);
  int status = 0;
  {
    std::cerr << "# arborx_bench: ArborX " << ArborX::version() << ", Kokkos " << KOKKOS_VERSION / 10000 << "."
              << (KOKKOS_VERSION / 100) % 100 << "." << KOKKOS_VERSION % 100 << ", execution space "
              << ExecSpace::name() << "\n";
#if defined(KOKKOS_ENABLE_CUDA)
    {
      int dev = 0;
      cudaDeviceProp prop;
      if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
        std::cerr << "# device " << dev << ": " << prop.name << ", sm_" << prop.major << prop.minor << "\n";
    }
#endif
    if (o.header) std::printf("peer,method,query,d,n,rounds,median_ms,min_ms,max_ms,check\n");
    if (!o.input.empty()) {
      const HostPoints hp = read_npy(o.input);
      std::cerr << "# points from " << o.input << ": n = " << hp.n << ", d = " << hp.d << "\n";
      status = std::max(status, run_points(o, hp));
    } else {
      for (int d : o.d)
        for (long long n : o.n) status = std::max(status, run_points(o, generate(n, d, o.seed)));
    }
  }
  return status;
}
