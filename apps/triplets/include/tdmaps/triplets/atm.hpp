#ifndef TDMAPS_TRIPLETS_ATM_HPP
#define TDMAPS_TRIPLETS_ATM_HPP

// atm_energy(): checks the arguments, launches the ATM tile kernel
// (atm_tile.hpp) of the requested variant on the map, and returns the total.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/tetrahedral.hpp>
#include <tdmaps/core/detail/number_text.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/maps/detail/map_traits.hpp>
#include <tdmaps/launch/for_each.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/omega_range.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/maps/map_concept.hpp>
#include <tdmaps/triplets/atm_tile.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace triplets {

/// The parameters of the Axilrod-Teller-Muto sum.
struct AtmParams {
  double c9 = 1.0;  ///< the coefficient C9, finite and >= 0
  /// All three distances of a triplet must be < cutoff for it to count.
  double cutoff = std::numeric_limits<double>::infinity();
  /// r_ij r_jk r_ki < cutoff_triple^3 for a triplet to count.
  double cutoff_triple = std::numeric_limits<double>::infinity();
};

/// Number of triplets k < j < i < n: n (n - 1) (n - 2) / 6 (0 for n < 3).
inline index_t triplet_count(index_t n) { return tet_elements(n, Triangle::strict_lower); }

namespace detail {

/// v as typed (core/detail/number_text.hpp), NaN spelt as these messages always have.
inline std::string number_text(double v) { return std::isnan(v) ? std::string("NaN") : tdmaps::detail::number_text(v); }

/// Throws std::invalid_argument naming the first bad parameter.
inline void check_params(const AtmParams& p) {
  if (!(std::isfinite(p.c9) && p.c9 >= 0))
    throw std::invalid_argument("tdmaps::triplets::atm_energy: c9 = " + number_text(p.c9) +
                                " must be finite and >= 0");
  if (!(p.cutoff >= 0))
    throw std::invalid_argument("tdmaps::triplets::atm_energy: cutoff = " + number_text(p.cutoff) +
                                " must be >= 0 (infinity: no cutoff)");
  if (!(p.cutoff_triple >= 0))
    throw std::invalid_argument("tdmaps::triplets::atm_energy: cutoff_triple = " + number_text(p.cutoff_triple) +
                                " must be >= 0 (infinity: no cutoff)");
}

/// Blocks per team of the GPU launch where the caller left it to tdmaps
/// (LaunchHints::blocks_per_team = 0): a thread takes only rho / p layers of
/// a block, so a team's set-up weighs more than in the 2-D tile kernels and
/// is paid once per this many blocks. `tdmaps-triplets --random 4096
/// --blocks-per-team K` at block side 8, fp32 and fp64, decides it.
constexpr int atm_blocks_per_team = 16;

template <class Real, class ExecSpace, class Map, bool PerParticle, bool Cutoff>
void launch_atm(const ExecSpace& space, const Map& map,
                const Kokkos::View<const Real* [3], Kokkos::LayoutRight, typename ExecSpace::memory_space>& x,
                const Kokkos::View<double, typename ExecSpace::memory_space>& total,
                const Kokkos::View<double*, typename ExecSpace::memory_space>& per_particle, const AtmParams& params,
                const LaunchHints& hints, const OmegaRange* range) {
  using Kernel = AtmTile<ExecSpace, Real, PerParticle, Cutoff>;
  Kernel k;
  k.x = x;
  k.total = total;
  k.per_particle = per_particle;
  k.share = params.c9 / 3.0;
  const double c2 = params.cutoff * params.cutoff;
  const double cq = params.cutoff_triple * params.cutoff_triple * params.cutoff_triple;
  k.cut2 = static_cast<Real>(c2);  // overflow to +inf keeps the test's meaning
  k.cut_q = static_cast<Real>(cq * cq);
  k.cut2_d = c2;
  k.cut_q_d = cq * cq;
  k.rho = map.domain.rho;
  k.log2_rho = log2_block_side(map.domain.rho);
  const std::string label = std::string("tdmaps::triplets::atm_") + (sizeof(Real) == 4 ? "fp32" : "fp64") +
                            (PerParticle ? "_per_particle" : "") + "::" + Map::name;
  LaunchHints h = hints;
  if (h.blocks_per_team == 0 && is_gpu_space<ExecSpace>::value) h.blocks_per_team = atm_blocks_per_team;
  if (range) for_each_tile(space, map, *range, Kernel::scratch_bytes(k.rho), k, label, h);
  else for_each_tile(space, map, Kernel::scratch_bytes(k.rho), k, label, h);
}

}  // namespace detail

