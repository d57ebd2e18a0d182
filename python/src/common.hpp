#ifndef TDMAPS_PYTHON_COMMON_HPP
#define TDMAPS_PYTHON_COMMON_HPP

// What the bindings share: the execution space, the lock every Kokkos call
// of the module takes, the exception for "does not fit in memory", the
// checks of the option strings (with the CLIs' wording), and the binders of
// the two apps.

#include <pybind11/pybind11.h>

#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/dispatch.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
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

/// Kokkos work of the module runs under this lock with the GIL released:
/// other Python threads run meanwhile, Kokkos sees one caller at a time.
std::mutex& kokkos_mutex();
/// Throws std::runtime_error unless Kokkos is initialised (and not finalised).
void require_kokkos();

/// Free host memory (MemAvailable), as the CLIs count it.
std::int64_t host_available_bytes();
/// Free memory of MemSpace: the device's on CUDA, the host's otherwise.
std::int64_t free_memory_bytes();
/// "1.07 GB (1073741824 bytes)", the CLIs' format.
std::string format_bytes(std::int64_t bytes);
/// a * b and a + b saturated at INT64_MAX (a, b >= 0).
index_t mul_sat(index_t a, index_t b);
index_t add_sat(index_t a, index_t b);

/// "'x' (known: a, b, c)" checks of the option strings, ValueError on mismatch.
void check_choice(const char* option, const std::string& value, const std::vector<std::string>& known);
/// The map options the CLIs take (--map, --sqrt, --form, --block) as keyword arguments.
MapSpec map_spec(const std::string& map, const std::string& sqrt, const std::string& form, int block);

void bind_lifecycle(pybind11::module_& m);
void bind_pdist(pybind11::module_& m);
void bind_collide(pybind11::module_& m);
void bind_reduce(pybind11::module_& m);

}  // namespace python
}  // namespace tdmaps

#endif
