// The .csv reader of apps/common/npy.hpp: rows of comma-separated numbers.
#include "npy_detail.hpp"

#include <cctype>
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

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

}  // namespace

template <class T>
Matrix<T> read_csv(const std::string& path) {
  input_file_size(path);
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
      if (std::is_same<T, float>::value && overflows_float32(v))
        throw_float32_overflow(path + ":" + std::to_string(line_no) + ": field " + std::to_string(fields) + ": ", field);
      m.values.push_back(static_cast<T>(v));
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    if (m.rows == 0)
      m.cols = fields;
    else if (fields != m.cols)
      throw Error(path + ":" + std::to_string(line_no) + ": " + std::to_string(fields) +
                  " columns, but the first row has " + std::to_string(m.cols));
    ++m.rows;
  }
  if (in.bad()) throw Error(path + ": read failed: " + errno_text());
  return m;
}

template Matrix<float> read_csv<float>(const std::string&);
template Matrix<double> read_csv<double>(const std::string&);

}  // namespace app
}  // namespace tdmaps
