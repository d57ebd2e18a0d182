#ifndef TDMAPS_APPS_COMMON_NCCL_SUM_HPP
#define TDMAPS_APPS_COMMON_NCCL_SUM_HPP

// The ranks' sum of a device array through NCCL, for the CLIs on MPI ranks
// with CUDA: over NVLink on the devices instead of through host memory and
// MPI_Allreduce (perf_tests/results/h200x4/nbody_ranks.md compares the
// two). NCCL is loaded at run time (dlopen
// of $TDMAPS_NCCL, else libnccl.so.2 from the loader's path), so the build
// needs neither NCCL nor its headers and a run without it takes the host
// path: available() says which, the same on every rank (the ranks decide
// together). TDMAPS_NCCL=off keeps NCCL out.
//
//   NcclSum nccl(ranks);                 collective; after Kokkos is initialised on the rank's device
//   if (nccl.available()) nccl.sum_f64(device_ptr, count, cuda_stream);

#include "ranks.hpp"

#include <cstdint>
#include <string>

namespace tdmaps {
namespace app {

class NcclSum {
 public:
  /// A collective of every rank when ranks.size() > 1 in a build with MPI and
  /// CUDA; otherwise nothing (not available).
  explicit NcclSum(const Ranks& ranks);
  ~NcclSum();
  NcclSum(const NcclSum&) = delete;
  NcclSum& operator=(const NcclSum&) = delete;

  /// Whether sum_f64 may be called (the same on every rank).
  bool available() const { return comm_ != nullptr; }
  /// "nccl" where available, else why not ("one rank", "no CUDA or MPI in
  /// this build", "TDMAPS_NCCL=off", the loader's or NCCL's message).
  const std::string& status() const { return status_; }

  /// data[0 .. count) = its sum over the ranks, fp64, in place on the device,
  /// enqueued on the CUDA stream `stream` (a cudaStream_t); every rank gets
  /// the same bits. Throws Error on an NCCL error.
  void sum_f64(double* data, std::int64_t count, void* stream) const;

 private:
  [[maybe_unused]] void* lib_ = nullptr;  // the NCCL library (builds with MPI and CUDA)
  void* comm_ = nullptr;
  std::string status_;
};

}  // namespace app
}  // namespace tdmaps

#endif
