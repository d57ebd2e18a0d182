// The launch-path comparison ("launch/<body>.<launch>/<map>/r<rho>/n<n>"):
// the same element-kernel bodies (kernel_bodies.hpp) under the same maps,
// launched several ways in one run. Bodies: dummy (packed stores),
// dummy_full (the papers' map-only test: one int per element of the full
// n x n matrix), EDM packed / full in 2-D and 4-D. Two team shapes:
//   papers' shape   rho x rho threads, one element per thread
//   tdmaps' shape   rho lanes x rows threads, rows = min(rho, 256 / rho)
//                   (LaunchHints' default), rho / rows elements per thread
// and the launches
//   cuda          plain CUDA <<<league, (rho, rho)>>> (cuda_reference.cpp;
//                 CUDA builds only)                        papers' shape
//   cuda_t256     plain CUDA <<<league, (rho, rows)>>>, a loop over rows
//                                                          tdmaps' shape
//   tdmaps        tdmaps::for_each_element (TeamThreadRange x
//                 ThreadVectorRange, LaunchBounds<1024, 1>)  tdmaps' shape
//   tdmaps_t1024  the same with LaunchHints{1024}          papers' shape
//   tdmaps_t128, tdmaps_t64   LaunchHints{128}, {64}: more elements per
//                 thread (rho = 32: 8 and 16); no extra kernel instantiation
//   team_flat     the proposed launch-layer change: one TeamVectorRange over
//                 rows * rho (ti, tj by shift and mask) instead of the nested
//                 ranges (no vector-loop sync, no sub-warp mask)  tdmaps' shape
//   (prop_t256 / prop_t64, the proposed ElementFunctor of the committed
//   launch_proposal/ results, became tdmaps' own ElementFunctor: `tdmaps` and
//   `tdmaps_t64` measure it now.)
//   range         a flat RangePolicy over league * rho^2 threads: thread k ->
//                 (omega, ti, tj) by shifts, block size left to Kokkos
//                                                          papers' shape
//   tdmaps_tile   EDM bodies only: tdmaps::edm::edm(..., Kernel::tile), the
//                 library's GPU tile kernel (row points staged, column point
//                 in registers)                            tdmaps' shape
//   cuda_tile     its plain-CUDA twin (cuda_reference::launch_tile), same
//                 team shape and blocks per team as edm() takes by default
// t(tdmaps_tile) / t(cuda_tile) is the Kokkos overhead of the tile kernel.
// t(tdmaps) / t(cuda_t256) and t(tdmaps_t1024) / t(cuda) are the overhead of
// Kokkos' team path at equal shape (perf_tests/README.md).
#include "bench_common.hpp"
#include "kernel_bodies.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include "cuda_reference.hpp"
#endif
#if defined(TDMAPS_BENCH_HAVE_EDM)
#include <tdmaps/edm.hpp>
#endif

#include <random>

namespace tdmaps_bench {

namespace {

using tdmaps::Block2;
using BbMap = tdmaps::BoundingBoxMap;
using LambdaRsqrt = tdmaps::LambdaMap<tdmaps::SqrtRsqrt, tdmaps::Exact>;

/// Team rows of tdmaps' default launch.
int default_rows(int rho) { return tdmaps::team_rows(tdmaps::LaunchHints{}, rho); }

/// tdmaps::detail::ElementFunctor with the two nested ranges replaced by one
/// TeamVectorRange over the rows x rho threads of the block: on CUDA thread
/// (threadIdx.y, threadIdx.x) takes k = threadIdx.y * rho + threadIdx.x, so
/// tj = threadIdx.x as before (coalesced), and there is no per-row vector
/// sync. On host backends (team of one) it walks the block row by row.
template <class Map, class Body>
struct TeamFlatElement {
  Map map;
  Body body;
  int log2_rho;
  KOKKOS_FUNCTION void operator()(const tdmaps::team_member_t<ExecSpace>& team) const {
    Block2 b;
    if (!map.block(team.league_rank(), b)) return;
    const tdmaps::Tile t = tdmaps::detail::make_tile(map.domain, b);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, t.rows << log2_rho), [&](const int k) {
      const int ti = k >> log2_rho, tj = k & ((1 << log2_rho) - 1);
      if (tj < t.cols && t.contains(ti, tj)) body(t.i0 + ti, t.j0 + tj);
    });
  }
};

