#ifndef TDMAPS_COLLISION_PAIR_TEST_HPP
#define TDMAPS_COLLISION_PAIR_TEST_HPP

// The pair test. Spheres i and j collide when |c_i - c_j| < r_i + r_j
// (strict: touching spheres do not collide). It runs in fp32 with a filter:
// the fp32 squared distance d2 and squared radius sum s2 carry relative
// errors below 6 * 2^-24, so where |d2 - s2| > 2^-16 max(d2, s2) their order
// is the exact one for the float inputs (tested as |d2 - s2| > 2^-15 s2 +
// 2^-100, which implies it: pair_gap). Otherwise (a near tie, tiny or
// overflowing values) it is decided again in fp64, which is exact for
// centres and radii on the 2^-24 grid in [0, 1] (every generated data set:
// differences, squares and sums are then exactly representable) and as close
// as fp64 allows elsewhere. So the result equals an fp64 host oracle on such
// data, on every backend, whether or not the compiler contracts into FMAs,
// at fp32 speed.

#include <tdmaps/kokkos_ext/intrinsics.hpp>

#include <Kokkos_Core.hpp>

namespace tdmaps {
namespace collision {

/// The fp32 part of the pair test: gap = fl(d2) - fl(s2) (squared distance
/// less squared radius sum) and whether its sign is the exact one (decisive;
/// see the top of this file). The pairs collide when gap < 0.
KOKKOS_FORCEINLINE_FUNCTION float pair_gap(float xi, float yi, float zi, float ri, float xj, float yj, float zj, float rj,
                                           bool& decisive) {
  const float dx = xi - xj, dy = yi - yj, dz = zi - zj;
  const float d2 = dx * dx + dy * dy + dz * dz;
  const float s = ri + rj;
  const float s2 = s * s;
  const float gap = d2 - s2;
  // Error bound: |fl(d2) - d2| <= 6u d2, |fl(s2) - s2| <= 4u s2 (u = 2^-24),
  // so |gap| > 2^-16 max(d2, s2) is decisive; |gap| > 2^-15 s2 + 2^-100
  // implies it (if d2 > s2: |gap| (1 - 2^-16) > 2^-16 s2 gives |gap| >
  // 2^-16 d2; the bound's own rounding is far inside the factor 2 of slack)
  // and keeps squares near underflow (below 2^-100) out. NaN/inf compare
  // false: not decisive.
  decisive = tdmaps::intrinsics::abs_f(gap) > 0x1p-15f * s2 + 0x1p-100f;
  return gap;
}

/// The pair test in fp64, for the pairs pair_gap leaves undecided: exact for
/// centres and radii on the 2^-24 grid in [0, 1], as close as fp64 allows
/// elsewhere.
KOKKOS_FORCEINLINE_FUNCTION bool collides_fp64(float xi, float yi, float zi, float ri, float xj, float yj, float zj,
                                               float rj) {
  const double ex = static_cast<double>(xi) - static_cast<double>(xj);
  const double ey = static_cast<double>(yi) - static_cast<double>(yj);
  const double ez = static_cast<double>(zi) - static_cast<double>(zj);
  const double es = static_cast<double>(ri) + static_cast<double>(rj);
  return ex * ex + ey * ey + ez * ez < es * es;
}

/// Whether spheres (xi, yi, zi, ri) and (xj, yj, zj, rj) overlap: |c_i - c_j| <
/// r_i + r_j, decided exactly (see the top of this file).
KOKKOS_FORCEINLINE_FUNCTION bool collides(float xi, float yi, float zi, float ri, float xj, float yj, float zj,
                                          float rj) {
  bool decisive;
  const float gap = pair_gap(xi, yi, zi, ri, xj, yj, zj, rj, decisive);
  if (decisive) return gap < 0.0f;
  return collides_fp64(xi, yi, zi, ri, xj, yj, zj, rj);
}

/// The fp32 test of TileKernel::own_rows: gap = fl(d2) - fl(s)^2 with
/// one rounding (an FMA), the spheres colliding when gap < 0. Its sign is
/// exact when |gap| > 2^-15 fl(s)^2 + 2^-100: the error is at most 6u d2 +
/// 3u s2 + u |gap| (u = 2^-24: fl(d2) as in pair_gap, fl(s)^2 within 3u s2,
/// the FMA's rounding), below |gap| when d2 <= 2 s2 (15u s2 << 2^-15 s2 =
/// 512u s2); when d2 > 2 s2 both the exact and the computed gap exceed d2 /
/// 2 - 7u d2 > 0; 2^-100 keeps underflowing squares out. No sign trouble:
/// an exact tie gives +0 (a - a = +0 when rounding to nearest), and a tie is
/// never decisive. NaN/inf are never decisive (NaN) or decide right (an
/// infinite d2 against a finite radius sum: no collision).
KOKKOS_FORCEINLINE_FUNCTION float walk_gap(float xi, float yi, float zi, float ri, float xj, float yj, float zj,
                                           float rj) {
  const float dx = xi - xj, dy = yi - yj, dz = zi - zj;
  const float d2 = dx * dx + dy * dy + dz * dz;
  const float s = ri + rj;
  return tdmaps::intrinsics::fma_f(-s, s, d2);
}

}  // namespace collision
}  // namespace tdmaps

#endif
