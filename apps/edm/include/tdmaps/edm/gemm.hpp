#ifndef TDMAPS_EDM_GEMM_HPP
#define TDMAPS_EDM_GEMM_HPP

// The gemm kernel: |x|^2 + |y|^2 - 2 X X^T with KokkosBlas::gemm, in row
// panels (with Kokkos Kernels only: TDMAPS_EDM_HAVE_KOKKOSKERNELS), as
// accurate as the element kernel. The points are centred on their mean and
// the Gram matrix and norms are computed in fp64 for both precisions; a pair
// takes sqrt(s) only where the rigorous error bound of s is a small relative
// part of it (GemmAccuracy), and every other pair (close points, duplicates,
// non-finite or huge points, tiny distances) and the diagonal are recomputed
// with the element kernel's formula (direct_dist, bit-identical). Device
// memory besides points and out: gemm_workspace_bytes<Real>(n, d).

#include <tdmaps/core/math.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/element.hpp>
#include <tdmaps/edm/layout.hpp>
#include <tdmaps/launch/for_each.hpp>

#include <Kokkos_Core.hpp>

#if defined(TDMAPS_EDM_HAVE_KOKKOSKERNELS)
#include <KokkosBlas3_gemm.hpp>
#endif

#include <cstddef>
#include <type_traits>

