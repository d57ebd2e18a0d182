#ifndef TDMAPS_PERF_TESTS_APP_MAPS_HPP
#define TDMAPS_PERF_TESTS_APP_MAPS_HPP

// The maps the app benchmarks (EDM, collision) run: BB, the exact rsqrt
// lambda, RB, REC, Hadouken and UTM (element kernels only). Fewer than the
// dummy's thirteen, because each map type instantiates every app kernel once
// more (nvcc time); the lambda variants are compared on the dummy and sink.

#include <tdmaps/tdmaps.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace tdmaps_bench {

inline const std::vector<std::string>& app_map_labels() {
  static const std::vector<std::string> labels{"bb", "lambda_rsqrt", "rb", "rec", "hadouken", "utm"};
  return labels;
}

/// f(map) with the map of `label` (one of app_map_labels()) over d.
template <class F>
void with_app_map(const std::string& label, const tdmaps::Domain2& d, F&& f) {
  if (label == "bb") f(tdmaps::BoundingBoxMap(d));
  else if (label == "lambda_rsqrt") f(tdmaps::LambdaMap<tdmaps::SqrtRsqrt, tdmaps::Exact>(d));
  else if (label == "rb") f(tdmaps::RectangularBoxMap(d));
  else if (label == "rec") f(tdmaps::RecursiveMap(d));
  else if (label == "hadouken" || label == "h") f(tdmaps::HadoukenMap(d));
  else if (label == "utm") f(tdmaps::UpperTriangularMap(d));
  else throw std::invalid_argument("tdmaps_bench: no app benchmark for map '" + label + "'");
}

inline bool is_thread_space_label(const std::string& label) { return label == "utm"; }

}  // namespace tdmaps_bench

#endif
