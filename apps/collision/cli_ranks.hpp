#ifndef TDMAPS_COLLISION_CLI_RANKS_HPP
#define TDMAPS_COLLISION_CLI_RANKS_HPP

// tdmaps-collide on MPI ranks (common/ranks.hpp): each rank tests the pairs
// of its omega_range() of the map's league (collide() over a range); the
// results meet on rank 0: the count by one sum, the flag layouts by one OR of
// the words (each rank set only its blocks' bits; int flags are 0 / 1), the
// pair list gathered and sorted by (i, j), so every file equals one rank's
// byte for byte. Part of the CLI, not installed.

#include <tdmaps/collision.hpp>

#include "common/ranks.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace tdmaps {
namespace collide_cli {

/// The result of every rank, on rank 0 (other ranks: the count only).
struct RankResult {
  tdmaps::index_t count = 0;
  std::vector<std::uint32_t> words;  ///< flags, rowflags, tileflags, intflags (as uint32)
  std::vector<std::int64_t> pairs;   ///< (k, 2) row-major, sorted
};

template <class mem>
RankResult combine_ranks(const tdmaps::app::Ranks& ranks, tdmaps::collision::Result result,
                         const tdmaps::collision::Output<mem>& out, tdmaps::index_t count) {
  namespace tc = tdmaps::collision;
  RankResult r;
  r.count = count;
  ranks.sum_i64(&r.count, 1);
  const auto words = [&](const auto& view) {
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
    r.words.resize(h.extent(0));
    if (!r.words.empty()) std::memcpy(r.words.data(), h.data(), r.words.size() * sizeof(std::uint32_t));
    ranks.or_u32(r.words.data(), static_cast<std::int64_t>(r.words.size()));
  };
  switch (result) {
    case tc::Result::count: break;
    case tc::Result::flags: words(out.flags); break;
    case tc::Result::rowflags: words(out.rowflags); break;
    case tc::Result::tileflags: words(out.tileflags); break;
    case tc::Result::intflags: words(out.intflags); break;
    case tc::Result::pairs: {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.pairs);
      std::vector<std::int64_t> mine(2 * h.extent(0));
      for (std::size_t k = 0; k < h.extent(0); ++k) {
        mine[2 * k] = h(k, 0);
        mine[2 * k + 1] = h(k, 1);
      }
      r.pairs = ranks.gather_i64(mine);
      // Each rank's list is sorted; a block row split between ranks
      // interleaves their rows: one sort of the (i, j) pairs.
      std::vector<std::pair<std::int64_t, std::int64_t>> p(r.pairs.size() / 2);
      for (std::size_t k = 0; k < p.size(); ++k) p[k] = {r.pairs[2 * k], r.pairs[2 * k + 1]};
      std::sort(p.begin(), p.end());
      for (std::size_t k = 0; k < p.size(); ++k) {
        r.pairs[2 * k] = p[k].first;
        r.pairs[2 * k + 1] = p[k].second;
      }
      break;
    }
  }
  return r;
}

}  // namespace collide_cli
}  // namespace tdmaps

#endif
