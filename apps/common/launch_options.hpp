#ifndef TDMAPS_APPS_COMMON_LAUNCH_OPTIONS_HPP
#define TDMAPS_APPS_COMMON_LAUNCH_OPTIONS_HPP

// The GPU launch-shape options both CLIs take (tdmaps::LaunchHints).

#include <CLI/CLI.hpp>
#include <tdmaps/launch/for_each.hpp>

namespace tdmaps {
namespace app {

/// --team-threads and --blocks-per-team into `hints` (0: the defaults the
/// library and the apps measured).
inline void add_launch_options(CLI::App& cli, tdmaps::LaunchHints& hints) {
  cli.add_option("--team-threads", hints.team_threads,
                 "GPU threads per team of the element and tile kernels (0: the library's default; at least the block side)")
      ->check(CLI::Range(0, 1024));
  cli.add_option("--blocks-per-team", hints.blocks_per_team, "blocks each team takes in turn (0: the library's default)")
      ->check(CLI::Range(0, tdmaps::max_blocks_per_team));
}

}  // namespace app
}  // namespace tdmaps

#endif