namespace tdmaps {
namespace edm {

/// Kernel::automatic never takes the gemm kernel (driver.hpp's
/// resolve_kernel): its values are within the bounds of GemmAccuracy but not
/// bit for bit the direct sum that SciPy computes. These thresholds say
/// where asking for Kernel::gemm explicitly pays. With Kokkos Kernels 3.4's
/// own gemm (no vendor BLAS or cuBLAS TPL) the tile kernel beats gemm at
/// every d where its scratch fits, on host and on GPU.
///
/// host_gemm_min_dims: the first d at which the gemm path (an fp64 Gram
/// matrix for both precisions) beats the element kernel in both precisions
/// on an OpenMP host, where the tile's scratch no longer fits; at a tie the
/// element kernel, which needs no workspace, keeps it. The fp32 element
/// kernel is not vectorised across pairs on host, so one threshold serves
/// both precisions. gpu_gemm_min_dims: the same on a GPU in fp32, decided
/// while the gemm path still computed its Gram matrix in fp32 and not
/// decided again since (the fp64 Gram matrix costs the fp32 case more).
/// No perf_tests case runs the gemm kernel; the CLI decides both, over d,
/// for the element and the gemm kernel in both precisions (condensed,
/// lambda; host n = 4096 at block side 32, GPU n = 16384 at block side 16):
///   tdmaps-edm --random N --dims $d --kernel $k --precision P --repeat 3 --json
constexpr int host_gemm_min_dims = 224;
constexpr int gpu_gemm_min_dims = 32;  ///< the GPU threshold (above)

/// The smallest d at which Kernel::automatic takes the gemm path on ExecSpace.
template <class ExecSpace>
constexpr int gemm_min_dims() {
  return is_gpu_space<ExecSpace>::value ? gpu_gemm_min_dims : host_gemm_min_dims;
}

/// Whether this build has the gemm kernel (Kokkos Kernels found).
inline bool has_gemm() {
#if defined(TDMAPS_EDM_HAVE_KOKKOSKERNELS)
  return true;
#else
  return false;
#endif
}

namespace detail {

/// Rows of the gemm path's Gram panel: the panel (fp64) stays at most
/// 64 MiB, or one row of n values where that is more, and never more than
/// the n x n matrix.
inline index_t gemm_panel_rows(index_t n) {
  const index_t budget = (index_t(64) << 20) / static_cast<index_t>(sizeof(double));
  index_t panel = n > 0 ? budget / n : 1;
  if (panel < 1) panel = 1;
  if (panel > n) panel = n;
  return panel;
}

/// When the gemm path may take s = N_i + N_j - 2 G_ij for the pair (i, j)
/// rather than recompute it with direct_dist: where s >= k (N_i + N_j),
/// s >= s_min and N_i + N_j <= n_max (comparisons that NaN fails).
///
/// The bound, with u = 2^-53, everything fp64, c_i the stored centred points,
/// N' = |c_i|^2 + |c_j|^2 exactly and gamma_m = m u / (1 - m u):
///   - Gram: whatever the order of the sums (the blocking of gemm included),
///     |G_ij - c_i.c_j| <= gamma_d sum_k |c_ik c_jk| <= gamma_d |c_i| |c_j|
///     <= gamma_d N' / 2; the factor -2 is exact: gamma_d N' in s;
///   - norms: |N_i - |c_i|^2| <= gamma_d |c_i|^2, together gamma_d N';
///   - the two additions of s: u N' and u |s| <= 2 u N' (|s| <= 2 N' by
///     Cauchy-Schwarz, to first order);
///   - centring: c_ik = fl(x_ik - mu_k) is off by at most u |c_ik|, so
///     |c_i - c_j| is within u (|c_i| + |c_j|) <= u sqrt(2 N') of
///     |x_i - x_j|, and its square within 4 u N' (first order); mu itself
///     may be anything (a shift changes no distance), only its rounding
///     counts.
/// So |s - |x_i - x_j|^2| <= (2 d + 7) u N' + O(d^2 u^2 N'); d u <= 2^-33
/// (d <= 2^20), so (2 d + 8) u N covers the second-order terms and N' <=
/// (1 + gamma_d) N; with a safety factor 2, gamma = (4 d + 16) u. A pair
/// with s >= K N, K = gamma / tol_s, then has |error of s| <= gamma N <=
/// tol_s s: s within a relative tol_s, the distance within tol_s / 2 before
/// the fp64 sqrt's rounding (u) and the rounding to Real.
///   fp32: tol_s = 2^-26. The distance is within 2^-27 + 2^-53 before its
///     rounding to float: the correctly rounded float or a neighbour, inside
///     the element kernel's own float error ((d + 2) 2^-24 for its squared
///     distance). K = (4 d + 16) 2^-27: only pairs much closer than their
///     norms (dist^2 < K N) are recomputed.
///   fp64: tol_s = 8 (d + 2) u, the distance within 4 (d + 2) u + u, half
///     of the 4 (d + 2) eps the direct kernels are tested to (their own
///     worst case is (d + 2) u for s). Matching that worst case is out of
///     reach: tol_s = (d + 2) u makes K > 2, and s <= 2 N for every pair.
///     This tol_s is the smallest power-of-two multiple of it that keeps
///     K = (4 d + 16) / (8 d + 16) <= 5/6 below 1: the centred points of a
///     high-dimensional cloud are nearly orthogonal (s ~ N), so their pairs
///     take the gemm value, and pairs with dist^2 < K N (close points,
///     clusters, duplicates) are recomputed.
/// In units in the last place: fp64 within 2 (d + 2) + 1 ulp of the direct
/// sum (typical clouds stay far below: apps/edm/README.md, checked by
/// python/tests/test_exact.py); fp32 within 1 ulp of the correctly rounded
/// distance.
/// s_min = max(Real's smallest normal, 2^-969): below 2^-969 the fp64
/// products' underflow (at most 2^-1075 each, 3 d of them) is no longer
/// negligible against s; float pairs closer than 2^-63, whose squared
/// coordinate differences underflow in the element kernel's float
/// arithmetic, come from its formula too.
/// n_max: fp64 2^1020, so no norm, product or s overflows; fp32 2^125, so
/// s < 2^127 and the element kernel's float sum does not overflow either:
/// Inf from finite points comes from the element kernel's formula only.
/// Non-finite points have a non-finite N (or N > n_max) and are recomputed,
/// as is the diagonal (0, or NaN for a NaN/Inf point).
struct GemmAccuracy {
  double k = 0;
  double s_min = 0;
  double n_max = 0;
};

template <class Real>
GemmAccuracy gemm_accuracy(int d) {
  constexpr double u = 0x1p-53;
  const double gamma = (4.0 * d + 16.0) * u;
  const double tol_s = std::is_same<Real, float>::value ? 0x1p-26 : 8.0 * (d + 2.0) * u;
  GemmAccuracy a;
  a.k = gamma / tol_s;
  a.s_min = std::is_same<Real, float>::value ? 0x1p-126 : 0x1p-969;
  a.n_max = std::is_same<Real, float>::value ? 0x1p125 : 0x1p1020;
  return a;
}

#if defined(TDMAPS_EDM_HAVE_KOKKOSKERNELS)
/// Mean of each coordinate over the finite values (a team per coordinate),
/// in fp64; 0 where there is none or the mean is not finite. Any centre
/// gives the same distances; the mean makes the norms, and so the Gram
/// formula's error, as small as they get.
template <class ExecSpace, class Real>
struct ColumnMeans {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<const Real**, Kokkos::LayoutRight, memory_space> x;
  Kokkos::View<double*, memory_space> mean;
  index_t n = 0;

  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    const int k = team.league_rank();
    double sum = 0, count = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, n),
        [&](const index_t i, double& s) {
          const double v = static_cast<double>(x(i, k));
          if (tdmaps::isfinite_of(v)) s += v;
        },
        sum);
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, n),
        [&](const index_t i, double& c) {
          if (tdmaps::isfinite_of(static_cast<double>(x(i, k)))) c += 1;
        },
        count);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      const double m = count > 0 ? sum / count : 0.0;
      mean(k) = tdmaps::isfinite_of(m) ? m : 0.0;
    });
  }
};

