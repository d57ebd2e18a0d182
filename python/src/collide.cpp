// _tdmaps.collide: the collision app's results (apps/collision) for an
// (n, 4) float32 array of spheres read in place. The checks and their
// wording follow tdmaps-collide (apps/collision/tdmaps_collide.cpp).
// _tdmaps.collide_count_part: the count of part `part` of `parts` of the
// league (omega_range), the per-rank half of collide(..., comm=).

#include "arrays.hpp"
#include "common.hpp"

#include <pybind11/pybind11.h>

#include <tdmaps/collision.hpp>
#include <tdmaps/launch/omega_range.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>

namespace py = pybind11;

namespace tdmaps {
namespace python {
namespace {

namespace tc = tdmaps::collision;
using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;

tc::Result parse_result(const std::string& s) {
  check_choice("result", s, tc::result_names());
  return *tc::result_from_name(s);
}

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
  throw py::value_error(std::string("map='") + Map::name + "' has no omega ranges");  // refused before
}

/// Resets `value` (Kokkos Views) on the Kokkos thread when the scope ends
/// while `live`: a View freed on another thread would touch Kokkos there.
/// When Kokkos cannot run the job (finalised at the interpreter's exit while
/// a daemon thread was between two jobs, or a fork's child), the Views are
/// left to the process: a copy that is never destroyed keeps their count above
/// zero, so `value`'s own destructor frees nothing (a View freed after
/// Kokkos::finalize throws from its destructor, which ends the process).
template <class T>
struct OnKokkosReset {
  T& value;
  bool live = false;
  ~OnKokkosReset() {
    if (!live) return;
    try {
      on_kokkos([this] { value = T(); });
    } catch (...) {
      static_cast<void>(new T(value));  // deliberately never deleted, see above
    }
  }
};

struct Run {
  MapSpec spec;
  int block = 32;
  tc::Result result = tc::Result::count;
  tc::Kernel kernel = tc::Kernel::tile;
  index_t part = 0, parts = 0;  ///< parts > 0: the omega range `part` of `parts` only (count)
};

/// The collision test (a job of on_kokkos); out.pairs holds the list for pairs.
index_t compute(const ArrayRef& s, const ArrayRef& words, index_t n, const Run& r, tc::Output<MemSpace>& out) {
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
    with_map(
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
    throw py::value_error("spheres: row " + rest.substr(0, colon) + " (0-based)" + rest.substr(colon));
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

py::object collide(py::handle spheres, const std::string& result, const py::object& alloc, const std::string& map,
                   const std::string& sqrt, const std::string& form, int block, const std::string& kernel,
                   index_t part, index_t parts) {
  require_kokkos();
  Run r;
  r.part = part;
  r.parts = parts;
  r.result = parse_result(result);
  check_choice("kernel", kernel, tc::kernel_names());
  r.kernel = *tc::kernel_from_name(kernel);
  r.spec = map_spec(map, sqrt, form, block);
  r.block = block;
  if (r.kernel == tc::Kernel::tile && canonical_map_name(map) == "utm")
    throw py::value_error("map='utm' is a thread-space map and cannot run the tile kernel; use kernel='element'");
  if (parts > 0) {
    if (part < 0 || part >= parts)
      throw py::value_error("part " + std::to_string(part) + " of " + std::to_string(parts) +
                            ": need 0 <= part < parts");
    if (!one_launch(map) || r.kernel == tc::Kernel::linear)
      throw py::value_error("map='" + map + "', kernel='" + kernel +
                            "': collide over parts (comm=) splits one launch of blocks into omega ranges, which "
                            "map='lambda', 'bb' and 'rb' have with kernel='tile' or 'element'");
  }

  const ArrayRef s = read_array(spheres, "spheres", false);
  if (s.shape.size() != 2 || s.shape[1] != 4)
    throw py::value_error("spheres: expected shape (n, 4) (x, y, z, r per row; intervals: y = z = 0), got " +
                          std::to_string(s.shape.size()) + "-D shape " + shape_text(s.shape));
  if (!s.is('f', 4)) unsupported_dtype(s, "spheres", "the collision test reads float32 in place", "float32");
  require_c_order(s, "spheres");
  const index_t n = s.shape[0];
  if (n > max_side)
    throw py::value_error("spheres: " + std::to_string(n) + " spheres exceed the largest supported n = " +
                          std::to_string(max_side));

  const std::string dtype = tc::result_dtype(r.result);
  const index_t items = tc::result_words(r.result, n);
  const bool staged = !host_backend && s.memory == Memory::host;
  const index_t bytes = mul_sat(items, 4);
  const index_t host_need = host_backend || staged ? bytes : 0;
  const index_t device_need = host_backend ? 0 : add_sat(bytes, staged ? mul_sat(n, 16) : 0);
  const std::string what = "the " + result + " output (" + format_bytes(bytes) + ") of n = " + std::to_string(n) + " spheres";
  if (host_need > 0 && host_need > host_available_bytes())
    throw TooLarge(what + " needs " + format_bytes(host_need) + " of host memory but only " +
                   format_bytes(host_available_bytes()) + " is available; use result='count', or fewer spheres");
  if (device_need > 0 && device_need > free_memory_bytes())
    throw TooLarge(what + " needs " + format_bytes(device_need) + " of " + MemSpace::name() + " memory but only " +
                   format_bytes(free_memory_bytes()) + " is free; use result='count', or fewer spheres");

  py::object owner = py::none();
  ArrayRef words;
  if (r.result != tc::Result::count && r.result != tc::Result::pairs)
    words = allocate(alloc, {items}, dtype, false, s, owner);
  // The library's result Views live between two jobs when the pair list is
  // asked for (the list's array is allocated by Python in between); they are
  // created, used and freed on the Kokkos thread only, also when Python or a
  // job raises.
  tc::Output<MemSpace> out;
  OnKokkosReset<tc::Output<MemSpace>> free_out{out};
  if (r.result == tc::Result::pairs) {
    // As tdmaps-collide: keys, sort space and the list, about 48 bytes per pair.
    out.max_pairs = free_memory_bytes() / 48;
  }
  index_t count = 0;
  on_kokkos([&] {
    wait_for_producers(s);
    try {
      count = compute(s, words, n, r, out);
    } catch (...) {
      out = tc::Output<MemSpace>();
      throw;
    }
    if (r.result != tc::Result::pairs) out = tc::Output<MemSpace>();  // the counters
  });
  free_out.live = r.result == tc::Result::pairs;
  if (r.result == tc::Result::count) return py::int_(count);
  if (r.result != tc::Result::pairs) return owner;
  const ArrayRef list = allocate(alloc, {count, 2}, "int64", false, s, owner);
  on_kokkos([&] {
    ExecSpace space;
    if (count > 0) {
      std::int64_t* dst = static_cast<std::int64_t*>(list.data);
      if (list.memory == Memory::host)
        Kokkos::deep_copy(space, Kokkos::View<std::int64_t* [2], Kokkos::LayoutRight, Kokkos::HostSpace, Unmanaged>(dst, count),
                          out.pairs);
      else
        Kokkos::deep_copy(space, Kokkos::View<std::int64_t* [2], Kokkos::LayoutRight, MemSpace, Unmanaged>(dst, count),
                          out.pairs);
    }
    space.fence();
    out = tc::Output<MemSpace>();
  });
  free_out.live = false;
  return owner;
}

}  // namespace

void bind_collide(py::module_& m) {
  m.def(
      "collide",
      [](py::handle spheres, const std::string& result, const py::object& alloc, const std::string& map,
         const std::string& sqrt, const std::string& form, int block, const std::string& kernel) {
        return collide(spheres, result, alloc, map, sqrt, form, block, kernel, 0, 0);
      },
      py::arg("spheres"), py::arg("result"), py::arg("alloc"), py::arg("map"), py::arg("sqrt"), py::arg("form"),
      py::arg("block"), py::arg("kernel"), "Collisions of (n, 4) float32 spheres; see tdmaps.collide.");
  m.def(
      "collide_count_part",
      [](py::handle spheres, const std::string& map, const std::string& sqrt, const std::string& form, int block,
         const std::string& kernel, index_t part, index_t parts) {
        if (parts < 1) throw py::value_error("parts " + std::to_string(parts) + ": need parts >= 1");
        return collide(spheres, "count", py::none(), map, sqrt, form, block, kernel, part, parts);
      },
      py::arg("spheres"), py::arg("map"), py::arg("sqrt"), py::arg("form"), py::arg("block"), py::arg("kernel"),
      py::arg("part"), py::arg("parts"), "The colliding pairs of part `part` of `parts` of the league (comm=).");
}

}  // namespace python
}  // namespace tdmaps
