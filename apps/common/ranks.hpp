#ifndef TDMAPS_APPS_COMMON_RANKS_HPP
#define TDMAPS_APPS_COMMON_RANKS_HPP

// The CLIs' MPI ranks (target tdmaps::app_common; MPI only where the build
// has TDMAPS_ENABLE_MPI, otherwise one rank and every call a no-op).
//
//   Ranks ranks(argc, argv);          MPI_Init when launched by mpirun (before Kokkos)
//   ranks.rank(), size(), local_rank() (the node-local rank: its GPU)
//   ranks.sum_i64(p, n), min_u64(p, n)  in-place all-reductions
//   ranks.barrier()
//   SlabFile f(ranks, path, bytes);   one file written by every rank at its
//   f.write_at(offset, data, bytes)   own offsets (MPI-IO), under a temporary
//   f.commit()                        name until every rank has written: the
//                                     final name appears complete or not at all

#include <cstdint>
#include <string>

namespace tdmaps {
namespace app {

class Ranks {
 public:
  Ranks(int& argc, char**& argv);
  ~Ranks();
  Ranks(const Ranks&) = delete;
  Ranks& operator=(const Ranks&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  bool root() const { return rank_ == 0; }
  /// Whether this build has MPI.
  static bool available();

  void barrier() const;
  void sum_i64(std::int64_t* values, std::int64_t count) const;
  void min_u64(std::uint64_t* values, std::int64_t count) const;
  /// Whether every rank passes ok (a collective: an error on one rank stops all).
  bool all_ok(bool ok) const;
  /// With several ranks: MPI_Abort (an error on one rank must not leave the
  /// others waiting in a collective); with one, nothing.
  void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool initialized_here_ = false;
};

/// A file written by all ranks at their offsets (see the top of this file).
class SlabFile {
 public:
  SlabFile(const Ranks& ranks, const std::string& path, std::int64_t bytes);
  ~SlabFile();
  SlabFile(const SlabFile&) = delete;
  SlabFile& operator=(const SlabFile&) = delete;
  /// Writes at a byte offset; false on an I/O error (commit() then fails on every rank).
  bool write_at(std::int64_t offset, const void* data, std::int64_t bytes);
  /// Collective: closes the file and, once every rank has written without
  /// error, gives it its name (rank 0); otherwise removes it and throws.
  void commit();

 private:
  void discard() noexcept;
  const Ranks& ranks_;
  std::string path_, temp_;
  void* handle_ = nullptr;  // MPI_File (or a FILE* without MPI)
  bool failed_ = false;
  bool done_ = false;
};

}  // namespace app
}  // namespace tdmaps

#endif
