// MPI ranks of the CLIs (ranks.hpp): launch, collectives, the watchdog and
// SlabFile. Agreement and the error convention over ranks: ranks_agree.cpp.
// Without TDMAPS_HAVE_MPI: one rank.
#include "ranks.hpp"

#include "output_file.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(TDMAPS_HAVE_MPI)
#include <mpi.h>
#endif

namespace tdmaps {
namespace app {

namespace {

#if defined(TDMAPS_HAVE_MPI)
/// Whether a launcher started this process as one of several ranks (read
/// before MPI_Init; a wrong guess costs an idle watchdog, closed at once).
bool launched_as_several() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS", "MPI_LOCALNRANKS"}) {
    const char* s = std::getenv(v);
    if (s != nullptr && std::atol(s) > 1) return true;
  }
  return false;
}

/// The watchdog process: reads records from its socket ('A' path '\0' arms
/// path, 'D' disarms) and, at end of file (its rank has exited or died,
/// however), removes the armed path. It leaves the rank's session and
/// ignores the terminating signals, so mpirun's teardown of the rank (to the
/// process group, SIGKILL included) does not take it along, and it holds no
/// descriptor of the rank's (mpirun waits for its output pipes to close).
[[noreturn]] void watchdog_main(int fd) {
  ::setsid();
  ::prctl(PR_SET_NAME, "tdmaps-watchdog", 0, 0, 0);  // what ps shows, instead of the tool's name
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) std::signal(s, SIG_IGN);
  const int null = ::open("/dev/null", O_RDWR);
  for (int f = 0; f < 3; ++f) ::dup2(null, f);
  if (fd != 3) {
    ::dup2(fd, 3);
    fd = 3;
  }
  bool closed = false;
#if defined(SYS_close_range)
  closed = ::syscall(SYS_close_range, 4u, ~0u, 0u) == 0;
#endif
  for (int f = 4; !closed && f < 65536; ++f) ::close(f);
  std::string armed, buf;
  char chunk[4096];
  for (;;) {
    const ssize_t r = ::read(fd, chunk, sizeof chunk);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    buf.append(chunk, static_cast<std::size_t>(r));
    for (;;) {
      if (!buf.empty() && buf[0] == 'D') {
        armed.clear();
        buf.erase(0, 1);
      } else if (!buf.empty() && buf[0] == 'A' && buf.find('\0') != std::string::npos) {
        const std::size_t end = buf.find('\0');
        armed = buf.substr(1, end - 1);
        buf.erase(0, end + 1);
      } else {
        break;
      }
    }
  }
  if (!armed.empty()) {
    ::unlink(armed.c_str());
    // What MPI-IO names after it while opening it (Open MPI's
    // "<path>.locktest.<rank>"), left when the rank died in between.
    const std::size_t slash = armed.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : armed.substr(0, slash + 1);
    const std::string base = slash == std::string::npos ? armed : armed.substr(slash + 1);
    if (DIR* d = ::opendir(dir.c_str())) {
      while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.size() > base.size() && name.compare(0, base.size(), base) == 0 &&
            (name[base.size()] == '.' || name[base.size()] == '-'))
          ::unlinkat(::dirfd(d), name.c_str(), 0);
      }
      ::closedir(d);
    }
  }
  ::_exit(0);
}

/// Forks the watchdog; its socket, or -1 (the run goes on without one).
int start_watchdog(int& pid) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
  pid = static_cast<int>(::fork());
  if (pid == 0) {
    ::close(sv[0]);
    watchdog_main(sv[1]);
  }
  ::close(sv[1]);
  if (pid < 0) {
    ::close(sv[0]);
    return -1;
  }
  return sv[0];
}

void send_all(int fd, const std::string& record) {
  const char* p = record.data();
  std::size_t left = record.size();
  while (fd >= 0 && left > 0) {
    const ssize_t w = ::send(fd, p, left, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // no watchdog any more: the signal handlers still clean up
    p += w;
    left -= static_cast<std::size_t>(w);
  }
}
#endif

}  // namespace

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
  // Forked before MPI_Init: the child of a process without MPI state or threads.
  int watchdog_pid = -1;
  if (!done && launched_as_several()) watchdog_fd_ = start_watchdog(watchdog_pid);
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
  if (size_ == 1 && watchdog_fd_ >= 0) {
    ::close(watchdog_fd_);  // end of file: the watchdog exits, nothing armed
    watchdog_fd_ = -1;
    ::waitpid(static_cast<pid_t>(watchdog_pid), nullptr, 0);
  }
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
  if (watchdog_fd_ >= 0) ::close(watchdog_fd_);
