#ifndef TDMAPS_MAPS_DISPATCH_HPP
#define TDMAPS_MAPS_DISPATCH_HPP

// Run-time choice of a map by name, for CLIs and benchmarks:
//   with_map(MapSpec{"lambda", "rsqrt", "exact"}, domain, [&](auto map) { ... });
// calls the generic callable with the map value of the requested type. Unknown
// names throw std::invalid_argument listing what is known. A map's name here
// is its Map::name; a few maps also answer to a short alias (map_aliases()).
// with_map3(MapSpec3{"lambda3", "cbrt", "exact"}, domain3, f) does the same
// for the 3-D maps.

#include <tdmaps/core/cbrt.hpp>
#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/sqrt.hpp>
#include <tdmaps/maps/bounding_box.hpp>
#include <tdmaps/maps/bounding_box3.hpp>
#include <tdmaps/maps/hadouken.hpp>
#include <tdmaps/maps/lambda.hpp>
#include <tdmaps/maps/lambda3.hpp>
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
/// The square-root algorithms of lambda with_map knows (MapSpec::sqrt): SqrtIEEE, SqrtNewton, SqrtRsqrt, SqrtDouble.
inline const std::vector<std::string>& sqrt_names() {
  static const std::vector<std::string> names{"sqrt", "newton", "rsqrt", "fp64"};
  return names;
}
/// The forms of lambda and lambda3 (MapSpec::form, MapSpec3::form): Exact, Epsilon.
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

/// A 2-D map by name, as a CLI or a benchmark names it (with_map).
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

/// \brief The lambda map spec names (spec.map "lambda") as a RuntimeLambdaMap
/// over d: with_map's LambdaMap<Sqrt, Form>, block for block, as one type.
/// Throws std::invalid_argument for an unknown sqrt (checked first) or form,
/// and for a map other than lambda. with_map reads lambda's names through it.
inline RuntimeLambdaMap runtime_lambda_map(const MapSpec& spec, const Domain2& d) {
  if (canonical_map_name(spec.map) != "lambda")
    throw std::invalid_argument("tdmaps::runtime_lambda_map: map '" + spec.map + "' is not lambda");
  LambdaSqrt sqrt = LambdaSqrt::rsqrt;
  if (spec.sqrt == "sqrt") sqrt = LambdaSqrt::ieee;
  else if (spec.sqrt == "newton") sqrt = LambdaSqrt::newton;
  else if (spec.sqrt == "fp64") sqrt = LambdaSqrt::fp64;
  else if (spec.sqrt != "rsqrt")
    throw std::invalid_argument("tdmaps: unknown sqrt variant '" + spec.sqrt + "' (known: " +
                                join_names(sqrt_names()) + ")");
  LambdaForm form = LambdaForm::exact;
  if (spec.form == "eps") form = LambdaForm::eps;
  else if (spec.form != "exact")
    throw std::invalid_argument("tdmaps: unknown lambda form '" + spec.form + "' (known: " +
                                join_names(form_names()) + ")");
  return RuntimeLambdaMap(d, sqrt, form);
}

/// Calls f(map) with the block- or thread-space map named by spec over d.
/// `block_space_only` rejects thread-space maps (for tile kernels) with a clear message.
template <class F>
void with_map(const MapSpec& spec, const Domain2& d, F&& f, bool block_space_only = false) {
  // The lambda forms of one square-root tag (an empty value of the tag type).
  const auto with_form = [&](auto sqrt_tag, LambdaForm form) {
    using Sqrt = decltype(sqrt_tag);
    if (form == LambdaForm::exact) f(LambdaMap<Sqrt, Exact>(d));
    else f(LambdaMap<Sqrt, Epsilon>(d));
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
    const RuntimeLambdaMap variant = runtime_lambda_map(spec, d);  // the names read, or their errors
    switch (variant.sqrt) {
      case LambdaSqrt::ieee: with_form(SqrtIEEE{}, variant.form); break;
      case LambdaSqrt::newton: with_form(SqrtNewton{}, variant.form); break;
      case LambdaSqrt::rsqrt: with_form(SqrtRsqrt{}, variant.form); break;
      case LambdaSqrt::fp64: with_form(SqrtDouble{}, variant.form); break;
    }
  } else {
    std::vector<std::string> aliases;
    for (const auto& a : map_aliases()) aliases.push_back(a.first + " = " + a.second);
    throw std::invalid_argument("tdmaps: unknown map '" + spec.map + "' (known: " + join_names(map_names()) +
                                "; aliases: " + join_names(aliases) + ")");
  }
}

/// The 3-D maps with_map3 knows, by name (Map::name).
inline const std::vector<std::string>& map3_names() {
  static const std::vector<std::string> names{"bb3", "lambda3"};
  return names;
}
/// The layer guesses of lambda3 (core/cbrt.hpp): CbrtFloat, CbrtCardano, CbrtDouble.
inline const std::vector<std::string>& cbrt_names() {
  static const std::vector<std::string> names{"cbrt", "cardano", "fp64"};
  return names;
}

/// A 3-D map by name (with_map3).
struct MapSpec3 {
  std::string map = "lambda3";  ///< one of map3_names()
  std::string cbrt = "cbrt";    ///< lambda3 only: one of cbrt_names()
  std::string form = "exact";   ///< lambda3 only: one of form_names()

  /// e.g. "bb3", "lambda3_cbrt", "lambda3_cardano_eps".
  std::string label() const {
    if (map != "lambda3") return map;
    return "lambda3_" + cbrt + (form == "exact" ? "" : "_" + form);
  }
};

/// Calls f(map) with the 3-D map named by spec over d. lambda3's 2-D part
/// takes the rsqrt lambda after a single-precision guess and the fp64 one
/// after CbrtDouble.
template <class F>
void with_map3(const MapSpec3& spec, const Domain3& d, F&& f) {
  const auto with_form = [&](auto cbrt_tag, auto sqrt_tag) {
    using Cbrt = decltype(cbrt_tag);
    using Sqrt = decltype(sqrt_tag);
    if (spec.form == "exact")
      f(Lambda3Map<Cbrt, Sqrt, Exact>(d));
    else if (spec.form == "eps")
      f(Lambda3Map<Cbrt, Sqrt, Epsilon>(d));
    else
      throw std::invalid_argument("tdmaps: unknown lambda3 form '" + spec.form +
                                  "' (known: " + join_names(form_names()) + ")");
  };
  if (spec.map == "bb3") {
    f(BoundingBox3Map(d));
  } else if (spec.map == "lambda3") {
    if (spec.cbrt == "cbrt")
      with_form(CbrtFloat{}, SqrtRsqrt{});
    else if (spec.cbrt == "cardano")
      with_form(CbrtCardano{}, SqrtRsqrt{});
    else if (spec.cbrt == "fp64")
      with_form(CbrtDouble{}, SqrtDouble{});
    else
      throw std::invalid_argument("tdmaps: unknown cube-root variant '" + spec.cbrt +
                                  "' (known: " + join_names(cbrt_names()) + ")");
  } else {
    throw std::invalid_argument("tdmaps: unknown 3-D map '" + spec.map + "' (known: " + join_names(map3_names()) + ")");
  }
}

}  // namespace tdmaps

#endif
