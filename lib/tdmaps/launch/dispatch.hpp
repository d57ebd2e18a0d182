#ifndef TDMAPS_LAUNCH_DISPATCH_HPP
#define TDMAPS_LAUNCH_DISPATCH_HPP

// Run-time choice of a map by name, for CLIs and benchmarks:
//   with_map(MapSpec{"lambda", "rsqrt", "exact"}, domain, [&](auto map) { ... });
// calls the generic callable with the map value of the requested type. Unknown
// names throw std::invalid_argument listing what is known.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/maps/bounding_box.hpp>
#include <tdmaps/maps/hadouken.hpp>
#include <tdmaps/maps/lambda.hpp>
#include <tdmaps/maps/rectangular_box.hpp>
#include <tdmaps/maps/recursive.hpp>
#include <tdmaps/maps/upper_triangular.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace tdmaps {

struct MapSpec {
  std::string map = "lambda";  ///< bb, lambda, rb, rec, utm
  std::string sqrt = "rsqrt";  ///< lambda only: sqrt, newton, rsqrt, fp64
  std::string form = "exact";  ///< lambda only: exact, eps

  /// e.g. "lambda_rsqrt", "lambda_rsqrt_eps", "bb".
  std::string label() const {
    if (map != "lambda") return map;
    return "lambda_" + sqrt + (form == "exact" ? "" : "_" + form);
  }
};

inline const std::vector<std::string>& map_names() {
  static const std::vector<std::string> names{"bb", "h", "lambda", "rb", "rec", "utm"};
  return names;
}
inline const std::vector<std::string>& sqrt_names() {
  static const std::vector<std::string> names{"sqrt", "newton", "rsqrt", "fp64"};
  return names;
}
inline const std::vector<std::string>& form_names() {
  static const std::vector<std::string> names{"exact", "eps"};
  return names;
}

namespace impl {
inline std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
template <class Sqrt, class F>
void with_lambda_form(const MapSpec& spec, const Domain2& d, F&& f) {
  if (spec.form == "exact") f(LambdaMap<Sqrt, Exact>(d));
  else if (spec.form == "eps") f(LambdaMap<Sqrt, Epsilon>(d));
  else throw std::invalid_argument("tdmaps: unknown lambda form '" + spec.form + "' (known: " + join(form_names()) + ")");
}
}  // namespace impl

/// Calls f(map) with the block- or thread-space map named by spec over d.
/// `block_space_only` rejects thread-space maps (for tile kernels) with a clear message.
template <class F>
void with_map(const MapSpec& spec, const Domain2& d, F&& f, bool block_space_only = false) {
  if (spec.map == "bb") f(BoundingBoxMap(d));
  else if (spec.map == "rb") f(RectangularBoxMap(d));
  else if (spec.map == "rec") f(RecursiveMap(d));
  else if (spec.map == "h") f(HadoukenMap(d));
  else if (spec.map == "utm") {
    if (block_space_only)
      throw std::invalid_argument("tdmaps: map 'utm' is a thread-space map and cannot run a tile kernel; "
                                  "use bb, lambda, rb, rec or h, or an element kernel");
    f(UpperTriangularMap(d));
  } else if (spec.map == "lambda") {
    if (spec.sqrt == "sqrt") impl::with_lambda_form<SqrtIEEE>(spec, d, f);
    else if (spec.sqrt == "newton") impl::with_lambda_form<SqrtNewton>(spec, d, f);
    else if (spec.sqrt == "rsqrt") impl::with_lambda_form<SqrtRsqrt>(spec, d, f);
    else if (spec.sqrt == "fp64") impl::with_lambda_form<SqrtDouble>(spec, d, f);
    else throw std::invalid_argument("tdmaps: unknown sqrt variant '" + spec.sqrt + "' (known: " + impl::join(sqrt_names()) + ")");
  } else {
    throw std::invalid_argument("tdmaps: unknown map '" + spec.map + "' (known: " + impl::join(map_names()) + ")");
  }
}

}  // namespace tdmaps

#endif
