// Implementation of apps/common/npy.hpp. The .npy format (numpy's
// format.py): 6-byte magic "\x93NUMPY", major and minor version bytes, the
// header length (uint16 LE for 1.0, uint32 LE for 2.0 and 3.0), then an
// ASCII (3.0: UTF-8) Python dict literal with 'descr', 'fortran_order' and
// 'shape', padded with spaces to a multiple of 64 bytes and ended by '\n'.
#include "npy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <type_traits>

namespace tdmaps {
namespace app {

namespace {

std::string g_app_name = "app";

bool host_is_little_endian() {
  const std::uint16_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

std::string errno_text() { return std::strerror(errno); }

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

/// Value text of 'key' in the header dict: for descr the quoted string, for
/// fortran_order the bare word, for shape the parenthesised tuple.
std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
  const std::size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) throw Error(path + ": .npy header has no '" + key + "' entry: " + header);
  std::size_t p = header.find(':', k);
  if (p == std::string::npos) throw Error(path + ": malformed .npy header: " + header);
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  if (p >= header.size()) throw Error(path + ": malformed .npy header: " + header);
  if (header[p] == '\'' || header[p] == '"') {
    const char q = header[p];
    const std::size_t e = header.find(q, p + 1);
    if (e == std::string::npos) throw Error(path + ": malformed .npy header: " + header);
    return header.substr(p + 1, e - p - 1);
  }
  if (header[p] == '(') {
    const std::size_t e = header.find(')', p);
    if (e == std::string::npos) throw Error(path + ": malformed .npy header: " + header);
    return header.substr(p, e - p + 1);
  }
  std::size_t e = p;
  while (e < header.size() && header[e] != ',' && header[e] != '}') ++e;
  return trim(header.substr(p, e - p));
}

std::vector<std::int64_t> parse_shape(const std::string& tuple, const std::string& path) {
  // "(3, 4)", "(5,)", "()"
  std::vector<std::int64_t> shape;
  std::string inner = tuple.substr(1, tuple.size() - 2);
  std::stringstream ss(inner);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = trim(item);
    if (item.empty()) continue;
    // numpy writes Python ints, possibly with an 'L' suffix from Python 2.
    if (!item.empty() && item.back() == 'L') item.pop_back();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (errno != 0 || end == item.c_str() || *end != '\0' || v < 0)
      throw Error(path + ": bad dimension '" + item + "' in .npy shape " + tuple);
    shape.push_back(static_cast<std::int64_t>(v));
  }
  return shape;
}

std::size_t item_size_of(const std::string& descr) {
  if (descr == "<f4" || descr == "<i4" || descr == "<u4") return 4;
  if (descr == "<f8" || descr == "<i8" || descr == "<u8") return 8;
  if (descr == "|u1" || descr == "|i1" || descr == "|b1") return 1;
  return 0;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::int64_t file_size(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error(path + ": cannot stat: " + errno_text());
  return static_cast<std::int64_t>(st.st_size);
}

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

std::string lower_ext(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::size_t slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string e = path.substr(dot);
  for (auto& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

/// Writes all of [data, data + bytes) to fd, retrying short writes.
void write_all(int fd, const void* data, std::size_t bytes, const std::string& what) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    // Linux writes at most 0x7ffff000 bytes per call.
    const std::size_t chunk = bytes < (std::size_t(1) << 30) ? bytes : (std::size_t(1) << 30);
    const ssize_t w = ::write(fd, p, chunk);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error(what + ": write failed: " + errno_text());
    }
    p += w;
    bytes -= static_cast<std::size_t>(w);
  }
}

}  // namespace

// ---- reading ---------------------------------------------------------------

