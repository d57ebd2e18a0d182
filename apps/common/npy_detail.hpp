#ifndef TDMAPS_APPS_COMMON_NPY_DETAIL_HPP
#define TDMAPS_APPS_COMMON_NPY_DETAIL_HPP

// Helpers shared by the .npy / .csv reading and writing of npy.hpp (npy.cpp,
// npy_header.cpp, npy_read.cpp, csv_read.cpp); not part of its API.

#include "npy.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace tdmaps {
namespace app {
namespace npy_detail {

/// numpy.load's default max_header_size (NumPy >= 1.24 refuses longer
/// headers unless allow_pickle=True), so nothing longer is accepted here.
constexpr std::size_t kMaxHeaderBytes = 10000;

inline bool host_is_little_endian() {
  const std::uint16_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

inline std::string errno_text() { return std::strerror(errno); }

/// "(3, 4)", "(5,)", "()": a shape as Python writes the tuple.
inline std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

/// s with anything but printable ASCII written as \xNN, for messages.
inline std::string printable(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(ch);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

/// "'x'" for a printable character, else "byte 0x0d".
inline std::string char_text(char ch) {
  const unsigned char c = static_cast<unsigned char>(ch);
  if (c >= 0x20 && c < 0x7f) return std::string("'") + ch + "'";
  char buf[16];
  std::snprintf(buf, sizeof buf, "byte 0x%02x", c);
  return buf;
}

/// The kind of a special file ("character device", "fifo", ...) for
/// messages; "" for a mode that is none of these (a regular file, a
/// directory, or something unnamed).
inline const char* special_file_kind(mode_t mode) {
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISFIFO(mode)) return "fifo";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISLNK(mode)) return "symbolic link";
  return "";
}

/// Size of the regular file at path; a clear Error for a missing path, a
/// directory, or anything that is not a regular file (/dev/null, a fifo),
/// before anything tries to open it (npy_read.cpp).
std::int64_t input_file_size(const std::string& path);

/// The .npy header of the regular file at path, its size in *size
/// (npy_header.cpp).
NpyHeader read_npy_header_sized(const std::string& path, std::int64_t* size);

}  // namespace npy_detail
}  // namespace app
}  // namespace tdmaps

#endif
