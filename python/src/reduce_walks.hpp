// The walks of python/src/reduce.cpp's reductions over one map: which
// launches a one-launch map's league takes, in pieces that Ctrl-C stops
// between (check_cancel): on GPU backends sub-parts of the part
// (for_each_sub_part: the edm _part forms, the pair-law walks' league
// split), on host ones chunks of the part's omega range (for_each_chunk);
// rec and hadouken (several launches) and utm (no blocks) run whole; and
// the definitions of reduce_compute.hpp's compute_whole and compute_part.
// Included by the units python/CMakeLists.txt generates only, which
// instantiate them (TDMAPS_PYTHON_REDUCE_INSTANTIATE; knn, which has no
// parts, TDMAPS_PYTHON_REDUCE_WHOLE_INSTANTIATE).
#ifndef TDMAPS_PYTHON_REDUCE_WALKS_HPP
#define TDMAPS_PYTHON_REDUCE_WALKS_HPP

#include "common.hpp"
#include "reduce_compute.hpp"

#include <tdmaps/edm/knn.hpp>
#include <tdmaps/edm/reduce.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tdmaps {
namespace python {

/// The histogram edges' arithmetic of r.
inline edm::EdgeArithmetic edges_of(const Request& r) {
  return r.edges_in_dtype ? edm::EdgeArithmetic::points : edm::EdgeArithmetic::fp64;
}

/// GPU backends: the pair-law walks split their own league (the _part forms).
constexpr bool lane_walks = tdmaps::intrinsics::lane_width<ExecSpace>::value > 1;

template <class Map, class Real>
void hist_part(const ExecSpace& space, const Map& map, const PointsView<Real>& x, index_t part, index_t parts,
               double rmax, edm::EdgeArithmetic edges, const Kokkos::View<std::int64_t*, MemSpace>& counts) {
  if constexpr (lane_walks)
    for_each_sub_part(map.domain.elements(), part, parts, [&](index_t p, index_t P) {
      edm::pair_histogram_part(space, x, map, static_cast<int>(p), static_cast<int>(P), rmax, counts, LaunchHints(),
                               edges);
    });
  else
    for_each_chunk(space, omega_range(map, part, parts), [&](const OmegaRange& c) {
      edm::pair_histogram(space, x, map, c, rmax, counts, LaunchHints(), edges);
    });
}

template <class Map, class Real>
index_t count_part(const ExecSpace& space, const Map& map, const PointsView<Real>& x, index_t part, index_t parts,
                   double radius) {
  index_t count = 0;
  if constexpr (lane_walks)
    for_each_sub_part(map.domain.elements(), part, parts, [&](index_t p, index_t P) {
      count += edm::count_within_part(space, x, map, static_cast<int>(p), static_cast<int>(P), radius);
    });
  else
    for_each_chunk(space, omega_range(map, part, parts),
                   [&](const OmegaRange& c) { count += edm::count_within(space, x, map, c, radius); });
  return count;
}

template <class Map, class Real>
void hist_map(const ExecSpace& space, const Map& map, const PointsView<Real>& x, double rmax,
              edm::EdgeArithmetic edges, const Kokkos::View<std::int64_t*, MemSpace>& counts) {
  if constexpr (one_launch_v<Map>)
    hist_part(space, map, x, 0, 1, rmax, edges, counts);
  else if constexpr (is_block_space_map_v<Map>)
    edm::pair_histogram(space, x, map, rmax, counts, LaunchHints(), edges);  // utm: refused before
}

template <class Map, class Real>
void nn_map(const ExecSpace& space, const Map& map, const PointsView<Real>& x, const Kokkos::View<index_t*, MemSpace>& index,
            const Kokkos::View<Real*, MemSpace>& dist) {
  if constexpr (is_block_space_map_v<Map>) edm::nearest_neighbour(space, x, map, index, dist);  // utm: refused before
}

/// k nearest neighbours: index and dist n x k (edm/knn.hpp; the maps of block side 16 or 32, checked before).
template <class Map, class Real>
void knn_map(const ExecSpace& space, const Map& map, const PointsView<Real>& x,
             const Kokkos::View<index_t**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryUnmanaged>& index,
             const Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryUnmanaged>& dist) {
  // k >= 2 (k = 1 runs the nn units: reduce.cpp): the walk alone, nearest_neighbour's walks not compiled again here.
  if constexpr (is_block_space_map_v<Map>) edm::k_nearest_walk(space, x, map, index, dist);  // utm: refused before
}

template <class Map, class Real>
index_t count_map(const ExecSpace& space, const Map& map, const PointsView<Real>& x, double radius) {
  if constexpr (one_launch_v<Map>)
    return count_part(space, map, x, 0, 1, radius);
  else
    return edm::count_within(space, x, map, radius);  // any map, utm included
}

template <class Real, What W, MapGroup G>
index_t compute_whole(const Request& r, const ArrayRef& x, index_t n, index_t d, const ArrayRef& first,
                      const ArrayRef& second) {
  ExecSpace space;
  const PointsView<Real> xv = points_view<Real>(space, x, n, d);
  const Domain2 domain(n, r.block, Triangle::strict_lower);
  index_t count = 0;
  if constexpr (W == What::hist) {
    const auto counts = result_view<std::int64_t>(first, "tdmaps::python::hist");
    Kokkos::deep_copy(space, counts, std::int64_t(0));
    if (n > 1) with_map_in<G>(r.spec, domain, [&](auto map) { hist_map(space, map, xv, r.rmax, edges_of(r), counts); }, true);
    copy_back(space, first, counts);
  } else if constexpr (W == What::nn) {
    const auto dist = result_view<Real>(first, "tdmaps::python::nn_dist");
    const auto index = result_view<index_t>(second, "tdmaps::python::nn_index");
    with_map_in<G>(r.spec, domain, [&](auto map) { nn_map(space, map, xv, index, dist); }, true);
    copy_back(space, first, dist);
    copy_back(space, second, index);
  } else if constexpr (W == What::knn) {
    // n x k in C order: the flat result arrays (or their device buffers) seen as matrices.
    const auto dist = result_view<Real>(first, "tdmaps::python::knn_dist");
    const auto index = result_view<index_t>(second, "tdmaps::python::knn_index");
    const Kokkos::View<Real**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryUnmanaged> dist2(dist.data(), n, r.k);
    const Kokkos::View<index_t**, Kokkos::LayoutRight, MemSpace, Kokkos::MemoryUnmanaged> index2(index.data(), n, r.k);
    with_map_in<G>(r.spec, domain, [&](auto map) { knn_map(space, map, xv, index2, dist2); }, true);
    copy_back(space, first, dist);
    copy_back(space, second, index);
  } else {
    (void)first, (void)second;
    if (n > 1) with_map_in<G>(r.spec, domain, [&](auto map) { count = count_map(space, map, xv, r.radius); });
  }
  space.fence();
  return count;
}

template <class Real, What W, MapGroup G>
index_t compute_part(const Request& r, const ArrayRef& x, index_t n, index_t d, index_t part, index_t parts,
                     const ArrayRef& out, const ArrayRef& best) {
  ExecSpace space;
  const PointsView<Real> xv = points_view<Real>(space, x, n, d);
  index_t count = 0;
  with_map_in<G>(r.spec, Domain2(n, r.block, Triangle::strict_lower), [&](auto map) {
    using Map = decltype(map);
    if constexpr (one_launch_v<Map>) {
      if constexpr (W == What::hist) {
        const auto counts = result_view<std::int64_t>(out, "tdmaps::python::hist");
        Kokkos::deep_copy(space, counts, std::int64_t(0));
        hist_part(space, map, xv, part, parts, r.rmax, edges_of(r), counts);  // an empty part adds nothing
        copy_back(space, out, counts);
      } else if constexpr (W == What::count) {
        count = count_part(space, map, xv, part, parts, r.radius);
      } else {
        const auto keys = result_view<edm::NearestKey>(out, "tdmaps::python::nn_keys");
        Kokkos::deep_copy(space, keys, edm::nearest_init());
        if constexpr (std::is_same<Real, double>::value) {
          const OmegaRange range = omega_range(map, part, parts);
          if (best.data) {
            const auto first = input_view<edm::NearestKey>(space, best, "tdmaps::python::nn_best");
            edm::nearest_index_pass(space, xv, map, range, first, keys);
          } else {
            edm::nearest_neighbour(space, xv, map, range, keys);
          }
        } else {
          edm::nearest_neighbour_part(space, xv, map, static_cast<int>(part), static_cast<int>(parts), keys);
        }
        copy_back(space, out, keys);
      }
    }
  });
  space.fence();
  return count;
}

}  // namespace python
}  // namespace tdmaps

/// The unit of one precision, reduction and map group: compute_whole and
/// compute_part for Real, What::W and MapGroup::G.
#define TDMAPS_PYTHON_REDUCE_INSTANTIATE(Real, W, G)                                                                \
  namespace tdmaps {                                                                                                \
  namespace python {                                                                                                \
  template index_t compute_whole<Real, What::W, MapGroup::G>(const Request&, const ArrayRef&, index_t, index_t,     \
                                                            const ArrayRef&, const ArrayRef&);                      \
  template index_t compute_part<Real, What::W, MapGroup::G>(const Request&, const ArrayRef&, index_t, index_t,      \
                                                           index_t, index_t, const ArrayRef&, const ArrayRef&);    \
  }                                                                                                                 \
  }

/// The unit of a reduction without parts (knn: one process only): compute_whole alone.
#define TDMAPS_PYTHON_REDUCE_WHOLE_INSTANTIATE(Real, W, G)                                                          \
  namespace tdmaps {                                                                                                \
  namespace python {                                                                                                \
  template index_t compute_whole<Real, What::W, MapGroup::G>(const Request&, const ArrayRef&, index_t, index_t,     \
                                                            const ArrayRef&, const ArrayRef&);                      \
  }                                                                                                                 \
  }

#endif
