#ifndef TDMAPS_EDM_HISTOGRAM_HPP
#define TDMAPS_EDM_HISTOGRAM_HPP

// pair_histogram (reduce.hpp lists the reductions) and its bins, NumPy's:
// counts equal np.histogram(d[d < R], B, (0, R))[0] for the distances d of
// the pairs in the points' precision and R = rmax in that precision too
// (fp32 points: R = float(rmax), NumPy's range=(0, np.float32(rmax)), so
// that every edge is NumPy's for float32 data given a float32 range). The
// edges are np.linspace(0, R, B + 1)'s: edge_b = b * (R / B) in fp64 (b / B *
// R where R / B underflows to 0), the last one R itself, rounded to the
// points' precision (np.histogram's edges take the data's dtype); a distance
// r is in bin b when edge_b <= r < edge_{b+1}, so a value on an edge is in
// the bin it starts, and r >= R or NaN is in no bin. An rmax that is not a
// finite value > 0 in the points' precision is refused (make_bins).
//
// NumPy 2 builds float32 edges in float32 arithmetic (NEP 50: linspace's
// Python-float terms no longer promote to float64): edge_b = b * (R / B)
// with R / B and the product rounded to float32 (b / B * R where R / B is
// 0). EdgeArithmetic::points gives those; EdgeArithmetic::fp64 (the
// default, the CLI's) NumPy 1's. For fp64 points the two are the same edges.

#include <tdmaps/core/detail/number_text.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/element.hpp>
#include <tdmaps/edm/pair_column.hpp>
#include <tdmaps/edm/point_law.hpp>
#include <tdmaps/edm/tiled.hpp>
#include <tdmaps/kokkos_ext/lanes.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/pair_reduce_law.hpp>
#include <tdmaps/launch/pair_sums.hpp>
#include <tdmaps/launch/reduce.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace edm {

/// Largest number of bins of pair_histogram (the tdmaps-edm and Python limit too).
constexpr int max_histogram_bins = 1 << 24;

/// \brief The arithmetic of pair_histogram's edges b * (R / B) (this file's top):
/// fp64, then rounded to the points' precision (NumPy 1's float32 edges), or
/// the points' precision throughout (NumPy 2's). The same edges for fp64 points.
enum class EdgeArithmetic { fp64, points };

namespace detail {

/// How hist_edge forms the edges: HistBins::form, one byte of bits, so that
/// the walk that carries HistBins per pair and the out-of-line hist_locate
/// hold no more for the edges' arithmetic than fp64 edges alone need.
/// hist_tiny: R / B underflows to 0 in fp64 (edge_b = b / B * R, as
/// linspace); hist_in_real: the edges in Real (EdgeArithmetic::points).
constexpr unsigned char hist_tiny = 1, hist_in_real = 2;

/// R / B in Real: the step of the edges in Real (hist_in_real), which
/// make_bins checks and hist_locate computes again, so that HistBins need
/// not hold it.
template <class Real>
KOKKOS_INLINE_FUNCTION Real hist_step_in_real(const Real rmax, const int bins) {
  return rmax / static_cast<Real>(bins);
}

/// The edge b of linspace(0, R, B + 1) in Real (the last one R itself):
/// in fp64 then rounded, or (hist_in_real) in Real with step_r = R / B in Real.
template <class Real>
KOKKOS_INLINE_FUNCTION Real hist_edge(const int b, const int bins, const double R, const double step, const Real rmax,
                                      const unsigned char form, const Real step_r) {
  if (b >= bins) return rmax;
  if (form & hist_in_real)
    return step_r == Real(0) ? static_cast<Real>(b) / static_cast<Real>(bins) * rmax : static_cast<Real>(b) * step_r;
  return static_cast<Real>((form & hist_tiny) ? static_cast<double>(b) / bins * R : static_cast<double>(b) * step);
}

/// The b with edge_b <= r < edge_{b+1} from a guess b in [0, B - 1]: the
/// guess is at most a few bins off (make_bins) where the Reals are normal,
/// so a few steps; a bisection otherwise. Out of line: the few distances
/// near an edge take it, and the walk that calls bin(r) per pair keeps its
/// registers to the guess.
template <class Real>
__attribute__((noinline)) KOKKOS_FUNCTION int hist_locate(const Real r, int b, const int bins, const double R,
                                                          const double step, const Real rmax,
                                                          const unsigned char form) {
  const Real step_r = hist_step_in_real(rmax, bins);
  for (int k = 0; k < 8; ++k) {
    if (r < hist_edge(b, bins, R, step, rmax, form, step_r)) --b;                 // edge_0 = 0 <= r: b > 0 here
    else if (!(r < hist_edge(b + 1, bins, R, step, rmax, form, step_r))) ++b;  // r < edge_B: b + 1 < B here
    else return b;
  }
  int lo = 0, hi = bins;  // edge_lo <= r < edge_hi
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (hist_edge(mid, bins, R, step, rmax, form, step_r) <= r) lo = mid;
    else hi = mid;
  }
  return lo;
}

