// MPI ranks of the CLIs (ranks.hpp). Without TDMAPS_HAVE_MPI: one rank.
#include "ranks.hpp"

#include "npy.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#if defined(TDMAPS_HAVE_MPI)
#include <mpi.h>
#endif

namespace tdmaps {
namespace app {

bool Ranks::available() {
#if defined(TDMAPS_HAVE_MPI)
  return true;
#else
  return false;
#endif
}

Ranks::Ranks(int& argc, char**& argv) {
#if defined(TDMAPS_HAVE_MPI)
  int done = 0;
  MPI_Initialized(&done);
  if (!done) {
    MPI_Init(&argc, &argv);
    initialized_here_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_free(&node);
#else
  (void)argc;
  (void)argv;
#endif
}

Ranks::~Ranks() {
#if defined(TDMAPS_HAVE_MPI)
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initialized_here_ && !finalized) MPI_Finalize();
#endif
}

void Ranks::barrier() const {
#if defined(TDMAPS_HAVE_MPI)
  if (size_ > 1) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

void Ranks::sum_i64(std::int64_t* values, std::int64_t count) const {
#if defined(TDMAPS_HAVE_MPI)
  for (std::int64_t at = 0; size_ > 1 && at < count; at += 1 << 26) {
    const int c = static_cast<int>(count - at < (1 << 26) ? count - at : (1 << 26));
    MPI_Allreduce(MPI_IN_PLACE, values + at, c, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  }
#else
  (void)values;
  (void)count;
#endif
}

void Ranks::min_u64(std::uint64_t* values, std::int64_t count) const {
#if defined(TDMAPS_HAVE_MPI)
  for (std::int64_t at = 0; size_ > 1 && at < count; at += 1 << 26) {
    const int c = static_cast<int>(count - at < (1 << 26) ? count - at : (1 << 26));
    MPI_Allreduce(MPI_IN_PLACE, values + at, c, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  }
#else
  (void)values;
  (void)count;
#endif
}

void Ranks::abort(int code) const {
#if defined(TDMAPS_HAVE_MPI)
  if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  (void)code;
}

bool Ranks::all_ok(bool ok) const {
#if defined(TDMAPS_HAVE_MPI)
  if (size_ > 1) {
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
  }
#endif
  return ok;
}

// ---- SlabFile ----------------------------------------------------------------

SlabFile::SlabFile(const Ranks& ranks, const std::string& path, std::int64_t bytes) : ranks_(ranks), path_(path) {
  // One temporary name for all ranks: rank 0's pid.
  long long pid = static_cast<long long>(::getpid());
#if defined(TDMAPS_HAVE_MPI)
  if (ranks.size() > 1) MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
#endif
  temp_ = path + ".tmp." + std::to_string(pid);
  bool ok = true;
  std::string why;
#if defined(TDMAPS_HAVE_MPI)
  MPI_File fh;
  const int rc = MPI_File_open(MPI_COMM_WORLD, temp_.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  if (rc != MPI_SUCCESS) {
    ok = false;
    why = "MPI_File_open failed";
  } else {
    handle_ = new MPI_File(fh);
    if (MPI_File_set_size(fh, static_cast<MPI_Offset>(bytes)) != MPI_SUCCESS) {  // collective
      ok = false;
      why = "cannot size it to " + std::to_string(bytes) + " bytes";
    }
  }
#else
  const int fd = ::open(temp_.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0) {
    ok = false;
    why = std::strerror(errno);
  } else {
    handle_ = new int(fd);
    if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
      ok = false;
      why = std::strerror(errno);
    }
  }
#endif
  if (!ranks.all_ok(ok)) {
    discard();
    throw Error(path + ": cannot create the output" + (why.empty() ? std::string() : ": " + why));
  }
}

bool SlabFile::write_at(std::int64_t offset, const void* data, std::int64_t bytes) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0 && !failed_) {
    const std::int64_t step = bytes < (std::int64_t(1) << 30) ? bytes : (std::int64_t(1) << 30);
#if defined(TDMAPS_HAVE_MPI)
    MPI_Status st;
    if (MPI_File_write_at(*static_cast<MPI_File*>(handle_), static_cast<MPI_Offset>(offset), p, static_cast<int>(step),
                          MPI_BYTE, &st) != MPI_SUCCESS)
      failed_ = true;
#else
    if (::pwrite(*static_cast<int*>(handle_), p, static_cast<std::size_t>(step), static_cast<off_t>(offset)) != step)
      failed_ = true;
#endif
    p += step;
    offset += step;
    bytes -= step;
  }
  return !failed_;
}

void SlabFile::commit() {
  bool ok = !failed_;
#if defined(TDMAPS_HAVE_MPI)
  if (handle_) {
    if (MPI_File_sync(*static_cast<MPI_File*>(handle_)) != MPI_SUCCESS) ok = false;
    if (MPI_File_close(static_cast<MPI_File*>(handle_)) != MPI_SUCCESS) ok = false;
    delete static_cast<MPI_File*>(handle_);
    handle_ = nullptr;
  }
#else
  if (handle_) {
    const int fd = *static_cast<int*>(handle_);
    if (::fsync(fd) != 0) ok = false;
    if (::close(fd) != 0) ok = false;
    delete static_cast<int*>(handle_);
    handle_ = nullptr;
  }
#endif
  if (!ranks_.all_ok(ok)) {
    discard();
    throw Error(path_ + ": writing the output failed on at least one rank; nothing was written under that name");
  }
  bool renamed = true;
  if (ranks_.root()) renamed = std::rename(temp_.c_str(), path_.c_str()) == 0;
  if (!ranks_.all_ok(renamed)) {
    discard();
    throw Error(path_ + ": cannot give the output its name");
  }
  done_ = true;
}

void SlabFile::discard() noexcept {
#if defined(TDMAPS_HAVE_MPI)
  if (handle_) {
    MPI_File_close(static_cast<MPI_File*>(handle_));
    delete static_cast<MPI_File*>(handle_);
    handle_ = nullptr;
  }
#else
  if (handle_) {
    ::close(*static_cast<int*>(handle_));
    delete static_cast<int*>(handle_);
    handle_ = nullptr;
  }
#endif
  if (ranks_.root()) std::remove(temp_.c_str());
}

SlabFile::~SlabFile() {
  if (!done_) discard();
}

}  // namespace app
}  // namespace tdmaps
