#ifndef TDMAPS_CORE_DOMAIN_HPP
#define TDMAPS_CORE_DOMAIN_HPP

// The domain a map covers: side n, block side rho, nb = ceil(n/rho) block
// rows; Domain2 for the triangle, Domain3 for the tetrahedron. Every map
// holds one; its constructor checks the parameters.

#include <tdmaps/core/tetrahedral.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/core/types.hpp>

#include <limits>
#include <stdexcept>
#include <string>

namespace tdmaps {

/// The block sides a map accepts (threads per block per dimension).
inline bool is_valid_block_side(int rho) { return rho == 8 || rho == 16 || rho == 32; }

/// Largest n a 2-D map accepts: T(n) must fit an int64 with room for the
/// map's intermediate products (tri(i + 1) of the exact correction).
constexpr index_t max_side = index_t(1) << 31;

/// The triangular domain j <= i < n (Triangle::lower) or j < i < n
/// (Triangle::strict_lower), in blocks of rho x rho elements.
struct Domain2 {
  index_t n = 0;   ///< problem side
  index_t nb = 0;  ///< block rows, ceil(n / rho)
  int rho = 8;     ///< block side
  Triangle triangle = Triangle::lower;  ///< with or without the diagonal

  /// \brief The empty domain (n = 0).
  Domain2() = default;
  /// \brief The domain of side n_ in blocks of side rho_; throws
  /// std::invalid_argument for n_ < 0, n_ > max_side or a block side that
  /// is_valid_block_side rejects.
  Domain2(index_t n_, int rho_, Triangle t = Triangle::lower) : n(n_), rho(rho_), triangle(t) {
    if (n_ < 0) throw std::invalid_argument("tdmaps: problem side n = " + std::to_string(n_) + " is negative");
    if (n_ > max_side)
      throw std::invalid_argument("tdmaps: problem side n = " + std::to_string(n_) +
                                  " exceeds the largest supported side " + std::to_string(max_side) +
                                  " (n (n + 1) / 2 must fit 64-bit indices)");
    if (!is_valid_block_side(rho_))
      throw std::invalid_argument("tdmaps: block side rho = " + std::to_string(rho_) + " is not one of 8, 16, 32");
    nb = (n_ + rho_ - 1) / rho_;
  }

  /// Number of elements of the domain: T(n) or T(n - 1).
  KOKKOS_FUNCTION index_t elements() const { return triangle == Triangle::lower ? tri(n) : (n > 0 ? tri(n - 1) : 0); }
  /// Whether element (i, j) lies in the domain (j >= 0 is given).
  KOKKOS_FORCEINLINE_FUNCTION bool contains(index_t i, index_t j) const {
    return i < n && (triangle == Triangle::lower ? j <= i : j < i);
  }
};

/// The block sides a 3-D map accepts: a block of rho^3 triplets fits a
/// team of at most 1024 threads with one thread per triplet.
inline bool is_valid_block_side3(int rho) { return rho == 2 || rho == 4 || rho == 8; }

/// Largest n a 3-D map accepts: T3(n) and the maps' intermediate products
/// (tet(k + 1) of the exact correction) fit an int64.
constexpr index_t max_side3 = index_t(1) << 21;

/// The tetrahedral domain k <= j <= i < n (Triangle::lower) or k < j < i < n
/// (Triangle::strict_lower), in blocks of rho x rho x rho triplets.
struct Domain3 {
  index_t n = 0;   ///< problem side
  index_t nb = 0;  ///< block layers, ceil(n / rho)
  int rho = 8;     ///< block side
  Triangle triangle = Triangle::lower;  ///< with the faces (lower) or without (strict_lower)

  /// \brief The empty domain (n = 0).
  Domain3() = default;
  /// \brief The tetrahedron of side n_ in blocks of side rho_; throws
  /// std::invalid_argument for n_ < 0, n_ > max_side3 or a block side that
  /// is_valid_block_side3 rejects.
  Domain3(index_t n_, int rho_, Triangle t = Triangle::lower) : n(n_), rho(rho_), triangle(t) {
    if (n_ < 0) throw std::invalid_argument("tdmaps: problem side n = " + std::to_string(n_) + " is negative");
    if (n_ > max_side3)
      throw std::invalid_argument("tdmaps: problem side n = " + std::to_string(n_) +
                                  " exceeds the largest supported side of a tetrahedron " + std::to_string(max_side3) +
                                  " (n (n + 1) (n + 2) / 6 must fit 64-bit indices)");
    if (!is_valid_block_side3(rho_))
      throw std::invalid_argument("tdmaps: block side rho = " + std::to_string(rho_) +
                                  " is not one of 2, 4, 8 (a 3-D block of rho^3 triplets)");
    nb = (n_ + rho_ - 1) / rho_;
  }

  /// Number of triplets of the domain: T3(n) or T3(n - 2).
  KOKKOS_FUNCTION index_t elements() const { return tet_elements(n, triangle); }
  /// Whether triplet (i, j, k) lies in the domain (k >= 0 is given).
  KOKKOS_FORCEINLINE_FUNCTION bool contains(index_t i, index_t j, index_t k) const {
    return i < n && (triangle == Triangle::lower ? (k <= j && j <= i) : (k < j && j < i));
  }
};

}  // namespace tdmaps

#endif
