#ifndef TDMAPS_APPS_COMMON_RUN_SCOPE_HPP
#define TDMAPS_APPS_COMMON_RUN_SCOPE_HPP

// The start of a tool's run once its options are checked, in the one order
// every tool keeps (target tdmaps::app_common):
//   1. check(false): the sizes that need no device (a run too large for the
//      host, or for the index types, stops before Kokkos starts);
//   2. with several MPI ranks, the facts every rank must share
//      (Ranks::set_run_facts; the tool's next ranks.agree() compares them);
//   3. Kokkos, on this rank's device (rank_device_args);
//   4. check(true): the sizes against the device's memory;
//   5. a progress display, on the root rank unless --quiet or --json.
// The tool then loads its input and calls ranks.agree() before any work.
// Kokkos ends (and the progress line with it) when the scope ends.

#include "cli_options.hpp"
#include "kokkos_run.hpp"
#include "progress.hpp"
#include "rank_device.hpp"
#include "ranks.hpp"

#include <string>
#include <vector>

namespace tdmaps {
namespace app {

class RunScope {
 public:
  /// check(bool device_side) throws on sizes that do not fit; facts() gives
  /// the run's RunFacts (called only with several ranks).
  template <class Check, class Facts>
  RunScope(const Ranks& ranks, const std::string& argv0, const std::vector<std::string>& kokkos_options,
           const RunOptions& run, const Check& check, const Facts& facts)
      : before_(prepare(ranks, check, facts)),
        kokkos_(argv0, rank_device_args(ranks, kokkos_options)),
        progress((check(true), run.quiet || run.json || !ranks.root())) {}

 private:
  template <class Check, class Facts>
  static bool prepare(const Ranks& ranks, const Check& check, const Facts& facts) {
    check(false);
    if (ranks.size() > 1) ranks.set_run_facts(facts());
    return true;
  }
  bool before_;         // steps 1 and 2, before Kokkos (members start in this order)
  KokkosScope kokkos_;  // step 3

 public:
  Progress progress;  ///< step 5 (after step 4)
};

}  // namespace app
}  // namespace tdmaps

#endif