/// The bins of R = rmax and B bins for Real distances (make_bins): bin(r).
/// The bin is guessed as floor(r * B / R) in Real and checked against the
/// edges only where an edge may lie between r and the guess (see make_bins),
/// so most distances cost a multiply and no edge.
template <class Real>
struct HistBins {
  double R = 1, step = 1;  // rmax and R / B in fp64 (the edges' terms)
  Real rmax = 1;           // edge_B
  Real scale = 1;          // B / R: the guess
  Real near = 2, far = -1;  // the guess stands when its fraction lies in (near, far)
  int bins = 1;
  unsigned char form = 0;  // hist_tiny, hist_in_real (hist_edge)

  KOKKOS_INLINE_FUNCTION int locate(const Real r, const int b) const {
    return hist_locate(r, b, bins, R, step, rmax, form);
  }
  /// The bin of a distance r >= 0, -1 for none (r >= rmax, or NaN).
  KOKKOS_FORCEINLINE_FUNCTION int operator()(const Real r) const {
    if (!(r < rmax)) return -1;
    const Real t = r * scale;
    if (!(t < static_cast<Real>(bins))) return locate(r, bins - 1);
    const int b = static_cast<int>(t);
    const Real f = t - static_cast<Real>(b);  // exact: b < 2^24
    return f > near && f < far ? b : locate(r, b);
  }
};

/// The bins of rmax (finite, > 0) and 1 .. 2^24 bins. Error bound of the
/// guess, in bins (u = epsilon / 2 of Real): t = r * scale is within 2u t of
/// r B / R, and an edge edge_b within u b (+ fp64's 2^-52 b) of b R / B, so
/// when t's fraction is more than 4 eps B = 8u B from an integer no edge
/// lies between r and floor(t) and the guess is the bin. The bound needs
/// R / B, B / R and R normal Reals; outside that range (and where 4 eps B >=
/// 1/2, fp32 beyond 2^20 bins) every distance is located against the edges.
/// Edges in Real (EdgeArithmetic::points) are within 2u b of b R / B, inside
/// the same bound; they need R / B normal in Real too.
template <class Real>
HistBins<Real> make_bins(const double rmax_given, const int bins, const EdgeArithmetic edges = EdgeArithmetic::fp64) {
  using lim = std::numeric_limits<Real>;
  // R in the points' precision: np.histogram's float32 edges of a float32 range.
  const double rmax = static_cast<double>(static_cast<Real>(rmax_given));
  if (!(rmax > 0) || !std::isfinite(rmax))
    throw std::invalid_argument("tdmaps::edm::pair_histogram: rmax = " + tdmaps::detail::number_text(rmax_given) +
                                " is " + tdmaps::detail::number_text(rmax) + " in " + tdmaps::detail::real_name<Real>() +
                                " (need a finite value > 0 in the points' precision)");
  HistBins<Real> h;
  h.R = rmax;
  h.bins = bins;
  h.step = rmax / bins;
  h.rmax = static_cast<Real>(rmax);
  const bool in_real = edges == EdgeArithmetic::points;
  h.form = static_cast<unsigned char>((h.step == 0 ? hist_tiny : 0) | (in_real ? hist_in_real : 0));
  const Real step_r = hist_step_in_real(h.rmax, bins);
  const double scale = bins / rmax;
  h.scale = static_cast<Real>(scale);
  const auto normal = [](double v) { return v >= static_cast<double>(lim::min()) && v <= static_cast<double>(lim::max()); };
  if (normal(h.step) && normal(scale) && normal(rmax) && (!in_real || normal(static_cast<double>(step_r)))) {
    h.near = Real(4) * lim::epsilon() * static_cast<Real>(bins);
    h.far = Real(1) - h.near;
  }
  return h;
}

/// pair_histogram's kernel: the bin of the distance, -1 for none.
template <class Real, class Points, int D>
struct HistogramKernel {
  Points x;
  HistBins<Real> bin;
  struct Column {
    ColumnPoint<Real, D> p;
    HistBins<Real> bin;
    KOKKOS_FORCEINLINE_FUNCTION int operator()(const index_t i, const index_t) const {
      return bin(sqrt_real(p.sq(i)));  // direct_dist(x, i, j, d)
    }
  };
  KOKKOS_FORCEINLINE_FUNCTION Column column(const index_t j) const { return {column_point<D>(x, j), bin}; }
  KOKKOS_FUNCTION int operator()(const index_t i, const index_t j) const { return column(j)(i, j); }
};

