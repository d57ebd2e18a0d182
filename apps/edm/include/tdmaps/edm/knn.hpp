#ifndef TDMAPS_EDM_KNN_HPP
#define TDMAPS_EDM_KNN_HPP

// k nearest neighbours of n points of any dimension, exact:
//
//   k_nearest_neighbours(space, points, map, index, dist)
//       index(i, c), dist(i, c), c = 0 .. k - 1 (k = index.extent(1)): the
//       k nearest other points of i, sorted by their squared distance (the
//       exact sum, before the square root), equal ones by the smaller index (sklearn's NearestNeighbors(algorithm="brute") and
//       FAISS's IndexFlatL2 order); -1 and +inf past the last where fewer
//       than k other points have a distance (NaN coordinates: nobody's
//       neighbour). 1 <= k <= n - 1.
//
// The distances are the element kernel's sums (edm/element.hpp), the same
// as nearest_neighbour's: each pair once, through the dimension-tiled walk
// (tdmaps::pair_min_k_keys; a block-space map of block side 16 or 32, any
// backend). fp32 keys hold the squared distance's ordered bits above the
// partner, in one pass. fp64 takes two: the k smallest squared distances of
// each point (equal ones as often as they come), then, for each pair no
// farther than the point's k-th, the key (the first slot of its distance,
// partner): sorted, those are the partners in distance and index order.
// k = 1 is nearest_neighbour (its walks; the same result); k_nearest_walk
// takes the k-nearest walk at every k.
//
// By omega ranges of a one-launch map (MPI ranks: each rank its range, rows
// merged between the passes):
//   k_nearest_keys(space, points, map, range, keys)    pass 1 into keys (n x k)
//   merge each row over the ranges: its k smallest keys of all, sorted
//   k_nearest_index_pass(space, points, map, range, keys, second)  fp64: pass 2
//   merge second's rows the same way (fp64)
//   k_nearest_decode<Real>(space, keys, second, index, dist)
// keys and second start as nearest_init() in every slot (joined into); the
// merge of the ranges' rows is the caller's (app::Ranks::min_k_u64).

#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/pair_column.hpp>
#include <tdmaps/edm/reduce.hpp>
#include <tdmaps/launch/pair_min_keys.hpp>
#include <tdmaps/launch/reduce.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace edm {

namespace detail {

/// fp64, pass 2: for a pair no farther than the point's k-th (pass 1's rows
/// of squared distances, `rows`), the first slot holding its distance, then
/// the partner.
template <class Rows>
struct KnnIndex {
  Rows rows;
  KOKKOS_FUNCTION NearestKey operator()(const double s, const index_t self, const index_t p) const {
    if (s != s) return ~NearestKey(0);
    const NearestKey b = ordered_bits(s);
    const int k = static_cast<int>(rows.extent(1));
    if (b > rows(self, k - 1)) return ~NearestKey(0);
    int lo = 0, hi = k - 1;  // the first slot whose distance is >= b (there is one: the last)
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (rows(self, mid) < b) lo = mid + 1;
      else hi = mid;
    }
    return (NearestKey(lo) << 32) | NearestKey(p);
  }
};

}  // namespace detail

namespace detail {
template <class Points, class Map, class Index, class Dist>
void check_knn(const Points& points, const Map& map, const Index& index, const Dist& dist) {
  using Real = typename Points::non_const_value_type;
  static_assert(Index::rank == 2 && Dist::rank == 2, "tdmaps::edm::k_nearest_neighbours: index and dist are n x k Views");
  static_assert(is_block_space_map_v<Map>,
                "tdmaps::edm::k_nearest_neighbours: a block-space map (bb, lambda, rb, rec, hadouken)");
  const char* who = "tdmaps::edm::k_nearest_neighbours";
  check_points<Real>(points, who);
  const std::size_t n = points.extent(0), k = index.extent(1);
  check_map(map, n, who);
  if (index.extent(0) != n || dist.extent(0) != n || dist.extent(1) != k)
    throw std::invalid_argument(std::string(who) + ": index is " + std::to_string(index.extent(0)) + " x " +
                                std::to_string(k) + " and dist " + std::to_string(dist.extent(0)) + " x " +
                                std::to_string(dist.extent(1)) + " for n = " + std::to_string(n) + " points");
  if (k < 1 || k + 1 > n)
    throw std::invalid_argument(std::string(who) + ": k = " + std::to_string(k) + " for n = " + std::to_string(n) +
                                " points (need 1 <= k <= n - 1)");
  if (k > static_cast<std::size_t>(tdmaps::detail::max_min_k))
    throw std::invalid_argument(std::string(who) + ": k = " + std::to_string(k) + " (at most " +
                                std::to_string(tdmaps::detail::max_min_k) + ")");
  if (!pair_min_keys_block_side(map.domain.rho))
    throw std::invalid_argument(std::string(who) + ": block side " + std::to_string(map.domain.rho) +
                                " (the k-nearest walk needs 16 or 32)");
}
}  // namespace detail

