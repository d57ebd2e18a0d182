#include "arrays.hpp"

#include "common.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Kokkos_Core.hpp>

#include <tdmaps/kokkos_ext/backend.hpp>

#include <cstring>
#include <string>
#include <utility>

namespace py = pybind11;

namespace tdmaps {
namespace python {

namespace {

// DLPack's ABI (dlpack.h, v0.x: the unversioned "dltensor" capsule every
// producer returns from __dlpack__() without max_version).
struct DLDevice {
  std::int32_t device_type;
  std::int32_t device_id;
};
struct DLDataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: C order
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
constexpr int dl_cpu = 1, dl_cuda = 2, dl_cuda_host = 3, dl_cuda_managed = 13;

std::string dtype_name(char kind, int itemsize) {
  const std::string bits = std::to_string(8 * itemsize);
  switch (kind) {
    case 'f': return "float" + bits;
    case 'i': return "int" + bits;
    case 'u': return "uint" + bits;
    case 'b': return "bool";
    case 'c': return "complex" + std::to_string(16 * itemsize);
    default: return "a non-numeric dtype of " + std::to_string(itemsize) + " bytes";
  }
}

/// C order from strides in bytes (dimensions of extent 1 have any stride).
bool c_order(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides, int itemsize) {
  for (auto e : shape)
    if (e == 0) return true;
  std::int64_t want = itemsize;
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (shape[k] != 1 && strides[k] != want) return false;
    want *= shape[k];
  }
  return true;
}

[[noreturn]] void host_build_device_array(const std::string& name, const char* protocol) {
  throw py::type_error(name + " is a CUDA device array (" + protocol +
                       "), but this tdmaps module was built for the host backend (" + ExecSpace::name() +
                       "): pass a host array (e.g. X.cpu().numpy(), cupy.asnumpy(X)), or build the module with the cuda "
                       "preset");
}

/// CUDA builds: the device of `ptr`, which must be device or managed memory
/// of the device Kokkos runs on.
void check_device_pointer(ArrayRef& a, const std::string& name) {
#if defined(KOKKOS_ENABLE_CUDA)
  if (a.size() == 0) return;  // empty tensors may carry a null pointer
  const backend::PointerInfo info = backend::pointer_info(a.data);
  if (info.device < 0)
    throw py::value_error(name + ": its data pointer is not CUDA device memory (" + info.memory + ")");
  a.device = info.device;
  const int ours = kokkos_cuda_device();
  if (a.device != ours)
    throw py::value_error(name + " is on CUDA device " + std::to_string(a.device) + ", tdmaps runs on device " +
                          std::to_string(ours) + " (set by KOKKOS_DEVICE_ID or --kokkos-device-id at import)");
#else
  (void)a;
  host_build_device_array(name, "device memory");
#endif
}

bool read_cuda_array_interface(py::handle obj, const std::string& name, ArrayRef& a) {
  PyObject* raw = PyObject_GetAttrString(obj.ptr(), "__cuda_array_interface__");
  if (raw == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw py::error_already_set();
    PyErr_Clear();  // torch's CPU tensors raise AttributeError: no device array
    return false;
  }
  const py::dict cai = py::reinterpret_steal<py::dict>(raw);
  if (!host_backend) {
    const std::string typestr = py::str(cai["typestr"]);
    a.native = typestr.size() >= 3 && (typestr[0] == '<' || typestr[0] == '|');
    a.kind = typestr.size() >= 3 ? typestr[1] : '?';
    a.itemsize = typestr.size() >= 3 ? std::stoi(typestr.substr(2)) : 0;
    a.dtype = a.native ? dtype_name(a.kind, a.itemsize) : "big-endian " + dtype_name(a.kind, a.itemsize);
    const py::tuple data = cai["data"];
    a.data = reinterpret_cast<void*>(data[0].cast<std::uintptr_t>());
    a.readonly = data[1].cast<bool>();
    for (auto e : py::tuple(cai["shape"])) a.shape.push_back(e.cast<std::int64_t>());
    if (cai.contains("mask") && !cai["mask"].is_none()) throw py::value_error(name + ": masked arrays are not supported");
    a.c_contiguous = true;
    if (cai.contains("strides") && !cai["strides"].is_none()) {
      std::vector<std::int64_t> strides;
      for (auto e : py::tuple(cai["strides"])) strides.push_back(e.cast<std::int64_t>());
      a.c_contiguous = c_order(a.shape, strides, a.itemsize);
    }
    a.memory = Memory::device;
    a.keep_object = py::reinterpret_borrow<py::object>(obj);
    check_device_pointer(a, name);
    return true;
  }
  host_build_device_array(name, "__cuda_array_interface__");
}

bool read_buffer(py::handle obj, ArrayRef& a) {
  if (!PyObject_CheckBuffer(obj.ptr())) return false;
  auto view = std::shared_ptr<Py_buffer>(new Py_buffer(), [](Py_buffer* v) {
    PyBuffer_Release(v);  // the bindings drop ArrayRefs with the GIL held
    delete v;
  });
  // Read-only memory is refused by read_array (with the array's name), not
  // here by the exporter (NumPy: "buffer source array is read-only").
  if (PyObject_GetBuffer(obj.ptr(), view.get(), PyBUF_STRIDES | PyBUF_FORMAT) != 0) throw py::error_already_set();
  a.keep = view;
  a.data = view->buf;
  a.readonly = view->readonly != 0;
  a.itemsize = static_cast<int>(view->itemsize);
  std::string fmt = view->format ? view->format : "B";
  bool little = true;
  while (!fmt.empty() && std::strchr("@=<>!", fmt[0])) {
    if (fmt[0] == '>' || fmt[0] == '!') little = false;
    fmt.erase(0, 1);
  }
  a.native = little;
  const char c = fmt.size() == 1 ? fmt[0] : (fmt.size() == 2 && fmt[0] == 'Z' ? 'Z' : '?');
  a.kind = std::strchr("efdg", c) ? 'f' : std::strchr("bhilqn", c) ? 'i' : std::strchr("BHILQN", c) ? 'u'
         : c == '?' && fmt == "?"   ? 'b'
         : c == 'Z'                 ? 'c'
                                    : '?';
  for (int k = 0; k < view->ndim; ++k) a.shape.push_back(view->shape[k]);
  std::vector<std::int64_t> strides;
  for (int k = 0; k < view->ndim; ++k) strides.push_back(view->strides[k]);
  a.c_contiguous = c_order(a.shape, strides, a.itemsize);
  a.memory = Memory::host;
  // NumPy's names of float32 / float64 without asking the object; others from its dtype.
  if ((fmt == "d" && a.itemsize == 8) || (fmt == "f" && a.itemsize == 4)) a.dtype = dtype_name('f', a.itemsize);
  else a.dtype = py::hasattr(obj, "dtype") ? std::string(py::str(obj.attr("dtype"))) : dtype_name(a.kind, a.itemsize);
  if (!little) a.dtype = "big-endian " + a.dtype;
  return true;
}

bool read_dlpack(py::handle obj, const std::string& name, ArrayRef& a) {
  if (!py::hasattr(obj, "__dlpack__") || !py::hasattr(obj, "__dlpack_device__")) return false;
  const py::tuple dev = obj.attr("__dlpack_device__")();
  const int type = dev[0].cast<int>();
  if (type != dl_cpu && type != dl_cuda_host && type != dl_cuda && type != dl_cuda_managed)
    throw py::type_error(name + ": DLPack device type " + std::to_string(type) + " is neither the CPU nor CUDA");
  const bool device = type == dl_cuda || type == dl_cuda_managed;
  if (device && host_backend) host_build_device_array(name, "__dlpack__");
  py::object capsule = obj.attr("__dlpack__")();
  auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (t == nullptr) throw py::error_already_set();
  const DLTensor& d = t->dl_tensor;
  a.keep_object = capsule;  // its destructor calls the producer's deleter
  a.data = static_cast<char*>(d.data) + d.byte_offset;
  const char kinds[] = {'i', 'u', 'f', '?', '?', 'c', 'b'};
  a.kind = d.dtype.code < sizeof(kinds) && d.dtype.lanes == 1 ? kinds[d.dtype.code] : '?';
  a.itemsize = d.dtype.bits / 8;
  a.dtype = d.dtype.code == 4 ? "bfloat16" : dtype_name(a.kind, a.itemsize);
  for (int k = 0; k < d.ndim; ++k) a.shape.push_back(d.shape[k]);
  a.c_contiguous = true;
  if (d.strides != nullptr) {
    std::vector<std::int64_t> strides;
    for (int k = 0; k < d.ndim; ++k) strides.push_back(d.strides[k] * a.itemsize);
    a.c_contiguous = c_order(a.shape, strides, a.itemsize);
  }
  a.memory = device ? Memory::device : Memory::host;
  if (device) check_device_pointer(a, name);
  return true;
}

}  // namespace

std::int64_t ArrayRef::size() const {
  std::int64_t s = 1;
  for (auto e : shape) s *= e;
  return s;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

ArrayRef read_array(py::handle obj, const std::string& name, bool writable) {
  ArrayRef a;
  if (read_cuda_array_interface(obj, name, a) || read_buffer(obj, a) || read_dlpack(obj, name, a)) {
    if (writable && a.readonly) throw py::value_error(name + ": the array is read-only");
    const std::string module = py::str(py::getattr(py::type::of(obj), "__module__", py::str("")));
    a.library = module.substr(0, module.find('.'));
    return a;
  }
  throw py::type_error(name + ": expected an array (NumPy, or any object with the buffer protocol, "
                              "__cuda_array_interface__ or __dlpack__), got " +
                       std::string(py::str(py::type::of(obj).attr("__name__"))));
}

void require_ndim(const ArrayRef& a, const std::string& name, std::size_t ndim, const std::string& what) {
  if (a.shape.size() != ndim)
    throw py::value_error(name + ": expected a " + std::to_string(ndim) + "-D array (" + what + "), got " +
                          std::to_string(a.shape.size()) + "-D shape " + shape_text(a.shape));
}

std::string astype_fix(const ArrayRef& a, const std::string& name, const std::string& dtype) {
  if (a.library == "torch") return name + ".to(torch." + dtype + ")";
  if (a.library == "cupy") return name + ".astype(cupy." + dtype + ")";
  return name + ".astype(np." + dtype + ")";
}

std::string contiguous_fix(const ArrayRef& a, const std::string& name) {
  if (a.library == "torch") return name + ".contiguous()";
  if (a.library == "cupy") return "cupy.ascontiguousarray(" + name + ")";
  return "np.ascontiguousarray(" + name + ")";
}

void unsupported_dtype(const ArrayRef& a, const std::string& name, const std::string& reads, const std::string& dtype) {
  throw py::type_error(name + ": unsupported dtype '" + a.dtype + "' (" + reads + "; convert with " +
                       astype_fix(a, name, dtype) + ", or pass copy=True)");
}

void require_c_order(const ArrayRef& a, const std::string& name) {
  if (!a.c_contiguous)
    throw py::value_error(name + ": the array is not in C order (Fortran order or a strided view); tdmaps reads C "
                                 "order in place, without a copy: pass " +
                          contiguous_fix(a, name) + ", or copy=True");
  if (a.itemsize > 0 && reinterpret_cast<std::uintptr_t>(a.data) % static_cast<std::uintptr_t>(a.itemsize) != 0) {
    const std::string copy = a.library == "torch"  ? name + ".clone()"
                             : a.library == "cupy" ? name + ".copy()"
                                                   : "np.require(" + name + ", requirements='CA')";
    throw py::value_error(name + ": the data are not aligned to their " + std::to_string(a.itemsize) +
                          "-byte elements; pass an aligned copy (" + copy + ")");
  }
}

ArrayRef read_points(py::handle X, std::int64_t& n, std::int64_t& d) {
  ArrayRef x = read_array(X, "X", false);
  require_ndim(x, "X", 2, "points x dims");
  if (!x.is('f', 4) && !x.is('f', 8)) unsupported_dtype(x, "X", "tdmaps reads float32 and float64 in place", "float64");
  require_c_order(x, "X");
  n = x.shape[0];
  d = x.shape[1];
  if (d == 0) throw py::value_error("X: points have 0 dimensions (the input has 0 columns)");
  if (n > max_side)
    throw py::value_error("X: n = " + std::to_string(n) + " points exceed the largest supported side " +
                          std::to_string(max_side));
  if (d > (std::int64_t(1) << 20)) throw py::value_error("X: d = " + std::to_string(d) + " dimensions exceed 2^20");
  return x;
}

py::tuple array_bytes(py::handle obj) {
  const ArrayRef a = read_array(obj, "X", false);
  const std::string layout = a.dtype + " " + shape_text(a.shape) + (a.c_contiguous ? " C order" : " strided") +
                             (a.memory == Memory::host ? " host" : " device " + std::to_string(a.device));
  if (!a.c_contiguous) return py::make_tuple(layout, py::none());
  const std::int64_t bytes = a.bytes();
  if (a.memory == Memory::host) {  // in place: the DLPack capsule or the object keeps the memory
    const py::handle base = a.keep_object ? py::handle(a.keep_object) : obj;
    return py::make_tuple(layout, py::array_t<std::uint8_t>({bytes}, {std::int64_t(1)},
                                                            static_cast<const std::uint8_t*>(a.data), base));
  }
  py::array_t<std::uint8_t> host(bytes);
  std::uint8_t* const to = host.mutable_data();
  on_kokkos([&] {
    wait_for_producers(a);
    Kokkos::deep_copy(Kokkos::View<std::uint8_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(to, bytes),
                      Kokkos::View<const std::uint8_t*, MemSpace, Kokkos::MemoryUnmanaged>(
                          static_cast<const std::uint8_t*>(a.data), bytes));
  });
  return py::make_tuple(layout, host);
}

void require_output(const ArrayRef& out, const std::vector<std::int64_t>& shape, const std::string& dtype,
                    const ArrayRef& like) {
  if (out.shape != shape)
    throw py::value_error("out: shape " + shape_text(out.shape) + ", expected " + shape_text(shape));
  if (!out.native || out.dtype != dtype)
    throw py::value_error("out: dtype " + out.dtype + ", expected " + dtype);
  require_c_order(out, "out");
  if (out.memory != like.memory || out.device != like.device)
    throw py::value_error(std::string("out: the array is in ") + (out.memory == Memory::host ? "host" : "device") +
                          " memory, the input in " + (like.memory == Memory::host ? "host" : "device") +
                          " memory; the output goes where the input is");
  const auto a0 = reinterpret_cast<std::uintptr_t>(out.data), b0 = reinterpret_cast<std::uintptr_t>(like.data);
  if (out.bytes() > 0 && like.bytes() > 0 && a0 < b0 + static_cast<std::uintptr_t>(like.bytes()) &&
      b0 < a0 + static_cast<std::uintptr_t>(out.bytes()))
    throw py::value_error("out: overlaps the input's memory");
}

namespace {
/// A new host NumPy array of shape and dtype (alloc None: NumPy's, without a
/// call into Python), read without the buffer protocol.
ArrayRef numpy_array(const std::vector<std::int64_t>& shape, const std::string& dtype, bool zero, py::object& owner) {
  static const char* const names[] = {"float64", "float32", "int64", "uint64", "uint32", "int32"};
  static const char kinds[] = {'f', 'f', 'i', 'u', 'u', 'i'};
  static const int sizes[] = {8, 4, 8, 8, 4, 4};
  int t = 0;
  while (t < 6 && dtype != names[t]) ++t;
  if (t == 6) throw std::logic_error("tdmaps: no NumPy allocation of dtype " + dtype);
  py::array a;
  switch (t) {
    case 0: a = py::array_t<double>(shape); break;
    case 1: a = py::array_t<float>(shape); break;
    case 2: a = py::array_t<std::int64_t>(shape); break;
    case 3: a = py::array_t<std::uint64_t>(shape); break;
    case 4: a = py::array_t<std::uint32_t>(shape); break;
    default: a = py::array_t<std::int32_t>(shape); break;
  }
  ArrayRef r;
  r.data = a.mutable_data();
  r.kind = kinds[t];
  r.itemsize = sizes[t];
  r.dtype = dtype;
  r.shape = shape;
  r.memory = Memory::host;
  if (zero && r.size() > 0) std::memset(r.data, 0, static_cast<std::size_t>(r.bytes()));
  owner = std::move(a);
  return r;
}
}  // namespace

ArrayRef allocate(const py::object& alloc, const std::vector<std::int64_t>& shape, const std::string& dtype, bool zero,
                  const ArrayRef& like, py::object& owner) {
  if (alloc.is_none() && like.memory == Memory::host) return numpy_array(shape, dtype, zero, owner);
  py::tuple t(shape.size());
  for (std::size_t k = 0; k < shape.size(); ++k) t[k] = py::int_(shape[k]);
  owner = alloc(t, dtype, zero);
  ArrayRef out = read_array(owner, "out", true);
  require_output(out, shape, dtype, like);
  return out;
}

void wait_for_producers(const ArrayRef& a) {
  if (!host_backend && a.memory == Memory::device) Kokkos::fence();  // Kokkos 3.4 takes no label
}

std::string pointer_memory(std::uintptr_t ptr) {
#if defined(KOKKOS_ENABLE_CUDA)
  return backend::pointer_info(reinterpret_cast<const void*>(ptr)).memory;
#else
  (void)ptr;
  return "host";
#endif
}

}  // namespace python
}  // namespace tdmaps
