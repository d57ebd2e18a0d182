#ifndef TDMAPS_KOKKOS_EXT_BACKEND_HPP
#define TDMAPS_KOKKOS_EXT_BACKEND_HPP

/// \file
/// \brief The backend layer (namespace tdmaps::backend): which Kokkos
/// execution spaces are GPUs, their lane widths, the device pass, and the
/// memory and runtime facts a GPU backend differs in (pinned host memory,
/// free device memory, device count, independent instances).
///
/// Every name of a GPU backend (Kokkos::Cuda, Kokkos::HIP, Kokkos::SYCL,
/// their memory spaces, the CUDA and HIP runtimes) outside
/// lib/tdmaps/kokkos_ext/ goes through this header; CI's lint
/// (.ci/lint.sh) enforces it. Kokkos 3.4 and 4.x spell HIP and SYCL
/// differently (Kokkos::Experimental::HIP before 4.0, Kokkos::HIP from 4.0;
/// Kokkos::Experimental::SYCL before 4.5, Kokkos::SYCL from 4.5); the
/// aliases here take either.
///
/// Lane widths (`lane_width`): 32 on CUDA (a warp); on HIP the wavefront,
/// 64 on CDNA (gfx906, gfx908, gfx90a, gfx940, gfx942) and 32 on RDNA
/// (gfx1030, gfx1100, gfx1103), as Kokkos' own HIP traits; 1 on SYCL, whose
/// sub-group operations this layer does not implement yet (its lane walks
/// take the host form, correct and slower), and on host backends.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif

/// \def TDMAPS_DEVICE_PASS
/// 1 in a GPU backend's device compilation pass (CUDA's __CUDA_ARCH__, HIP's
/// __HIP_DEVICE_COMPILE__, SYCL's __SYCL_DEVICE_ONLY__), else 0.
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__) || defined(__SYCL_DEVICE_ONLY__)
#define TDMAPS_DEVICE_PASS 1
#else
#define TDMAPS_DEVICE_PASS 0
#endif

