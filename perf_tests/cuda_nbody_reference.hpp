#ifndef TDMAPS_PERF_TESTS_CUDA_NBODY_REFERENCE_HPP
#define TDMAPS_PERF_TESTS_CUDA_NBODY_REFERENCE_HPP

// Plain-CUDA all-pairs N-body kernels of the nbody group (nbody_benchmarks.cpp),
// each body's sum taken over all n bodies (n^2 evaluations, the triangle's
// library path evaluates every pair once):
//
//   gems       a twin of GPU Gems 3, ch. 31 (Nyland, Harris, Prins, "Fast
//              N-Body Simulation with CUDA"), written from the chapter's
//              text: one thread per body, blocks of 256 threads, the bodies
//              staged 256 at a time in shared memory as (x, y, z, m), the
//              tile loop unrolled; terms as tdmaps::nbody takes them (fp32
//              rsqrtf, fp64 1 / sqrt, a division for Lennard-Jones)
//   square     the same sum register-blocked: R bodies per thread (R = 1,
//              2, 4) and the sources of a block split among Q groups of its
//              threads (Q = 1, 2, 4, 8; partial sums added in shared memory
//              at the end), so small n still fills the GPU; its math as
//              fast as the accuracy allows: the hardware's rsqrt without
//              the denormal path in fp32 (the same values: d^2 >= eps^2),
//              CUDA's rsqrt in fp64 (within 1 ulp), the hardware's
//              reciprocal for Lennard-Jones (fp64: two Newton steps on it;
//              within 1 ulp), eps^2 added first
//   reference  the gems kernel in fp64 with body i itself skipped and
//              compensated (Neumaier) sums: the group's accuracy reference,
//              for a strided sample of targets
//
// Laws: gravity with Plummer softening (eps^2 > 0: the body itself enters
// gems' and square's sums with d = 0 and adds no force; its term of the
// potential is taken out again) and Lennard-Jones without cutoff (the body
// itself, r = 0, adds nothing). Bodies: n x 4 Reals (x, y, z, m),
// 4 * sizeof(Real)-aligned. Outputs: 4 Reals per body, (ax, ay, az, e)
// with e the body's share of the potential energy (half of each of its
// pairs'), the layout of tdmaps::nbody::Accel<Real>; LawParams::energy =
// false: accelerations alone (as the chapter's kernel), e written 0. Launches are
// asynchronous, on the stream of the default Kokkos::Cuda instance; errors
// throw std::runtime_error. Built only with Kokkos_ENABLE_CUDA.

#include <Kokkos_Macros.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include <tdmaps/core/types.hpp>

#include <string>
#include <vector>

namespace tdmaps_bench {
namespace cuda_nbody {

/// The pair law of a launch.
enum class Law { gravity, lennard_jones };

/// The law's parameters (host side, fp64; converted to Real at launch).
struct LawParams {
  double G = 1.0;        ///< gravity: G
  double eps2 = 0.0;     ///< gravity: softening squared, > 0
  double sigma = 1.0;    ///< Lennard-Jones: sigma
  double epsilon = 1.0;  ///< Lennard-Jones: well depth
  bool energy = true;    ///< the energy shares too (false: accelerations alone, e written 0; the chapter's kernel)
};

/// A launch shape of the square kernel.
struct SquareShape {
  int rows = 1;    ///< bodies per thread (1, 2, 4)
  int splits = 1;  ///< groups of a block's threads sharing its sources (1, 2, 4, 8)
};

/// Every shape the square kernel is compiled for, (1, 1) first.
std::vector<SquareShape> square_shapes();
/// "r<rows>q<splits>".
std::string shape_label(const SquareShape& s);

/// The gems kernel: out[t] = what body i = t * stride receives from bodies
/// 0 .. n - 1, for t = 0 .. targets - 1 (targets * stride <= n, so the
/// targets lie among the sources).
template <class Real>
void gems(Law law, const LawParams& p, tdmaps::index_t n, const Real* bodies, tdmaps::index_t targets,
          tdmaps::index_t stride, Real* out);

/// The reference: gems' walk in fp64, body i skipped, compensated sums
/// (arguments as gems').
void reference(Law law, const LawParams& p, tdmaps::index_t n, const double* bodies, tdmaps::index_t targets,
               tdmaps::index_t stride, double* out);

/// The square kernel: out[i] = what body i receives from bodies 0 ..
/// sources - 1, for i = 0 .. targets - 1 (sources < targets only to time a
/// shape on a shorter sum: the energy shares are then not those of a full sum).
template <class Real>
void square(Law law, const LawParams& p, const SquareShape& shape, tdmaps::index_t targets, tdmaps::index_t sources,
            const Real* bodies, Real* out);

/// Registers per thread and local memory bytes of a square kernel (p.energy picks it).
template <class Real>
std::string square_attributes(Law law, const LawParams& p, const SquareShape& shape);

}  // namespace cuda_nbody
}  // namespace tdmaps_bench

#endif
#endif
