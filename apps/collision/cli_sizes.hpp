#ifndef TDMAPS_COLLISION_CLI_SIZES_HPP
#define TDMAPS_COLLISION_CLI_SIZES_HPP

// tdmaps-collide: the result's size and the memory and disk checks made
// before anything is allocated or generated. Part of the CLI, not installed.

#include <tdmaps/collision.hpp>

#include "cli_input.hpp"
#include "common/cli.hpp"
#include "common/memory.hpp"
#include "common/output_file.hpp"
#include "common/sizes.hpp"

#include <Kokkos_Core.hpp>

#include <limits>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace collide_cli {

namespace app = tdmaps::app;
namespace tc = tdmaps::collision;

using app::bytes_text;
using app::mul_sat;

/// Memory and disk of a run, checked in milliseconds before anything is
/// allocated or generated: host (the spheres, the file's host copy of the
/// result) before Kokkos starts, the device once it has.
template <class mem>
void check_sizes(const Options& o, index_t n, bool device_side) {
  constexpr bool same_memory = std::is_same<mem, Kokkos::HostSpace>::value;
  // 4-byte words or entries; pairs: unknown before the count.
  const index_t result_bytes = mul_sat(tc::result_words(*tc::result_from_name(o.result), n), 4);
  const index_t spheres = mul_sat(n, 16);  // x, y, z, r as float32
  const bool write = !o.output.empty();
  const std::string what = o.result == "count" ? std::string("the spheres") : "the " + o.result + " output (" +
                                                                                   bytes_text(result_bytes) + ") and the spheres";
  if (!device_side) {
    // Host: the spheres as read / generated, their device copy on host
    // backends, and the result (host backends) or its copy for the file.
    // The file as read (float64) and its float32 copy.
    index_t host = o.in.input.empty() ? spheres : mul_sat(spheres, 3);
    if (same_memory) host = mul_sat(spheres, 2) + result_bytes;
    else if (write) host = spheres + result_bytes;
    if (host < 0 || result_bytes == std::numeric_limits<index_t>::max()) host = std::numeric_limits<index_t>::max();
    const index_t host_free = app::host_available_bytes();
    if (host > host_free)
      throw app::Error(what + " of n = " + std::to_string(n) + " spheres need " + bytes_text(host) +
                       " of host memory but only " + app::format_bytes(host_free) +
                       " is available; use --result count, or fewer spheres");
    if (write && o.result != "pairs") app::check_filesystem_space(o.output, result_bytes + 128, "the " + o.result + " output");
    if (!o.save_input.empty()) app::check_filesystem_space(o.save_input, spheres + 128, "the spheres");
    return;
  }
  if (same_memory) return;
  index_t device = spheres + result_bytes;
  if (result_bytes == std::numeric_limits<index_t>::max()) device = result_bytes;
  const index_t device_free = app::free_memory_bytes<mem>();
  if (device > device_free)
    throw app::Error(what + " of n = " + std::to_string(n) + " spheres need " + bytes_text(device) + " of " +
                     mem::name() + " memory but only " + app::format_bytes(device_free) +
                     " is free; use --result count, or fewer spheres");
}

}  // namespace collide_cli
}  // namespace tdmaps

#endif