/// One thread per (omega, ti, tj), decoded with shifts (rho is a power of two).
template <class Map, class Body>
struct RangeElement {
  Map map;
  Body body;
  int log2_rho;
  KOKKOS_FUNCTION void operator()(const index_t k) const {
    const index_t omega = k >> (2 * log2_rho);
    const int local = static_cast<int>(k & ((index_t(1) << (2 * log2_rho)) - 1));
    Block2 b;
    if (!map.block(omega, b)) return;
    const index_t i = b.bi * map.domain.rho + (local >> log2_rho);
    const index_t j = b.bj * map.domain.rho + (local & (map.domain.rho - 1));
    if (i < map.domain.n && j <= i) body(i, j);
  }
};

enum class Launch { cuda, cuda_t256, tdmaps, tdmaps_t1024, tdmaps_t128, tdmaps_t64, team_flat, range, tdmaps_tile, cuda_tile };
const char* launch_label(Launch l) {
  switch (l) {
    case Launch::cuda: return "cuda";
    case Launch::cuda_t256: return "cuda_t256";
    case Launch::tdmaps: return "tdmaps";
    case Launch::tdmaps_t1024: return "tdmaps_t1024";
    case Launch::tdmaps_t128: return "tdmaps_t128";
    case Launch::tdmaps_t64: return "tdmaps_t64";
    case Launch::team_flat: return "team_flat";
    case Launch::range: return "range";
    case Launch::tdmaps_tile: return "tdmaps_tile";
    case Launch::cuda_tile: return "cuda_tile";
  }
  return "?";
}

enum class BodyKind { dummy, dummy_full, edm_packed_d2, edm_full_d2, edm_packed_d4, edm_full_d4 };
struct BodyInfo {
  BodyKind kind;
  const char* label;
  int d;      // point dimension (0: dummy)
  bool full;  // n x n output
};
const BodyInfo body_infos[] = {{BodyKind::dummy, "dummy", 0, false},
                               {BodyKind::dummy_full, "dummy_full", 0, true},
                               {BodyKind::edm_full_d4, "edm_full_d4", 4, true},
                               {BodyKind::edm_packed_d4, "edm_packed_d4", 4, false},
                               {BodyKind::edm_full_d2, "edm_full_d2", 2, true},
                               {BodyKind::edm_packed_d2, "edm_packed_d2", 2, false}};

/// Only the dummy and the GPU.md anchor (EDM 4-D, full) get the candidate
/// launches: each costs one more kernel instantiation per map.
template <class Body>
constexpr bool has_variants = std::is_same<Body, DummyStore>::value || std::is_same<Body, EdmBody<4, true>>::value;

template <class Map, class Body>
void launch_kokkos(Launch l, const Map& map, const Body& body, const std::string& label) {
  const ExecSpace space;
  if (l == Launch::tdmaps) {
    tdmaps::for_each_element(space, map, body, label);
    return;
  }
  if (l == Launch::tdmaps_t1024 || l == Launch::tdmaps_t128 || l == Launch::tdmaps_t64) {
    tdmaps::LaunchHints hints;
    hints.team_threads = l == Launch::tdmaps_t1024 ? 1024 : l == Launch::tdmaps_t128 ? 128 : 64;
    if (hints.team_threads < map.domain.rho) hints.team_threads = map.domain.rho;  // one row at least
    tdmaps::for_each_element(space, map, body, label, hints);
    return;
  }
#if defined(TDMAPS_BENCH_HAVE_EDM)
  if constexpr (!std::is_same<Body, DummyStore>::value && !std::is_same<Body, DummyFullStore>::value) {
    if (l == Launch::tdmaps_tile) {
      const index_t n = map.domain.n;
      const index_t size = Body::full ? n * n : tdmaps::tri(n);
      Kokkos::View<const float**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryUnmanaged> x(body.x, n, Body::dims);
      Kokkos::View<float*, MemSpace, Kokkos::MemoryUnmanaged> out(body.out, size);
      tdmaps::edm::edm(space, x, out, map, Body::full ? tdmaps::edm::Layout::full : tdmaps::edm::Layout::packed,
                       tdmaps::edm::Kernel::tile);
      return;
    }
  }
#endif
  if constexpr (has_variants<Body>) {
    const int rho = map.domain.rho;
    const int log2_rho = tdmaps::log2_block_side(rho);
    if (l == Launch::team_flat) {
      const index_t league = map.league_size();
      if (league == 0) return;
      const int rows = on_gpu ? default_rows(rho) : 1;
      tdmaps::team_policy_t<ExecSpace> policy(space, static_cast<int>(league), rows, on_gpu ? rho : 1);
      Kokkos::parallel_for(label, policy, TeamFlatElement<Map, Body>{map, body, log2_rho});
      return;
    }
    if (l == Launch::range) {
      const index_t threads = map.league_size() << (2 * log2_rho);
      Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, threads),
                           RangeElement<Map, Body>{map, body, log2_rho});
      return;
    }
  }
  throw std::logic_error("launch variant not compiled for this body");
}

