#ifndef TDMAPS_CORE_TYPES_HPP
#define TDMAPS_CORE_TYPES_HPP

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tdmaps {

/// Every index that can pass 2^31 (omega, pair counts, packed offsets) is 64-bit.
using index_t = std::int64_t;

/// A rho x rho tile of the domain: block row `bi`, block column `bj`, `bj <= bi`.
struct Block2 {
  index_t bi;
  index_t bj;
};

/// Which part of the n x n domain a launch covers.
enum class Triangle {
  lower,        ///< j <= i < n (diagonal included), the default
  strict_lower  ///< j <  i < n
};

}  // namespace tdmaps

#endif
