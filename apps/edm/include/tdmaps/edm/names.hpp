#ifndef TDMAPS_EDM_NAMES_HPP
#define TDMAPS_EDM_NAMES_HPP

// The names of the EDM's layouts and kernels as the CLI (--layout, --kernel)
// and the Python module (layout=, kernel=) spell them, both ways, and the
// tile kernel's limit on d, so every front end checks and words them alike.

#include <tdmaps/edm/driver.hpp>
#include <tdmaps/edm/layout.hpp>
#include <tdmaps/edm/tile.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tdmaps {
namespace edm {

/// Every layout's name, the default (condensed) first.
inline const std::vector<std::string>& layout_names() {
  static const std::vector<std::string> names{"condensed", "packed", "full"};
  return names;
}

/// The layout named s (layout_name's inverse); empty for an unknown name.
inline std::optional<Layout> layout_from_name(const std::string& s) {
  for (Layout l : {Layout::packed, Layout::condensed, Layout::full})
    if (s == layout_name(l)) return l;
  return std::nullopt;
}

/// Every kernel's name ("auto": Kernel::automatic), the default first.
inline const std::vector<std::string>& kernel_names() {
  static const std::vector<std::string> names{"auto", "element", "tile", "gemm", "linear"};
  return names;
}

/// The kernel named s (kernel_name's inverse); empty for an unknown name.
inline std::optional<Kernel> kernel_from_name(const std::string& s) {
  for (Kernel k : {Kernel::element, Kernel::tile, Kernel::gemm, Kernel::automatic, Kernel::linear})
    if (s == kernel_name(k)) return k;
  return std::nullopt;
}

/// The largest d whose tile-kernel scratch fits ExecSpace at block side rho
/// (0: none), for the messages that refuse --kernel tile.
template <class ExecSpace, class Real>
int largest_tile_d(int rho) {
  int lo = 0, hi = 1 << 20;
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (tile_fits<ExecSpace, Real>(rho, mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

}  // namespace edm
}  // namespace tdmaps

#endif
