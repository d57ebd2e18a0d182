#ifndef TDMAPS_PERF_TESTS_KERNEL_BODIES_HPP
#define TDMAPS_PERF_TESTS_KERNEL_BODIES_HPP

// Element-kernel bodies on raw pointers, shared verbatim by the plain-CUDA
// reference (cuda_reference.cpp) and the Kokkos launch variants
// (launch_variants.cpp), so that a difference in time between the two is the
// launch path's and nothing else's.
//
//   DummyStore        out[T(i) + j] = dummy_value(i, j)       (4 B per element)
//   DummyFullStore    out[i n + j] = dummy_value(i, j): the papers' map-only
//                     test, one int per element of the full n x n matrix
//                     (lower part written)
//   Dummy3Store       out[tet_index(i, j, k)] = dummy3_value(i, j, k), strict
//                     triplets k < j < i (4 B per triplet; tdmaps::bench::Dummy3Kernel
//                     on a raw pointer)
//   Dummy3FullStore   out[(i n + j) n + k] = dummy3_value(i, j, k): the same
//                     strict triplets into the full n^3 array, the authors'
//                     3-D map-only store pattern
//   EdmBody<D, Full>  out[T(i) + j] (packed) or out[i n + j] (full, lower part
//                     written) = || x_i - x_j ||_2, x an n x D row-major fp32
//                     array; scalar loads in both paths.

#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/core/tetrahedral.hpp>
#include <tdmaps/core/triangular.hpp>
#include <tdmaps/bench/dummy.hpp>
#include <tdmaps/bench/dummy3.hpp>

#include <cstdint>

namespace tdmaps_bench {

using tdmaps::index_t;

struct DummyStore {
  static constexpr const char* name = "dummy";
  std::uint32_t* out = nullptr;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j) const {
    out[tdmaps::tri(i) + j] = tdmaps::bench::dummy_value(i, j);
  }
};

struct DummyFullStore {
  static constexpr const char* name = "dummy_full";
  std::uint32_t* out = nullptr;
  index_t n = 0;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j) const { out[i * n + j] = tdmaps::bench::dummy_value(i, j); }
};

struct Dummy3Store {
  static constexpr const char* name = "dummy3";
  std::uint32_t* out = nullptr;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j, index_t k) const {
    out[tdmaps::tet_index(i, j, k, tdmaps::Triangle::strict_lower)] = tdmaps::bench::dummy3_value(i, j, k);
  }
};

struct Dummy3FullStore {
  std::uint32_t* out = nullptr;
  index_t n = 0;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j, index_t k) const {
    out[(i * n + j) * n + k] = tdmaps::bench::dummy3_value(i, j, k);
  }
};

template <int D, bool Full>
struct EdmBody {
  static constexpr int dims = D;
  static constexpr bool full = Full;
  const float* x = nullptr;
  float* out = nullptr;
  index_t n = 0;
  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, index_t j) const {
    float s = 0.0f;
    for (int k = 0; k < D; ++k) {
      const float t = x[i * D + k] - x[j * D + k];
      s += t * t;
    }
    out[Full ? i * n + j : tdmaps::tri(i) + j] = tdmaps::intrinsics::sqrt_rn(s);
  }
};

// ---- output checks (parallel_reduce over the packed index p of the lower
// triangle, counting wrong elements; the exact tri_root gives (i, j)) ------

struct DummyCheck {
  const std::uint32_t* out = nullptr;
  KOKKOS_FUNCTION void operator()(const index_t p, index_t& errors) const {
    const index_t i = tdmaps::tri_root(p);
    const index_t j = p - tdmaps::tri(i);
    if (out[p] != tdmaps::bench::dummy_value(i, j)) ++errors;
  }
};

struct DummyFullCheck {
  const std::uint32_t* out = nullptr;
  index_t n = 0;
  KOKKOS_FUNCTION void operator()(const index_t p, index_t& errors) const {
    const index_t i = tdmaps::tri_root(p);
    const index_t j = p - tdmaps::tri(i);
    if (out[i * n + j] != tdmaps::bench::dummy_value(i, j)) ++errors;
  }
};

/// Over the packed index p of the strict tetrahedron (T3(n - 2) values):
/// p = T3(i - 2) + T(j - 1) + k, inverted by the exact roots of core/ (not
/// by any map). dummy3_value wraps past i, j, k = 1023 and can repeat
/// there, which only weakens the check at those triplets.
struct Dummy3Check {
  const std::uint32_t* out = nullptr;
  KOKKOS_FUNCTION void operator()(const index_t p, index_t& errors) const {
    const index_t m = tdmaps::tet_root(p);  // i - 2
    const index_t r = p - tdmaps::tet(m);
    const index_t q = tdmaps::tri_root(r);  // j - 1
    const index_t k = r - tdmaps::tri(q);
    if (out[p] != tdmaps::bench::dummy3_value(m + 2, q + 1, k)) ++errors;
  }
};

/// Dummy3Check for Dummy3FullStore's output: triplet p of the packed order
/// at (i n + j) n + k.
struct Dummy3FullCheck {
  const std::uint32_t* out = nullptr;
  index_t n = 0;
  KOKKOS_FUNCTION void operator()(const index_t p, index_t& errors) const {
    const index_t m = tdmaps::tet_root(p);
    const index_t r = p - tdmaps::tet(m);
    const index_t q = tdmaps::tri_root(r);
    const index_t k = r - tdmaps::tri(q);
    if (out[((m + 2) * n + q + 1) * n + k] != tdmaps::bench::dummy3_value(m + 2, q + 1, k)) ++errors;
  }
};

/// Compares with the fp64 distance; a NaN (the poison) or an unwritten element fails.
template <int D, bool Full>
struct EdmCheck {
  const float* x = nullptr;
  const float* out = nullptr;
  index_t n = 0;
  KOKKOS_FUNCTION void operator()(const index_t p, index_t& errors) const {
    const index_t i = tdmaps::tri_root(p);
    const index_t j = p - tdmaps::tri(i);
    double s = 0.0;
    for (int k = 0; k < D; ++k) {
      const double t = static_cast<double>(x[i * D + k]) - static_cast<double>(x[j * D + k]);
      s += t * t;
    }
    const double ref = tdmaps::intrinsics::sqrt_d(s);
    const double got = static_cast<double>(out[Full ? i * n + j : p]);
    const double diff = got > ref ? got - ref : ref - got;
    if (!(diff <= 1e-5 * ref + 1e-6)) ++errors;
  }
};

}  // namespace tdmaps_bench

#endif
