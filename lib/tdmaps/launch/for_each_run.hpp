#ifndef TDMAPS_LAUNCH_FOR_EACH_RUN_HPP
#define TDMAPS_LAUNCH_FOR_EACH_RUN_HPP

// Output-order launch: a triangle walked in the memory order of a packed
// output, Width consecutive linear indices per thread.
//
//   for_each_run<Width>(space, n, triangle, order, kernel[, label])
//       kernel(run) once per run {k0, i, j, count}: linear indices k0 = Width t
//       .. k0 + count - 1 (count = Width but for the last run), (i, j) the
//       element at k0; the kernel walks the run with run_next(). Orders and
//       the index math: launch/run.hpp.
//
// This is the lambda map at element granularity: thread t finds the element
// at k0 with eq. (4) and then steps through its run. Why it exists beside the
// block-space maps: a block of a tile kernel writes each of its rows of a
// packed output as a run of rho values that starts anywhere in a memory
// sector, so every such run leaves two sectors that a neighbouring block
// completes; here a warp writes 32 Width-aligned runs, whole sectors (16-byte
// stores for Width = 4 floats). The `linear` kernel cases of the `edm` and
// `collision` groups set it against the tile kernels.

#include <tdmaps/core/domain.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/detail/run_functor.hpp>
#include <tdmaps/launch/run.hpp>
#include <tdmaps/launch/team_policy.hpp>

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>

namespace tdmaps {

/// kernel(run) for every run of Width consecutive linear indices of the
/// triangle of side n in `order` (see the top of this header). Width is a
/// power of two in 1 .. 64. Throws std::invalid_argument for n < 0.
template <int Width, class ExecSpace, class Kernel>
void for_each_run(const ExecSpace& space, index_t n, Triangle t, RunOrder order, const Kernel& kernel,
                  const std::string& label = "tdmaps::for_each_run") {
  static_assert(Width >= 1 && Width <= 64 && (Width & (Width - 1)) == 0,
                "tdmaps::for_each_run: Width is a power of two <= 64");
  if (n < 0) throw std::invalid_argument(label + ": n = " + std::to_string(n) + " is negative");
  if (n > max_side)
    throw std::invalid_argument(label + ": n = " + std::to_string(n) +
                                " exceeds tdmaps::max_side = " + std::to_string(max_side));
  const index_t total = run_total(n, t);
  const index_t runs = (total + Width - 1) / Width;
  const detail::RunFunctor<Width, Kernel> f{kernel, n, t, order, total};
  for (index_t begin = 0; begin < runs; begin += max_league_per_launch) {
    const index_t end = runs - begin < max_league_per_launch ? runs : begin + max_league_per_launch;
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<index_t>>(space, begin, end), f);
  }
}

}  // namespace tdmaps

#endif