namespace detail {
template <class Points, class Map, class Keys>
void check_knn_keys(const Points& points, const Map& map, const Keys& keys, const char* who) {
  using Real = typename Points::non_const_value_type;
  static_assert(Keys::rank == 2 && std::is_same<typename Keys::non_const_value_type, NearestKey>::value &&
                    std::is_same<typename Keys::array_layout, Kokkos::LayoutRight>::value,
                "tdmaps::edm: the k nearest neighbours' keys are an n x k LayoutRight View of NearestKey");
  check_points<Real>(points, who);
  const std::size_t n = points.extent(0), k = keys.extent(1);
  check_map(map, n, who);
  if (keys.extent(0) != n)
    throw std::invalid_argument(std::string(who) + ": keys has " + std::to_string(keys.extent(0)) + " rows for n = " +
                                std::to_string(n) + " points");
  if (k < 1 || k + 1 > n || k > static_cast<std::size_t>(tdmaps::detail::max_min_k))
    throw std::invalid_argument(std::string(who) + ": k = " + std::to_string(k) + " for n = " + std::to_string(n) +
                                " points (need 1 <= k <= n - 1, at most " +
                                std::to_string(tdmaps::detail::max_min_k) + ")");
  if (!pair_min_keys_block_side(map.domain.rho))
    throw std::invalid_argument(std::string(who) + ": block side " + std::to_string(map.domain.rho) +
                                " (the k-nearest walk needs 16 or 32)");
}
}  // namespace detail

/// Pass 1 of the k nearest neighbours over the blocks of `range` of a
/// one-launch map (bb, lambda, rb): each row of keys (n x k, nearest_init()
/// in every slot before the first range) joins the k smallest keys of its
/// pairs in the range, sorted. fp32: the finished keys (squared distance's
/// bits, partner); fp64: the squared distances' keys, which the ranges'
/// rows merged feed k_nearest_index_pass.
/// \throws std::invalid_argument on k outside 1 .. n - 1, shapes that disagree, a block side but 16 or 32
template <class ExecSpace, class Points, class Map, class Keys>
void k_nearest_keys(const ExecSpace& space, const Points& points, const Map& map, const OmegaRange& range,
                    const Keys& keys) {
  using Real = typename Points::non_const_value_type;
  static_assert(!is_multi_launch_map_v<Map>, "tdmaps::edm::k_nearest_keys: omega ranges of a one-launch map (bb, lambda, rb)");
  detail::check_knn_keys(points, map, keys, "tdmaps::edm::k_nearest_keys");
  const std::string label = std::string("tdmaps::edm::knn::") + Map::name;
  if constexpr (std::is_same<Real, float>::value)
    pair_min_k_keys(space, map, range, points, keys, detail::TiledNearestF(), label);
  else
    pair_min_k_keys(space, map, range, points, keys, detail::TiledNearestDist(), label);
}

/// fp64 pass 2 over the blocks of `range`: second (n x k, nearest_init()
/// in every slot before the first range) joins the keys of the pairs no
/// farther than the row's k-th of `keys` (pass 1's rows merged over every range).
/// \throws std::invalid_argument as k_nearest_keys
template <class ExecSpace, class Points, class Map, class Keys>
void k_nearest_index_pass(const ExecSpace& space, const Points& points, const Map& map, const OmegaRange& range,
                          const Keys& keys, const Keys& second) {
  static_assert(std::is_same<typename Points::non_const_value_type, double>::value,
                "tdmaps::edm::k_nearest_index_pass: fp64 points only (fp32 keys hold the index)");
  static_assert(!is_multi_launch_map_v<Map>,
                "tdmaps::edm::k_nearest_index_pass: omega ranges of a one-launch map (bb, lambda, rb)");
  detail::check_knn_keys(points, map, keys, "tdmaps::edm::k_nearest_index_pass");
  detail::check_knn_keys(points, map, second, "tdmaps::edm::k_nearest_index_pass");
  pair_min_k_keys(space, map, range, points, second, detail::KnnIndex<Keys>{keys},
                  std::string("tdmaps::edm::knn_index::") + Map::name);
}