namespace tdmaps {
/// \brief The backend layer (kokkos_ext/backend.hpp).
namespace backend {

#if defined(KOKKOS_ENABLE_HIP)
#if KOKKOS_VERSION >= 40000
using HIP = Kokkos::HIP;                                ///< HIP's execution space
using HIPSpace = Kokkos::HIPSpace;                      ///< HIP's device memory
using HIPHostPinnedSpace = Kokkos::HIPHostPinnedSpace;  ///< HIP's pinned host memory
#else
using HIP = Kokkos::Experimental::HIP;
using HIPSpace = Kokkos::Experimental::HIPSpace;
using HIPHostPinnedSpace = Kokkos::Experimental::HIPHostPinnedSpace;
#endif
#endif
#if defined(KOKKOS_ENABLE_SYCL)
#if KOKKOS_VERSION >= 40500
using SYCL = Kokkos::SYCL;                                ///< SYCL's execution space
using SYCLDeviceUSMSpace = Kokkos::SYCLDeviceUSMSpace;    ///< SYCL's device memory
using SYCLHostUSMSpace = Kokkos::SYCLHostUSMSpace;        ///< SYCL's host memory the device reaches
#else
using SYCL = Kokkos::Experimental::SYCL;
using SYCLDeviceUSMSpace = Kokkos::Experimental::SYCLDeviceUSMSpace;
using SYCLHostUSMSpace = Kokkos::Experimental::SYCLHostUSMSpace;
#endif
#endif

/// \brief Whether ExecSpace runs a team as a GPU thread block (R threads x
/// rho vector lanes): CUDA, HIP and SYCL; host backends run a team as one thread.
template <class ExecSpace>
struct is_gpu : std::false_type {};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct is_gpu<Kokkos::Cuda> : std::true_type {};
#endif
#if defined(KOKKOS_ENABLE_HIP)
template <>
struct is_gpu<HIP> : std::true_type {};
#endif
#if defined(KOKKOS_ENABLE_SYCL)
template <>
struct is_gpu<SYCL> : std::true_type {};
#endif

/// \brief Whether ExecSpace is CUDA's (for what only CUDA has here: NCCL).
template <class ExecSpace>
struct is_cuda : std::false_type {};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct is_cuda<Kokkos::Cuda> : std::true_type {};
#endif

/// \brief The lanes ExecSpace runs in lockstep, for the lane walks (the file's
/// table); 1 where this layer has no lane operations (host backends, SYCL).
template <class ExecSpace>
struct lane_width : std::integral_constant<int, 1> {};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct lane_width<Kokkos::Cuda> : std::integral_constant<int, 32> {};
#endif
#if defined(KOKKOS_ENABLE_HIP)
#if defined(KOKKOS_ARCH_AMD_GFX1030) || defined(KOKKOS_ARCH_AMD_GFX1100) || defined(KOKKOS_ARCH_AMD_GFX1103)
template <>
struct lane_width<HIP> : std::integral_constant<int, 32> {};
#else
template <>
struct lane_width<HIP> : std::integral_constant<int, 64> {};
#endif
#endif

/// \brief The backend's name (Kokkos' own), for messages.
template <class ExecSpace>
inline std::string name() {
  return ExecSpace::name();
}

/// \brief Throws std::runtime_error unless Kokkos grants `policy` the vector
/// length `want` (Kokkos clamps it silently on HIP and SYCL, where a lane
/// walk of the wrong width would compute the wrong pairs).
template <class Policy>
void check_vector_length(const Policy& policy, int want, const char* who) {
  if (policy.impl_vector_length() != want)
    throw std::runtime_error(std::string(who) + ": the lane walk needs a vector length of " + std::to_string(want) +
                             " on " + Policy::execution_space::name() + ", Kokkos granted " +
                             std::to_string(policy.impl_vector_length()));
}

/// \brief Memory that ExecSpace's kernels write and the host reads without a
/// copy (a summary, a flag): pinned host memory on CUDA and HIP, SYCL's host
/// USM; on host backends their own memory.
template <class ExecSpace>
struct host_readable_space {
  using type = typename ExecSpace::memory_space;  ///< host backends
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, type>::accessible,
                "tdmaps::backend::host_readable_space: no host-readable memory known for this execution space");
};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct host_readable_space<Kokkos::Cuda> {
  using type = Kokkos::CudaHostPinnedSpace;  ///< CUDA: pinned
};
#endif
#if defined(KOKKOS_ENABLE_HIP)
template <>
struct host_readable_space<HIP> {
  using type = HIPHostPinnedSpace;  ///< HIP: pinned
};
#endif
#if defined(KOKKOS_ENABLE_SYCL)
template <>
struct host_readable_space<SYCL> {
  using type = SYCLHostUSMSpace;  ///< SYCL: host USM
};
#endif

/// \brief Host memory ExecSpace copies into and out of at full speed: the
/// same as host_readable_space (pinned on CUDA and HIP).
template <class ExecSpace>
using staging_space_t = typename host_readable_space<ExecSpace>::type;

/// \brief Whether MemorySpace is a GPU's own memory (not readable by the host).
template <class MemorySpace>
struct is_device_memory
    : std::integral_constant<bool, !Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible> {};

/// \brief Free bytes of the current device of a GPU backend (CUDA's and HIP's
/// runtimes); -1 where the backend does not say (SYCL) or none is built.
/// Callers refuse what they cannot check (apps/common/memory.hpp).
template <class MemorySpace>
std::int64_t device_free_bytes() {
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<MemorySpace, Kokkos::CudaSpace>::value || std::is_same<MemorySpace, Kokkos::CudaUVMSpace>::value) {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
      (void)cudaGetLastError();
      return -1;
    }
    return static_cast<std::int64_t>(free_b);
  }
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if (std::is_same<MemorySpace, HIPSpace>::value) {
    std::size_t free_b = 0, total_b = 0;
    if (hipMemGetInfo(&free_b, &total_b) != hipSuccess) {
      (void)hipGetLastError();
      return -1;
    }
    return static_cast<std::int64_t>(free_b);
  }
#endif
  return -1;
}

/// \brief GPUs the built GPU backend sees (CUDA's and HIP's runtimes); 0
/// without one (host builds, SYCL: Kokkos picks its device there).
inline int device_count() {
  int count = 0;
#if defined(KOKKOS_ENABLE_CUDA)
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    count = 0;
  }
#elif defined(KOKKOS_ENABLE_HIP)
  if (hipGetDeviceCount(&count) != hipSuccess) {
    (void)hipGetLastError();
    count = 0;
  }
#endif
  return count;
}

/// \brief The device id of an instance of a GPU backend (CUDA, HIP); -1 on
/// others.
template <class ExecSpace>
int device_id(const ExecSpace& space) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) return space.cuda_device();
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same<ExecSpace, HIP>::value) return space.hip_device();
#endif
  (void)space;
  return -1;
}

/// \brief The native stream of an instance (cudaStream_t, hipStream_t) as a
/// pointer, for libraries that take one (NCCL); nullptr on other backends.
template <class ExecSpace>
void* native_stream(const ExecSpace& space) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) return static_cast<void*>(space.cuda_stream());
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same<ExecSpace, HIP>::value) return static_cast<void*>(space.hip_stream());
#endif
  (void)space;
  return nullptr;
}

