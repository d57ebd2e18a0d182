// Tests of the .npy / .csv reader of the apps (apps/common/npy_read.cpp): one
// test per rule of NumPy's format that the reader enforces, each checking the
// message names the file, the byte offset and the rule; valid files of every
// version, padding and dtype read back bit for bit; paths that are not
// regular files. Host only: nothing here uses Kokkos.
#include <npy.hpp>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

namespace app = tdmaps::app;
namespace fs = std::filesystem;

const std::string kDict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }";

/// magic + version + length + dict + spaces + '\n', padded so the data start
/// on a multiple of `align` bytes.
std::string npy_header(const std::string& dict, int major = 1, int minor = 0, std::size_t align = 64) {
  const std::size_t pre = major == 1 ? 10 : 12;
  std::size_t len = dict.size() + 1;
  len += (align - (pre + len) % align) % align;
  std::string h("\x93NUMPY", 6);
  h.push_back(static_cast<char>(major));
  h.push_back(static_cast<char>(minor));
  for (std::size_t i = 0; i < pre - 8; ++i) h.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  h += dict;
  h.append(len - dict.size() - 1, ' ');
  h.push_back('\n');
  return h;
}

/// magic + version + length + `text` as the header, nothing added.
std::string npy_raw(const std::string& text, int major = 1) {
  std::string h("\x93NUMPY", 6);
  h.push_back(static_cast<char>(major));
  h.push_back(0);
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  for (std::size_t i = 0; i < len_bytes; ++i) h.push_back(static_cast<char>((text.size() >> (8 * i)) & 0xff));
  return h + text;
}

template <class T>
std::string bytes_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

std::string error_of_parse(const std::string& bytes) {
  try {
    app::parse_npy_header(bytes, "x.npy");
  } catch (const app::Error& e) {
    return e.what();
  }
  return "(accepted)";
}

/// The header is rejected at byte `offset` with a message containing `rule`.
void expect_header_reject(const std::string& bytes, std::size_t offset, const std::string& rule) {
  const std::string msg = error_of_parse(bytes);
  const std::string where = "x.npy: byte " + std::to_string(offset) + ": ";
  EXPECT_EQ(msg.compare(0, where.size(), where), 0) << "expected the message to start with '" << where << "': " << msg;
  EXPECT_NE(msg.find(rule), std::string::npos) << "expected '" << rule << "' in: " << msg;
}

/// Offset in a v1.0 file of the first `what` at or after `from` in the dict.
std::size_t at_v1(const std::string& dict, const std::string& what, std::size_t from = 0) {
  const std::size_t k = dict.find(what, from);
  EXPECT_NE(k, std::string::npos) << what << " not in " << dict;
  return 10 + k;
}

class npy_read_file : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "tdmaps_npy_read_XXXXXX").string();
    ASSERT_NE(::mkdtemp(&tmpl[0]), nullptr) << "mkdtemp " << tmpl << ": " << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& bytes) const {
    const std::string path = (fs::path(dir_) / name).string();
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    EXPECT_TRUE(out.good()) << path;
    return path;
  }
  /// The message of read_npy_2d<double>(path); it must name the file.
  static std::string error_of_read(const std::string& path) {
    try {
      app::read_npy_2d<double>(path);
    } catch (const app::Error& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.compare(0, path.size() + 2, path + ": "), 0) << msg;
      return msg;
    }
    return "(accepted)";
  }
  std::string dir_;
};

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---- rejections, one rule each ------------------------------------------------

TEST(npy_read, rejects_duplicate_key) {
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), 'fortran_order': True, }";
  expect_header_reject(npy_header(dict), at_v1(dict, "'fortran_order'", 20),
                       "duplicate key 'fortran_order' in the .npy header (NumPy's format allows each key once)");
  const std::string d2 = "{'shape': (3, 4), 'descr': '<f8', 'fortran_order': False, \"shape\": (3, 4)}";
  expect_header_reject(npy_header(d2), at_v1(d2, "\"shape\""), "duplicate key 'shape'");
}

