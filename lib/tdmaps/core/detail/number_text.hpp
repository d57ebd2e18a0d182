#ifndef TDMAPS_CORE_DETAIL_NUMBER_TEXT_HPP
#define TDMAPS_CORE_DETAIL_NUMBER_TEXT_HPP

// Values in error messages as the user typed them: the shortest text that
// reads back as the same double ("1e-10", "1.1", "3e+38"), never %f's
// "0.000000" for a small value or std::to_string's six decimals.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tdmaps {
namespace detail {

/// The shortest "%.*g" text that reads back as v; "nan", "inf", "-inf".
inline std::string number_text(const double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

/// "float32" / "float64": the name NumPy gives the points' precision.
template <class Real>
inline const char* real_name() {
  return sizeof(Real) == sizeof(float) ? "float32" : "float64";
}

}  // namespace detail
}  // namespace tdmaps

#endif