/// \brief Where a pointer's memory lives, as the GPU runtime says.
struct PointerInfo {
  /// "device", "managed", "host" (pinned or registered), "unregistered"
  /// (plain host memory, or an address the runtime does not know), or
  /// "unknown" (no CUDA or HIP runtime built)
  std::string memory;
  int device = -1;  ///< the device of device or managed memory, else -1
};

/// \brief The PointerInfo of p (CUDA's and HIP's pointer attributes).
inline PointerInfo pointer_info(const void* p) {
  PointerInfo info;
#if defined(KOKKOS_ENABLE_CUDA)
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    (void)cudaGetLastError();
    info.memory = "unregistered";
    return info;
  }
  switch (attr.type) {
    case cudaMemoryTypeDevice: info.memory = "device"; break;
    case cudaMemoryTypeManaged: info.memory = "managed"; break;
    case cudaMemoryTypeHost: info.memory = "host"; break;
    default: info.memory = "unregistered"; break;
  }
  if (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged) info.device = attr.device;
#elif defined(KOKKOS_ENABLE_HIP)
  hipPointerAttribute_t attr;
  if (hipPointerGetAttributes(&attr, p) != hipSuccess) {
    (void)hipGetLastError();
    info.memory = "unregistered";
    return info;
  }
  if (attr.isManaged)
    info.memory = "managed";
  else if (attr.memoryType == hipMemoryTypeDevice)
    info.memory = "device";
  else if (attr.memoryType == hipMemoryTypeHost)
    info.memory = "host";
  else
    info.memory = "unregistered";
  if (info.memory == "device" || info.memory == "managed") info.device = attr.device;
#else
  (void)p;
  info.memory = "unknown";
#endif
  return info;
}

/// \brief Two instances of ExecSpace whose work may overlap (a computation
/// and a copy): two streams on CUDA and HIP, made and released here; one
/// instance twice on host backends and SYCL, where the two run in order.
template <class ExecSpace>
class InstancePair {
 public:
  /// \brief The two instances (on CUDA and HIP: on two new streams).
  InstancePair() = default;
  /// \brief Not copyable (it owns its streams).
  InstancePair(const InstancePair&) = delete;
  /// \brief Not copyable (it owns its streams).
  InstancePair& operator=(const InstancePair&) = delete;
  /// \brief The instance that computes.
  const ExecSpace& compute() const { return compute_; }
  /// \brief The instance that copies.
  const ExecSpace& copy() const { return copy_; }

 private:
  ExecSpace compute_;  ///< the computing instance
  ExecSpace copy_;     ///< the copying instance
};
#if defined(KOKKOS_ENABLE_CUDA)
template <>
class InstancePair<Kokkos::Cuda> {
 public:
  InstancePair() : s_{make(), make()}, compute_(s_[0]), copy_(s_[1]) {}
  InstancePair(const InstancePair&) = delete;
  InstancePair& operator=(const InstancePair&) = delete;
  ~InstancePair() {
    compute_ = Kokkos::Cuda();
    copy_ = Kokkos::Cuda();
    cudaStreamDestroy(s_[0]);
    cudaStreamDestroy(s_[1]);
  }
  const Kokkos::Cuda& compute() const { return compute_; }
  const Kokkos::Cuda& copy() const { return copy_; }

 private:
  static cudaStream_t make() {
    cudaStream_t st;
    if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess)
      throw std::runtime_error("tdmaps: cannot create a CUDA stream");
    return st;
  }
  cudaStream_t s_[2] = {nullptr, nullptr};
  Kokkos::Cuda compute_, copy_;
};
#endif
#if defined(KOKKOS_ENABLE_HIP)
template <>
class InstancePair<HIP> {
 public:
  InstancePair() : s_{make(), make()}, compute_(s_[0]), copy_(s_[1]) {}
  InstancePair(const InstancePair&) = delete;
  InstancePair& operator=(const InstancePair&) = delete;
  ~InstancePair() {
    compute_ = HIP();
    copy_ = HIP();
    (void)hipStreamDestroy(s_[0]);
    (void)hipStreamDestroy(s_[1]);
  }
  const HIP& compute() const { return compute_; }
  const HIP& copy() const { return copy_; }

 private:
  static hipStream_t make() {
    hipStream_t st;
    if (hipStreamCreateWithFlags(&st, hipStreamNonBlocking) != hipSuccess)
      throw std::runtime_error("tdmaps: cannot create a HIP stream");
    return st;
  }
  hipStream_t s_[2] = {nullptr, nullptr};
  HIP compute_, copy_;
};
#endif

}  // namespace backend
}  // namespace tdmaps

#endif