TEST(npy_read, rejects_versions_other_than_1_0_2_0_3_0) {
  for (const auto& v : std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {3, 7}, {0, 0}, {4, 0}, {255, 255}}) {
    SCOPED_TRACE(std::to_string(v.first) + "." + std::to_string(v.second));
    expect_header_reject(npy_header(kDict, v.first, v.second), 6,
                         "unsupported .npy format version " + std::to_string(v.first) + "." + std::to_string(v.second) +
                             " (NumPy's format has versions 1.0, 2.0 and 3.0)");
  }
}

TEST(npy_read, rejects_fortran_order_not_a_bool_literal) {
  for (const std::string value : {"'False'", "\"True\"", "0", "false", "None", "Falsey"}) {
    SCOPED_TRACE(value);
    const std::string dict = "{'descr': '<f8', 'fortran_order': " + value + ", 'shape': (3, 4), }";
    expect_header_reject(npy_header(dict), at_v1(dict, value),
                         "the value of 'fortran_order' must be the Python literal True or False");
  }
  const std::string dict = "{'descr': '<f8', 'fortran_order': 'False', 'shape': (3, 4), }";
  EXPECT_TRUE(contains(error_of_parse(npy_header(dict)), "not a string"));
}

TEST(npy_read, rejects_unquoted_descr) {
  const std::string dict = "{'descr': <f8, 'fortran_order': False, 'shape': (3, 4), }";
  expect_header_reject(npy_header(dict), at_v1(dict, "<f8"), "the value of 'descr' must be a quoted string");
  const std::string structured = "{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (3,), }";
  expect_header_reject(npy_header(structured), at_v1(structured, "["), "structured dtype");
}

TEST(npy_read, rejects_more_than_one_trailing_comma) {
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4),, }";
  expect_header_reject(npy_header(dict), at_v1(dict, ",,") + 1, "two commas in a row in the .npy header dict");
  const std::string tuple = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4,,), }";
  expect_header_reject(npy_header(tuple), at_v1(tuple, ",,") + 1, "two commas in a row in the .npy shape");
  const std::string leading = "{, 'descr': '<f8', 'fortran_order': False, 'shape': (3, 4)}";
  expect_header_reject(npy_header(leading), 11, "expected a quoted key or '}'");
}

TEST(npy_read, rejects_text_after_the_closing_brace) {
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }}}";
  expect_header_reject(npy_header(dict), at_v1(dict, "}}") + 1,
                       "unexpected '}' after the closing '}' of the .npy header (only space padding");
  const std::string tab = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }\t";
  expect_header_reject(npy_header(tab), at_v1(tab, "\t"), "unexpected byte 0x09 after the closing '}'");
}

TEST(npy_read, rejects_unterminated_quote) {
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), '}";
  expect_header_reject(npy_header(dict), at_v1(dict, "'}"), "unterminated string (key) in the .npy header");
  const std::string value = "{'fortran_order': False, 'shape': (3, 4), 'descr': '<f8}";
  expect_header_reject(npy_header(value), at_v1(value, "'<f8"), "unterminated string (descr)");
  // A quote removed in the middle pairs with the next one: still rejected.
  const std::string shifted = "{'descr': '<f8, 'fortran_order': False, 'shape': (3, 4), }";
  expect_header_reject(npy_header(shifted), at_v1(shifted, "fortran_order"),
                       "expected ',' or '}' after the value of 'descr'");
}

TEST(npy_read, rejects_missing_and_unknown_keys) {
  const std::string missing = "{'descr': '<f8', 'shape': (3, 4), }";
  expect_header_reject(npy_header(missing), at_v1(missing, "}"), "the .npy header has no 'fortran_order' key");
  const std::string unknown = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), 'extra': 1}";
  expect_header_reject(npy_header(unknown), at_v1(unknown, "'extra'"), "unknown key 'extra'");
  const std::string prefixed = "{b'descr': '<f8', 'fortran_order': False, 'shape': (3, 4)}";
  expect_header_reject(npy_header(prefixed), 11, "expected a quoted key");
  const std::string escaped = "{'de\\x73cr': '<f8', 'fortran_order': False, 'shape': (3, 4)}";
  expect_header_reject(npy_header(escaped), at_v1(escaped, "\\"), "escape sequence");
}

