// Test driver of apps/common/tests/fuzz_npy.py: reads each file named on the command
// line (or, for an argument "@list", each line of the file list) with
// tdmaps::app::read_matrix<double> and prints one line per file:
//   ok <dtype> <rows> <cols> <fnv1a-64 of the values as float64 little-endian>
//   reject <message, control characters written as \xNN>
// One process for thousands of files keeps the fuzz run short.
#include <npy.hpp>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

namespace {

std::uint64_t fnv1a(const std::vector<double>& values) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const double v : values) {
    unsigned char b[8];
    std::memcpy(b, &v, 8);  // the reader needs a little-endian host anyway
    for (const unsigned char c : b) h = (h ^ c) * 0x100000001b3ull;
  }
  return h;
}

void probe(const std::string& path) {
  try {
    const auto m = tdmaps::app::read_matrix<double>(path);
    char hash[24];
    std::snprintf(hash, sizeof hash, "%016" PRIx64, fnv1a(m.values));
    std::cout << "ok " << m.dtype << ' ' << m.rows << ' ' << m.cols << ' ' << hash << '\n';
  } catch (const tdmaps::app::Error& e) {
    std::string line;
    for (const char c : std::string(e.what())) {
      if (static_cast<unsigned char>(c) >= 0x20) {
        line += c;
      } else {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
        line += buf;
      }
    }
    std::cout << "reject " << line << '\n';
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  if (argc < 2) {
    std::cerr << "usage: tdmaps_npy_probe file.npy... | @list\n";
    return 2;
  }
  for (int a = 1; a < argc; ++a) {
    if (argv[a][0] == '@') {
      std::ifstream list(argv[a] + 1);
      if (!list) {
        std::cerr << "tdmaps_npy_probe: cannot read " << (argv[a] + 1) << '\n';
        return 2;
      }
      for (std::string path; std::getline(list, path);)
        if (!path.empty()) probe(path);
    } else {
      probe(argv[a]);
    }
  }
  std::cout.flush();
  return std::cout ? 0 : 1;
}
