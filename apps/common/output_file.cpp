// Implementation of apps/common/output_file.hpp.
#include "output_file.hpp"

#include "npy.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <utility>

namespace tdmaps {
namespace app {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// The named temporary files the signal handler removes: fixed storage, since
// a handler may not allocate. A slot is taken by a plain store of its path
// and then of `used`; the handler reads `used` first.
constexpr int cleanup_slots = 8;
constexpr std::size_t cleanup_path_max = 4096;
char g_cleanup_path[cleanup_slots][cleanup_path_max];
volatile std::sig_atomic_t g_cleanup_used[cleanup_slots] = {};
std::atomic<bool> g_handlers_installed{false};

// A signal sent to the process runs its handler on any thread that does not
// block it (an MPI progress thread, an OpenMP worker): it may run while
// another thread creates a named temporary file, remove nothing (the file
// is not there yet) and end the process before that thread's file is
// registered or removed. So creating a named file is a section that the
// handler waits for (Dekker's pattern, on lock-free atomics, which a handler
// may use): the handler announces the end (g_dying) before it reads
// g_creating, a section announces itself before it reads g_dying, and
// whichever comes second sees the other: a section that starts after the
// handler creates nothing, a handler that comes during a section removes
// the file after it. The creating thread blocks the signals meanwhile, so
// the handler never waits on its own thread.
std::atomic<int> g_creating{0};
std::atomic<int> g_dying{0};
static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal handler needs lock-free atomics");

void on_fatal_signal(int sig) {
  g_dying.store(1);
  // A section is one open() or linkat(); the bound only keeps a stuck
  // filesystem from holding the process past its signal.
  for (int k = 0; k < 5000 && g_creating.load() != 0; ++k) {
    struct timespec pause = {0, 1000000};
    ::nanosleep(&pause, nullptr);  // async-signal-safe
  }
  for (int s = 0; s < cleanup_slots; ++s)
    if (g_cleanup_used[s]) ::unlink(g_cleanup_path[s]);  // async-signal-safe
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

/// The section that creates and registers a named temporary file (above).
class CreatingNamed {
 public:
  explicit CreatingNamed(const std::string& path) {
    sigset_t fatal;
    sigemptyset(&fatal);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&fatal, sig);
    ::pthread_sigmask(SIG_BLOCK, &fatal, &old_);
    g_creating.fetch_add(1);
    if (g_dying.load() != 0) {
      end();
      throw Error(path + ": interrupted");  // the process is ending of its signal
    }
  }
  ~CreatingNamed() { end(); }
  CreatingNamed(const CreatingNamed&) = delete;
  CreatingNamed& operator=(const CreatingNamed&) = delete;

 private:
  void end() {
    if (ended_) return;
    ended_ = true;
    g_creating.fetch_sub(1);
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);  // a pending signal runs its handler here
  }
  sigset_t old_;
  bool ended_ = false;
};

int register_cleanup(const std::string& path) {
  if (path.size() + 1 > cleanup_path_max) return -1;
  for (int s = 0; s < cleanup_slots; ++s) {
    if (g_cleanup_used[s]) continue;
    std::memcpy(g_cleanup_path[s], path.c_str(), path.size() + 1);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    g_cleanup_used[s] = 1;
    return s;
  }
  return -1;
}

void unregister_cleanup(const std::string& path) {
  for (int s = 0; s < cleanup_slots; ++s)
    if (g_cleanup_used[s] && path == g_cleanup_path[s]) g_cleanup_used[s] = 0;
}

TemporaryObserver& observer() {
  static TemporaryObserver o;
  return o;
}

/// Tells the observer, which may not throw into discard() or a destructor.
void observe(const std::string& path, bool exists) noexcept {
  try {
    if (observer()) observer()(path, exists);
  } catch (...) {
  }
}

bool use_o_tmpfile() {
#if defined(O_TMPFILE)
  const char* no = std::getenv("TDMAPS_NO_O_TMPFILE");
  if (no != nullptr && std::strcmp(no, "0") != 0 && no[0] != '\0') return false;
  // Naming the unnamed file goes through /proc/self/fd (linkat with
  // AT_EMPTY_PATH needs a capability a user does not have).
  return ::access("/proc/self/fd", X_OK) == 0;
#else
  return false;
#endif
}

}  // namespace

