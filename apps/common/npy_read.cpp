// The reading half of apps/common/npy.hpp: the data of a .npy file (its
// header is parsed in npy_header.cpp, .csv in csv_read.cpp) and read_matrix,
// which picks the format by the file's extension.
#include "npy_detail.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <limits>
#include <type_traits>

namespace tdmaps {
namespace app {

using namespace npy_detail;

namespace {

std::string lower_ext(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::size_t slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string e = path.substr(dot);
  for (auto& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

}  // namespace

namespace npy_detail {

std::int64_t input_file_size(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) throw Error(path + ": no such file");
    throw Error(path + ": cannot stat: " + errno_text());
  }
  if (S_ISDIR(st.st_mode)) throw Error(path + ": is a directory");
  if (!S_ISREG(st.st_mode)) {
    const char* kind = special_file_kind(st.st_mode);
    throw Error(path + ": is not a regular file (" + (*kind ? kind : "not a file") + ")");
  }
  return static_cast<std::int64_t>(st.st_size);
}

}  // namespace npy_detail

template <class T>
Matrix<T> read_npy_2d(const std::string& path) {
  static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value, "read_npy_2d: T is float or double");
  if (!host_is_little_endian()) throw Error("reading .npy needs a little-endian host");
  std::int64_t file_size = 0;
  const NpyHeader h = read_npy_header_sized(path, &file_size);
  auto at = [&path](std::size_t offset) { return path + ": byte " + std::to_string(offset) + ": "; };
  if (h.descr != "<f4" && h.descr != "<f8")
    throw Error(at(h.descr_offset) + "unsupported dtype '" + printable(h.descr) +
                "' (tdmaps reads '<f4' float32 and '<f8' float64, little-endian; convert with numpy: "
                "a.astype('<f8'))");
  if (h.fortran_order)
    throw Error(at(h.fortran_order_offset) +
                "the array is in Fortran (column-major) order; tdmaps reads C order: save a C-ordered copy "
                "(np.ascontiguousarray)");
  if (h.shape.size() != 2)
    throw Error(at(h.shape_offset) + "expected a 2-D array (points x dims), got " + std::to_string(h.shape.size()) +
                "-D shape " + shape_text(h.shape));
  const std::int64_t rows = h.shape[0], cols = h.shape[1];
  const std::int64_t limit = std::numeric_limits<std::int64_t>::max() / 8;
  if (cols != 0 && rows > limit / cols)
    throw Error(at(h.shape_offset) + "shape " + shape_text(h.shape) + " is too large");
  const std::int64_t count = rows * cols;
  const std::int64_t data_bytes = count * static_cast<std::int64_t>(h.item_size);
  const std::int64_t have = file_size - static_cast<std::int64_t>(h.data_offset);
  if (have != data_bytes)
    throw Error(
        at(h.data_offset) + "the data of shape " + shape_text(h.shape) + " '" + h.descr + "' take " +
        std::to_string(data_bytes) + " bytes, the file holds " + std::to_string(have) + " after the header (" +
        (have < data_bytes ? "truncated" : std::to_string(have - data_bytes) + " unexpected bytes after the data") +
        ")");

  Matrix<T> m;
  m.rows = rows;
  m.cols = cols;
  m.dtype = h.descr;
  m.values.resize(static_cast<std::size_t>(count));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading: " + errno_text());
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
          if (std::is_same<T, float>::value && overflows_float32(v))
            throw_float32_overflow(path + ": row " + std::to_string((done + e) / cols) + ", column " +
                                   std::to_string((done + e) % cols) + " (0-based): ", number_text(v));
          m.values[static_cast<std::size_t>(done + e)] = static_cast<T>(v);
        }
      }
      done += k;
    }
  }
  return m;
}

template <class T>
Matrix<T> read_matrix(const std::string& path) {
  // A directory or device first: its name says nothing about its kind.
  input_file_size(path);
  const std::string e = lower_ext(path);
  if (e == ".npy") return read_npy_2d<T>(path);
  if (e == ".csv" || e == ".txt") return read_csv<T>(path);
  throw Error(path + (e.empty() ? ": the name has no extension" : ": unknown input extension '" + printable(e) + "'") +
              "; " + input_format_rule());
}

const char* input_format_rule() {
  return "input files by extension, in any case: .npy (NumPy's format: 2-D float32 or float64, C order), .csv or "
         ".txt (text: a row per line, numbers separated by commas, as numpy.loadtxt(file, delimiter=',') reads "
         "them); no other extension is read";
}

template Matrix<float> read_npy_2d<float>(const std::string&);
template Matrix<double> read_npy_2d<double>(const std::string&);
template Matrix<float> read_matrix<float>(const std::string&);
template Matrix<double> read_matrix<double>(const std::string&);

}  // namespace app
}  // namespace tdmaps
