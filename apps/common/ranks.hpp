#ifndef TDMAPS_APPS_COMMON_RANKS_HPP
#define TDMAPS_APPS_COMMON_RANKS_HPP

// The CLIs' MPI ranks (target tdmaps::app_common; MPI only where the build
// has TDMAPS_ENABLE_MPI, otherwise one rank and every call a no-op).
//
//   Ranks ranks(argc, argv);          MPI_Init when launched by mpirun (before Kokkos)
//   return ranks.run(body);           main(): the error convention of cli.hpp over ranks
//   ranks.rank(), size(), local_rank() (the node-local rank: its GPU)
//   ranks.set_run_facts(facts)        what every rank must agree on (options, n, d,
//   ranks.agree()                     the input's checksum); collective, before any work
//   ranks.sum_i64(p, n), min_u64(p, n)  in-place all-reductions
//   ranks.min_k_u64(p, rows, k)       (and sum_f64, or_u32, min_k_u64: the rows'
//                                     k smallest; gather_i64)
//   ranks.barrier()
//   SlabFile f(ranks, path, bytes);   one file written by every rank at its
//   f.write_at(offset, data, bytes)   own offsets (MPI-IO), under a temporary
//   f.commit()                        name until every rank has written: the
//                                     final name appears complete or not at all
//
// Errors over ranks (run() and agree()): until the ranks have agreed, an
// error is settled collectively: every rank reports its status to all, rank
// 0 alone prints the message ("rank k of N: " in front when not every rank
// found it) and every rank exits with that status, normally (no MPI_Abort,
// no rank left waiting). Ranks that disagree on a fact stop the same way,
// rank 0 printing "ranks disagree: <fact>: <value> (rank 0), <value>
// (rank 1)". After agreement an error thrown as AllRanksError (every rank
// throws it) is printed by rank 0; any other one by its rank, then
// MPI_Abort, since the other ranks may wait in a collective.
//
// The temporary file of a SlabFile never outlives the run: every rank's
// signal handlers (output_file.hpp) remove it on SIGINT / SIGTERM / SIGHUP /
// SIGQUIT (mpirun sends SIGTERM to every rank when it is interrupted or one
// rank dies), and a watchdog process forked before MPI_Init by each rank of
// a multi-rank launch removes it when its rank dies without having
// committed or discarded it (SIGKILL included).

#include "npy.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tdmaps {
namespace app {

/// An error every rank throws at the same point (after agreement): printed
/// once, by rank 0, and no MPI_Abort.
struct AllRanksError : Error {
  using Error::Error;
};

/// What the ranks of a run must agree on before any work: (name, value)
/// pairs, named and written as the user would read them ("--bins", "10").
struct RunFacts {
  std::vector<std::pair<std::string, std::string>> items;
  RunFacts& add(const std::string& name, const std::string& value);
  RunFacts& add(const std::string& name, std::int64_t value);
  /// The shortest text that reads back as the same double.
  RunFacts& add_real(const std::string& name, double value);
  /// "input checksum" of a file's bytes (hash_file), or the error reading it.
  RunFacts& add_file(const std::string& name, const std::string& path);
};

/// A 64-bit hash of a file's bytes (not cryptographic: it tells different
/// inputs apart). Throws Error when the file cannot be read.
std::uint64_t hash_file(const std::string& path);

/// Thrown on every rank once an error or a disagreement has been reported
/// collectively; Ranks::run returns its status. Not a std::exception, so no
/// generic handler reports it again.
struct RanksStopped {
  int status;
};

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

  /// Runs a tool's body under the error convention of cli.hpp (messages
  /// "tdmaps-<tool>: error: ...", exit 2 for usage errors, 1 otherwise) and
  /// the rules over ranks at the top of this file; the exit status.
  int run(const std::function<int()>& body);

  /// Facts for agree() (and for the first collective, which agrees first).
  void set_run_facts(RunFacts facts) const { facts_ = std::move(facts); }
  /// Collective, once: returns when every rank is well and every fact
  /// agrees; otherwise throws RanksStopped on every rank (rank 0 printed why).
  void agree() const;

  // Collectives: each agrees first when agree() has not run yet.
  void barrier() const;
  void sum_i64(std::int64_t* values, std::int64_t count) const;
  void min_u64(std::uint64_t* values, std::int64_t count) const;
  /// Whether every rank passes ok (a collective: an error on one rank stops all).
  bool all_ok(bool ok) const;
  /// Rank 0's value of a 64-bit integer on every rank.
  long long bcast_i64(long long value) const;
  // More collectives for the apps' results (ranks_collectives.cpp).
  void sum_f64(double* values, std::int64_t count) const;
  /// Rows of k keys, each sorted ascending on every rank: each row becomes
  /// the k smallest of every rank's row together (equal keys as often as
  /// they come), sorted ascending (the k nearest neighbours' rows).
  void min_k_u64(std::uint64_t* rows, std::int64_t count, int k) const;
  /// Bitwise OR of 32-bit words (flag layouts: each rank set its blocks' bits).
  void or_u32(std::uint32_t* values, std::int64_t count) const;
  /// Every rank's `local` concatenated in rank order on rank 0 (empty elsewhere).
  std::vector<std::int64_t> gather_i64(const std::vector<std::int64_t>& local) const;

  /// The watchdog (see the top of this file) removes `path` if this process
  /// dies before disarm(); no-op without one.
  void arm_watchdog(const std::string& path) const;
  void disarm_watchdog() const;

 private:
  int exchange(int status, bool usage, const std::string& message, const RunFacts& facts) const;
  void abort(int code) const;
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool initialized_here_ = false;
  int watchdog_fd_ = -1;
  mutable bool agreed_ = false;
  mutable RunFacts facts_;
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
  /// error, gives it its name (rank 0); otherwise removes it and throws
  /// AllRanksError on every rank.
  void commit();

 private:
  void discard() noexcept;
  const Ranks& ranks_;
  std::string path_, temp_, locktest_;
  void* handle_ = nullptr;  // MPI_File (or a file descriptor without MPI)
  bool failed_ = false;
  bool done_ = false;
};

}  // namespace app
}  // namespace tdmaps

#endif