template <class Points, class Map, class Counts>
void check_histogram(const Points& points, const Map& map, double rmax, const Counts& counts) {
  using Real = typename Points::non_const_value_type;
  check_points<Real>(points, "tdmaps::edm::pair_histogram");
  check_map(map, points.extent(0), "tdmaps::edm::pair_histogram");
  if (!(rmax > 0) || !std::isfinite(rmax))
    throw std::invalid_argument("tdmaps::edm::pair_histogram: rmax = " + tdmaps::detail::number_text(rmax) +
                                " (need a finite value > 0)");
  if (counts.extent(0) < 1 || counts.extent(0) > static_cast<std::size_t>(max_histogram_bins))
    throw std::invalid_argument("tdmaps::edm::pair_histogram: " + std::to_string(counts.extent(0)) +
                                " bins (need 1 .. 2^24)");
}

template <int D, class Points, class Counts>
HistogramKernel<typename Points::non_const_value_type, Points, D> histogram_kernel(const Points& points, double rmax,
                                                                                   const Counts& counts,
                                                                                   EdgeArithmetic edges = EdgeArithmetic::fp64) {
  using Real = typename Points::non_const_value_type;
  return {points, make_bins<Real>(rmax, static_cast<int>(counts.extent(0)), edges)};
}

/// pair_histogram's pair law (histogram_pair_law) for points of D = 2 .. 4
/// coordinates back to back: the bin of the distance, -1 for none; the
/// same bins as HistogramKernel (point_law.hpp: the same squared distance).
template <class Real, int D>
struct BinLaw : PointLaw<Real, D> {
  using typename PointLaw<Real, D>::point_type;
  HistBins<Real> bin;
  KOKKOS_FORCEINLINE_FUNCTION int operator()(const point_type& a, const point_type& b) const {
    return bin(sqrt_real(PointLaw<Real, D>::sq(a, b)));
  }
};

/// On GPU backends, points of D = 2 .. 4 coordinates back to back: the law
/// above through the public histogram_pair_law walk over part `part` of
/// `parts` of its league, and true; otherwise false (the caller runs
/// histogram_pairs).
template <class ExecSpace, class Points, class Map, class Counts, int D>
bool histogram_law_if(const ExecSpace& space, const Points& points, const Map& map, index_t part, index_t parts,
                      double rmax, EdgeArithmetic edges, const Counts& counts, const LaunchHints& hints,
                      const std::string& label,
                      std::integral_constant<int, D>) {
  if constexpr (intrinsics::lane_width<ExecSpace>::value > 1 && D >= 2) {
    using Real = typename Points::non_const_value_type;
    BinLaw<Real, D> law;
    law.x = points.data();
    law.bin = make_bins<Real>(rmax, static_cast<int>(counts.extent(0)), edges);
    if (map.domain.n < 2) return true;
    if constexpr (!is_multi_launch_map_v<Map>) {
      if (parts > 1) {
        histogram_pair_law_part(space, map, part, parts, law, counts, PairDiagonal::exclude, label, hints);
        return true;
      }
    }
    histogram_pair_law(space, map, law, counts, PairDiagonal::exclude, label, hints);
    return true;
  }
  (void)space, (void)points, (void)map, (void)part, (void)parts, (void)rmax, (void)edges, (void)counts, (void)hints,
      (void)label;
  return false;
}

/// pair_histogram's law for the dimension-tiled walk (histogram_pair_sums):
/// the bin of the distance of the pair's squared distance, as HistogramKernel's.
template <class Real>
struct BinSums {
  HistBins<Real> bin;
  KOKKOS_FORCEINLINE_FUNCTION int operator()(const Real s, const index_t, const index_t) const {
    return bin(sqrt_real(s));
  }
};

