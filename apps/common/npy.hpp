#ifndef TDMAPS_APPS_COMMON_NPY_HPP
#define TDMAPS_APPS_COMMON_NPY_HPP

// Host-side I/O shared by the tdmaps apps (target tdmaps::app_common).
//
// Reading (apps/common/npy_read.cpp; all throw tdmaps::app::Error with a
// message naming the file and what is wrong; nothing here touches Kokkos):
//   Matrix<T> read_npy_2d<T>(path)   2-D .npy, '<f4' or '<f8', C order;
//                                    converted to T (float or double); a
//                                    finite value that overflows float32
//                                    is an Error naming its row and column
//   Matrix<T> read_csv<T>(path)      what numpy.loadtxt(path, delimiter=",",
//                                    ndmin=2) reads (csv_read.cpp says where
//                                    it is stricter); errors name the line,
//                                    row and column
//   Matrix<T> read_matrix<T>(path)   by extension (input_format_rule())
//   NpyHeader read_npy_header(path)  dtype ("<f4", ...), shape, data offset
//   NpyHeader parse_npy_header(bytes, name)  the same from the file's first
//                                    bytes in memory (name is for messages)
//   m.at(r, c), m.rows, m.cols, m.values (row-major), m.dtype (of the file)
// The .npy reader follows NumPy's format strictly: versions 1.0, 2.0 and 3.0,
// a header dict with exactly 'descr', 'fortran_order' and 'shape' as Python
// literals, '\n'-terminated and space-padded to a 16-byte multiple, data of
// exactly shape x itemsize bytes. Anything else is rejected, with
// "<path>: byte <offset>: <rule broken>", so whatever is accepted is read by
// numpy.load as the same array (apps/common/tests/fuzz_npy.py checks it). A path
// that is missing, a directory or not a regular file is reported as such
// before it is opened.
//
// Writing (through OutputFile, apps/common/output_file.hpp: disk space
// checked and reserved first, the data in an unnamed file that gets its name
// only once complete and fsync'ed; on any failure or interrupt nothing stays
// behind, so <path> is either absent/unchanged or complete):
//   write_npy(path, const T* data, {rows} or {rows, cols}[, progress])
//       T = float, double, std::uint8_t, std::uint32_t, std::int32_t, std::int64_t
//   check_output_path(path)          fails early (before a long run) when the
//                                    directory is missing or not writable, or
//                                    the path is a directory or a special file
//
// Process helpers:
//   set_app_name("edm"); fail("msg")  prints "tdmaps-edm: error: msg" to stderr, exit(1)
//   Timer t; t.seconds(); t.reset();   steady clock
//   gb_per_s(bytes, seconds)           10^9 bytes per second
//   host_available_bytes(), format_bytes(bytes), mul_sat, add_sat:
//                                      sizes.hpp

#include "output_file.hpp"
#include "sizes.hpp"

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tdmaps {
namespace app {

/// Every input/output problem the apps report to the user.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A host row-major matrix; `dtype` is the element type of the file it came
/// from ("<f4", "<f8", or "csv").
template <class T>
struct Matrix {
  std::vector<T> values;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::string dtype;
  const T& at(std::int64_t r, std::int64_t c) const { return values[static_cast<std::size_t>(r * cols + c)]; }
};

struct NpyHeader {
  int major = 1, minor = 0;
  std::string descr;                 ///< e.g. "<f8"
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
  std::size_t data_offset = 0;       ///< bytes before the data
  std::size_t item_size = 0;         ///< bytes per element, 0 for an unknown descr
  /// File offsets of the values of 'descr', 'fortran_order' and 'shape', for
  /// messages about them.
  std::size_t descr_offset = 0, fortran_order_offset = 0, shape_offset = 0;
};

NpyHeader read_npy_header(const std::string& path);
/// Parses the header of a .npy file from its first bytes (at least through
/// the header; what follows is ignored). Messages start "<name>: byte <k>: ".
NpyHeader parse_npy_header(const std::string& bytes, const std::string& name);

template <class T>
Matrix<T> read_npy_2d(const std::string& path);
template <class T>
Matrix<T> read_csv(const std::string& path);
template <class T>
Matrix<T> read_matrix(const std::string& path);

/// Which input files read_matrix reads, by extension: the one rule of every
/// tool's --input, in its errors and --help.
const char* input_format_rule();
/// The numbers of a .csv / .txt field, for messages.
const char* csv_number_rule();

/// The .npy header (magic, version, dict, padding to 64 bytes) of an array
/// of T in C order, 1-D to 3-D; the data follow it (streamed and MPI-IO
/// outputs, snapshot frames).
template <class T>
std::string npy_header(const std::vector<std::int64_t>& shape);

/// Writes a 1-D (shape {n}) or 2-D (shape {rows, cols}) array atomically.
template <class T>
void write_npy(const std::string& path, const T* data, const std::vector<std::int64_t>& shape,
               const WriteProgress& progress = WriteProgress());

/// Throws Error when path cannot be created (directory missing or not
/// writable, path is a directory).
void check_output_path(const std::string& path);

// ---- process helpers ------------------------------------------------------

void set_app_name(const std::string& name);  ///< "edm" -> messages "tdmaps-edm: ..."
const std::string& app_name();
[[noreturn]] void fail(const std::string& msg);
/// Prints "tdmaps-<app>: warning: msg" to stderr.
void warn(const std::string& msg);

class Timer {
 public:
  Timer() : start_(std::chrono::steady_clock::now()) {}
  void reset() { start_ = std::chrono::steady_clock::now(); }
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

inline double gb_per_s(double bytes, double seconds) { return seconds > 0 ? bytes / seconds * 1e-9 : 0.0; }

/// The shortest text that reads back as v ("1e+39", "0.1", "-1e-09", "inf",
/// "nan"): a value from a file as its writer meant it, never "-0.000000".
std::string number_text(double v);

/// A finite double that float32 cannot hold (it would become inf).
inline bool overflows_float32(double v) { return std::isfinite(v) && std::isinf(static_cast<float>(v)); }
/// Throws Error "<where><value as typed> overflows float32 (...)".
[[noreturn]] void throw_float32_overflow(const std::string& where, const std::string& value);

}  // namespace app
}  // namespace tdmaps

#endif
