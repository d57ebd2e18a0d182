#ifndef TDMAPS_EDM_LAYOUT_HPP
#define TDMAPS_EDM_LAYOUT_HPP

// Where the distance of pair (i, j) goes: the three output layouts, their
// sizes, the map domain each needs, and the store every kernel shares.
//   packed     lower triangle with the diagonal, (i, j) at T(i) + j (the
//              lambda map's order); T(n) values.
//   condensed  SciPy's / PyTorch's pdist order: the strict upper triangle row
//              by row, i.e. our column j contiguous for i = j + 1 .. n - 1;
//              T(n - 1) values, no diagonal.
//   full       n x n row-major; the upper triangle too when symmetric.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace edm {

/// Where the distance of pair (i, j) goes (the top of this file).
enum class Layout { packed, condensed, full };

/// The layout's name on the command line and in labels.
inline const char* layout_name(Layout l) {
  return l == Layout::packed ? "packed" : l == Layout::condensed ? "condensed" : "full";
}

/// Number of output elements of a layout for n points.
inline index_t output_size(Layout l, index_t n) {
  if (l == Layout::packed) return tri(n);
  if (l == Layout::condensed) return n > 0 ? tri(n - 1) : 0;
  return n * n;
}

/// The triangle a layout needs: condensed skips the diagonal.
inline Triangle layout_triangle(Layout l) { return l == Layout::condensed ? Triangle::strict_lower : Triangle::lower; }

/// The domain of a map for an EDM of n points in this layout.
inline Domain2 make_domain(index_t n, int rho, Layout l) { return Domain2(n, rho, layout_triangle(l)); }

/// Position of pair (i, j), j < i, in the condensed (pdist) layout.
KOKKOS_FORCEINLINE_FUNCTION index_t condensed_index(index_t n, index_t i, index_t j) {
  return n * j - j * (j + 1) / 2 + i - j - 1;
}

namespace detail {

/// The kernels' view of one edm() call: points, output and layout.
template <class Real, class MemorySpace>
struct EdmData {
  Kokkos::View<const Real**, Kokkos::LayoutRight, MemorySpace> x;
  Kokkos::View<Real*, MemorySpace> out;
  index_t n = 0;
  int d = 0;
  Layout layout = Layout::packed;
  bool symmetric = false;

  KOKKOS_FORCEINLINE_FUNCTION void store(index_t i, index_t j, Real v) const {
    if (layout == Layout::packed) out(tri(i) + j) = v;
    else if (layout == Layout::condensed) out(condensed_index(n, i, j)) = v;
    else {
      out(i * n + j) = v;
      if (symmetric && i != j) out(j * n + i) = v;
    }
  }
};

}  // namespace detail
}  // namespace edm
}  // namespace tdmaps

#endif