TEST(npy_read, rejects_shapes_that_are_not_tuples_of_decimal_ints) {
  struct Case {
    std::string shape, at, rule;
  };
  const std::vector<Case> cases = {
      {"(5)", "(5)", "shape (5) is not a tuple in Python; a 1-D shape is written (5,)"},
      {"[3, 4]", "[", "the value of 'shape' must be a tuple of ints"},
      {"(3, -4)", "-", "negative dimension"},
      {"(3, 04)", "04", "leading zero"},
      {"(3, 0x4)", "0x4", "not a plain decimal integer"},
      {"(3, 4.0)", "4.0", "not a plain decimal integer"},
      {"(3, 1_0)", "1_0", "not a plain decimal integer"},
      {"(3, True)", "True", "expected a non-negative decimal integer"},
      {"(3 4)", "4)", "expected ',' or ')' in the .npy shape"},
      {"(,)", ",)", "expected a non-negative decimal integer"},
      {"(3, 4", "}", "expected ',' or ')' in the .npy shape"},
      {"(3, 99999999999999999999)", "999", "does not fit in 64 bits"},
      {"(3L, 4)", "3L", "not a plain decimal integer"},  // Python 2's long suffix: 1.0 / 2.0 only
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.shape);
    const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': " + c.shape + "}";
    const std::string file = c.shape == "(3L, 4)" ? npy_header(dict, 3) : npy_header(dict);
    const std::size_t pre = c.shape == "(3L, 4)" ? 12 : 10;
    expect_header_reject(file, pre + dict.find(c.at, 40), c.rule);
  }
}

TEST(npy_read, rejects_bad_padding_and_termination) {
  // Data not on a 16-byte boundary.
  std::string h = npy_header(kDict, 1, 0, 64);
  std::string text = kDict + "\n";
  while ((10 + text.size()) % 16 == 0) text.insert(text.size() - 1, " ");
  const std::string odd = npy_raw(text);
  expect_header_reject(odd, odd.size(), "not a multiple of 16 (NumPy pads the header with spaces to a multiple of 64");
  // No final '\n'.
  std::string no_nl = h;
  no_nl.back() = ' ';
  expect_header_reject(no_nl, no_nl.size() - 1, "the .npy header does not end with '\\n'");
  // A newline before the padding is not padding.
  std::string early_nl = h;
  early_nl[10 + kDict.size()] = '\n';
  expect_header_reject(early_nl, 10 + kDict.size(), "unexpected byte 0x0a after the closing '}'");
  // A leading blank (literal_eval strips it, NumPy never writes it).
  expect_header_reject(npy_header(" " + kDict), 10, "the .npy header must start with '{'");
  // A zero-length header.
  expect_header_reject(npy_raw(""), 10, "does not end with '\\n'");
}

TEST(npy_read, rejects_bad_preamble) {
  expect_header_reject("", 0, "empty file");
  expect_header_reject("PK\x03\x04 zip", 0, "not a .npy file (bad magic");
  expect_header_reject(std::string("\x93NUMPY\x01", 7), 7, "the file ends inside the .npy magic and version bytes");
  expect_header_reject(std::string("\x93NUMPY\x02\x00\x40\x00", 10), 10, "the file ends inside the .npy header length");
  const std::string h = npy_header(kDict);
  expect_header_reject(
      h.substr(0, 40), 40,
      "truncated .npy header: the length field says " + std::to_string(h.size() - 10) + " header bytes");
  std::string huge = npy_raw(kDict + "\n", 2);
  huge[8] = 0x11;  // 10001 = 0x2711
  huge[9] = 0x27;
  expect_header_reject(huge, 8, "the .npy header length 10001 is over 10000 bytes, numpy.load's limit");
  std::string latin = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), '\xe9': 1}";
  expect_header_reject(npy_header(latin, 3), 12 + latin.find('\xe9'), "non-ASCII byte 0xe9 in the .npy header");
}