namespace detail {
template <class Real, class ExecSpace, class Map>
double atm_energy(const ExecSpace& space, const Map& map, const OmegaRange* range,
                  const Kokkos::View<const Real* [3], Kokkos::LayoutRight, typename ExecSpace::memory_space>& x,
                  const AtmParams& params, const Kokkos::View<double*, typename ExecSpace::memory_space>& per_particle,
                  const LaunchHints& hints) {
  static_assert(std::is_same<Real, float>::value || std::is_same<Real, double>::value,
                "tdmaps::triplets::atm_energy: Real must be float or double");
  static_assert(tdmaps::is_3d_map_v<Map>,
                "tdmaps::triplets::atm_energy: needs a 3-D map (over a Domain3: bb3, lambda3)");
  static_assert(is_block_space_map_v<Map>, "tdmaps::triplets::atm_energy: needs a block-space map (a tile kernel)");
  using mem = typename ExecSpace::memory_space;
  const index_t n = map.domain.n;
  if (map.domain.triangle != Triangle::strict_lower)
    throw std::invalid_argument(
        "tdmaps::triplets::atm_energy: the map's domain must be Triangle::strict_lower (the triplets k < j < i)");
  if (static_cast<index_t>(x.extent(0)) != n)
    throw std::invalid_argument("tdmaps::triplets::atm_energy: x has " + std::to_string(x.extent(0)) +
                                " rows but the map's domain has n = " + std::to_string(n));
  const bool shares = per_particle.data() != nullptr;
  if (shares && static_cast<index_t>(per_particle.extent(0)) != n)
    throw std::invalid_argument("tdmaps::triplets::atm_energy: per_particle has " +
                                std::to_string(per_particle.extent(0)) + " entries but n = " + std::to_string(n));
  detail::check_params(params);

  if (shares) Kokkos::deep_copy(space, per_particle, 0.0);
  if (n < 3) {
    space.fence();
    return 0.0;
  }
  const Kokkos::View<double, mem> total(Kokkos::view_alloc(space, "tdmaps::triplets::atm_total"));
  const bool cut = !(std::isinf(params.cutoff) && std::isinf(params.cutoff_triple));
  if (shares) {
    if (cut) detail::launch_atm<Real, ExecSpace, Map, true, true>(space, map, x, total, per_particle, params, hints, range);
    else detail::launch_atm<Real, ExecSpace, Map, true, false>(space, map, x, total, per_particle, params, hints, range);
  } else {
    if (cut) detail::launch_atm<Real, ExecSpace, Map, false, true>(space, map, x, total, per_particle, params, hints, range);
    else detail::launch_atm<Real, ExecSpace, Map, false, false>(space, map, x, total, per_particle, params, hints, range);
  }
  double sum = 0;
  Kokkos::deep_copy(space, Kokkos::View<double, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&sum), total);
  space.fence();
  return params.c9 * sum;
}
}  // namespace detail

/// Total Axilrod-Teller-Muto energy over the strict triplets k < j < i < n
/// of map's domain: the sum of c9 (1 + 3 cos g1 cos g2 cos g3) /
/// (r_ij r_jk r_ki)^3, g the triangle's inner angles, over the triplets
/// inside the cutoffs. Real = float or double: the triplet terms in Real,
/// every sum in double. per_particle (optional, size n, ExecSpace's memory):
/// zeroed, then each particle's share (a third of each of its triplets'
/// energy), summing to the total. Particles at coincident positions give
/// NaN terms (0 / 0 in the formula), propagated to the total; inputs are not
/// checked for NaN. Throws std::invalid_argument when map.domain.triangle
/// is not strict_lower, x.extent(0) != n, per_particle is allocated with a
/// size other than n, or a parameter is negative or NaN (c9 also infinite).
/// Returns the total on the host (fences `space`).
template <class Real, class ExecSpace, class Map>
double atm_energy(const ExecSpace& space, const Map& map,
                  const Kokkos::View<const Real* [3], Kokkos::LayoutRight, typename ExecSpace::memory_space>& x,
                  const AtmParams& params,
                  const Kokkos::View<double*, typename ExecSpace::memory_space>& per_particle = {},
                  const LaunchHints& hints = LaunchHints()) {
  return detail::atm_energy<Real>(space, map, static_cast<const OmegaRange*>(nullptr), x, params, per_particle, hints);
}

/// atm_energy() over the blocks of the omegas of `range` only (an
/// omega_range() part: MPI ranks, chunks): the energy of those blocks'
/// triplets; per_particle (optional) holds their shares. The parts of a
/// partition of the league sum to atm_energy() of the whole.
template <class Real, class ExecSpace, class Map>
double atm_energy(const ExecSpace& space, const Map& map, const OmegaRange& range,
                  const Kokkos::View<const Real* [3], Kokkos::LayoutRight, typename ExecSpace::memory_space>& x,
                  const AtmParams& params,
                  const Kokkos::View<double*, typename ExecSpace::memory_space>& per_particle = {},
                  const LaunchHints& hints = LaunchHints()) {
  return detail::atm_energy<Real>(space, map, &range, x, params, per_particle, hints);
}

}  // namespace triplets
}  // namespace tdmaps

#endif