/// c(i, k) = x(i, k) - mean(k) in fp64 (for fp32 points also the upcast).
template <class ExecSpace, class Real>
struct CentrePoints {
  using memory_space = typename ExecSpace::memory_space;
  Kokkos::View<const Real**, Kokkos::LayoutRight, memory_space> x;
  Kokkos::View<const double*, memory_space> mean;
  Kokkos::View<double**, Kokkos::LayoutRight, memory_space> c;
  int d = 0;

  KOKKOS_FUNCTION void operator()(const index_t q) const {
    const index_t i = q / d;
    const int k = static_cast<int>(q - i * d);
    c(i, k) = static_cast<double>(x(i, k)) - mean(k);
  }
};

template <class ExecSpace>
struct SquaredNorms {
  Kokkos::View<const double**, Kokkos::LayoutRight, typename ExecSpace::memory_space> c;
  Kokkos::View<double*, typename ExecSpace::memory_space> norms;
  int d;
  KOKKOS_FUNCTION void operator()(const index_t i) const {
    double s = 0;
    for (int k = 0; k < d; ++k) s += c(i, k) * c(i, k);
    norms(i) = s;
  }
};

/// Turns a panel of g = -2 C_panel C^T into distances of the layout: sqrt(s)
/// where GemmAccuracy says s is accurate, else the element kernel's formula
/// on the original points.
/// Packed / full: team per panel row i, lanes over j <= i (contiguous stores).
/// Condensed: team per column j, lanes over the panel's rows i > j
/// (contiguous stores, strided reads of g).
template <class ExecSpace, class Real>
struct GemmToLayout {
  using memory_space = typename ExecSpace::memory_space;
  EdmData<Real, memory_space> e;
  Kokkos::View<const double*, memory_space> norms;
  Kokkos::View<const double**, Kokkos::LayoutRight, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> g;
  GemmAccuracy accuracy;
  index_t r0 = 0, r1 = 0;  ///< panel rows [r0, r1); g is (r1 - r0) x r1

  KOKKOS_FORCEINLINE_FUNCTION Real value(index_t i, index_t j) const {
    if (i != j) {
      const double nsum = norms(i) + norms(j);
      const double s = nsum + g(i - r0, j);
      // NaN fails every comparison: such pairs are recomputed.
      if (s >= accuracy.k * nsum && s >= accuracy.s_min && nsum <= accuracy.n_max)
        return static_cast<Real>(sqrt_real(s));
    }
    return direct_dist<Real>(e.x, i, j, e.d);
  }
  KOKKOS_FUNCTION void operator()(const team_member_t<ExecSpace>& team) const {
    const index_t q = team.league_rank();
    if (e.layout == Layout::condensed) {
      const index_t j = q;  // columns 0 .. r1 - 2
      const index_t begin = r0 > j + 1 ? r0 : j + 1;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, static_cast<int>(r1 - begin)), [&](const int k) {
        const index_t i = begin + k;
        e.out(condensed_index(e.n, i, j)) = value(i, j);
      });
    } else {
      const index_t i = r0 + q;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, static_cast<int>(i + 1)),
                           [&](const int j) { e.store(i, j, value(i, j)); });
    }
  }
};