NpyHeader read_npy_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading: " + errno_text());
  unsigned char pre[10];
  in.read(reinterpret_cast<char*>(pre), 8);
  if (in.gcount() < 8 || std::memcmp(pre, "\x93NUMPY", 6) != 0)
    throw Error(path + ": not a .npy file (bad magic; expected \\x93NUMPY)");
  NpyHeader h;
  h.major = pre[6];
  h.minor = pre[7];
  std::size_t header_len = 0;
  if (h.major == 1) {
    in.read(reinterpret_cast<char*>(pre + 8), 2);
    if (in.gcount() < 2) throw Error(path + ": truncated .npy header");
    header_len = std::size_t(pre[8]) | (std::size_t(pre[9]) << 8);
    h.data_offset = 10 + header_len;
  } else if (h.major == 2 || h.major == 3) {
    unsigned char len[4];
    in.read(reinterpret_cast<char*>(len), 4);
    if (in.gcount() < 4) throw Error(path + ": truncated .npy header");
    header_len = std::size_t(len[0]) | (std::size_t(len[1]) << 8) | (std::size_t(len[2]) << 16) |
                 (std::size_t(len[3]) << 24);
    h.data_offset = 12 + header_len;
  } else {
    throw Error(path + ": unsupported .npy format version " + std::to_string(h.major) + "." +
                std::to_string(h.minor) + " (known: 1.0, 2.0, 3.0)");
  }
  if (header_len > (std::size_t(1) << 24)) throw Error(path + ": implausible .npy header length " + std::to_string(header_len));
  std::string header(header_len, '\0');
  in.read(&header[0], static_cast<std::streamsize>(header_len));
  if (static_cast<std::size_t>(in.gcount()) < header_len) throw Error(path + ": truncated .npy header");
  header = trim(header);
  if (header.empty() || header.front() != '{' || header.back() != '}')
    throw Error(path + ": malformed .npy header (not a dict): " + header);

  h.descr = dict_value(header, "descr", path);
  const std::string fo = dict_value(header, "fortran_order", path);
  if (fo == "True") h.fortran_order = true;
  else if (fo == "False") h.fortran_order = false;
  else throw Error(path + ": bad fortran_order '" + fo + "' in .npy header");
  const std::string shape = dict_value(header, "shape", path);
  if (shape.empty() || shape.front() != '(') throw Error(path + ": bad shape in .npy header: " + header);
  h.shape = parse_shape(shape, path);
  h.item_size = item_size_of(h.descr);
  return h;
}

template <class T>
Matrix<T> read_npy_2d(const std::string& path) {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value, "read_npy_2d: T is float or double");
  if (!host_is_little_endian()) throw Error("reading .npy needs a little-endian host");
  const NpyHeader h = read_npy_header(path);
  if (h.descr != "<f4" && h.descr != "<f8")
    throw Error(path + ": unsupported dtype '" + h.descr +
                "' (supported: '<f4' float32 and '<f8' float64, little-endian; convert with "
                "numpy: a.astype(np.float64))");
  if (h.fortran_order)
    throw Error(path + ": array is in Fortran (column-major) order; save a C-ordered copy (np.ascontiguousarray)");
  if (h.shape.size() != 2)
    throw Error(path + ": expected a 2-D array (points x dims), got " + std::to_string(h.shape.size()) +
                "-D shape " + shape_text(h.shape));
  const std::int64_t rows = h.shape[0], cols = h.shape[1];
  const std::int64_t limit = std::numeric_limits<std::int64_t>::max() / 8;
  if (cols != 0 && rows > limit / cols) throw Error(path + ": shape " + shape_text(h.shape) + " is too large");
  const std::int64_t count = rows * cols;
  const std::int64_t data_bytes = count * static_cast<std::int64_t>(h.item_size);
  const std::int64_t have = file_size(path) - static_cast<std::int64_t>(h.data_offset);
  if (have < data_bytes)
    throw Error(path + ": truncated .npy data: shape " + shape_text(h.shape) + " of " + h.descr + " needs " +
                std::to_string(data_bytes) + " bytes, the file holds " + std::to_string(have < 0 ? 0 : have));
  if (have > data_bytes)
    throw Error(path + ": .npy file has " + std::to_string(have - data_bytes) + " unexpected bytes after the data of shape " +
                shape_text(h.shape));

  Matrix<T> m;
  m.rows = rows;
  m.cols = cols;
  m.dtype = h.descr;
  m.values.resize(static_cast<std::size_t>(count));
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(h.data_offset));
  if (h.descr == (std::is_same<T, float>::value ? "<f4" : "<f8")) {
    in.read(reinterpret_cast<char*>(m.values.data()), static_cast<std::streamsize>(data_bytes));
    if (in.gcount() != data_bytes) throw Error(path + ": read failed after " + std::to_string(in.gcount()) + " bytes");
  } else {
    // Convert in chunks: a float64 file read as float32 rounds to nearest.
    const std::size_t chunk = 1 << 16;
    std::vector<char> buf(chunk * h.item_size);
    for (std::int64_t done = 0; done < count;) {
      const std::int64_t k = std::min<std::int64_t>(static_cast<std::int64_t>(chunk), count - done);
      in.read(buf.data(), static_cast<std::streamsize>(k * static_cast<std::int64_t>(h.item_size)));
      if (in.gcount() != k * static_cast<std::int64_t>(h.item_size)) throw Error(path + ": read failed");
      for (std::int64_t e = 0; e < k; ++e) {
        if (h.item_size == 4) {
          float v;
          std::memcpy(&v, buf.data() + e * 4, 4);
          m.values[static_cast<std::size_t>(done + e)] = static_cast<T>(v);
        } else {
          double v;
          std::memcpy(&v, buf.data() + e * 8, 8);
          m.values[static_cast<std::size_t>(done + e)] = static_cast<T>(v);
        }
      }
      done += k;
    }
  }
  return m;
}

