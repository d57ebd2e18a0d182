// The kernels of python/src/reduce.cpp's reductions, one translation unit
// per precision, reduction and map group (MapGroup, common.hpp), each an
// explicit instantiation of reduce_walks.hpp's definitions that
// python/CMakeLists.txt generates: every map of with_map at every dimension
// is a set of kernels, and sixteen smaller units compile side by side where
// one unit compiled them all in turn.
#ifndef TDMAPS_PYTHON_REDUCE_COMPUTE_HPP
#define TDMAPS_PYTHON_REDUCE_COMPUTE_HPP

#include "arrays.hpp"
#include "common.hpp"

#include <cstdint>

namespace tdmaps {
namespace python {

enum class What { hist, nn, count, knn };

inline const char* what_name(What w) {
  return w == What::hist ? "pair_histogram"
         : w == What::nn ? "nearest_neighbour"
         : w == What::knn ? "k_nearest_neighbours"
                          : "count_within";
}

/// Whether Map runs one launch of blocks (bb, lambda, rb): the maps whose
/// league omega_range splits into parts (comm=).
template <class Map>
constexpr bool one_launch_v = is_block_space_map_v<Map> && !is_multi_launch_map_v<Map>;

/// A checked request: the reduction, the map and its options.
struct Request {
  What what = What::count;
  MapSpec spec;
  int block = 32;
  std::int64_t bins = 0;
  std::int64_t k = 0;  ///< knn: the neighbours per point
  double rmax = 0, radius = 0;
  /// hist: the edges in X's dtype's arithmetic (edm::EdgeArithmetic::points, NumPy 2's float32
  /// edges) or in fp64 (NumPy 1's); tdmaps.pair_histogram picks the installed NumPy's
  bool edges_in_dtype = false;
};

/// Reduction W of the whole triangle of x (n points, d coordinates), a job of
/// on_kokkos: hist writes `first` (int64 bins); nn writes `first` (the
/// distances) and `second` (the indices); knn the same, n x r.k each (C
/// order); count returns the count.
/// G: the group of r.spec's map.
template <class Real, What W, MapGroup G>
index_t compute_whole(const Request& r, const ArrayRef& x, index_t n, index_t d, const ArrayRef& first,
                      const ArrayRef& second);

/// Reduction W of part `part` of `parts` of the league, a job of on_kokkos:
/// hist writes its pairs' bins into `out` (int64), nn its keys into `out`
/// (uint64 (n,); fp64: the index pass when `best` holds the reduced
/// first-pass keys), count returns. Not for knn (one process only: no
/// instantiation).
template <class Real, What W, MapGroup G>
index_t compute_part(const Request& r, const ArrayRef& x, index_t n, index_t d, index_t part, index_t parts,
                     const ArrayRef& out, const ArrayRef& best);

}  // namespace python
}  // namespace tdmaps

#endif