template <class ExecSpace, class Real>
void edm_gemm(const ExecSpace& space, const EdmData<Real, typename ExecSpace::memory_space>& e) {
  using memory_space = typename ExecSpace::memory_space;
  using device = Kokkos::Device<ExecSpace, memory_space>;
  using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  const index_t n = e.n;
  const int d = e.d;

  // Centre in fp64 (gemm_workspace_bytes counts these buffers).
  Kokkos::View<double*, memory_space> mean(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::edm::gemm::mean"), static_cast<std::size_t>(d));
  Kokkos::parallel_for("tdmaps::edm::gemm::mean", team_policy_t<ExecSpace>(space, d, Kokkos::AUTO),
                       ColumnMeans<ExecSpace, Real>{e.x, mean, n});
  Kokkos::View<double**, Kokkos::LayoutRight, memory_space> centred(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::edm::gemm::centred"), static_cast<std::size_t>(n),
      static_cast<std::size_t>(d));
  Kokkos::parallel_for(
      "tdmaps::edm::gemm::centre",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, n * static_cast<index_t>(d)),
      CentrePoints<ExecSpace, Real>{e.x, mean, centred, d});
  Kokkos::View<double*, memory_space> norms(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::edm::gemm::norms"), static_cast<std::size_t>(n));
  Kokkos::parallel_for("tdmaps::edm::gemm::norms",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, 0, n),
                       SquaredNorms<ExecSpace>{centred, norms, d});

  // Panel p holds rows [r0, r1) against columns [0, r1).
  const index_t panel = gemm_panel_rows(n);
  Kokkos::View<double*, memory_space> buffer(
      Kokkos::view_alloc(space, Kokkos::WithoutInitializing, "tdmaps::edm::gemm::panel"),
      static_cast<std::size_t>(panel * n));
  const GemmAccuracy accuracy = gemm_accuracy<Real>(d);
  // Kokkos Kernels 3.4's gemm runs on the default instance of ExecSpace.
  space.fence();
  for (index_t r0 = 0; r0 < n; r0 += panel) {
    const index_t r1 = r0 + panel < n ? r0 + panel : n;
    Kokkos::View<const double**, Kokkos::LayoutRight, device, unmanaged> a(centred.data() + r0 * d, r1 - r0, d);
    Kokkos::View<const double**, Kokkos::LayoutRight, device, unmanaged> b(centred.data(), r1, d);
    Kokkos::View<double**, Kokkos::LayoutRight, device, unmanaged> c(buffer.data(), r1 - r0, r1);
    KokkosBlas::gemm("N", "T", -2.0, a, b, 0.0, c);
    ExecSpace().fence();
    GemmToLayout<ExecSpace, Real> f{e, norms, c, accuracy, r0, r1};
    const index_t league = e.layout == Layout::condensed ? r1 - 1 : r1 - r0;
    if (league > 0)
      Kokkos::parallel_for("tdmaps::edm::gemm::to_layout",
                           team_policy_t<ExecSpace>(space, static_cast<int>(league), Kokkos::AUTO), f);
    space.fence();  // the next panel overwrites the buffer
  }
}
#endif

}  // namespace detail

/// Device memory the gemm kernel allocates besides points and out, in bytes,
/// for n points of d coordinates: the centred fp64 copy of the points (n d),
/// their squared norms (n), the mean (d) and the Gram panel
/// (detail::gemm_panel_rows(n) rows of n), all fp64 whatever Real is (Real
/// names the points' precision, for callers that size by it).
template <class Real>
index_t gemm_workspace_bytes(index_t n, index_t d) {
  static_assert(std::is_same<Real, float>::value || std::is_same<Real, double>::value,
                "tdmaps::edm: Real is float or double");
  const index_t doubles = n * d + n + d + detail::gemm_panel_rows(n) * n;
  return doubles * static_cast<index_t>(sizeof(double));
}

}  // namespace edm
}  // namespace tdmaps

#endif
