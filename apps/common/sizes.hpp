#ifndef TDMAPS_APPS_COMMON_SIZES_HPP
#define TDMAPS_APPS_COMMON_SIZES_HPP

// Sizes of a run in bytes, for the checks every tool (and the Python module)
// makes before anything is allocated (target tdmaps::app_host). Sizes are
// int64 and saturate: a product or sum past 2^63 - 1 stays at size_max and
// is printed as "more than 2^63 bytes", never as a wrapped-around number.

#include <cstdint>
#include <limits>
#include <string>

namespace tdmaps {
namespace app {

constexpr std::int64_t size_max = std::numeric_limits<std::int64_t>::max();

/// a * b, or size_max when it does not fit (a, b >= 0).
inline std::int64_t mul_sat(std::int64_t a, std::int64_t b) {
  return b != 0 && a > size_max / b ? size_max : a * b;
}
/// a + b, or size_max when it does not fit (a, b >= 0).
inline std::int64_t add_sat(std::int64_t a, std::int64_t b) { return a > size_max - b ? size_max : a + b; }

/// Available physical memory of the host in bytes (MemAvailable, which
/// counts reclaimable page cache; else sysconf(_SC_AVPHYS_PAGES)).
std::int64_t host_available_bytes();

/// "1.07 GB (1073741824 bytes)".
std::string format_bytes(std::int64_t bytes);

/// format_bytes, or "more than 2^63 bytes" for a saturated size.
inline std::string bytes_text(std::int64_t b) {
  return b == size_max ? std::string("more than 2^63 bytes") : format_bytes(b);
}

}  // namespace app
}  // namespace tdmaps

#endif
