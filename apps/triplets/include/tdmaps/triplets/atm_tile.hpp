#ifndef TDMAPS_TRIPLETS_ATM_TILE_HPP
#define TDMAPS_TRIPLETS_ATM_TILE_HPP

// The Axilrod-Teller-Muto tile kernel (block-space 3-D maps): the block's
// rho layer, row and column particles are staged in team scratch, each
// thread keeps its (k, j) pair in registers and walks its layers i
// (for_each_lane3: a lane per column k, a thread row per row j, layers
// stepped per thread on GPU teams; one plain loop nest on host teams of one).
//
// The term of triplet (i, j, k) without c9, from the edge vectors d_ij =
// x_i - x_j, d_jk = x_j - x_k, d_ki = x_k - x_i, a = |d_ij|^2, b = |d_jk|^2,
// c = |d_ki|^2, q = a b c and the dot products t = d_ij.d_jk, u =
// d_jk.d_ki, v = d_ki.d_ij (cos g_j = -t / (r_ij r_jk), and so on):
//
//   (1 + 3 cos g_i cos g_j cos g_k) / (r_ij r_jk r_ki)^3 = (q - 3 t u v) / q^(5/2)
//
// The law-of-cosines numerators a + b - c, b + c - a, c + a - b are -2t,
// -2u, -2v; taken as dot products of the edge vectors they carry no
// cancellation of squared distances (the fp32 terms of triangles with one
// short edge keep their accuracy). One inverse square root per triplet
// (fp64: a square root and a division; fp32: the hardware rsqrt), no
// branch: the cutoff test, when there is one, selects 0.
//
// fp32 scale: the term scales as length^-9, so a triangle of side 1e-5 has
// a term (~1e45) past float32's range, one of side 1e6 a term (~1e-54)
// below it, and q = a b c leaves the range earlier still. The fp32 walk of a
// pair (j, k) therefore scales every edge vector by sigma = 2^-E, 2^E <=
// max |d_jk| < 2^(E+1): a power of two, so the scaling is exact and the
// scaled term is the unscaled one times 2^(9E) bit for bit wherever both are
// in range; the pair's sum goes back to scale in double (times 2^(-9E)), and
// the cutoffs are scaled with it. fp64 needs none of it (its range covers
// the terms of any triangle whose q it can hold).

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace tdmaps {
namespace triplets {
namespace detail {

/// A staged particle, aligned so that one vector load (two for fp64) reads it.
template <class Real>
struct alignas(4 * sizeof(Real)) Point4 {
  Real x, y, z, w;
};

/// 1 / sqrt(q): the hardware reciprocal square root in fp32, a correctly
/// rounded square root and a division in fp64.
KOKKOS_FORCEINLINE_FUNCTION float inv_sqrt(float q) { return tdmaps::intrinsics::rsqrt(q); }
KOKKOS_FORCEINLINE_FUNCTION double inv_sqrt(double q) { return 1.0 / tdmaps::intrinsics::sqrt_d(q); }

/// E with 2^E <= |m| < 2^(E+1) for a normal float m, clamped to [-126, 126]
/// (0 and subnormals give -126, inf and NaN 126): 2^-E is a normal float.
KOKKOS_FORCEINLINE_FUNCTION int scale_exponent(float m) {
  const int e = static_cast<int>((tdmaps::intrinsics::float_bits(m) >> 23) & 0xffu) - 127;
  return e < -126 ? -126 : e > 126 ? 126 : e;
}
/// 2^k as a float, k in [-126, 127].
KOKKOS_FORCEINLINE_FUNCTION float pow2_float(int k) {
  return tdmaps::intrinsics::int_as_float(static_cast<std::int32_t>(k + 127) << 23);
}
/// 2^k as a double, exactly where it is representable (subnormals too), 0
/// below and inf above: the product of two normal powers.
KOKKOS_FORCEINLINE_FUNCTION double pow2_double(int k) {
  const auto normal = [](int h) {
    h = h < -1022 ? -1022 : h > 1023 ? 1023 : h;
    return tdmaps::intrinsics::int64_as_double(static_cast<std::int64_t>(h + 1023) << 52);
  };
  const int h = k / 2;
  return normal(h) * normal(k - h);
}

/// The ATM tile kernel. PerParticle: also each particle's share of the
/// blocks' energies; Cutoff: the cutoff tests (false when both cutoffs are
/// infinite: no test at all).
template <class ExecSpace, class Real, bool PerParticle, bool Cutoff>
struct AtmTile {
  using memory_space = typename ExecSpace::memory_space;
  using P = Point4<Real>;

  Kokkos::View<const Real* [3], Kokkos::LayoutRight, memory_space> x;
  Kokkos::View<double, memory_space> total;           ///< sum of the terms (c9 applied by the caller)
  Kokkos::View<double*, memory_space> per_particle;   ///< PerParticle: += share * (a particle's terms)
  double share = 0;                                   ///< c9 / 3
  Real cut2 = 0;                                      ///< cutoff^2: a, b, c must be below
  Real cut_q = 0;                                     ///< cutoff_triple^6: q = a b c must be below
  double cut2_d = 0, cut_q_d = 0;                     ///< the same in double (fp32: scaled per pair)
  static constexpr bool scaled = sizeof(Real) == 4;   ///< fp32: the pair's scale (top of this file)
  int rho = 8;
  int log2_rho = 3;

  /// What a thread sums over its team's blocks (for_each_tile's team state).
  struct team_state {
    double sum = 0;
  };

  /// Largest number of layer phases (threads per (j, k) pair) of a team:
  /// rho on GPU teams (team_layers3), tdmaps::detail::forced_lane_step() in
  /// host tests (TDMAPS_FORCE_LANE_TILE).
  static int max_phases(int rho_) {
#if defined(TDMAPS_FORCE_LANE_TILE)
    const int forced = tdmaps::detail::forced_lane_step();
    return rho_ > forced ? rho_ : forced;
#else
    return rho_;
#endif
  }

  /// The staged particles (3 rho), then with PerParticle the terms of the
  /// block's triplets (rho^3 doubles, for the layers' shares) and each
  /// thread's sum over its layers (phases x rho^2 doubles, for the rows'
  /// and the columns' shares).
  static std::size_t scratch_bytes(int rho_) {
    const std::size_t r = static_cast<std::size_t>(rho_);
    std::size_t bytes = 3 * r * sizeof(P);
    if (PerParticle) bytes += (r * r * r + static_cast<std::size_t>(max_phases(rho_)) * r * r) * sizeof(double);
    return bytes;
  }

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team, const Tile3& t, team_state& st) const {
    P* const staged = static_cast<P*>(t.scratch);  // layers [0, rho), rows [rho, 2 rho), columns [2 rho, 3 rho)
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, 3 * rho), [&](const int p) {
      const int side = p >> log2_rho, q = p & (rho - 1);
      const int len = side == 0 ? t.ni : side == 1 ? t.nj : t.nk;
      const index_t g = (side == 0 ? t.i0 : side == 1 ? t.j0 : t.k0) + q;
      staged[p] = q < len ? P{x(g, 0), x(g, 1), x(g, 2), Real(0)} : P{Real(0), Real(0), Real(0), Real(0)};
    });
    team.team_barrier();

    const P* const layers = staged;
    const P* const rows = staged + rho;
    const P* const cols = staged + 2 * rho;
    double* const terms = PerParticle ? reinterpret_cast<double*>(staged + 3 * rho) : nullptr;  // [ti][tj][tk]
    double* const sums = PerParticle ? terms + rho * rho * rho : nullptr;                   // [phase][tj][tk]
    // The faces of the tetrahedron: on a block with i0 = j0 only the layers
    // ti > tj are triplets (the walk starts there), with j0 = k0 only the
    // pairs tk < tj (a thread test); no test per triplet.
    const bool ij_face = t.i0 == t.j0, jk_face = t.j0 == t.k0;
    int phases = 1;
    for_each_lane3(team, log2_rho, [&](const int tk, const int tj, const int first, const int step) {
      phases = step;
      double s = 0;
      if (tj < t.nj && tk < t.nk && (!jk_face || tk < tj))
        s = walk(t, layers, rows[tj], cols[tk], tj, tk, ij_face ? tj + 1 : 0, first, step, terms);
      st.sum += s;
      if constexpr (PerParticle) sums[(first * rho + tj) * rho + tk] = s;
    });
    if constexpr (PerParticle) add_shares(team, t, terms, sums, phases, ij_face, jk_face);
  }

  /// The layers ti = first, first + step, ... >= lowest of pair (j, k): the
  /// sum of their terms (and with PerParticle each term into `terms`).
  KOKKOS_FORCEINLINE_FUNCTION double walk(const Tile3& t, const P* layers, const P pj, const P pk, int tj, int tk,
                                          int lowest, int first, int step, double* terms) const {
    Real fx = pj.x - pk.x, fy = pj.y - pk.y, fz = pj.z - pk.z;  // d_jk
    Real sigma = 1, c2 = cut2, cq = cut_q;
    double back = 1;
    if constexpr (scaled) {
      const Real ax = fx < 0 ? -fx : fx, ay = fy < 0 ? -fy : fy, az = fz < 0 ? -fz : fz;
      const int e = scale_exponent(ax > ay ? (ax > az ? ax : az) : (ay > az ? ay : az));
      sigma = pow2_float(-e);
      fx *= sigma;
      fy *= sigma;
      fz *= sigma;
      back = pow2_double(-9 * e);
      if constexpr (Cutoff) {
        c2 = static_cast<Real>(cut2_d * pow2_double(-2 * e));
        cq = static_cast<Real>(cut_q_d * pow2_double(-6 * e));
      }
    }
    const Real b = fx * fx + fy * fy + fz * fz;
    int ti = first_row_from(first, step, lowest);
    if (Cutoff && !(b < c2)) {  // the pair is outside the cutoff: none of its triplets counts
      if constexpr (PerParticle)
        for (; ti < t.ni; ti += step) terms[(ti * rho + tj) * rho + tk] = 0;
      return 0;
    }
    double s = 0;
    const auto one = [&](const int l) {
      Real e = term(layers[l], pj, pk, fx, fy, fz, b, sigma, c2, cq);
      s += static_cast<double>(e);
      if constexpr (PerParticle) terms[(l * rho + tj) * rho + tk] = static_cast<double>(e) * back;
    };
    if (rho == 8 && step == 1 && ti == 0 && t.ni == 8) {
      // A whole block walked by one thread per pair (the GPU default at block
      // side 8): a constant trip count, unrolled, the terms independent.
      TDMAPS_UNROLL
      for (int l = 0; l < 8; ++l) one(l);
    } else {
      for (; ti < t.ni; ti += step) one(ti);
    }
    return s * back;
  }

  /// The term of layer particle pi with pair (pj, pk), d_jk = (fx, fy, fz),
  /// b = |d_jk|^2, without c9; 0 outside the cutoffs c2, cq. fp32: every
  /// length scaled by sigma (fx, fy, fz, b, c2 and cq already are).
  KOKKOS_FORCEINLINE_FUNCTION Real term(const P pi, const P pj, const P pk, Real fx, Real fy, Real fz, Real b,
                                        Real sigma, Real c2, Real cq) const {
    Real dx = pi.x - pj.x, dy = pi.y - pj.y, dz = pi.z - pj.z;  // d_ij
    Real ex = pk.x - pi.x, ey = pk.y - pi.y, ez = pk.z - pi.z;  // d_ki
    if constexpr (scaled) {
      dx *= sigma;
      dy *= sigma;
      dz *= sigma;
      ex *= sigma;
      ey *= sigma;
      ez *= sigma;
    } else {
      (void)sigma;
    }
    const Real a = dx * dx + dy * dy + dz * dz;
    const Real c = ex * ex + ey * ey + ez * ez;
    const Real t = dx * fx + dy * fy + dz * fz;
    const Real u = fx * ex + fy * ey + fz * ez;
    const Real v = ex * dx + ey * dy + ez * dz;
    const Real q = (a * c) * b;
    const Real num = q - Real(3) * (t * u * v);
    const Real r = inv_sqrt(q);
    const Real r2 = r * r;
    const Real e = (num * r2) * (r2 * r);  // (q - 3 t u v) / q^(5/2), no intermediate beyond the term's own range
    if constexpr (Cutoff) {
      return (a < c2 && c < c2 && q < cq) ? e : Real(0);
    } else {
      (void)c2;
      (void)cq;
      return e;
    }
  }

  /// The block's shares, one global atomic per particle and role: layer ti
  /// sums the terms of its triplets, row tj and column tk the threads' sums.
  KOKKOS_FORCEINLINE_FUNCTION void add_shares(const team_member_t<ExecSpace>& team, const Tile3& t,
                                              const double* terms, const double* sums, int phases, bool ij_face,
                                              bool jk_face) const {
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, 3 * rho), [&](const int p) {
      const int side = p >> log2_rho, q = p & (rho - 1);
      double v = 0;
      if (side == 0) {
        if (q >= t.ni) return;
        const int nj = ij_face && q < t.nj ? q : t.nj;
        for (int tj = 0; tj < nj; ++tj) {
          const int nk = jk_face && tj < t.nk ? tj : t.nk;
          for (int tk = 0; tk < nk; ++tk) v += terms[(q * rho + tj) * rho + tk];
        }
      } else if (side == 1) {
        if (q >= t.nj) return;
        for (int ph = 0; ph < phases; ++ph)
          for (int tk = 0; tk < rho; ++tk) v += sums[(ph * rho + q) * rho + tk];
      } else {
        if (q >= t.nk) return;
        for (int ph = 0; ph < phases; ++ph)
          for (int tj = 0; tj < rho; ++tj) v += sums[(ph * rho + tj) * rho + q];
      }
      const index_t g = (side == 0 ? t.i0 : side == 1 ? t.j0 : t.k0) + q;
      if (v != 0) Kokkos::atomic_add(&per_particle(g), share * v);
    });
  }

  /// The team's sum, one atomic per team: on GPU teams the threads' sums
  /// reduced first (one value per thread and lane).
  KOKKOS_FUNCTION void team_end(const team_member_t<ExecSpace>& team, const team_state& st) const {
    if constexpr (is_gpu_space<ExecSpace>::value) {
      double sum = 0;
      Kokkos::parallel_reduce(
          Kokkos::TeamVectorRange(team, team.team_size() << log2_rho), [&](const int, double& v) { v += st.sum; },
          sum);
      Kokkos::single(Kokkos::PerTeam(team), [&]() {
        if (sum != 0) Kokkos::atomic_add(&total(), sum);
      });
    } else {
      (void)team;
      if (st.sum != 0) Kokkos::atomic_add(&total(), st.sum);
    }
  }
};

}  // namespace detail
}  // namespace triplets
}  // namespace tdmaps

#endif