/// Points of d >= 5 (tiled_walk): BinSums through histogram_pair_sums over
/// the whole triangle (range null) or `*range` (a one-launch map's), and
/// true; otherwise false (the caller runs histogram_pairs).
template <class ExecSpace, class Points, class Map, class Counts, int D>
bool histogram_tiled_if(const ExecSpace& space, const Points& points, const Map& map, const OmegaRange* range,
                        double rmax, EdgeArithmetic edges, const Counts& counts, const std::string& label,
                        std::integral_constant<int, D>) {
  if constexpr (tiled_walk_v<ExecSpace, Points, D>) {
    if (!tiled_walk(points, map)) return false;
    using Real = typename Points::non_const_value_type;
    const BinSums<Real> law{make_bins<Real>(rmax, static_cast<int>(counts.extent(0)), edges)};
    if (range == nullptr) {
      histogram_pair_sums(space, map, points, law, counts, label);
      return true;
    }
    if constexpr (!is_multi_launch_map_v<Map>) {
      histogram_pair_sums(space, map, *range, points, law, counts, label);
      return true;
    }
  }
  (void)space, (void)points, (void)map, (void)range, (void)rmax, (void)edges, (void)counts, (void)label;
  return false;
}

}  // namespace detail

/// pair_histogram over the omegas of `range` (reduce.hpp); `edges` as this
/// file's top says (EdgeArithmetic::points: NumPy 2's float32 edges).
template <class ExecSpace, class Points, class Map, class Counts>
void pair_histogram(const ExecSpace& space, const Points& points, const Map& map, const OmegaRange& range, double rmax,
                    const Counts& counts, const LaunchHints& hints = LaunchHints(),
                    EdgeArithmetic edges = EdgeArithmetic::fp64) {
  detail::check_histogram(points, map, rmax, counts);
  const std::string label = std::string("tdmaps::edm::histogram::") + Map::name;
  detail::with_dims(points, [&](auto dims) {
    if (range.begin == 0 && range.end == tdmaps::detail::league_size(map, 0) &&
        detail::histogram_law_if(space, points, map, 0, 1, rmax, edges, counts, hints, label, dims))
      return;
    if (detail::histogram_tiled_if(space, points, map, &range, rmax, edges, counts, label, dims)) return;
    histogram_pairs(space, map, range, detail::histogram_kernel<decltype(dims)::value>(points, rmax, counts, edges),
                    counts, label, hints);
  });
}

/// pair_histogram over the whole triangle (any block-space map).
template <class ExecSpace, class Points, class Map, class Counts>
void pair_histogram(const ExecSpace& space, const Points& points, const Map& map, double rmax, const Counts& counts,
                    const LaunchHints& hints = LaunchHints(), EdgeArithmetic edges = EdgeArithmetic::fp64) {
  detail::check_histogram(points, map, rmax, counts);
  const std::string label = std::string("tdmaps::edm::histogram::") + Map::name;
  detail::with_dims(points, [&](auto dims) {
    if (detail::histogram_law_if(space, points, map, 0, 1, rmax, edges, counts, hints, label, dims)) return;
    if (detail::histogram_tiled_if(space, points, map, nullptr, rmax, edges, counts, label, dims)) return;
    histogram_pairs(space, map, detail::histogram_kernel<decltype(dims)::value>(points, rmax, counts, edges), counts,
                    label, hints);
  });
}

/// pair_histogram over part `part` of `parts` of the triangle of a one-launch
/// map (bb, lambda): the parts' counts added (MPI ranks) give the whole
/// triangle's. On GPU backends, points of 2 to 4 coordinates back to back
/// split the pair-law walk's league (histogram_pair_law_part); elsewhere the
/// part is omega_range(map, part, parts).
template <class ExecSpace, class Points, class Map, class Counts>
void pair_histogram_part(const ExecSpace& space, const Points& points, const Map& map, int part, int parts,
                         double rmax, const Counts& counts, const LaunchHints& hints = LaunchHints(),
                         EdgeArithmetic edges = EdgeArithmetic::fp64) {
  static_assert(!is_multi_launch_map_v<Map>, "tdmaps::edm::pair_histogram_part: a one-launch map (bb, lambda)");
  if (parts < 1 || part < 0 || part >= parts)
    throw std::invalid_argument("tdmaps::edm::pair_histogram_part: part " + std::to_string(part) + " of " +
                                std::to_string(parts) + " (need parts >= 1 and 0 <= part < parts)");
  detail::check_histogram(points, map, rmax, counts);
  const std::string label = std::string("tdmaps::edm::histogram::") + Map::name;
  detail::with_dims(points, [&](auto dims) {
    if (detail::histogram_law_if(space, points, map, part, parts, rmax, edges, counts, hints, label, dims)) return;
    const OmegaRange mine = omega_range(map, part, parts);
    if (detail::histogram_tiled_if(space, points, map, &mine, rmax, edges, counts, label, dims)) return;
    histogram_pairs(space, map, mine,
                    detail::histogram_kernel<decltype(dims)::value>(points, rmax, counts, edges), counts, label, hints);
  });
}

}  // namespace edm
}  // namespace tdmaps

#endif
