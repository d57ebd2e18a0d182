#ifndef TDMAPS_LAUNCH_DETAIL_RUN_LEAGUE_HPP
#define TDMAPS_LAUNCH_DETAIL_RUN_LEAGUE_HPP

// Not API (tdmaps::detail): the one place that builds a TeamPolicy for a
// map's league (2-D or 3-D): the team shape from LaunchHints, blocks per team, the split
// of long leagues into Kokkos launches with an omega offset, and the checks
// of scratch and team size against the backend's limits. Element functors
// on CUDA with one block per team launch directly (kokkos_ext/direct_launch.hpp).

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/kokkos_ext/direct_launch.hpp>
#include <tdmaps/launch/hints.hpp>
#include <tdmaps/launch/team_policy.hpp>
#include <tdmaps/launch/tile.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace tdmaps {
namespace detail {

/// Team size and vector length of a launch over d: rows x rho on GPU
/// backends, 1 x 1 on host backends.
template <class ExecSpace>
void team_shape(const Domain2& d, const LaunchHints& hints, LaunchKind kind, int& team_size, int& vector_length) {
  const int rows = team_rows(hints, d.rho, kind);  // validates the hints on every backend
  if (is_gpu_space<ExecSpace>::value) {
    team_size = rows;
    vector_length = d.rho;
  } else {
    team_size = 1;
    vector_length = 1;
  }
}

/// Team size and vector length of a launch over a tetrahedron: p rho x rho
/// on GPU backends (team_layers3), 1 x 1 on host backends.
template <class ExecSpace>
void team_shape(const Domain3& d, const LaunchHints& hints, LaunchKind, int& team_size, int& vector_length) {
  const int p = team_layers3(hints, d.rho);  // validates the hints on every backend
  if (is_gpu_space<ExecSpace>::value) {
    team_size = p * d.rho;
    vector_length = d.rho;
  } else {
    team_size = 1;
    vector_length = 1;
  }
}

/// Launches the omegas [begin, end) of a league (an omega range) in teams
/// of at most blocks_per_team blocks, split into Kokkos launches of at most
/// max_league_per_launch teams. Functor has members `offset` and `count`
/// (the omegas [offset, offset + count) of one Kokkos launch).
template <class ExecSpace, class Domain, class Functor>
void run_league(const ExecSpace& space, const std::string& label, const Domain& d, const LaunchHints& hints,
                LaunchKind kind, index_t begin, index_t end, std::size_t scratch, Functor f) {
  int team_size, vector_length;
  team_shape<ExecSpace>(d, hints, kind, team_size, vector_length);
  const int per_team = blocks_per_team(hints, kind, is_gpu_space<ExecSpace>::value);
  const index_t per_launch = max_league_per_launch * per_team;  // omegas per Kokkos launch
  for (index_t offset = begin; offset < end; offset += per_launch) {
    const index_t omegas = end - offset < per_launch ? end - offset : per_launch;
    const index_t chunk = (omegas + per_team - 1) / per_team;  // teams: each takes at most per_team omegas
    f.offset = offset;
    f.count = omegas;
    if constexpr (has_direct_launch<ExecSpace, Functor>::value) {
      if (per_team == 1 && scratch == 0) {  // element kernels, one block per team (kokkos_ext/direct_launch.hpp)
        // Blocks of the domain side by side in one CUDA block, as many as fit 1024 threads.
        int group = f.direct_group();
        while (group > 1 && vector_length * group * team_size > 1024) group /= 2;
        f.group = group;
        direct_launch(space, label, (omegas + group - 1) / group, vector_length * group, team_size, f);
        continue;
      }
    }
    team_policy_t<ExecSpace> policy(space, static_cast<int>(chunk), team_size, vector_length);
    if (scratch > 0) {
      const std::size_t max_scratch = static_cast<std::size_t>(team_policy_t<ExecSpace>::scratch_size_max(0));
      if (scratch + tile_scratch_alignment > max_scratch)
        throw std::invalid_argument(label + ": tile kernel asks for " + std::to_string(scratch) +
                                    " bytes of team scratch per block; this backend allows at most " +
                                    std::to_string(max_scratch - tile_scratch_alignment));
      policy.set_scratch_size(0, Kokkos::PerTeam(scratch + tile_scratch_alignment));  // + alignment slack
    }
    if (offset == begin) {
      const int max_team = policy.team_size_max(f, Kokkos::ParallelForTag());
      if (team_size > max_team)
        throw std::runtime_error(label + ": a block of " + std::to_string(team_size) + " x " +
                                 std::to_string(vector_length) + " threads does not fit this kernel on this backend (" +
                                 "team_size_max = " + std::to_string(max_team) + "); use a smaller block side");
    }
    Kokkos::parallel_for(label, policy, f);
  }
}

}  // namespace detail
}  // namespace tdmaps

#endif
