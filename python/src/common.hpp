#ifndef TDMAPS_PYTHON_COMMON_HPP
#define TDMAPS_PYTHON_COMMON_HPP

// What the bindings share: the execution space, the thread every Kokkos call
// of the module runs on, the exception for "does not fit in memory", the
// checks of the option strings (with the CLIs' wording), and the binders of
// the apps.

#include "arrays.hpp"
#include "common/sizes.hpp"

#include <pybind11/pybind11.h>

#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/maps/dispatch.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tdmaps {
namespace python {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
constexpr bool host_backend = std::is_same<MemSpace, Kokkos::HostSpace>::value;

/// Raised to Python as MemoryError: an output or workspace larger than the
/// free memory, found before anything is allocated.
struct TooLarge : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Runs job() where Kokkos may be called (kokkos_thread.cpp): on the thread
/// that initialised Kokkos and will finalise it, one job at a time, with the
/// GIL released meanwhile; an exception of the job is rethrown here. Call it
/// with the GIL held, never from inside a job; a job touches no Python object
/// (its ArrayRefs are only read) and leaves no Kokkos View alive.
void on_kokkos(const std::function<void()>& job);
/// Throws std::runtime_error unless Kokkos is initialised (and not finalised)
/// and usable from this process (not a fork of the one that started it).
void require_kokkos();

/// Thrown by check_cancel(): the job stops, on_kokkos raises the caller's
/// KeyboardInterrupt instead.
struct Cancelled : std::exception {
  const char* what() const noexcept override { return "tdmaps: interrupted (KeyboardInterrupt)"; }
};
/// Throws Cancelled when the running job's caller was interrupted (Ctrl-C in
/// Python's main thread, seen within a fraction of a second while it waits).
/// Kokkos cannot stop a kernel, so a long job calls this between launches
/// that each take a fraction of a second (for_each_chunk below), before it
/// writes anything the caller sees when it must leave that untouched. Only
/// inside a job of on_kokkos; never throws where Kokkos runs on the caller's
/// thread (started by someone else).
void check_cancel();

/// f(range) for consecutive parts of `all` that cover it once, in order,
/// check_cancel() before each: the cancellation points of a long reduction
/// over an omega range (a one-launch map's league, or a rank's part of it).
/// The parts grow from a few blocks to about a tenth of a second each (timed,
/// fenced), so an interrupt is seen soon at any speed and the extra launches
/// cost nothing next to the work. Only for results that do not depend on
/// where the parts end (integer sums and counts).
template <class F>
void for_each_chunk(const ExecSpace& space, const OmegaRange& all, F&& f) {
  constexpr double target_seconds = 0.1;
  index_t size = 16;
  for (index_t begin = all.begin; begin < all.end;) {
    check_cancel();
    const index_t end = all.end - begin > size ? begin + size : all.end;
    Kokkos::Timer timer;
    f(OmegaRange{begin, end});
    space.fence();
    const double seconds = timer.seconds();
    // Grow at most 8x, shrink to the target: a slow first part stays short.
    const double scale = seconds > 0 ? std::min(8.0, target_seconds / seconds) : 8.0;
    size = std::max<index_t>(1, static_cast<index_t>(static_cast<double>(end - begin) * scale));
    begin = end;
  }
}

/// f(p, P) for the K sub-parts p = part K + k (k = 0 .. K - 1) of P = parts K
/// that make up part `part` of `parts` (omega_range's boundaries nest: part
/// p of P is sub-parts p K .. p K + K - 1 of P K), check_cancel() before
/// each: the cancellation points of a GPU reduction through the _part forms
/// (the pair-law walks split their own league). K from the part's pairs, at
/// about 10^11 pairs a sub-part (a tenth of a second on a current GPU),
/// 1 .. 4096. Only for results that do not depend on where the parts end.
template <class F>
void for_each_sub_part(index_t pairs, index_t part, index_t parts, F&& f) {
  const index_t per = pairs / parts;
  const index_t k = std::min<index_t>(4096, std::max<index_t>(1, per / 100000000000LL + 1));
  for (index_t s = 0; s < k; ++s) {
    check_cancel();
    f(part * k + s, parts * k);
  }
}

// The CLIs' size arithmetic and wording (apps/common/sizes.hpp): free host
// memory (MemAvailable), "1.07 GB (1073741824 bytes)", a * b and a + b
// saturated at INT64_MAX.
using app::add_sat;
using app::format_bytes;
using app::host_available_bytes;
using app::mul_sat;
/// Free memory of MemSpace (apps/common/memory.hpp): the device's on CUDA
/// (asked on the Kokkos thread, whose current device is Kokkos'; not from
/// inside a job), the host's otherwise.
std::int64_t free_memory_bytes();
/// The CUDA device Kokkos runs on (CUDA builds; not from inside a job).
int kokkos_cuda_device();

/// "'x' (known: a, b, c)" checks of the option strings, ValueError on mismatch.
void check_choice(const char* option, const std::string& value, const std::vector<std::string>& known);
/// The map options the CLIs take (--map, --sqrt, --form, --block) as keyword arguments.
MapSpec map_spec(const std::string& map, const std::string& sqrt, const std::string& form, int block);
/// Whether the map named `map` runs one launch of blocks (bb, lambda, rb):
/// the maps whose league omega_range splits into parts (comm=).
bool one_launch(const std::string& map);

/// The maps of with_map in two groups, each compiled in units of its own
/// (python/CMakeLists.txt): lambda, whose eight forms (four square roots,
/// exact and eps) run as one RuntimeLambdaMap, so that its kernels are
/// compiled once, and the other maps. A map's kernels are the bulk of a
/// unit's compile time, so that a parallel build compiles the groups side by side.
enum class MapGroup { lambda, other };

template <class Map>
struct map_group : std::integral_constant<MapGroup, MapGroup::other> {};
template <class Sqrt, class Form>
struct map_group<LambdaMap<Sqrt, Form>> : std::integral_constant<MapGroup, MapGroup::lambda> {};
template <>
struct map_group<RuntimeLambdaMap> : std::integral_constant<MapGroup, MapGroup::lambda> {};

/// The group of the map spec names.
inline MapGroup map_group_of(const MapSpec& spec) {
  return canonical_map_name(spec.map) == "lambda" ? MapGroup::lambda : MapGroup::other;
}

/// with_map for a spec of group G (map_group_of(spec) == G): f is
/// instantiated for G's maps only, the lambda group's as one RuntimeLambdaMap.
template <MapGroup G, class F>
void with_map_in(const MapSpec& spec, const Domain2& d, F&& f, bool block_space_only = false) {
  if (map_group_of(spec) != G) throw std::logic_error("tdmaps::python::with_map_in: map '" + spec.map + "' of another group");
  if constexpr (G == MapGroup::lambda) {
    (void)block_space_only;  // every lambda map is a block-space map
    f(runtime_lambda_map(spec, d));
  } else {
    with_map(
        spec, d,
        [&](auto map) {
          if constexpr (map_group<decltype(map)>::value == G) f(map);
        },
        block_space_only);
  }
}

/// f(std::integral_constant<MapGroup, G>{}) for the group of spec: the caller
/// picks the units of that group.
template <class F>
decltype(auto) by_map_group(const MapSpec& spec, F&& f) {
  if (map_group_of(spec) == MapGroup::lambda) return f(std::integral_constant<MapGroup, MapGroup::lambda>{});
  return f(std::integral_constant<MapGroup, MapGroup::other>{});
}

/// Points (n, d) in MemSpace.
template <class Real>
using PointsView = Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace>;

// Views of MemSpace over the caller's arrays (inside jobs of on_kokkos): in
// place where the array lies in MemSpace, else a device copy (CUDA builds,
// host arrays).

/// The points as a View of MemSpace: X in place, or a device copy of host X.
template <class Real>
PointsView<Real> points_view(const ExecSpace& space, const ArrayRef& x, index_t n, index_t d) {
  if (host_backend || x.memory == Memory::device)
    return Kokkos::View<const Real**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryUnmanaged>(
        static_cast<const Real*>(x.data), n, d);
  Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace> xd(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::python::points"), n, d);
  Kokkos::deep_copy(space, xd,
                    Kokkos::View<const Real**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                        static_cast<const Real*>(x.data), n, d));
  return xd;
}

/// A result array of `out` (the caller-visible array) as a View of MemSpace:
/// the array itself when it lies there, else a device buffer copied back by
/// copy_back.
template <class T>
Kokkos::View<T*, MemSpace> result_view(const ArrayRef& out, const char* label) {
  if (host_backend || out.memory == Memory::device)
    return Kokkos::View<T*, MemSpace, Kokkos::MemoryUnmanaged>(static_cast<T*>(out.data), out.size());
  return Kokkos::View<T*, MemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), out.size());
}

