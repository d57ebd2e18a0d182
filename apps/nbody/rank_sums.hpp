#ifndef TDMAPS_APPS_NBODY_RANK_SUMS_HPP
#define TDMAPS_APPS_NBODY_RANK_SUMS_HPP

// tdmaps-nbody on MPI ranks: the one sum of the accelerations per force
// evaluation (each rank computed its part of the pairs into acc; afterwards
// every rank holds the whole, bit for bit, so every rank integrates the same
// state). The parts are summed in fp64 (a few fp32 or fp64 parts: the same
// sum on every rank whatever order the all-reduction takes), widened and
// narrowed on the device, and summed on the devices by NCCL where the run
// can load it (CUDA: app::NcclSum), else through staging host memory
// (pinned on CUDA) by MPI.

#include "common/nccl_sum.hpp"

#include <tdmaps/kokkos_ext/backend.hpp>
#include "common/npy.hpp"
#include "common/ranks.hpp"
#include "common/staging.hpp"

#include <tdmaps/core/types.hpp>
#include <tdmaps/nbody/forces.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

namespace tdmaps {
namespace nbody_cli {

/// sums(4 i + c) = component c of acc(i) in fp64, and back (back = true).
/// At namespace scope: CUDA kernels' functor types may not be private.
template <class Real, class Mem>
struct RankSumsCopy {
  Kokkos::View<nbody::Accel<Real>*, Mem> acc;
  Kokkos::View<double*, Mem> sums;
  bool back = false;
  KOKKOS_FUNCTION void operator()(const index_t i) const {
    double* d = &sums(static_cast<std::size_t>(4 * i));
    nbody::Accel<Real>& a = acc(i);
    if (back)
      a = nbody::Accel<Real>{static_cast<Real>(d[0]), static_cast<Real>(d[1]), static_cast<Real>(d[2]),
                             static_cast<Real>(d[3])};
    else
      d[0] = a.x, d[1] = a.y, d[2] = a.z, d[3] = a.e;
  }
};

template <class Real, class Space>
class RankSums {
 public:
  using mem = typename Space::memory_space;
  using Acc = Kokkos::View<nbody::Accel<Real>*, mem>;

  /// For acc of n bodies on `ranks` (nothing allocated for one rank); a
  /// collective on several ranks (whether NCCL sums them: NcclSum).
  RankSums(const Acc& acc, const app::Ranks& ranks)
      : ranks_(ranks),
        copy_{acc,
              Kokkos::View<double*, mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::nbody::rank_sums"),
                                         ranks.size() > 1 ? 4 * acc.extent(0) : 0)} {
    if (ranks.size() > 1 && on_cuda) nccl_ = std::make_unique<app::NcclSum>(ranks);
    if (ranks.size() > 1 && !(nccl_ && nccl_->available()))
      host_ = Kokkos::View<double*, typename app::staging_space<Space>::type>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "tdmaps::nbody::rank_sums_host"), 4 * acc.extent(0));
  }

  /// How the ranks' sums travel: "nccl", "host (<why not NCCL>)" or "one rank".
  std::string path() const {
    if (ranks_.size() < 2) return "one rank";
    if (nccl_ && nccl_->available()) return "nccl";
    return "host (" + (nccl_ ? nccl_->status() : std::string("not CUDA")) + ")";
  }

  /// acc = the sum of every rank's acc (a collective); returns its milliseconds.
  double operator()(const Space& space) const {
    app::Timer t;
    const Kokkos::RangePolicy<Space, Kokkos::IndexType<index_t>> bodies(space, 0,
                                                                       static_cast<index_t>(copy_.acc.extent(0)));
    Copy out = copy_, in = copy_;
    in.back = true;
    Kokkos::parallel_for("tdmaps::nbody::rank_sums_out", bodies, out);
    if (nccl_ && nccl_->available()) {
      nccl_->sum_f64(copy_.sums.data(), static_cast<std::int64_t>(copy_.sums.extent(0)), stream(space));
    } else {
      Kokkos::deep_copy(space, host_, copy_.sums);
      space.fence();
      ranks_.sum_f64(host_.data(), static_cast<std::int64_t>(host_.extent(0)));
      Kokkos::deep_copy(space, copy_.sums, host_);
    }
    Kokkos::parallel_for("tdmaps::nbody::rank_sums_in", bodies, in);
    space.fence();
    return 1e3 * t.seconds();
  }

 private:
  using Copy = RankSumsCopy<Real, mem>;
  // NCCL is CUDA's: other backends (HIP, whose RCCL is not wired here, and
  // host backends) sum through the host.
  static constexpr bool on_cuda = backend::is_cuda<Space>::value;
  /// The CUDA stream of `space` (a cudaStream_t), for NCCL.
  static void* stream(const Space& space) { return backend::native_stream(space); }
  const app::Ranks& ranks_;
  Copy copy_;
  std::unique_ptr<app::NcclSum> nccl_;
  Kokkos::View<double*, typename app::staging_space<Space>::type> host_;
};

}  // namespace nbody_cli
}  // namespace tdmaps

#endif