TEST_F(npy_read_file, rejects_unsupported_dtypes_naming_the_supported_ones) {
  for (const std::string descr : {">f8", "|u1", "<i4", "<f2", "|f8", "<c16", "f8", "<U3"}) {
    SCOPED_TRACE(descr);
    const std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2, 2), }";
    const std::string path = write("d.npy", npy_header(dict) + std::string(64, '\0'));
    const std::string msg = error_of_read(path);
    EXPECT_TRUE(contains(msg, ": byte " + std::to_string(at_v1(dict, "'" + descr)) + ": unsupported dtype '" + descr +
                                  "' (tdmaps reads '<f4' float32 and '<f8' float64, little-endian"))
        << msg;
  }
}

TEST_F(npy_read_file, rejects_fortran_order) {
  const std::string dict = "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 4), }";
  const std::string path = write("f.npy", npy_header(dict) + std::string(96, '\0'));
  const std::string msg = error_of_read(path);
  EXPECT_TRUE(contains(msg, ": byte " + std::to_string(at_v1(dict, "True")) +
                                ": the array is in Fortran (column-major) order; tdmaps reads C order"))
      << msg;
  EXPECT_TRUE(app::read_npy_header(path).fortran_order);
}

TEST_F(npy_read_file, rejects_shapes_other_than_2d) {
  for (const std::string shape : {"()", "(12,)", "(2, 3, 2)"}) {
    SCOPED_TRACE(shape);
    const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
    const std::string path = write("s.npy", npy_header(dict) + std::string(shape == "()" ? 8 : 96, '\0'));
    const std::string msg = error_of_read(path);
    EXPECT_TRUE(contains(msg, ": byte " + std::to_string(at_v1(dict, shape)) + ": expected a 2-D array")) << msg;
  }
}

TEST_F(npy_read_file, rejects_data_size_other_than_shape_times_itemsize) {
  const std::string h = npy_header(kDict);
  const std::string truncated = error_of_read(write("t.npy", h + std::string(88, '\0')));
  EXPECT_TRUE(contains(truncated, ": byte " + std::to_string(h.size()) +
                                      ": the data of shape (3, 4) '<f8' take 96 bytes, the file holds 88 after the "
                                      "header (truncated)"))
      << truncated;
  const std::string trailing = error_of_read(write("t.npy", h + std::string(104, '\0')));
  EXPECT_TRUE(
      contains(trailing, "take 96 bytes, the file holds 104 after the header (8 unexpected bytes after the data)"))
      << trailing;
  const std::string none = error_of_read(write("t.npy", h));
  EXPECT_TRUE(contains(none, "the file holds 0 after the header (truncated)")) << none;
  const std::string big = "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }";
  const std::string too_large = error_of_read(write("t.npy", npy_header(big)));
  EXPECT_TRUE(contains(too_large, "is too large")) << too_large;
}

TEST_F(npy_read_file, header_errors_from_a_file_name_the_path_and_offset) {
  const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), 'fortran_order': True, }";
  const std::string path = write("dup.npy", npy_header(dict) + std::string(96, '\0'));
  const std::string want = path + ": byte " + std::to_string(at_v1(dict, "'fortran_order'", 20)) + ": duplicate key";
  for (int reader = 0; reader < 3; ++reader) {
    try {
      if (reader == 0) app::read_npy_header(path);
      if (reader == 1) app::read_npy_2d<float>(path);
      if (reader == 2) app::read_matrix<double>(path);
      ADD_FAILURE() << "reader " << reader << " accepted " << path;
    } catch (const app::Error& e) {
      EXPECT_EQ(std::string(e.what()).compare(0, want.size(), want), 0) << e.what();
    }
  }
}

