// Implementation of apps/common/output_file.hpp.
#include "output_file.hpp"

#include "npy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

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

void on_fatal_signal(int sig) {
  for (int s = 0; s < cleanup_slots; ++s)
    if (g_cleanup_used[s]) ::unlink(g_cleanup_path[s]);  // async-signal-safe
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

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
    if (register_cleanup(temp_) < 0) throw Error(path + ": path too long for a temporary file name");
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      const int e = errno;
      unregister_cleanup(temp_);
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
    if (register_cleanup(named) < 0) {
      discard();
      throw Error(path_ + ": path too long for a temporary file name");
    }
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_);
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, named.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      const int e = errno;
      unregister_cleanup(named);
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
  temp_.clear();
}

}  // namespace app
}  // namespace tdmaps