std::vector<float> random_points(index_t n, int d, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> x(static_cast<std::size_t>(n * d));
  for (auto& v : x) v = u(gen);
  return x;
}

/// Builds a body and its check on the case's buffers.
template <class Body>
struct BodyOps;
template <>
struct BodyOps<DummyStore> {
  static DummyStore body(std::uint32_t* out, const float*, index_t) { return DummyStore{out}; }
  static DummyCheck check(const std::uint32_t* out, const float*, index_t) { return DummyCheck{out}; }
};
template <>
struct BodyOps<DummyFullStore> {
  static DummyFullStore body(std::uint32_t* out, const float*, index_t n) { return DummyFullStore{out, n}; }
  static DummyFullCheck check(const std::uint32_t* out, const float*, index_t n) { return DummyFullCheck{out, n}; }
};
template <int D, bool Full>
struct BodyOps<EdmBody<D, Full>> {
  static EdmBody<D, Full> body(std::uint32_t* out, const float* x, index_t n) {
    return EdmBody<D, Full>{x, reinterpret_cast<float*>(out), n};
  }
  static EdmCheck<D, Full> check(const std::uint32_t* out, const float* x, index_t n) {
    return EdmCheck<D, Full>{x, reinterpret_cast<const float*>(out), n};
  }
};

template <class Map, class Body>
void run_case(benchmark::State& state, const Options& o, const BodyInfo& info, Launch l, const Map& map) {
  const index_t n = map.domain.n;
  const double pairs = static_cast<double>(tdmaps::tri(n));
  const double bytes = 4.0 * pairs + 4.0 * static_cast<double>(n * info.d);
  const std::size_t out_count = static_cast<std::size_t>(info.full ? n * n : tdmaps::tri(n));
  if (!fits_in_memory(state, 4.0 * static_cast<double>(out_count) + 4.0 * static_cast<double>(n * info.d),
                      {"out", "points"}))
    return;
  auto out = buffers().get<Kokkos::View<std::uint32_t*, MemSpace>>("out", out_count);
  Kokkos::View<float*, MemSpace> x;
  if (info.d > 0) {
    x = buffers().get<Kokkos::View<float*, MemSpace>>("points", static_cast<std::size_t>(n * info.d));
    const std::vector<float> host = random_points(n, info.d, 20261122u);
    Kokkos::deep_copy(x, Kokkos::View<const float*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(host.data(), host.size()));
  }
  Kokkos::deep_copy(out, 0xffffffffu);  // poison (a NaN as fp32)
  const std::string label = std::string("tdmaps::bench::launch::") + info.label + "::" + launch_label(l);
  const Body body = BodyOps<Body>::body(out.data(), x.data(), n);
#if defined(KOKKOS_ENABLE_CUDA)
  using namespace cuda_reference;
  const RefMap ref_map = std::is_same<Map, BbMap>::value ? RefMap::bb : RefMap::lambda_rsqrt;
  const RefBody ref_body = info.kind == BodyKind::dummy           ? RefBody::dummy
                           : info.kind == BodyKind::dummy_full    ? RefBody::dummy_full
                           : info.kind == BodyKind::edm_packed_d2 ? RefBody::edm_packed_d2
                           : info.kind == BodyKind::edm_full_d2   ? RefBody::edm_full_d2
                           : info.kind == BodyKind::edm_packed_d4 ? RefBody::edm_packed_d4
                                                                  : RefBody::edm_full_d4;
  if (l == Launch::cuda_tile) {
#if defined(TDMAPS_BENCH_HAVE_EDM)
    time_launches(state, pairs, bytes, [&] {
      // The shape edm() gives its tile kernel by default (edm::detail::tile_hints).
      const bool full = ref_body == RefBody::edm_full_d2 || ref_body == RefBody::edm_full_d4;
      const tdmaps::LaunchHints h = tdmaps::edm::detail::tile_hints(
          tdmaps::LaunchHints{}, full ? tdmaps::edm::Layout::full : tdmaps::edm::Layout::packed, map.domain.rho);
      cuda_reference::launch_tile(ref_map, ref_body, n, map.domain.rho,
                                  tdmaps::team_rows(h, map.domain.rho, tdmaps::LaunchKind::tile),
                                  tdmaps::blocks_per_team(h, tdmaps::LaunchKind::tile, true), x.data(),
                                  reinterpret_cast<float*>(out.data()));
    });
#else
    throw std::logic_error("cuda_tile needs the EDM app (TDMAPS_BENCH_HAVE_EDM)");
#endif
  } else if (l == Launch::cuda || l == Launch::cuda_t256) {
    const int rho = map.domain.rho;
    const int rows = l == Launch::cuda ? rho : default_rows(rho);
    time_launches(state, pairs, bytes,
                  [&] { cuda_reference::launch(ref_map, ref_body, n, rho, rows, x.data(), out.data()); });
    if (l == Launch::cuda) state.SetLabel(cuda_reference::attributes(ref_map, ref_body));
  } else
#endif
  {
    time_launches(state, pairs, bytes, [&] { launch_kokkos(l, map, body, label); });
  }
  if (o.check) {
    index_t errors = 0;
    Kokkos::parallel_reduce("tdmaps::bench::launch::check",
                            Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(0, tdmaps::tri(n)),
                            BodyOps<Body>::check(out.data(), x.data(), n), errors);
    state.counters["errors"] = static_cast<double>(errors);
  }
}