// ---- paths that are not regular files -----------------------------------------

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const app::Error& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST_F(npy_read_file, rejects_directories_devices_fifos_and_missing_paths) {
  const std::string sub = (fs::path(dir_) / "sub.npy").string();
  fs::create_directory(sub);
  const std::string fifo = (fs::path(dir_) / "pipe.npy").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  const std::string missing = (fs::path(dir_) / "missing.npy").string();
  struct Case {
    std::string path, want;
  };
  const std::vector<Case> cases = {{sub, sub + ": is a directory"},
                                   {dir_, dir_ + ": is a directory"},
                                   {"/dev/null", "/dev/null: is not a regular file (character device)"},
                                   {fifo, fifo + ": is not a regular file (fifo)"},
                                   {missing, missing + ": no such file"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    EXPECT_EQ(error_of([&] { app::read_matrix<double>(c.path); }), c.want);
    EXPECT_EQ(error_of([&] { app::read_matrix<float>(c.path); }), c.want);
    EXPECT_EQ(error_of([&] { app::read_npy_header(c.path); }), c.want);
    EXPECT_EQ(error_of([&] { app::read_npy_2d<double>(c.path); }), c.want);
    EXPECT_EQ(error_of([&] { app::read_csv<double>(c.path); }), c.want);
  }
}

// ---- acceptance ----------------------------------------------------------------

std::vector<double> test_values(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1e3, 1e3);
  std::vector<double> v(n);
  for (auto& x : v) x = u(rng) * std::pow(10.0, static_cast<int>(rng() % 41) - 20);
  const double specials[] = {0.0,
                             -0.0,
                             1.0,
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::max(),
                             -std::numeric_limits<double>::infinity()};
  for (std::size_t i = 0; i < n && i < 6; ++i) v[i] = specials[i];
  return v;
}

TEST_F(npy_read_file, reads_every_version_padding_and_dtype_bit_for_bit) {
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{3, 4}, {1, 1}, {0, 3}, {5, 2}, {17, 3}};
  std::uint64_t seed = 20240601;
  for (const int major : {1, 2, 3}) {
    for (const std::size_t align : {std::size_t{16}, std::size_t{64}}) {
      for (const bool f4 : {false, true}) {
        for (const auto& s : shapes) {
          SCOPED_TRACE("version " + std::to_string(major) + ".0, align " + std::to_string(align) + ", " +
                       (f4 ? "<f4" : "<f8") + ", shape (" + std::to_string(s.first) + ", " + std::to_string(s.second) +
                       "), seed " + std::to_string(seed));
          const std::vector<double> d = test_values(static_cast<std::size_t>(s.first * s.second), seed++);
          std::vector<float> f(d.size());
          for (std::size_t i = 0; i < d.size(); ++i) f[i] = static_cast<float>(d[i]);
          const std::string dict = std::string("{'descr': '") + (f4 ? "<f4" : "<f8") +
                                   "', 'fortran_order': False, 'shape': (" + std::to_string(s.first) + ", " +
                                   std::to_string(s.second) + "), }";
          const std::string head = npy_header(dict, major, 0, align);
          ASSERT_EQ(head.size() % align, 0u);
          const std::string path = write("ok.npy", head + (f4 ? bytes_of(f) : bytes_of(d)));

          const app::NpyHeader h = app::read_npy_header(path);
          EXPECT_EQ(h.major, major);
          EXPECT_EQ(h.minor, 0);
          EXPECT_EQ(h.descr, f4 ? "<f4" : "<f8");
          EXPECT_FALSE(h.fortran_order);
          EXPECT_EQ(h.shape, (std::vector<std::int64_t>{s.first, s.second}));
          EXPECT_EQ(h.data_offset, head.size());
          EXPECT_EQ(h.item_size, f4 ? 4u : 8u);

          const app::Matrix<double> md = app::read_matrix<double>(path);
          // A finite float64 past float32's range is refused when read as
          // float32 (never an inf in its place), naming the value.
          bool overflows = false;
          for (double v : d) overflows = overflows || (!f4 && std::isfinite(v) && std::isinf(static_cast<float>(v)));
          if (overflows) {
            try {
              (void)app::read_npy_2d<float>(path);
              ADD_FAILURE() << "a finite float64 past float32's range was read as float32";
            } catch (const app::Error& e) {
              EXPECT_NE(std::string(e.what()).find("overflows float32"), std::string::npos) << e.what();
            }
          }
          ASSERT_EQ(md.rows, s.first);
          ASSERT_EQ(md.cols, s.second);
          EXPECT_EQ(md.dtype, h.descr);
          std::vector<double> want_d(d.size());
          for (std::size_t i = 0; i < d.size(); ++i) want_d[i] = f4 ? static_cast<double>(f[i]) : d[i];
          EXPECT_EQ(bytes_of(md.values), bytes_of(want_d));
          if (overflows) continue;
          const app::Matrix<float> mf = app::read_npy_2d<float>(path);
          ASSERT_EQ(mf.rows, s.first);
          ASSERT_EQ(mf.cols, s.second);
          EXPECT_EQ(bytes_of(mf.values), bytes_of(f));
        }
      }
    }
  }
}

