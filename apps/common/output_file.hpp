#ifndef TDMAPS_APPS_COMMON_OUTPUT_FILE_HPP
#define TDMAPS_APPS_COMMON_OUTPUT_FILE_HPP

// A file that appears under its name complete or not at all, even when the
// process is interrupted (target tdmaps::app_common).
//
//   OutputFile f(path, bytes);     checks the filesystem's free space, creates
//                                  an unnamed file in path's directory
//                                  (O_TMPFILE) and reserves `bytes` on disk
//   f.write(data, bytes, progress) appends, in chunks, reporting progress
//   f.commit()                     fsync, then gives the file its name
//                                  (atomically replacing an older one)
//   ~OutputFile()                  without commit(): nothing stays behind
//
// An unnamed file vanishes with the process whatever kills it (SIGKILL and a
// power cut included). Where the filesystem has no O_TMPFILE the data go to
// "<path>.tmp.<pid>", which the handlers of install_signal_cleanup() remove on
// SIGINT / SIGTERM / SIGHUP / SIGQUIT before the process dies of the signal
// (also when the handler runs on another thread than the one creating the
// file), and every error path removes too; set_temporary_observer() lets a
// process outside remove it after a SIGKILL. The unnamed file is named
// "<path>.tmp.<pid>" only for the moment of commit(), under the same
// guards. TDMAPS_NO_O_TMPFILE=1 forces the fallback (the tests use it to
// cover both paths).

#include <cstdint>
#include <functional>
#include <string>

namespace tdmaps {
namespace app {

/// Called with (bytes done, bytes in all) while a file is written.
using WriteProgress = std::function<void(std::int64_t, std::int64_t)>;

/// Installs (once) the SIGINT / SIGTERM / SIGHUP / SIGQUIT handlers that
/// remove a named temporary file of an OutputFile in flight and then let
/// the signal kill the process as it would have.
void install_signal_cleanup();

/// Adds a named temporary file to those the handlers of
/// install_signal_cleanup() remove (false: no free slot, or a path too
/// long); remove it from them with unregister_temporary() once it is named
/// or removed.
bool register_temporary(const std::string& path);
void unregister_temporary(const std::string& path);

/// Called with (path, true) just before a named temporary file of an
/// OutputFile comes to exist and with (path, false) once it is named or
/// removed, so that a process outside this one can remove it when this one
/// dies of what no handler sees (SIGKILL: mpirun kills a rank that has not
/// died one second after its SIGTERM). tdmaps-nbody gives its MPI ranks'
/// watchdog (ranks.hpp), which holds one path: one OutputFile at a time.
/// An empty function (the default): none.
using TemporaryObserver = std::function<void(const std::string& path, bool exists)>;
void set_temporary_observer(TemporaryObserver observer);

/// Bytes free for an unprivileged writer in the filesystem holding `dir`.
std::int64_t filesystem_free_bytes(const std::string& dir);

/// Throws Error naming both sizes when `bytes` more do not fit the
/// filesystem of `path`'s directory.
void check_filesystem_space(const std::string& path, std::int64_t bytes, const std::string& what);

class OutputFile {
 public:
  OutputFile(const std::string& path, std::int64_t bytes);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(const void* data, std::int64_t bytes, const WriteProgress& progress = WriteProgress());
  void commit();

 private:
  void discard() noexcept;
  std::string path_;
  std::string temp_;  ///< named temporary file (fallback), empty for O_TMPFILE
  int fd_ = -1;
  std::int64_t expected_ = 0;
  std::int64_t written_ = 0;
};

}  // namespace app
}  // namespace tdmaps

#endif