/// index(i, c) and dist(i, c) from the finished rows: keys (fp32), or keys
/// and second (fp64; second is not read for fp32). -1 and +inf where a row
/// has fewer than k.
template <class Real, class ExecSpace, class Keys, class Index, class Dist>
void k_nearest_decode(const ExecSpace& space, const Keys& keys, const Keys& second, const Index& index,
                      const Dist& dist) {
  const std::size_t n = keys.extent(0), k = keys.extent(1);
  if (index.extent(0) != n || index.extent(1) != k || dist.extent(0) != n || dist.extent(1) != k ||
      (!std::is_same<Real, float>::value && (second.extent(0) != n || second.extent(1) != k)))
    throw std::invalid_argument("tdmaps::edm::k_nearest_decode: keys, index and dist are not all " +
                                std::to_string(n) + " x " + std::to_string(k));
  const double inf = std::numeric_limits<double>::infinity();
  Kokkos::parallel_for(
      "tdmaps::edm::knn_decode",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(space, {0, 0}, {static_cast<std::int64_t>(n), static_cast<std::int64_t>(k)}),
      KOKKOS_LAMBDA(const std::int64_t i, const std::int64_t c) {
        const auto& pass2 = second;  // captured here, not first inside the if constexpr (nvcc)
        const NearestKey key = std::is_same<Real, float>::value ? keys(i, c) : pass2(i, c);
        if (key == nearest_init()) {
          index(i, c) = -1;
          dist(i, c) = inf;
          return;
        }
        index(i, c) = static_cast<index_t>(key & 0xffffffffull);
        if constexpr (std::is_same<Real, float>::value)
          dist(i, c) = static_cast<double>(detail::sqrt_real(from_ordered_bits(static_cast<std::uint32_t>(key >> 32))));
        else
          dist(i, c) = detail::sqrt_real(from_ordered_bits(keys(i, c)));
      });
}

/// k_nearest_neighbours through the k-nearest walk at every k, 1 included
/// (k_nearest_neighbours takes nearest_neighbour's walks for k = 1; the same
/// result): for code that has nearest_neighbour compiled elsewhere, and
/// does not want its walks compiled again (the Python module's units).
/// Arguments and errors as k_nearest_neighbours.
template <class ExecSpace, class Points, class Map, class Index, class Dist>
void k_nearest_walk(const ExecSpace& space, const Points& points, const Map& map, const Index& index,
                    const Dist& dist) {
  using Real = typename Points::non_const_value_type;
  using mem = typename ExecSpace::memory_space;
  using Rows = Kokkos::View<NearestKey**, Kokkos::LayoutRight, mem>;
  detail::check_knn(points, map, index, dist);
  const std::size_t n = points.extent(0), k = index.extent(1);
  const std::string label = std::string("tdmaps::edm::knn::") + Map::name;
  Rows keys(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::edm::knn_keys"), n, k);
  Kokkos::deep_copy(space, keys, nearest_init());
  Rows second;
  if constexpr (std::is_same<Real, float>::value) {
    pair_min_k_keys(space, map, points, keys, detail::TiledNearestF(), label);
  } else {
    pair_min_k_keys(space, map, points, keys, detail::TiledNearestDist(), label);
    second = Rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::edm::knn_index"), n, k);
    Kokkos::deep_copy(space, second, nearest_init());
    pair_min_k_keys(space, map, points, second, detail::KnnIndex<Rows>{keys},
                    std::string("tdmaps::edm::knn_index::") + Map::name);
  }
  k_nearest_decode<Real>(space, keys, second, index, dist);
}

/// The k nearest neighbours of each point (the top of this file).
/// \param space the execution space instance (not fenced)
/// \param points n x d, LayoutRight, fp32 or fp64, in ExecSpace's memory (any d >= 1)
/// \param map a block-space map (bb, lambda, rb, rec, hadouken) over Domain2(n, rho, Triangle::strict_lower), rho 16 or 32
/// \param index n x k integers (index_t or wider), ExecSpace's memory: the neighbours (-1: none)
/// \param dist n x k floating point, ExecSpace's memory: their distances (+inf: none)
/// \throws std::invalid_argument on k outside 1 .. n - 1, shapes that disagree, another block side
template <class ExecSpace, class Points, class Map, class Index, class Dist>
void k_nearest_neighbours(const ExecSpace& space, const Points& points, const Map& map, const Index& index,
                          const Dist& dist) {
  detail::check_knn(points, map, index, dist);
  if (index.extent(1) == 1)
    nearest_neighbour(space, points, map, Kokkos::subview(index, Kokkos::ALL, 0), Kokkos::subview(dist, Kokkos::ALL, 0));
  else
    k_nearest_walk(space, points, map, index, dist);
}

}  // namespace edm
}  // namespace tdmaps

#endif