template <class Map>
void run_body(benchmark::State& state, const Options& o, const BodyInfo& info, Launch l, const Map& map) {
  switch (info.kind) {
    case BodyKind::dummy: run_case<Map, DummyStore>(state, o, info, l, map); break;
    case BodyKind::dummy_full: run_case<Map, DummyFullStore>(state, o, info, l, map); break;
    case BodyKind::edm_packed_d2: run_case<Map, EdmBody<2, false>>(state, o, info, l, map); break;
    case BodyKind::edm_full_d2: run_case<Map, EdmBody<2, true>>(state, o, info, l, map); break;
    case BodyKind::edm_packed_d4: run_case<Map, EdmBody<4, false>>(state, o, info, l, map); break;
    case BodyKind::edm_full_d4: run_case<Map, EdmBody<4, true>>(state, o, info, l, map); break;
  }
}

}  // namespace

void register_launch_benchmarks(const Options& o) {
  std::vector<Launch> launches;
#if defined(KOKKOS_ENABLE_CUDA)
  launches.insert(launches.end(), {Launch::cuda, Launch::cuda_t256, Launch::cuda_tile});
#endif
  launches.insert(launches.end(), {Launch::tdmaps, Launch::tdmaps_t1024, Launch::tdmaps_t128, Launch::tdmaps_t64,
                                   Launch::team_flat, Launch::range});
#if defined(TDMAPS_BENCH_HAVE_EDM)
  launches.push_back(Launch::tdmaps_tile);
#endif
  for (const BodyInfo& info : body_infos)
    for (int rho : o.launch_rho)
      for (index_t n : o.launch_n)
        for (const char* map : {"bb", "lambda_rsqrt"}) {
          if (!map_selected(o, map)) continue;
          for (Launch l : launches) {
            const bool variant = l == Launch::team_flat || l == Launch::range;
            if (variant && !(info.kind == BodyKind::dummy || info.kind == BodyKind::edm_full_d4)) continue;
            const bool tile = l == Launch::tdmaps_tile || l == Launch::cuda_tile;
            if (tile && (info.kind == BodyKind::dummy || info.kind == BodyKind::dummy_full)) continue;
            const std::string name =
                case_name("launch", std::string(info.label) + "." + launch_label(l), map, rho, n);
            const bool bb = std::string(map) == "bb";
            register_case(name, o, [&o, info, l, rho, n, bb](benchmark::State& state) {
              if (bb) run_body(state, o, info, l, BbMap(n, rho));
              else run_body(state, o, info, l, LambdaRsqrt(n, rho));
            });
          }
        }
}

}  // namespace tdmaps_bench