template <class T>
Matrix<T> read_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open for reading: " + errno_text());
  Matrix<T> m;
  m.dtype = "csv";
  std::string line;
  std::int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    std::int64_t fields = 0;
    std::size_t pos = 0;
    while (true) {
      const std::size_t comma = t.find(',', pos);
      const std::string field = trim(t.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
      ++fields;
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(field.c_str(), &end);
      if (field.empty() || end == field.c_str() || *end != '\0')
        throw Error(path + ":" + std::to_string(line_no) + ": field " + std::to_string(fields) + " '" + field +
                    "' is not a number");
      if (errno == ERANGE && std::isinf(v))
        throw Error(path + ":" + std::to_string(line_no) + ": field " + std::to_string(fields) + " '" + field +
                    "' is out of range");
      m.values.push_back(static_cast<T>(v));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    if (m.rows == 0) m.cols = fields;
    else if (fields != m.cols)
      throw Error(path + ":" + std::to_string(line_no) + ": " + std::to_string(fields) + " columns, but the first row has " +
                  std::to_string(m.cols));
    ++m.rows;
  }
  if (in.bad()) throw Error(path + ": read failed: " + errno_text());
  return m;
}

template <class T>
Matrix<T> read_matrix(const std::string& path) {
  const std::string e = lower_ext(path);
  if (e == ".npy") return read_npy_2d<T>(path);
  if (e == ".csv" || e == ".txt") return read_csv<T>(path);
  throw Error(path + ": unknown input format '" + e + "' (expected .npy or .csv)");
}

// ---- writing ---------------------------------------------------------------

void check_output_path(const std::string& path) {
  if (path.empty()) throw Error("output path is empty");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw Error(path + ": output path is a directory");
  const std::string dir = directory_of(path);
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error(path + ": output directory '" + dir + "' does not exist");
  if (::access(dir.c_str(), W_OK) != 0) throw Error(path + ": output directory '" + dir + "' is not writable");
}

template <class T>
void write_npy(const std::string& path, const T* data, const std::vector<std::int64_t>& shape) {
  if (!host_is_little_endian()) throw Error("writing .npy needs a little-endian host");
  if (shape.empty() || shape.size() > 2) throw Error("write_npy: shape must be 1-D or 2-D");
  std::int64_t count = 1;
  for (auto s : shape) {
    if (s < 0) throw Error("write_npy: negative dimension");
    count *= s;
  }
  std::string dict = std::string("{'descr': '") + NpyDescr<T>::value + "', 'fortran_order': False, 'shape': " +
                     shape_text(shape) + ", }";
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
  head += dict;

  const std::string tmp = path + ".tmp." + std::to_string(static_cast<long long>(::getpid()));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw Error(path + ": cannot create temporary file '" + tmp + "': " + errno_text());
  bool open = true;
  try {
    write_all(fd, head.data(), head.size(), tmp);
    write_all(fd, data, static_cast<std::size_t>(count) * sizeof(T), tmp);
    if (::fsync(fd) != 0) throw Error(tmp + ": fsync failed: " + errno_text());
    open = false;  // the descriptor is released by close() even when it fails
    if (::close(fd) != 0) throw Error(tmp + ": close failed: " + errno_text());
  } catch (...) {
    if (open) ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw Error(path + ": cannot rename '" + tmp + "' onto it: " + why);
  }
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

// ---- explicit instantiations ----------------------------------------------

template Matrix<float> read_npy_2d<float>(const std::string&);
template Matrix<double> read_npy_2d<double>(const std::string&);
template Matrix<float> read_csv<float>(const std::string&);
template Matrix<double> read_csv<double>(const std::string&);
template Matrix<float> read_matrix<float>(const std::string&);
template Matrix<double> read_matrix<double>(const std::string&);
template void write_npy<float>(const std::string&, const float*, const std::vector<std::int64_t>&);
template void write_npy<double>(const std::string&, const double*, const std::vector<std::int64_t>&);
template void write_npy<std::uint8_t>(const std::string&, const std::uint8_t*, const std::vector<std::int64_t>&);
template void write_npy<std::uint32_t>(const std::string&, const std::uint32_t*, const std::vector<std::int64_t>&);
template void write_npy<std::int32_t>(const std::string&, const std::int32_t*, const std::vector<std::int64_t>&);
template void write_npy<std::int64_t>(const std::string&, const std::int64_t*, const std::vector<std::int64_t>&);

}  // namespace app
}  // namespace tdmaps
