#ifndef TDMAPS_COLLISION_NAMES_HPP
#define TDMAPS_COLLISION_NAMES_HPP

// The names of collide()'s results and kernels as the CLI (--result,
// --kernel) and the Python module (result=, kernel=) spell them, both ways,
// and the size of each result array, so every front end checks, words and
// sizes them alike.

#include <tdmaps/collision/launch.hpp>
#include <tdmaps/collision/result.hpp>
#include <tdmaps/core/types.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tdmaps {
namespace collision {

/// Every result's name, the default (count) first.
inline const std::vector<std::string>& result_names() {
  static const std::vector<std::string> names{"count", "pairs", "flags", "rowflags", "tileflags", "intflags"};
  return names;
}

/// The result named s (name(Result)'s inverse); empty for an unknown name.
inline std::optional<Result> result_from_name(const std::string& s) {
  for (Result r : {Result::count, Result::flags, Result::pairs, Result::intflags, Result::rowflags, Result::tileflags})
    if (s == name(r)) return r;
  return std::nullopt;
}

/// Every kernel's name, the default (tile) first.
inline const std::vector<std::string>& kernel_names() {
  static const std::vector<std::string> names{"tile", "element", "linear"};
  return names;
}

/// The kernel named s (name(Kernel)'s inverse); empty for an unknown name.
inline std::optional<Kernel> kernel_from_name(const std::string& s) {
  for (Kernel k : {Kernel::tile, Kernel::element, Kernel::linear})
    if (s == name(k)) return k;
  return std::nullopt;
}

/// Entries of the result array for n spheres: uint32 words of the flag
/// layouts, int32 entries of intflags; 0 for count and pairs (a list whose
/// length is the count).
inline index_t result_words(Result r, index_t n) {
  switch (r) {
    case Result::flags: return flag_words(n);
    case Result::rowflags: return row_flag_words(n);
    case Result::tileflags: return tile_flag_words(n);
    case Result::intflags: return pair_count(n);
    default: return 0;
  }
}

/// The result array's NumPy dtype ("uint32", or "int32" for intflags).
inline const char* result_dtype(Result r) { return r == Result::intflags ? "int32" : "uint32"; }

}  // namespace collision
}  // namespace tdmaps

#endif
