// The .npy header parser of apps/common/npy.hpp (parse_npy_header,
// read_npy_header); the data are read in npy_read.cpp.
//
// The .npy format (numpy/lib/format.py, "NEP 1"): the 6-byte magic
// "\x93NUMPY", major and minor version bytes (1.0, 2.0 or 3.0: NumPy rejects
// any other pair, minor versions included), the header length (uint16 LE for
// 1.0, uint32 LE for 2.0 and 3.0), then the header: a Python dict literal with
// exactly the keys 'descr', 'fortran_order' and 'shape', padded with spaces
// and terminated by '\n' so that magic + length + header is a multiple of 64
// bytes (NumPy before 1.9 aligned to 16, and such files are still around, so
// 16 is what is checked). 1.0 and 2.0 headers are latin1, 3.0 headers UTF-8.
//
// numpy.load evaluates the header with ast.literal_eval, so it takes any
// Python expression that evaluates to such a dict (duplicate keys, the last
// one winning; 0x10 or 1_000 as a dimension; leading blanks). This reader
// takes the subset NumPy and other writers produce and rejects the rest with
// the byte offset and the rule, so that whatever it accepts numpy.load reads
// as the same array (apps/common/tests/fuzz_npy.py checks that against NumPy):
//   dict     '{' entries '}' where entries are "key: value" separated by ','
//            with at most one trailing ','; each key once, any order
//   strings  '...' or "..." without prefixes, escapes or control characters
//   bools    True / False
//   shape    '(' ')' | '(' int ',' ')' | '(' int (',' int)+ [','] ')', ints
//            non-negative decimal without leading zeros; in 1.0 / 2.0 an 'L'
//            right after the digits is dropped, as NumPy's _filter_header
//            does for headers written by Python 2
//   blanks   ' ', '\t', '\n' between tokens
//   padding  after '}' only spaces, then the final '\n'
// Headers are ASCII: a plain dtype's header has no other characters (3.0's
#include "npy_detail.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <limits>

namespace tdmaps {
namespace app {

using namespace npy_detail;

namespace {

std::size_t item_size_of(const std::string& descr) {
  if (descr == "<f4" || descr == "<i4" || descr == "<u4") return 4;
  if (descr == "<f8" || descr == "<i8" || descr == "<u8") return 8;
  if (descr == "|u1" || descr == "|i1" || descr == "|b1") return 1;
  return 0;
}

/// Recursive-descent parser of the header dict in bytes [pos, end) (end: the
/// final '\n'). Offsets in messages are offsets in the file.
class HeaderParser {
 public:
  HeaderParser(const std::string& bytes, std::size_t pos, std::size_t end, bool python2_longs, const std::string& name)
      : b_(bytes), p_(pos), end_(end), python2_longs_(python2_longs), name_(name) {}

  [[noreturn]] void fail(std::size_t at, const std::string& rule) const {
    throw Error(name_ + ": byte " + std::to_string(at) + ": " + rule);
  }

  /// Parses the dict into h and returns the offset of its closing '}'.
  std::size_t parse_dict(NpyHeader& h) {
    if (at_end() || b_[p_] != '{')
      fail(p_, "the .npy header must start with '{' (a Python dict literal), found " + here_text());
    ++p_;
    bool seen[3] = {false, false, false};
    static const char* const keys[3] = {"descr", "fortran_order", "shape"};
    while (true) {
      skip_blanks();
      if (!at_end() && b_[p_] == '}') break;  // empty dict, or after a trailing ','
      if (at_end() || (b_[p_] != '\'' && b_[p_] != '"'))
        fail(p_, "expected a quoted key or '}' in the .npy header dict, found " + here_text());
      const std::size_t key_at = p_;
      const std::string key = parse_string("key");
      int k = 0;
      while (k < 3 && key != keys[k]) ++k;
      if (k == 3)
        fail(key_at, "unknown key '" + printable(key) +
                         "' in the .npy header (NumPy's format has exactly 'descr', 'fortran_order' and 'shape')");
      if (seen[k]) fail(key_at, "duplicate key '" + key + "' in the .npy header (NumPy's format allows each key once)");
      seen[k] = true;
      skip_blanks();
      if (at_end() || b_[p_] != ':') fail(p_, "expected ':' after the key '" + key + "', found " + here_text());
      ++p_;
      skip_blanks();
      if (k == 0)
        parse_descr(h);
      else if (k == 1)
        parse_fortran_order(h);
      else
        parse_shape(h);
      skip_blanks();
      if (!at_end() && b_[p_] == '}') break;
      if (at_end() || b_[p_] != ',')
        fail(p_, "expected ',' or '}' after the value of '" + key + "' in the .npy header, found " + here_text());
      ++p_;
      skip_blanks();
      if (!at_end() && b_[p_] == ',') fail(p_, "two commas in a row in the .npy header dict");
    }
    for (int k = 0; k < 3; ++k)
      if (!seen[k])
        fail(p_, std::string("the .npy header has no '") + keys[k] +
                     "' key (NumPy's format needs 'descr', 'fortran_order' and 'shape')");
    return p_;
  }

