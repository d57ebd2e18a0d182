#ifndef TDMAPS_EDM_NEAREST_LAW_HPP
#define TDMAPS_EDM_NEAREST_LAW_HPP

// nearest_neighbour's pair law (reduce.hpp) for fp32 points of 2, 3 or 4
// coordinates stored back to back, walked on GPU backends by the library's
// public pair-law walk (tdmaps::for_each_pair_law, launch/pair_law.hpp): a
// point is its coordinates in a lane's registers, its sum the best key so
// far. Each distance is computed once and offered to both ends. Keys are
// reduce_rows' fp32 keys, (ordered bits of the squared distance << 32) |
// partner: while the walk runs they hold the raw bits of the squared
// distance (>= +0, so the same order) with NaN as 0xffffffff, and turn into
// the ordered bits when flushed (atomic min) once per block for columns and
// once per row segment for rows; a key that saw only NaN distances is not
// flushed (nobody's nearest). The squared distance is PointLaw::sq's
// (point_law.hpp: ColumnPoint::sq's, bit for bit).
//
// Not API (tdmaps::edm::detail).

#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/point_law.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/launch/reduce.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tdmaps {
namespace edm {
namespace detail {

template <int D, class Keys>
struct NearestLaw : PointLaw<float, D> {
  using Key = unsigned long long;  // the native 64-bit atomics and shuffles of the GPU backends
  using typename PointLaw<float, D>::point_type;
  using value_type = Key;
  static constexpr Key none = ~Key(0);

  KOKKOS_FORCEINLINE_FUNCTION Key identity() const { return none; }

  /// The walk's key of a squared distance s and a partner.
  KOKKOS_FORCEINLINE_FUNCTION static Key walk_key(float s, index_t partner) {
    const Key hi = s == s ? Key(intrinsics::float_bits(s)) : Key(0xffffffffu);
    return (hi << 32) | Key(static_cast<std::uint32_t>(partner));
  }

  KOKKOS_FORCEINLINE_FUNCTION void operator()(index_t i, const point_type& a, index_t j, const point_type& b, Key& ka,
                                              Key& kb) const {
    const float sq = PointLaw<float, D>::sq(a, b);
    const Key to_a = walk_key(sq, j), to_b = walk_key(sq, i);
    ka = to_a < ka ? to_a : ka;
    kb = to_b < kb ? to_b : kb;
  }

  /// keys(i) = min(keys(i), the walk's key k as reduce_rows' key), unless k saw no distance but NaN.
  KOKKOS_FORCEINLINE_FUNCTION void flush(const Keys& keys, index_t i, Key k) const {
    const std::uint32_t hi = static_cast<std::uint32_t>(k >> 32);
    if (hi == 0xffffffffu) return;
    const float sq = intrinsics::int_as_float(static_cast<std::int32_t>(hi));
    const std::uint64_t key = (std::uint64_t(tdmaps::ordered_bits(sq)) << 32) | std::uint64_t(k & 0xffffffffull);
    tdmaps::RowMin<std::uint64_t>::atomic_join(&keys(i), key);
  }
};

}  // namespace detail
}  // namespace edm
}  // namespace tdmaps

#endif
