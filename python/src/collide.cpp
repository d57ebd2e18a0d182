// _tdmaps.collide: the collision app's results (apps/collision) for an
// (n, 4) float32 array of spheres read in place. The checks and their
// wording follow tdmaps-collide (apps/collision/tdmaps_collide.cpp).
// _tdmaps.collide_count_part: the count of part `part` of `parts` of the
// league (omega_range), the per-rank half of collide(..., comm=).

#include "arrays.hpp"
#include "collide_compute.hpp"
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
      count = by_map_group(r.spec, [&](auto group) { return collide_compute<decltype(group)::value>(s, words, n, r, out); });
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
