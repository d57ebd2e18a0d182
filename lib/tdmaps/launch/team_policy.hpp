#ifndef TDMAPS_LAUNCH_TEAM_POLICY_HPP
#define TDMAPS_LAUNCH_TEAM_POLICY_HPP

// The Kokkos team policy every tdmaps launch builds, its member type (the
// first argument of a tile kernel), and which execution spaces run teams as
// GPU thread blocks.

#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/backend.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace tdmaps {

/// Largest league a single Kokkos launch is given; longer leagues are split
/// into several launches with an omega offset (Kokkos' league size is an int).
/// TDMAPS_MAX_LEAGUE_PER_LAUNCH (tests only) sets a tiny one, so that the
/// split is tested on leagues a test can check.
#if defined(TDMAPS_MAX_LEAGUE_PER_LAUNCH)
constexpr index_t max_league_per_launch = TDMAPS_MAX_LEAGUE_PER_LAUNCH;
#else
constexpr index_t max_league_per_launch = index_t(1) << 30;
#endif

/// Whether ExecSpace runs a team as a GPU thread block (R threads x rho
/// vector lanes: CUDA, HIP, SYCL); host backends run a team as one thread
/// (kokkos_ext/backend.hpp).
template <class ExecSpace>
struct is_gpu_space : backend::is_gpu<ExecSpace> {};

/// The team policy of every tdmaps launch (int league, at most 1024 threads).
template <class ExecSpace>
using team_policy_t = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<1024, 1>, Kokkos::IndexType<int>>;

/// The team member a tile kernel is called with.
template <class ExecSpace>
using team_member_t = typename team_policy_t<ExecSpace>::member_type;

}  // namespace tdmaps

#endif
