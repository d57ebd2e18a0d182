// NcclSum (nccl_sum.hpp): NCCL's C API declared here as NCCL 2 defines it
// (the build takes no NCCL header), its functions looked up after dlopen.
#include "nccl_sum.hpp"

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <string>

#if defined(TDMAPS_HAVE_MPI) && defined(KOKKOS_ENABLE_CUDA)
#include <dlfcn.h>
#include <mpi.h>
#define TDMAPS_NCCL_SUM 1
#endif

namespace tdmaps {
namespace app {

#if defined(TDMAPS_NCCL_SUM)
namespace {

// nccl.h (NCCL 2): ncclUniqueId, ncclResult_t (ncclSuccess = 0),
// ncclDataType_t (ncclFloat64 = 8), ncclRedOp_t (ncclSum = 0).
struct UniqueId {
  char internal[128];
};
using GetUniqueId = int (*)(UniqueId*);
using CommInitRank = int (*)(void**, int, UniqueId, int);
using CommDestroy = int (*)(void*);
using AllReduce = int (*)(const void*, void*, std::size_t, int, int, void*, void*);
using GetErrorString = const char* (*)(int);
constexpr int nccl_float64 = 8;
constexpr int nccl_sum = 0;

template <class F>
F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

}  // namespace
#endif

NcclSum::NcclSum(const Ranks& ranks) {
#if defined(TDMAPS_NCCL_SUM)
  if (ranks.size() < 2) {
    status_ = "one rank";
    return;
  }
  // Every rank decides alone whether it could load NCCL, then all together.
  const char* env = std::getenv("TDMAPS_NCCL");
  const std::string path = env != nullptr && *env != '\0' ? env : "libnccl.so.2";
  int ok = 0;
  if (path == "off") {
    status_ = "TDMAPS_NCCL=off";
  } else {
    lib_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib_ == nullptr) {
      const char* e = dlerror();
      status_ = "NCCL not loaded (" + std::string(e != nullptr ? e : path) + ")";
    } else if (symbol<GetUniqueId>(lib_, "ncclGetUniqueId") == nullptr ||
               symbol<CommInitRank>(lib_, "ncclCommInitRank") == nullptr ||
               symbol<AllReduce>(lib_, "ncclAllReduce") == nullptr ||
               symbol<CommDestroy>(lib_, "ncclCommDestroy") == nullptr) {
      status_ = path + " lacks NCCL 2's functions";
    } else {
      ok = 1;
    }
  }
  // NVLink multicast (NVLS) stays off unless the caller's environment says otherwise.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all == 0) {
    if (ok == 1) status_ = "NCCL not loaded on every rank";
    return;
  }
  UniqueId id{};
  int rc = ranks.root() ? symbol<GetUniqueId>(lib_, "ncclGetUniqueId")(&id) : 0;
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rc != 0) {
    status_ = "ncclGetUniqueId failed";
    return;
  }
  MPI_Bcast(&id, static_cast<int>(sizeof id), MPI_BYTE, 0, MPI_COMM_WORLD);
  void* comm = nullptr;
  rc = symbol<CommInitRank>(lib_, "ncclCommInitRank")(&comm, ranks.size(), id, ranks.rank());
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (worst != 0) {
    const auto text = symbol<GetErrorString>(lib_, "ncclGetErrorString");
    status_ = "ncclCommInitRank failed" + (text != nullptr && rc != 0 ? ": " + std::string(text(rc)) : std::string());
    if (comm != nullptr) symbol<CommDestroy>(lib_, "ncclCommDestroy")(comm);
    return;
  }
  comm_ = comm;
  status_ = "nccl";
#else
  status_ = ranks.size() < 2 ? "one rank" : "no CUDA or MPI in this build";
#endif
}

NcclSum::~NcclSum() {
#if defined(TDMAPS_NCCL_SUM)
  if (comm_ != nullptr) symbol<CommDestroy>(lib_, "ncclCommDestroy")(comm_);
  // lib_ stays loaded: NCCL's threads may outlive the communicator.
#endif
}

void NcclSum::sum_f64(double* data, std::int64_t count, void* stream) const {
#if defined(TDMAPS_NCCL_SUM)
  if (comm_ == nullptr) throw Error("internal: NcclSum::sum_f64 without NCCL (" + status_ + ")");
  const int rc = symbol<AllReduce>(lib_, "ncclAllReduce")(data, data, static_cast<std::size_t>(count), nccl_float64,
                                                          nccl_sum, comm_, stream);
  if (rc != 0) {
    const auto text = symbol<GetErrorString>(lib_, "ncclGetErrorString");
    throw Error("ncclAllReduce failed: " + std::string(text != nullptr ? text(rc) : std::to_string(rc)));
  }
#else
  (void)data;
  (void)count;
  (void)stream;
  throw Error("internal: NcclSum::sum_f64 without NCCL (" + status_ + ")");
#endif
}

}  // namespace app
}  // namespace tdmaps
