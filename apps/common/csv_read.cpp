// The .csv / .txt reader of apps/common/npy.hpp: what numpy.loadtxt(path,
// delimiter=",", ndmin=2) reads, the same way. A file is accepted exactly when
// numpy.loadtxt reads it, with the same values bit for bit (checked by
// apps/common/tests/csv_against_numpy.py), but for two cases where this
// reader is stricter:
// - a finite number that overflows float64 ("1e400"): numpy reads inf; here it
//   is an error, a coordinate of inf being a typo, not data;
// - non-ASCII bytes outside comments: numpy decodes the file in the locale's
//   encoding and strips Unicode spaces, so what it reads depends on the
//   machine; here they are an error.
#include "npy_detail.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <type_traits>

namespace tdmaps {
namespace app {

using namespace npy_detail;

namespace {

// Python's str.isspace over ASCII, which numpy.loadtxt strips around a field
// ('\n' and '\r' end its lines, so they never reach one).
bool is_space(char ch) {
  const unsigned char c = static_cast<unsigned char>(ch);
  return c == ' ' || c == '\t' || c == '\v' || c == '\f' || (c >= 0x1c && c <= 0x1f);
}

std::string strip(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool equals_lower(const std::string& s, std::size_t from, const char* word) {
  std::size_t k = 0;
  for (; word[k] != '\0'; ++k) {
    if (from + k >= s.size()) return false;
    const char c = s[from + k];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c) != word[k]) return false;
  }
  return from + k == s.size();
}

// numpy.loadtxt converts a field with Python's float() rules less the
// underscores (PyOS_string_to_double): [sign] (digits [. [digits]] | . digits)
// [(e|E) [sign] digits], or [sign] nan, inf or infinity in any case. strtod
// takes more (hex "0x10", hex floats "0x1p3", "nan(123)"), which numpy refuses.
bool is_loadtxt_number(const std::string& s) {
  std::size_t k = 0;
  if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
  if (equals_lower(s, k, "nan") || equals_lower(s, k, "inf") || equals_lower(s, k, "infinity")) return true;
  std::size_t digits = 0;
  while (k < s.size() && is_digit(s[k])) ++k, ++digits;
  if (k < s.size() && s[k] == '.') {
    ++k;
    while (k < s.size() && is_digit(s[k])) ++k, ++digits;
  }
  if (digits == 0) return false;
  if (k < s.size() && (s[k] == 'e' || s[k] == 'E')) {
    ++k;
    if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
    std::size_t exponent = 0;
    while (k < s.size() && is_digit(s[k])) ++k, ++exponent;
    if (exponent == 0) return false;
  }
  return k == s.size();
}

}  // namespace

const char* csv_number_rule() {
  return "a number is what numpy.loadtxt reads: digits with an optional sign, decimal point and exponent (1, -2.5, "
         ".5, 3e-4), or nan, inf, infinity in any case; no hex, no '_'";
}

namespace {

/// One line of a .csv / .txt file (no line end) into m.
template <class T>
void read_csv_line(const std::string& path, std::int64_t line_no, std::string line, Matrix<T>& m) {
  // numpy: a comment runs from '#' to the end of the line; a line empty
  // without it is skipped, one of spaces is a row with an empty field.
  const std::size_t hash = line.find('#');
  if (hash != std::string::npos) line.erase(hash);
  if (line.empty()) return;
  const std::string where = path + ":" + std::to_string(line_no) + ": row " + std::to_string(m.rows) + ", column ";
  std::int64_t fields = 0;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = line.find(',', pos);
    const std::string typed = line.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const std::string field = strip(typed);
    const std::string at = where + std::to_string(fields) + " (0-based): ";
    ++fields;
    if (!is_loadtxt_number(field)) {
      const bool spaced = field.find_first_of(" \t") != std::string::npos;
      throw Error(at + "'" + printable(typed) + "' is not a number (" + csv_number_rule() +
                  (spaced ? "; fields are separated by commas" : "") + ")");
    }
    errno = 0;
    const double v = std::strtod(field.c_str(), nullptr);
    if (errno == ERANGE && std::isinf(v))
      throw Error(at + "'" + printable(typed) + "' is out of range (overflows float64)");
    if (std::is_same<T, float>::value && overflows_float32(v)) throw_float32_overflow(at, field);
    m.values.push_back(static_cast<T>(v));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (m.rows == 0)
    m.cols = fields;
  else if (fields != m.cols)
    throw Error(path + ":" + std::to_string(line_no) + ": row " + std::to_string(m.rows) + " has " +
                std::to_string(fields) + " columns, but the first row has " + std::to_string(m.cols));
  ++m.rows;
}

}  // namespace

template <class T>
Matrix<T> read_csv(const std::string& path) {
  input_file_size(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading: " + errno_text());
  Matrix<T> m;
  m.dtype = "csv";
  std::string text;
  std::int64_t line_no = 0;
  while (std::getline(in, text)) {
    // numpy.loadtxt opens a path with universal newlines: "\r\n", "\n" and a
    // lone "\r" each end a line.
    const std::size_t end = !text.empty() && text.back() == '\r' ? text.size() - 1 : text.size();
    std::size_t from = 0;
    do {
      const std::size_t cr = std::min(text.find('\r', from), end);
      read_csv_line(path, ++line_no, text.substr(from, cr - from), m);
      from = cr + 1;
    } while (from <= end);
  }
  if (in.bad()) throw Error(path + ": read failed: " + errno_text());
  return m;
}

template Matrix<float> read_csv<float>(const std::string&);
template Matrix<double> read_csv<double>(const std::string&);

}  // namespace app
}  // namespace tdmaps
