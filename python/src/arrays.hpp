#ifndef TDMAPS_PYTHON_ARRAYS_HPP
#define TDMAPS_PYTHON_ARRAYS_HPP

// Arrays in place, never copied: an ArrayRef is the pointer, dtype, shape and
// memory of a Python array object, read through
//   - the buffer protocol (NumPy and anything else that exports a buffer),
//   - __cuda_array_interface__ (PyTorch, CuPy, Numba device arrays; CUDA
//     builds), or
//   - __dlpack__ (host tensors on any build, device tensors on CUDA builds).
// `keep` holds what keeps the pointer valid (the buffer view, the DLPack
// capsule) for the duration of the call. The checks raise with the CLIs'
// wording (apps/common/npy_read.cpp), the Python spelling of the fixes.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tdmaps {
namespace python {

/// Where an array's memory is.
enum class Memory { host, device };

struct ArrayRef {
  void* data = nullptr;
  bool readonly = false;
  char kind = '?';     ///< 'f' float, 'i' int, 'u' unsigned, 'b' bool, 'c' complex, '?' other
  int itemsize = 0;    ///< bytes per element
  bool native = true;  ///< native byte order
  std::string dtype;   ///< e.g. "float64", for messages
  std::vector<std::int64_t> shape;
  bool c_contiguous = true;
  Memory memory = Memory::host;
  int device = -1;                   ///< CUDA device of device memory
  std::shared_ptr<void> keep;        ///< keeps `data` valid (buffer view)
  pybind11::object keep_object;      ///< keeps `data` valid (DLPack capsule)

  std::int64_t size() const;
  std::int64_t bytes() const { return size() * itemsize; }
  bool is(char k, int bytes) const { return native && kind == k && itemsize == bytes; }
};

/// The array behind `obj`. `name` prefixes every message ("X: ..."); a
/// `writable` request refuses read-only memory. Raises TypeError for an
/// object that is no array, or a device array on a host build.
ArrayRef read_array(pybind11::handle obj, const std::string& name, bool writable);

/// "(3, 4)", "(5,)": Python's spelling of a shape.
std::string shape_text(const std::vector<std::int64_t>& shape);

/// ValueError "<name>: expected a 2-D array (points x dims), got ..." unless
/// a.shape has `ndim` dimensions; `what` names them ("points x dims").
void require_ndim(const ArrayRef& a, const std::string& name, std::size_t ndim, const std::string& what);
/// ValueError unless C-contiguous and aligned to its element size.
void require_c_order(const ArrayRef& a, const std::string& name);
/// ValueError unless `out` has exactly `shape`, dtype `dtype`, C order,
/// lies in the memory of `like` and does not overlap it.
void require_output(const ArrayRef& out, const std::vector<std::int64_t>& shape, const std::string& dtype,
                    const ArrayRef& like);

/// Calls alloc(shape, dtype, zero) (the Python layer's allocator: the
/// input's own library on its device) and reads the result; alloc None
/// makes a host NumPy array directly (host inputs: `like` in host memory).
ArrayRef allocate(const pybind11::object& alloc, const std::vector<std::int64_t>& shape, const std::string& dtype,
                  bool zero, const ArrayRef& like, pybind11::object& owner);

/// Waits for the device work that may still write an input (the producer's
/// stream; DLPack producers sync to the legacy default stream): a device-wide
/// fence on CUDA builds, nothing on host builds. Inside a job (on_kokkos).
void wait_for_producers(const ArrayRef& a);

/// The memory kind of a pointer (CUDA builds): "device", "managed", "host"
/// (pinned) or "unregistered"; "host" on host builds.
std::string pointer_memory(std::uintptr_t ptr);

}  // namespace python
}  // namespace tdmaps

#endif
