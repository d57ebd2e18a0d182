#ifndef TDMAPS_COLLISION_COLLIDE_HPP
#define TDMAPS_COLLISION_COLLIDE_HPP

// collide(): checks the arguments and the spheres, prepares the result's
// output and launches the kernel; count() for the count alone.

#include <tdmaps/collision/buffers.hpp>
#include <tdmaps/collision/check.hpp>
#include <tdmaps/collision/launch.hpp>
#include <tdmaps/collision/pair_list.hpp>
#include <tdmaps/collision/result.hpp>
#include <tdmaps/collision/spheres.hpp>
#include <tdmaps/collision/tile.hpp>
#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/for_each.hpp>
#include <tdmaps/launch/reduce.hpp>
#include <tdmaps/maps/map_concept.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tdmaps {
namespace collision {
namespace detail {

/// One team: sums the count_slots counters into the summary (hits, first
/// bad row) and resets them and the first-bad entry for the next call, so a
/// call needs no reset launch of its own.
template <class ExecSpace>
struct FinishCount {
  using mem = typename ExecSpace::memory_space;
  Kokkos::View<counter_t*, mem> c;
  Kokkos::View<counter_t[2], typename summary_space<mem>::type> summary;
  using member_t = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  KOKKOS_FUNCTION void operator()(const member_t& team) const {
    counter_t total = 0;
    Kokkos::parallel_reduce(
        Kokkos::TeamThreadRange(team, count_slots),
        [&](const int k, counter_t& sum) {
          sum += c(k * slot_stride);
          c(k * slot_stride) = 0;
        },
        total);
    Kokkos::single(Kokkos::PerTeam(team), [&]() {
      summary(0) = total;
      summary(1) = c(index_t(first_bad_entry));
      c(index_t(first_bad_entry)) = ~counter_t(0);
    });
  }
};

template <class MemorySpace>
struct PopcountWords {
  Kokkos::View<const std::uint32_t*, MemorySpace> w;
  KOKKOS_FUNCTION void operator()(const index_t k, index_t& sum) const {
    std::uint32_t v = w(k);  // SWAR popcount: portable to device code
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    v = (v + (v >> 4)) & 0x0f0f0f0fu;
    sum += static_cast<index_t>((v * 0x01010101u) >> 24);
  }
};

}  // namespace detail

namespace detail {
template <class ExecSpace, class Map>
index_t collide(const ExecSpace& space, const ConstSpheres<typename ExecSpace::memory_space>& spheres, const Map& map,
                const OmegaRange* range, Result result, Kernel kernel, Output<typename ExecSpace::memory_space>& out,
                const LaunchHints& hints) {
  using mem = typename ExecSpace::memory_space;
  const index_t n = static_cast<index_t>(spheres.extent(0));
  if (map.domain.triangle != Triangle::strict_lower)
    throw std::invalid_argument(std::string("tdmaps::collision: map '") + Map::name +
                                "' covers the lower triangle with its diagonal; collisions need Triangle::strict_lower (j < i)");
  if (map.domain.n != n)
    throw std::invalid_argument(std::string("tdmaps::collision: map '") + Map::name + "' has n = " +
                                std::to_string(map.domain.n) + " but spheres has " + std::to_string(n) + " rows");
  if (kernel == Kernel::tile && !tdmaps::is_block_space_map_v<Map>)
    throw std::invalid_argument(std::string("tdmaps::collision: the tile kernel needs a block-space map; '") +
                                Map::name + "' is a thread-space map (use the element kernel)");
  if (result == Result::flags && static_cast<index_t>(out.flags.extent(0)) != flag_words(n))
    throw std::invalid_argument("tdmaps::collision: flags has " + std::to_string(out.flags.extent(0)) + " words; n = " +
                                std::to_string(n) + " spheres need flag_words(n) = " + std::to_string(flag_words(n)));
  if (result == Result::rowflags && static_cast<index_t>(out.rowflags.extent(0)) != row_flag_words(n))
    throw std::invalid_argument("tdmaps::collision: rowflags has " + std::to_string(out.rowflags.extent(0)) +
                                " words; n = " + std::to_string(n) +
                                " spheres need row_flag_words(n) = " + std::to_string(row_flag_words(n)));
  if (result == Result::tileflags && static_cast<index_t>(out.tileflags.extent(0)) != tile_flag_words(n))
    throw std::invalid_argument("tdmaps::collision: tileflags has " + std::to_string(out.tileflags.extent(0)) +
                                " words; n = " + std::to_string(n) +
                                " spheres need tile_flag_words(n) = " + std::to_string(tile_flag_words(n)));
  if (result == Result::intflags && static_cast<index_t>(out.intflags.extent(0)) != pair_count(n))
    throw std::invalid_argument("tdmaps::collision: intflags has " + std::to_string(out.intflags.extent(0)) +
                                " entries; n = " + std::to_string(n) + " spheres need pair_count(n) = " +
                                std::to_string(pair_count(n)));
  detail::Buffers<mem> b;
  b.s = spheres;
  index_t total = 0;
  if (result == Result::count && kernel == Kernel::element) {
    // The element kernel's count is a pair reduction of the library.
    detail::check_spheres(space, spheres);
    const std::string label = std::string("tdmaps::collision::count::element::") + Map::name;
    bool done = false;
    if constexpr (tdmaps::is_block_space_map_v<Map> && !tdmaps::is_multi_launch_map_v<Map>) {
      if (range) {
        reduce_pairs(space, map, *range, detail::HitCount<mem>{b}, Kokkos::Sum<index_t>(total), label, hints);
        done = true;
      }
    }
    if (range && !done)
      throw std::invalid_argument(std::string("tdmaps::collision: omega ranges need a one-launch block-space map "
                                              "(bb, lambda, rb); got map '") + Map::name + "'");
    if (n > 1 && !done) reduce_pairs(space, map, detail::HitCount<mem>{b}, Kokkos::Sum<index_t>(total), label, hints);
    space.fence();
    return total;
  }
  switch (result) {
    case Result::count:
    case Result::intflags:
    case Result::rowflags:
    case Result::tileflags:
    case Result::flags: {
      // The GPU tile kernel counts bit flags as it sets them (as count
      // does); the other kernels' flags are counted from the words.
      const bool bits = result == Result::flags || result == Result::rowflags || result == Result::tileflags;
      const bool counted = !bits || (kernel == Kernel::tile && detail::TileKernel<ExecSpace>::lane_tile);
      // The linear kernel writes whole words, and so does the GPU tile
      // kernel the row-aligned and the tiled flags at block side 32 (a warp
      // per block row); the other kernels set bits only, in words zeroed
      // first.
      // A range writes only its blocks' words: the others must be zeroed first.
      const bool whole = range == nullptr &&
                         (kernel == Kernel::linear ||
                          ((result == Result::rowflags || result == Result::tileflags) && kernel == Kernel::tile &&
                           tdmaps::is_gpu_space<ExecSpace>::value && map.domain.rho == 32));
      const detail::Mode bit_mode = result == Result::flags      ? detail::Mode::flags
                                  : result == Result::rowflags ? detail::Mode::rowflags
                                                               : detail::Mode::tileflags;
      if (bits)
        b.words = result == Result::flags ? out.flags : result == Result::rowflags ? out.rowflags : out.tileflags;
      if (!counted) {
        detail::check_spheres(space, spheres);
        if (!whole) Kokkos::deep_copy(space, b.words, std::uint32_t(0));
        b.mode = bit_mode;
        if (n > 1) detail::launch(space, map, kernel, b, name(result), hints, range);
        total = detail::sum(space, "tdmaps::collision::flags_popcount", static_cast<index_t>(b.words.extent(0)),
                          detail::PopcountWords<mem>{b.words});
        break;
      }
      // Counters [0, counter_slots) take the hits, then the input check's
      // first bad row (detail::first_bad_entry); Output::summary the result. The check is
      // one launch without a reduction; a tile kernel that writes nothing
      // before its blocks (not the words zeroed first) runs behind it
      // without a device wait: each team reads the check's result before its
      // first block and takes no block on bad input (for_each_tile's gate),
      // so nothing is written. One team then sums the counters and resets
      // them with the check's entry for the next call (FinishCount), and the
      // call waits once, for the summary. The others wait for the check
      // first (their outputs are untouched on bad input either way).
      using detail::counter_t;
      if (static_cast<index_t>(out.counters.extent(0)) != detail::counter_entries) {
        out.counters = Kokkos::View<counter_t*, mem>(Kokkos::view_alloc(space, "tdmaps::collision::count_slots"),
                                                     detail::counter_entries);  // zeroed
        Kokkos::deep_copy(space, Kokkos::subview(out.counters, detail::first_bad_entry), ~counter_t(0));
      }
      if (out.summary.data() == nullptr)
        out.summary = decltype(out.summary)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::collision::summary"));
      const Kokkos::View<counter_t, mem> first_bad(out.counters.data() + detail::first_bad_entry);  // unmanaged
      const auto finish = [&]() {
        Kokkos::parallel_for("tdmaps::collision::count_finish",
                             Kokkos::TeamPolicy<ExecSpace>(space, 1, tdmaps::is_gpu_space<ExecSpace>::value ? 128 : 1),
                             detail::FinishCount<ExecSpace>{out.counters, out.summary});
      };
      if (n > 0)
        Kokkos::parallel_for("tdmaps::collision::check", detail::range_t<ExecSpace>(space, 0, n),
                             detail::CheckSpheres<mem>{spheres, out.counters});
      const bool gated = kernel == Kernel::tile && (!bits || whole);
      if (!gated) {
        counter_t bad = 0;
        Kokkos::deep_copy(space, Kokkos::View<counter_t, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(&bad), first_bad);
        space.fence();
        if (bad != ~counter_t(0)) {
          finish();  // the check's entry back to ~0 (the counters are untouched)
          space.fence();
          detail::reject_sphere(space, spheres, static_cast<index_t>(bad));
        }
        if (bits && !whole) Kokkos::deep_copy(space, b.words, std::uint32_t(0));
      }
      b.slots = out.counters;
      b.gate = gated ? first_bad.data() : nullptr;
      b.ints = out.intflags;
      if (range && result == Result::intflags) Kokkos::deep_copy(space, out.intflags, std::int32_t(0));
      b.mode = result == Result::count ? detail::Mode::count : result == Result::intflags ? detail::Mode::intflags : bit_mode;
      try {
        if (n > 1) detail::launch(space, map, kernel, b, name(result), hints, range);
      } catch (...) {
        finish();  // leave the counters and the check's entry reset
        space.fence();
        throw;
      }
      finish();
      space.fence();  // the summary is in host-readable memory: no copy
      if (out.summary(1) != ~counter_t(0)) detail::reject_sphere(space, spheres, static_cast<index_t>(out.summary(1)));
      total = static_cast<index_t>(out.summary(0));
      break;
    }
    case Result::pairs:
      detail::check_spheres(space, spheres);
      total = detail::pair_list(space, map, kernel, b, out, hints, range);
      break;
  }
  space.fence();
  return total;
}
}  // namespace detail

/// Tests every pair j < i of `spheres` under `map` (Triangle::strict_lower,
/// n = spheres.extent(0)) with `kernel`, fills out's View for `result`, and
/// returns the number of colliding pairs. Fences `space` before returning.
/// `hints` shape the GPU teams (launch layer).
template <class ExecSpace, class Map>
index_t collide(const ExecSpace& space, const ConstSpheres<typename ExecSpace::memory_space>& spheres, const Map& map,
                Result result, Kernel kernel, Output<typename ExecSpace::memory_space>& out,
                const LaunchHints& hints = LaunchHints()) {
  return detail::collide(space, spheres, map, static_cast<const OmegaRange*>(nullptr), result, kernel, out, hints);
}

/// collide() over the blocks of the omegas of `range` only (an omega_range()
/// part: MPI ranks, chunks), for a one-launch block-space map (bb, lambda, rb)
/// and the tile or element kernel: returns the colliding pairs of those
/// blocks; count and pairs hold those blocks' pairs (pairs sorted by (i, j)),
/// the flag layouts those blocks' flags with every other flag 0 (the parts
/// of a partition OR to the whole).
template <class ExecSpace, class Map>
index_t collide(const ExecSpace& space, const ConstSpheres<typename ExecSpace::memory_space>& spheres, const Map& map,
                const OmegaRange& range, Result result, Kernel kernel, Output<typename ExecSpace::memory_space>& out,
                const LaunchHints& hints = LaunchHints()) {
  if constexpr (tdmaps::is_block_space_map_v<Map> && !tdmaps::is_multi_launch_map_v<Map>) {
    tdmaps::check_omega_range(map, range, "tdmaps::collision::collide");
    return detail::collide(space, spheres, map, &range, result, kernel, out, hints);
  } else {
    throw std::invalid_argument(std::string("tdmaps::collision: omega ranges need a one-launch block-space map "
                                            "(bb, lambda, rb); got map '") + Map::name + "'");
  }
}

/// collide() for Result::count alone.
template <class ExecSpace, class Map>
index_t count(const ExecSpace& space, const ConstSpheres<typename ExecSpace::memory_space>& spheres, const Map& map,
              Kernel kernel = Kernel::tile) {
  Output<typename ExecSpace::memory_space> none;
  return collide(space, spheres, map, Result::count, kernel, none);
}

}  // namespace collision
}  // namespace tdmaps

#endif