template <class T>
void copy_back(const ExecSpace& space, const ArrayRef& out, const Kokkos::View<T*, MemSpace>& v) {
  if (v.data() != out.data && out.size() > 0)
    Kokkos::deep_copy(
        space, Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(static_cast<T*>(out.data), out.size()), v);
}

/// A host array's data as a View of MemSpace: in place on host builds, else a
/// device copy.
template <class T>
Kokkos::View<T*, MemSpace> input_view(const ExecSpace& space, const ArrayRef& a, const char* label) {
  Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged> h(static_cast<T*>(a.data), a.size());
  if (host_backend) return Kokkos::View<T*, MemSpace, Kokkos::MemoryUnmanaged>(static_cast<T*>(a.data), a.size());
  Kokkos::View<T*, MemSpace> d(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, std::string(label)), a.size());
  Kokkos::deep_copy(space, d, h);
  return d;
}

// The small-input path (small.cpp): host builds, plain loops on the calling
// thread with the GIL released, no Kokkos; results bit for bit the kernels'.

/// The crossover of the small-input path in pair-coordinates, n (n - 1) / 2 * d:
/// where the Kokkos path's fixed cost and its parallel loop break even
/// (python/bench_overhead.txt, made by python/bench_pdist.py --overhead).
constexpr std::int64_t small_path_default = 1500000;
std::int64_t small_path_limit();
/// Whether n points of d dimensions take the small-input path (host builds).
bool small_input(index_t n, index_t d);
/// pdist's condensed layout of host points x (C order) into out.
void small_pdist(const ArrayRef& x, const ArrayRef& out, index_t n, index_t d, bool squared);
/// count_within of host points x.
std::int64_t small_count(const ArrayRef& x, index_t n, index_t d, double radius);
/// pair_histogram of host points x into counts (bins int64, zeroed here).
void small_histogram(const ArrayRef& x, index_t n, index_t d, double rmax, std::int64_t bins, bool edges_in_dtype,
                     std::int64_t* counts);

void bind_lifecycle(pybind11::module_& m);
/// initialize / finalize / is_initialized / owns_kokkos (kokkos_thread.cpp).
void bind_kokkos_thread(pybind11::module_& m);
void bind_pdist(pybind11::module_& m);
void bind_collide(pybind11::module_& m);
void bind_reduce(pybind11::module_& m);
void bind_triplets(pybind11::module_& m);
void bind_nbody(pybind11::module_& m);
void bind_small(pybind11::module_& m);

}  // namespace python
}  // namespace tdmaps

#endif