 private:
  bool at_end() const { return p_ >= end_; }
  std::string here_text() const { return at_end() ? "the end of the header" : char_text(b_[p_]); }

  void skip_blanks() {
    while (!at_end() && (b_[p_] == ' ' || b_[p_] == '\t' || b_[p_] == '\n')) ++p_;
  }

  /// A '...' or "..." literal at p_ (the caller checked the quote).
  std::string parse_string(const char* what) {
    const std::size_t open = p_;
    const char q = b_[p_++];
    std::string s;
    while (true) {
      if (at_end() || b_[p_] == '\n')
        fail(open, std::string("unterminated string (") + what + ") in the .npy header: no closing " + q);
      const char c = b_[p_];
      if (c == q) break;
      if (c == '\\') fail(p_, "escape sequence in a .npy header string (not written by NumPy for these keys)");
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
        fail(p_, "control character " + char_text(c) + " in a .npy header string");
      s.push_back(c);
      ++p_;
    }
    ++p_;
    return s;
  }

  void parse_descr(NpyHeader& h) {
    h.descr_offset = p_;
    if (at_end() || (b_[p_] != '\'' && b_[p_] != '"')) {
      const std::string found = here_text();
      fail(p_, "the value of 'descr' must be a quoted string such as '<f8', found " + found +
                   (found == "'['" ? " (a structured dtype, which tdmaps does not read)" : ""));
    }
    h.descr = parse_string("descr");
  }

  void parse_fortran_order(NpyHeader& h) {
    h.fortran_order_offset = p_;
    std::size_t e = p_;
    while (e < end_ && (std::isalnum(static_cast<unsigned char>(b_[e])) || b_[e] == '_')) ++e;
    const std::string word = b_.substr(p_, e - p_);
    if (word == "True")
      h.fortran_order = true;
    else if (word == "False")
      h.fortran_order = false;
    else if (!at_end() && (b_[p_] == '\'' || b_[p_] == '"'))
      fail(p_, "the value of 'fortran_order' must be the Python literal True or False, not a string");
    else
      fail(p_, "the value of 'fortran_order' must be the Python literal True or False, found " +
                   (word.empty() ? here_text() : "'" + word + "'"));
    p_ = e;
  }

  void parse_shape(NpyHeader& h) {
    h.shape_offset = p_;
    if (at_end() || b_[p_] != '(')
      fail(p_, "the value of 'shape' must be a tuple of ints such as (3, 4), found " + here_text());
    const std::size_t open = p_++;
    h.shape.clear();
    bool comma = false;  // a ',' follows the last dimension
    while (true) {
      skip_blanks();
      if (!at_end() && b_[p_] == ')') break;
      if (!h.shape.empty() && !comma) fail(p_, "expected ',' or ')' in the .npy shape, found " + here_text());
      h.shape.push_back(parse_dim());
      skip_blanks();
      comma = !at_end() && b_[p_] == ',';
      if (comma) {
        ++p_;
        skip_blanks();
        if (!at_end() && b_[p_] == ',') fail(p_, "two commas in a row in the .npy shape");
      }
    }
    if (h.shape.size() == 1 && !comma)
      fail(open, "shape (" + std::to_string(h.shape[0]) + ") is not a tuple in Python; a 1-D shape is written (" +
                     std::to_string(h.shape[0]) + ",)");
    ++p_;
  }

  std::int64_t parse_dim() {
    const std::size_t start = p_;
    if (!at_end() && b_[p_] == '-') fail(p_, "negative dimension in the .npy shape");
    if (at_end() || !std::isdigit(static_cast<unsigned char>(b_[p_])))
      fail(p_, "expected a non-negative decimal integer in the .npy shape, found " + here_text());
    if (b_[p_] == '0' && p_ + 1 < end_ && std::isdigit(static_cast<unsigned char>(b_[p_ + 1])))
      fail(p_, "dimension with a leading zero in the .npy shape (not a Python 3 int literal)");
    std::int64_t v = 0;
    while (!at_end() && std::isdigit(static_cast<unsigned char>(b_[p_]))) {
      const int d = b_[p_] - '0';
      if (v > (std::numeric_limits<std::int64_t>::max() - d) / 10)
        fail(start, "dimension in the .npy shape does not fit in 64 bits");
      v = v * 10 + d;
      ++p_;
    }
    if (python2_longs_ && !at_end() && b_[p_] == 'L') ++p_;
    if (!at_end() && (std::isalnum(static_cast<unsigned char>(b_[p_])) || b_[p_] == '_' || b_[p_] == '.'))
      fail(start, "dimension in the .npy shape is not a plain decimal integer (found " + char_text(b_[p_]) +
                      " after the digits)");
    return v;
  }

