#ifndef TDMAPS_CORE_TYPES_HPP
#define TDMAPS_CORE_TYPES_HPP

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tdmaps {

/// Every index that can pass 2^31 (omega, pair counts, packed offsets) is 64-bit.
using index_t = std::int64_t;

/// A rho x rho tile of the domain: block row `bi`, block column `bj`, `bj <= bi`.
struct Block2 {
  index_t bi;  ///< block row
  index_t bj;  ///< block column, bj <= bi
};

/// A rho x rho x rho tile of the tetrahedral domain: block layer `bi`, block
/// row `bj`, block column `bk`, `bk <= bj <= bi`.
struct Block3 {
  index_t bi;  ///< block layer
  index_t bj;  ///< block row, bj <= bi
  index_t bk;  ///< block column, bk <= bj
};

/// Which part of the n x n domain (n x n x n in 3-D) a launch covers.
enum class Triangle {
  lower,        ///< j <= i < n (diagonal included), the default; 3-D: k <= j <= i < n
  strict_lower  ///< j <  i < n; 3-D: k < j < i < n (the triplets of three-body sums)
};

}  // namespace tdmaps

#endif