#endif
}

void Ranks::arm_watchdog(const std::string& path) const {
#if defined(TDMAPS_HAVE_MPI)
  std::string abs = path;
  if (abs.empty() || abs[0] != '/') {
    char cwd[8192];
    if (::getcwd(cwd, sizeof cwd) == nullptr) return;
    abs = std::string(cwd) + "/" + path;
  }
  send_all(watchdog_fd_, "A" + abs + std::string(1, '\0'));
#else
  (void)path;
#endif
}

void Ranks::disarm_watchdog() const {
#if defined(TDMAPS_HAVE_MPI)
  send_all(watchdog_fd_, "D");
#endif
}

void Ranks::barrier() const {
#if defined(TDMAPS_HAVE_MPI)
  if (size_ > 1) {
    agree();
    MPI_Barrier(MPI_COMM_WORLD);
  }
#endif
}

void Ranks::sum_i64(std::int64_t* values, std::int64_t count) const {
#if defined(TDMAPS_HAVE_MPI)
  if (size_ > 1) agree();
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
  if (size_ > 1) agree();
  for (std::int64_t at = 0; size_ > 1 && at < count; at += 1 << 26) {
    const int c = static_cast<int>(count - at < (1 << 26) ? count - at : (1 << 26));
    MPI_Allreduce(MPI_IN_PLACE, values + at, c, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  }
#else
  (void)values;
  (void)count;
#endif
}

long long Ranks::bcast_i64(long long value) const {
#if defined(TDMAPS_HAVE_MPI)
  if (size_ > 1) {
    agree();
    MPI_Bcast(&value, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  }
#endif
  return value;
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
    agree();
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
  temp_ = path + ".tmp." + std::to_string(ranks.bcast_i64(static_cast<long long>(::getpid())));
  // Every rank removes it if it dies (each may be the one interrupted, and
  // on another node than rank 0): named for cleanup before it exists.
  install_signal_cleanup();
  // Open MPI's MPI-IO opens and removes "<name>.locktest.<rank>" in
  // MPI_File_open: removed too where a signal ends the rank in between.
  locktest_ = temp_ + ".locktest." + std::to_string(ranks.rank());
  const bool registered = register_temporary(temp_) && register_temporary(locktest_);
  ranks.arm_watchdog(temp_);
  bool ok = registered;
  std::string why = registered ? std::string() : "path too long for a temporary file name";
#if defined(TDMAPS_HAVE_MPI)
  MPI_File fh;
  const int rc = ok ? MPI_File_open(MPI_COMM_WORLD, temp_.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh)
                    : MPI_ERR_OTHER;
  if (rc != MPI_SUCCESS) {
    ok = false;
    if (why.empty()) why = "MPI_File_open failed";
  } else {
    handle_ = new MPI_File(fh);
    if (MPI_File_set_size(fh, static_cast<MPI_Offset>(bytes)) != MPI_SUCCESS) {  // collective
      ok = false;
      why = "cannot size it to " + std::to_string(bytes) + " bytes";
    }
  }
#else
  const int fd = ok ? ::open(temp_.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644) : -1;
  if (fd < 0) {
    ok = false;
    if (why.empty()) why = std::strerror(errno);
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
    throw AllRanksError(path + ": cannot create the output" + (why.empty() ? std::string() : ": " + why));
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
    throw AllRanksError(path_ + ": writing the output failed on at least one rank; nothing was written under that name");
  }
  // The rename only after every rank has written: the final name is never a partial file.
  bool renamed = true;
  if (ranks_.root()) renamed = std::rename(temp_.c_str(), path_.c_str()) == 0;
  if (!ranks_.all_ok(renamed)) {
    discard();
    throw AllRanksError(path_ + ": cannot give the output its name");
  }
  unregister_temporary(temp_);
  unregister_temporary(locktest_);
  ranks_.disarm_watchdog();
  done_ = true;
}

void SlabFile::discard() noexcept {
#if defined(TDMAPS_HAVE_MPI)
  // Closing is collective: a rank unwinding an exception alone would wait
  // there for the others (Ranks::run aborts it instead, the file unclosed).
  if (handle_ && std::uncaught_exceptions() == 0) {
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
  // Every rank: on an exception one rank may unwind alone (then MPI_Abort).
  ::unlink(temp_.c_str());
  unregister_temporary(temp_);
  unregister_temporary(locktest_);
  ranks_.disarm_watchdog();
}

SlabFile::~SlabFile() {
  if (!done_) discard();
}

}  // namespace app
}  // namespace tdmaps
