#ifndef TDMAPS_LAUNCH_DISPATCH_HPP
#define TDMAPS_LAUNCH_DISPATCH_HPP

// Run-time choice of a map by name, for CLIs and benchmarks:
//   with_map(MapSpec{"lambda", "rsqrt", "exact"}, domain, [&](auto map) { ... });
// calls the generic callable with the map value of the requested type. Unknown
// names throw std::invalid_argument listing what is known. A map's name here
// is its Map::name; a few maps also answer to a short alias (map_aliases()).

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/sqrt.hpp>
#include <tdmaps/maps/bounding_box.hpp>
#include <tdmaps/maps/hadouken.hpp>
#include <tdmaps/maps/lambda.hpp>
#include <tdmaps/maps/rectangular_box.hpp>
#include <tdmaps/maps/recursive.hpp>
#include <tdmaps/maps/upper_triangular.hpp>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tdmaps {

/// The maps with_map knows, by name (Map::name).
inline const std::vector<std::string>& map_names() {
  static const std::vector<std::string> names{"bb", "hadouken", "lambda", "rb", "rec", "utm"};
  return names;
}
/// Short names with_map also accepts: {alias, name}.
inline const std::vector<std::pair<std::string, std::string>>& map_aliases() {
  static const std::vector<std::pair<std::string, std::string>> aliases{{"h", "hadouken"}};
  return aliases;
}
/// Every string with_map accepts as MapSpec::map: the names, then the aliases
/// (for a CLI's check of --map).
inline const std::vector<std::string>& accepted_map_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = map_names();
    for (const auto& a : map_aliases()) v.push_back(a.first);
    return v;
  }();
  return names;
}
/// The name a map string stands for: an alias resolved, anything else as is.
inline std::string canonical_map_name(const std::string& map) {
  for (const auto& a : map_aliases())
    if (a.first == map) return a.second;
  return map;
}
inline const std::vector<std::string>& sqrt_names() {
  static const std::vector<std::string> names{"sqrt", "newton", "rsqrt", "fp64"};
  return names;
}
inline const std::vector<std::string>& form_names() {
  static const std::vector<std::string> names{"exact", "eps"};
  return names;
}
/// "a, b, c": a list of names for help texts and messages.
inline std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& x : names) s += (s.empty() ? "" : ", ") + x;
  return s;
}

struct MapSpec {
  std::string map = "lambda";  ///< one of map_names() or an alias (map_aliases())
  std::string sqrt = "rsqrt";  ///< lambda only: one of sqrt_names()
  std::string form = "exact";  ///< lambda only: one of form_names()

  /// e.g. "lambda_rsqrt", "lambda_rsqrt_eps", "bb", "hadouken" (aliases resolved).
  std::string label() const {
    const std::string m = canonical_map_name(map);
    if (m != "lambda") return m;
    return "lambda_" + sqrt + (form == "exact" ? "" : "_" + form);
  }
};

/// Calls f(map) with the block- or thread-space map named by spec over d.
/// `block_space_only` rejects thread-space maps (for tile kernels) with a clear message.
template <class F>
void with_map(const MapSpec& spec, const Domain2& d, F&& f, bool block_space_only = false) {
  // The lambda forms of one square-root tag (an empty value of the tag type).
  const auto with_form = [&](auto sqrt_tag) {
    using Sqrt = decltype(sqrt_tag);
    if (spec.form == "exact")
      f(LambdaMap<Sqrt, Exact>(d));
    else if (spec.form == "eps")
      f(LambdaMap<Sqrt, Epsilon>(d));
    else
      throw std::invalid_argument("tdmaps: unknown lambda form '" + spec.form +
                                  "' (known: " + join_names(form_names()) + ")");
  };
  const std::string map = canonical_map_name(spec.map);
  if (map == "bb")
    f(BoundingBoxMap(d));
  else if (map == "rb")
    f(RectangularBoxMap(d));
  else if (map == "rec")
    f(RecursiveMap(d));
  else if (map == "hadouken")
    f(HadoukenMap(d));
  else if (map == "utm") {
    if (block_space_only)
      throw std::invalid_argument(
          "tdmaps: map 'utm' is a thread-space map and cannot run a tile kernel; "
          "use bb, hadouken, lambda, rb or rec, or an element kernel");
    f(UpperTriangularMap(d));
  } else if (map == "lambda") {
    if (spec.sqrt == "sqrt")
      with_form(SqrtIEEE{});
    else if (spec.sqrt == "newton")
      with_form(SqrtNewton{});
    else if (spec.sqrt == "rsqrt")
      with_form(SqrtRsqrt{});
    else if (spec.sqrt == "fp64")
      with_form(SqrtDouble{});
    else
      throw std::invalid_argument("tdmaps: unknown sqrt variant '" + spec.sqrt +
                                  "' (known: " + join_names(sqrt_names()) + ")");
  } else {
    std::vector<std::string> aliases;
    for (const auto& a : map_aliases()) aliases.push_back(a.first + " = " + a.second);
    throw std::invalid_argument("tdmaps: unknown map '" + spec.map + "' (known: " + join_names(map_names()) +
                                "; aliases: " + join_names(aliases) + ")");
  }
}

}  // namespace tdmaps

#endif