  const std::string& b_;
  std::size_t p_, end_;
  bool python2_longs_;
  const std::string& name_;
};

std::uint64_t read_le(const std::string& bytes, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  return v;
}

}  // namespace

NpyHeader parse_npy_header(const std::string& bytes, const std::string& name) {
  auto fail = [&name](std::size_t at, const std::string& rule) -> Error {
    return Error(name + ": byte " + std::to_string(at) + ": " + rule);
  };
  const std::size_t n = bytes.size();
  if (n == 0) throw fail(0, "empty file, not a .npy file");
  if (bytes.compare(0, std::min<std::size_t>(n, 6), "\x93NUMPY", std::min<std::size_t>(n, 6)) != 0)
    throw fail(0, "not a .npy file (bad magic; expected \\x93NUMPY)");
  if (n < 8) throw fail(n, "the file ends inside the .npy magic and version bytes");
  NpyHeader h;
  h.major = static_cast<unsigned char>(bytes[6]);
  h.minor = static_cast<unsigned char>(bytes[7]);
  if (h.minor != 0 || h.major < 1 || h.major > 3)
    throw fail(6, "unsupported .npy format version " + std::to_string(h.major) + "." + std::to_string(h.minor) +
                      " (NumPy's format has versions 1.0, 2.0 and 3.0)");
  const int len_bytes = h.major == 1 ? 2 : 4;
  const std::size_t pre = 8 + static_cast<std::size_t>(len_bytes);
  if (n < pre)
    throw fail(n, "the file ends inside the .npy header length (" + std::to_string(len_bytes) + " bytes for version " +
                      std::to_string(h.major) + ".0)");
  const std::uint64_t header_len = read_le(bytes, 8, len_bytes);
  if (header_len > kMaxHeaderBytes)
    throw fail(8, "the .npy header length " + std::to_string(header_len) + " is over " +
                      std::to_string(kMaxHeaderBytes) + " bytes, numpy.load's limit (max_header_size)");
  const std::size_t end = pre + static_cast<std::size_t>(header_len);
  if (n < end)
    throw fail(n, "truncated .npy header: the length field says " + std::to_string(header_len) +
                      " header bytes (to byte " + std::to_string(end) + "), the file ends at byte " +
                      std::to_string(n));
  for (std::size_t i = pre; i < end; ++i)
    if (static_cast<unsigned char>(bytes[i]) >= 0x80)
      throw fail(i, "non-ASCII " + char_text(bytes[i]) +
                        " in the .npy header (a plain dtype's header is ASCII; 3.0's UTF-8 is for structured "
                        "dtypes' field names, which tdmaps does not read)");
  if (header_len == 0 || bytes[end - 1] != '\n')
    throw fail(end == pre ? pre : end - 1, "the .npy header does not end with '\\n' (NumPy's format terminates it so)");

  HeaderParser parser(bytes, pre, end - 1, h.major < 3, name);
  const std::size_t close = parser.parse_dict(h);
  for (std::size_t i = close + 1; i + 1 < end; ++i)
    if (bytes[i] != ' ')
      throw fail(i,
                 "unexpected " + char_text(bytes[i]) +
                     " after the closing '}' of the .npy header (only space padding and the final '\\n' may follow)");
  // NumPy pads to 64 bytes since 1.9 and padded to 16 before; both are read.
  if (end % 16 != 0)
    throw fail(end, "the .npy data start at byte " + std::to_string(end) +
                        ", not a multiple of 16 (NumPy pads the header with spaces to a multiple of 64 bytes, older "
                        "NumPy to 16)");
  h.data_offset = end;
  h.item_size = item_size_of(h.descr);
  return h;
}

NpyHeader read_npy_header(const std::string& path) {
  std::int64_t size = 0;
  return read_npy_header_sized(path, &size);
}

namespace npy_detail {

/// The header of the regular file at path (its size in *size).
NpyHeader read_npy_header_sized(const std::string& path, std::int64_t* size) {
  *size = input_file_size(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open for reading: " + errno_text());
  // 12 preamble bytes + the longest header accepted: enough for any header.
  const std::size_t want = std::min<std::size_t>(static_cast<std::size_t>(*size), 12 + kMaxHeaderBytes);
  std::string bytes(want, '\0');
  in.read(&bytes[0], static_cast<std::streamsize>(want));
  if (static_cast<std::size_t>(in.gcount()) != want)
    throw Error(path + ": read failed after " + std::to_string(in.gcount()) + " bytes: " + errno_text());
  return parse_npy_header(bytes, path);
}

}  // namespace npy_detail

}  // namespace app
}  // namespace tdmaps
