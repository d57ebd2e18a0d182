#ifndef TDMAPS_APPS_COMMON_KOKKOS_RUN_HPP
#define TDMAPS_APPS_COMMON_KOKKOS_RUN_HPP

// Kokkos in a CLI's run (target tdmaps::app_common): started once every
// host-side check has passed (--help, --version and usage errors never need
// a device), finalized when the scope ends, also on an exception; and a
// View written to a .npy file through its host copy, with progress.

#include "cli.hpp"
#include "npy.hpp"
#include "progress.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tdmaps {
namespace app {

/// Kokkos, started with `kokkos_options` (split_kokkos_args, rank_device_args)
/// for the lifetime of this object. Views must be destroyed before it.
class KokkosScope {
 public:
  KokkosScope(const std::string& argv0, const std::vector<std::string>& kokkos_options)
      : argv_(argv0, kokkos_options), guard_(argv_.argc(), argv_.argv()) {}

 private:
  KokkosArgv argv_;
  Kokkos::ScopeGuard guard_;
};

/// The elements of `view` (contiguous) written to `path` as a .npy of
/// `shape` through a host copy, in a progress phase "write <path>"; the
/// caller ends the phase (progress.done()).
template <class View>
void write_view_npy(const std::string& path, const View& view, const std::vector<std::int64_t>& shape,
                    Progress& progress) {
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
  using T = typename decltype(h)::non_const_value_type;
  progress.phase("write " + path, static_cast<std::int64_t>(h.span() * sizeof(T)), Progress::Unit::bytes);
  write_npy(path, h.data(), shape, [&](std::int64_t done, std::int64_t) { progress.advance(done); });
}

}  // namespace app
}  // namespace tdmaps

#endif