TEST_F(npy_read_file, reads_python_spellings_of_the_same_header) {
  const std::vector<std::string> dicts = {
      "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }",
      "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4)}",
      "{'shape': (3, 4,), 'fortran_order': False, 'descr': '<f8'}",
      "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (3,4)}",
      "{\n 'descr' : '<f8' ,\n\t'fortran_order':False,'shape':( 3 ,\n 4 , ) ,\n}",
      "{'fortran_order': False, 'descr': '<f8', 'shape': (3, 4)}       ",
  };
  const std::vector<double> d = test_values(12, 7);
  for (const auto& dict : dicts) {
    SCOPED_TRACE(dict);
    for (const int major : {1, 3}) {
      const std::string path = write("p.npy", npy_header(dict, major) + bytes_of(d));
      const app::Matrix<double> m = app::read_npy_2d<double>(path);
      EXPECT_EQ(m.rows, 3);
      EXPECT_EQ(m.cols, 4);
      EXPECT_EQ(bytes_of(m.values), bytes_of(d));
    }
  }
  // Python 2 wrote longs as "3L"; NumPy drops the 'L' in 1.0 and 2.0 headers.
  for (const int major : {1, 2}) {
    const std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3L, 4L), }";
    const app::NpyHeader h = app::parse_npy_header(npy_header(dict, major), "x.npy");
    EXPECT_EQ(h.shape, (std::vector<std::int64_t>{3, 4}));
  }
}

TEST_F(npy_read_file, reads_what_write_npy_writes) {
  const std::vector<double> d = test_values(6 * 5, 11);
  const std::string path = (fs::path(dir_) / "w.npy").string();
  app::write_npy(path, d.data(), {6, 5});
  const app::Matrix<double> m = app::read_matrix<double>(path);
  EXPECT_EQ(m.rows, 6);
  EXPECT_EQ(m.cols, 5);
  EXPECT_EQ(bytes_of(m.values), bytes_of(d));
}

TEST_F(npy_read_file, reads_csv_as_before) {
  const std::string path = write("m.csv", "# x, y\n1, 2.5\n\n-3,4e2\r\n");
  const app::Matrix<double> m = app::read_matrix<double>(path);
  EXPECT_EQ(m.rows, 2);
  EXPECT_EQ(m.cols, 2);
  EXPECT_EQ(m.values, (std::vector<double>{1, 2.5, -3, 400}));
  EXPECT_EQ(m.dtype, "csv");
  const std::string bad = write("b.csv", "1, 2\n3\n");
  EXPECT_TRUE(contains(error_of([&] { app::read_csv<double>(bad); }), bad + ":2: row 1 has 1 columns"));
}

}  // namespace