void install_signal_cleanup() {
  if (g_handlers_installed.exchange(true)) return;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    struct sigaction old;
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // e.g. nohup: keep ignoring
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

void set_temporary_observer(TemporaryObserver o) { observer() = std::move(o); }

bool register_temporary(const std::string& path) { return register_cleanup(path) >= 0; }

void unregister_temporary(const std::string& path) { unregister_cleanup(path); }

std::int64_t filesystem_free_bytes(const std::string& dir) {
  struct statvfs vfs;
  if (::statvfs(dir.c_str(), &vfs) != 0) throw Error(dir + ": cannot read the filesystem's free space: " + errno_text(errno));
  return static_cast<std::int64_t>(vfs.f_bavail) * static_cast<std::int64_t>(vfs.f_frsize);
}

void check_filesystem_space(const std::string& path, std::int64_t bytes, const std::string& what) {
  const std::string dir = directory_of(path);
  const std::int64_t free_b = filesystem_free_bytes(dir);
  if (bytes > free_b)
    throw Error(path + ": " + what + " needs " + format_bytes(bytes) + " on disk but the filesystem of '" + dir +
                "' has only " + format_bytes(free_b) + " free");
}

OutputFile::OutputFile(const std::string& path, std::int64_t bytes) : path_(path), expected_(bytes) {
  install_signal_cleanup();
  check_filesystem_space(path, bytes, "the output");
  const std::string dir = directory_of(path);
#if defined(O_TMPFILE)
  if (use_o_tmpfile()) {
    fd_ = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    // EOPNOTSUPP / EISDIR / EINVAL: no O_TMPFILE on this filesystem or kernel.
    if (fd_ < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT)
      throw Error(path + ": cannot create the output in '" + dir + "': " + errno_text(errno));
  }
#endif
  if (fd_ < 0) {
    temp_ = path + ".tmp." + std::to_string(static_cast<long long>(::getpid()));
    const CreatingNamed section(path);
    if (register_cleanup(temp_) < 0) throw Error(path + ": path too long for a temporary file name");
    observe(temp_, true);
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      const int e = errno;
      unregister_cleanup(temp_);
      observe(temp_, false);
      throw Error(path + ": cannot create temporary file '" + temp_ + "': " + errno_text(e));
    }
  }
  // Reserve the blocks now: a full disk is found before the data are
  // written, not after. Filesystems without fallocate are written as usual.
  if (bytes > 0 && ::fallocate(fd_, 0, 0, static_cast<off_t>(bytes)) != 0) {
    const int e = errno;
    if (e == ENOSPC || e == EDQUOT || e == EFBIG) {
      const std::int64_t free_b = filesystem_free_bytes(dir);
      discard();
      throw Error(path + ": the output needs " + format_bytes(bytes) + " on disk but the filesystem of '" + dir +
                  "' has only " + format_bytes(free_b) + " free (" + errno_text(e) + ")");
    }
  }
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() noexcept {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!temp_.empty()) {
    ::unlink(temp_.c_str());
    unregister_cleanup(temp_);
    observe(temp_, false);
    temp_.clear();
  }
}

void OutputFile::write(const void* data, std::int64_t bytes, const WriteProgress& progress) {
  if (fd_ < 0) throw Error(path_ + ": write after commit");
  const char* p = static_cast<const char*>(data);
  constexpr std::int64_t chunk = std::int64_t(64) << 20;  // progress granularity
  while (bytes > 0) {
    const std::int64_t want = bytes < chunk ? bytes : chunk;
    const ssize_t w = ::write(fd_, p, static_cast<std::size_t>(want));
    if (w < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      discard();
      throw Error(path_ + ": write failed after " + format_bytes(written_) + ": " + errno_text(e));
    }
    p += w;
    bytes -= w;
    written_ += w;
    if (progress) progress(written_, expected_);
  }
}

void OutputFile::commit() {
  if (fd_ < 0) throw Error(path_ + ": commit of a discarded file");
  if (written_ != expected_) {
    discard();
    throw Error(path_ + ": " + std::to_string(written_) + " bytes written, " + std::to_string(expected_) + " expected");
  }
  if (::fsync(fd_) != 0) {
    const int e = errno;
    discard();
    throw Error(path_ + ": fsync failed: " + errno_text(e));
  }
  if (temp_.empty()) {
    // Name the unnamed file beside its final name, then rename it into place
    // (linkat cannot replace an existing file; rename can, atomically).
    const std::string named = path_ + ".tmp." + std::to_string(static_cast<long long>(::getpid()));
    const CreatingNamed section(path_);  // interrupted: the destructor discards the file
    if (register_cleanup(named) < 0) {
      discard();
      throw Error(path_ + ": path too long for a temporary file name");
    }
    observe(named, true);
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, named.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      const int e = errno;
      unregister_cleanup(named);
      observe(named, false);
      discard();
      throw Error(path_ + ": cannot name the output file: " + errno_text(e));
    }
    temp_ = named;
  }
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) {
    const int e = errno;
    discard();
    throw Error(path_ + ": close failed: " + errno_text(e));
  }
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    discard();
    throw Error(path_ + ": cannot rename '" + temp_ + "' onto it: " + errno_text(e));
  }
  unregister_cleanup(temp_);
  observe(temp_, false);
  temp_.clear();
}

}  // namespace app
}  // namespace tdmaps
