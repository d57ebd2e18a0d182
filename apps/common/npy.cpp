// Implementation of apps/common/npy.hpp: writing and the process helpers
// (the reading is in npy_header.cpp, npy_read.cpp and csv_read.cpp). The
// .npy format written (numpy's format.py): 6-byte magic "\x93NUMPY", major and minor version bytes, the
// header length (uint16 LE for 1.0, uint32 LE for 2.0 and 3.0), then an
// ASCII (3.0: UTF-8) Python dict literal with 'descr', 'fortran_order' and
// 'shape', padded with spaces to a multiple of 64 bytes and ended by '\n'.
#include "npy.hpp"

#include "npy_detail.hpp"
#include "output_file.hpp"

#include <tdmaps/core/detail/number_text.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>

namespace tdmaps {
namespace app {

namespace {

std::string g_app_name = "app";

template <class T>
struct NpyDescr;
template <>
struct NpyDescr<float> {
  static constexpr const char* value = "<f4";
};
template <>
struct NpyDescr<double> {
  static constexpr const char* value = "<f8";
};
template <>
struct NpyDescr<std::uint8_t> {
  static constexpr const char* value = "|u1";
};
template <>
struct NpyDescr<std::uint32_t> {
  static constexpr const char* value = "<u4";
};
template <>
struct NpyDescr<std::int32_t> {
  static constexpr const char* value = "<i4";
};
template <>
struct NpyDescr<std::int64_t> {
  static constexpr const char* value = "<i8";
};

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

// ---- writing ---------------------------------------------------------------

void check_output_path(const std::string& path) {
  if (path.empty()) throw Error("output path is empty");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(path + ": output path is a directory");
    // Renaming onto a device or a fifo would replace it (as root: /dev/null).
    if (!S_ISREG(st.st_mode)) {
      const char* kind = npy_detail::special_file_kind(st.st_mode);
      throw Error(path + ": output path exists and is not a regular file (" +
                  (*kind ? std::string("a ") + kind : std::string("not a regular file")) + "); name a new or regular file");
    }
  }
  const std::string dir = directory_of(path);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error(path + ": output directory '" + dir + "' does not exist");
  if (::access(dir.c_str(), W_OK) != 0) throw Error(path + ": output directory '" + dir + "' is not writable");
}

template <class T>
std::string npy_header(const std::vector<std::int64_t>& shape) {
  if (!npy_detail::host_is_little_endian()) throw Error("writing .npy needs a little-endian host");
  if (shape.empty() || shape.size() > 3) throw Error("write_npy: shape must be 1-D, 2-D or 3-D");
  std::int64_t count = 1;
  for (auto s : shape) {
    if (s < 0) throw Error("write_npy: negative dimension");
    if (s > 0 && count > std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(sizeof(T)) / s)
      throw Error("write_npy: " + npy_detail::shape_text(shape) + " overflows 64-bit byte counts");
    count *= s;
  }
  std::string dict = std::string("{'descr': '") + NpyDescr<T>::value + "', 'fortran_order': False, 'shape': " +
                     npy_detail::shape_text(shape) + ", }";
  // Version 1.0 while the header fits its 16-bit length; pad so the data start
  // on a 64-byte boundary, as numpy does.
  const bool v1 = dict.size() + 1 + 10 + 64 < 65536;
  const std::size_t pre = v1 ? 10 : 12;
  std::size_t total = pre + dict.size() + 1;
  const std::size_t pad = (64 - total % 64) % 64;
  dict.append(pad, ' ');
  dict.push_back('\n');
  std::string head("\x93NUMPY", 6);
  head.push_back(static_cast<char>(v1 ? 1 : 2));
  head.push_back(0);
  const std::size_t hl = dict.size();
  head.push_back(static_cast<char>(hl & 0xff));
  head.push_back(static_cast<char>((hl >> 8) & 0xff));
  if (!v1) {
    head.push_back(static_cast<char>((hl >> 16) & 0xff));
    head.push_back(static_cast<char>((hl >> 24) & 0xff));
  }
  return head + dict;
}

template <class T>
void write_npy(const std::string& path, const T* data, const std::vector<std::int64_t>& shape,
               const WriteProgress& progress) {
  const std::string head = npy_header<T>(shape);
  std::int64_t count = 1;
  for (auto s : shape) count *= s;
  const std::int64_t data_bytes = count * static_cast<std::int64_t>(sizeof(T));
  OutputFile file(path, static_cast<std::int64_t>(head.size()) + data_bytes);
  file.write(head.data(), static_cast<std::int64_t>(head.size()));
  file.write(data, data_bytes, progress ? WriteProgress([&](std::int64_t done, std::int64_t) { progress(done, data_bytes); })
                                        : WriteProgress());
  file.commit();
}

// ---- process helpers ------------------------------------------------------

void set_app_name(const std::string& name) { g_app_name = name; }
const std::string& app_name() { return g_app_name; }

void fail(const std::string& msg) {
  std::cout.flush();
  std::cerr << "tdmaps-" << g_app_name << ": error: " << msg << std::endl;
  std::exit(1);
}

void warn(const std::string& msg) { std::cerr << "tdmaps-" << g_app_name << ": warning: " << msg << std::endl; }

std::int64_t host_available_bytes() {
  // MemAvailable counts reclaimable page cache, which _SC_AVPHYS_PAGES does
  // not; use it where the kernel reports it.
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  long long kb;
  std::string unit;
  while (meminfo >> key >> kb >> unit) {
    if (key == "MemAvailable:") return static_cast<std::int64_t>(kb) * 1024;
  }
  const long pages = ::sysconf(_SC_AVPHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages < 0 || page < 0) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(pages) * static_cast<std::int64_t>(page);
}

std::string format_bytes(std::int64_t bytes) {
  char buf[64];
  const double b = static_cast<double>(bytes);
  if (b >= 1e9) std::snprintf(buf, sizeof buf, "%.2f GB", b * 1e-9);
  else if (b >= 1e6) std::snprintf(buf, sizeof buf, "%.2f MB", b * 1e-6);
  else if (b >= 1e3) std::snprintf(buf, sizeof buf, "%.2f kB", b * 1e-3);
  else std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  return std::string(buf) + " (" + std::to_string(bytes) + " bytes)";
}

std::string number_text(double v) { return tdmaps::detail::number_text(v); }

void throw_float32_overflow(const std::string& where, const std::string& value) {
  throw Error(where + value + " overflows float32 (largest finite 3.4028235e+38); the run reads the input as float32");
}

// ---- explicit instantiations ----------------------------------------------

template std::string npy_header<float>(const std::vector<std::int64_t>&);
template void write_npy<float>(const std::string&, const float*, const std::vector<std::int64_t>&,
                              const WriteProgress&);
template std::string npy_header<double>(const std::vector<std::int64_t>&);
template void write_npy<double>(const std::string&, const double*, const std::vector<std::int64_t>&,
                              const WriteProgress&);
template std::string npy_header<std::uint8_t>(const std::vector<std::int64_t>&);
template void write_npy<std::uint8_t>(const std::string&, const std::uint8_t*, const std::vector<std::int64_t>&,
                              const WriteProgress&);
template std::string npy_header<std::uint32_t>(const std::vector<std::int64_t>&);
template void write_npy<std::uint32_t>(const std::string&, const std::uint32_t*, const std::vector<std::int64_t>&,
                              const WriteProgress&);
template std::string npy_header<std::int32_t>(const std::vector<std::int64_t>&);
template void write_npy<std::int32_t>(const std::string&, const std::int32_t*, const std::vector<std::int64_t>&,
                              const WriteProgress&);
template std::string npy_header<std::int64_t>(const std::vector<std::int64_t>&);
template void write_npy<std::int64_t>(const std::string&, const std::int64_t*, const std::vector<std::int64_t>&,
                              const WriteProgress&);

}  // namespace app
}  // namespace tdmaps
