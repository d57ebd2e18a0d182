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
// wording (apps/common/npy_read.cpp), the Python spelling of the fixes in the
// array's own library (NumPy's, PyTorch's or CuPy's).

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
  std::string library;               ///< the top module of the array's type: "numpy", "torch", "cupy", ...
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

/// Points X checked as every EDM function checks them: (n, d) float32 or
/// float64, C order, 1 <= d <= 2^20, n <= max_side.
ArrayRef read_points(pybind11::handle X, std::int64_t& n, std::int64_t& d);

/// The fixes in the array's own library, for messages: astype_fix(a, "X",
/// "float64") is "X.astype(np.float64)" (NumPy and other arrays),
/// "X.to(torch.float64)" (PyTorch) or "X.astype(cupy.float64)" (CuPy);
/// contiguous_fix(a, "X") "np.ascontiguousarray(X)", "X.contiguous()" or
/// "cupy.ascontiguousarray(X)".
std::string astype_fix(const ArrayRef& a, const std::string& name, const std::string& dtype);
std::string contiguous_fix(const ArrayRef& a, const std::string& name);
/// TypeError "<name>: unsupported dtype '<a's>' (<reads>; convert with
/// <astype_fix(a, name, dtype)>, or pass copy=True)".
[[noreturn]] void unsupported_dtype(const ArrayRef& a, const std::string& name, const std::string& reads,
                                    const std::string& dtype);

/// What comm= compares between ranks (python/tdmaps/_mpi.py): (layout,
/// data) of an array the module reads, layout a string of its dtype, shape,
/// order and memory, data its bytes on the host (a NumPy uint8 view of host
/// memory, a host copy of device memory), or None where the array is not in
/// C order. Raises as read_array for an object that is no array.
pybind11::tuple array_bytes(pybind11::handle obj);

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
