// The definitions of collide_compute.hpp's collide_compute, included by the
// units python/CMakeLists.txt generates only, which instantiate them
// (TDMAPS_PYTHON_COLLIDE_INSTANTIATE).
#ifndef TDMAPS_PYTHON_COLLIDE_KERNELS_HPP
#define TDMAPS_PYTHON_COLLIDE_KERNELS_HPP

#include "arrays.hpp"
#include "collide_compute.hpp"
#include "common.hpp"

#include <pybind11/pybind11.h>

#include <tdmaps/collision.hpp>
#include <tdmaps/launch/omega_range.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace python {
namespace collide_detail {

namespace tc = tdmaps::collision;
using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;

/// The result array's View over `data` (the caller's memory, or a device
/// copy when staged).
template <class T>
Kokkos::View<T*, MemSpace> words_view(void* data, index_t items, bool staged, const char* label) {
  if (staged) return Kokkos::View<T*, MemSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), items);
  return Kokkos::View<T*, MemSpace, Unmanaged>(static_cast<T*>(data), items);
}

template <class Map>
index_t run_map(const Map& map, const tc::ConstSpheres<MemSpace>& s, tc::Result result, tc::Kernel kernel,
                tc::Output<MemSpace>& out, index_t part, index_t parts) {
  if constexpr (is_block_space_map_v<Map> && !is_multi_launch_map_v<Map>) {
    if (result == tc::Result::count && kernel != tc::Kernel::linear) {  // in chunks: Ctrl-C stops it between them
      const ExecSpace space;
      index_t count = 0;
      for_each_chunk(space, parts == 0 ? full_range(map) : omega_range(map, part, parts),
                     [&](const OmegaRange& c) { count += tc::collide(space, s, map, c, result, kernel, out); });
      return count;
    }
  }
  if (parts == 0) return tc::collide(ExecSpace(), s, map, result, kernel, out);
  if constexpr (is_block_space_map_v<Map> && !is_multi_launch_map_v<Map>)
    return tc::collide(ExecSpace(), s, map, omega_range(map, part, parts), result, kernel, out);
  throw pybind11::value_error(std::string("map='") + Map::name + "' has no omega ranges");  // refused before
}

}  // namespace collide_detail

template <MapGroup G>
index_t collide_compute(const ArrayRef& s, const ArrayRef& words, index_t n, const Run& r,
                        tdmaps::collision::Output<MemSpace>& out) {
  using namespace collide_detail;
  ExecSpace space;
  const bool staged = !host_backend && s.memory == Memory::host;  // CUDA build, host arrays
  const float* host_s = static_cast<const float*>(s.data);
  tc::ConstSpheres<MemSpace> sv;
  if (staged) {
    tc::Spheres<MemSpace> d(Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::python::spheres"), n);
    Kokkos::deep_copy(space, d, Kokkos::View<const float* [4], Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged>(host_s, n));
    sv = d;
  } else {
    sv = Kokkos::View<const float* [4], Kokkos::LayoutRight, MemSpace, Unmanaged>(host_s, n);
  }
  const index_t items = words.size();
  switch (r.result) {
    case tc::Result::flags: out.flags = words_view<std::uint32_t>(words.data, items, staged, "tdmaps::python::flags"); break;
    case tc::Result::rowflags: out.rowflags = words_view<std::uint32_t>(words.data, items, staged, "tdmaps::python::rowflags"); break;
    case tc::Result::tileflags: out.tileflags = words_view<std::uint32_t>(words.data, items, staged, "tdmaps::python::tileflags"); break;
    case tc::Result::intflags: out.intflags = words_view<std::int32_t>(words.data, items, staged, "tdmaps::python::intflags"); break;
    default: break;
  }
  index_t count = 0;
  try {
    with_map_in<G>(
        r.spec, Domain2(n, r.block, Triangle::strict_lower),
        [&](auto map) { count = run_map(map, sv, r.result, r.kernel, out, r.part, r.parts); }, r.kernel == tc::Kernel::tile);
  } catch (const std::length_error& e) {
    throw TooLarge(std::string("the pair list does not fit the free memory (about 48 bytes per pair on the ") +
                   MemSpace::name() + " side): " + e.what() + "; use result='count' or 'flags'");
  } catch (const std::invalid_argument& e) {
    const std::string prefix = "tdmaps::collision: sphere row ", what = e.what();
    if (what.compare(0, prefix.size(), prefix) != 0) throw;
    const std::string rest = what.substr(prefix.size());  // "5: x is nan (not finite)"
    const auto colon = rest.find(':');
    throw pybind11::value_error("spheres: row " + rest.substr(0, colon) + " (0-based)" + rest.substr(colon));
  }
  if (staged && items > 0) {
    const auto back = [&](const auto& v) {
      using T = typename std::decay_t<decltype(v)>::non_const_value_type;
      Kokkos::deep_copy(space, Kokkos::View<T*, Kokkos::HostSpace, Unmanaged>(static_cast<T*>(words.data), items), v);
    };
    if (r.result == tc::Result::flags) back(out.flags);
    else if (r.result == tc::Result::rowflags) back(out.rowflags);
    else if (r.result == tc::Result::tileflags) back(out.tileflags);
    else if (r.result == tc::Result::intflags) back(out.intflags);
  }
  space.fence();
  return count;
}

}  // namespace python
}  // namespace tdmaps

/// The unit of one map group.
#define TDMAPS_PYTHON_COLLIDE_INSTANTIATE(G)                                                                     \
  namespace tdmaps {                                                                                             \
  namespace python {                                                                                             \
  template index_t collide_compute<MapGroup::G>(const ArrayRef&, const ArrayRef&, index_t, const Run&,           \
                                                tdmaps::collision::Output<MemSpace>&);                           \
  }                                                                                                              \
  }

#endif
