// Plain-CUDA all-pairs N-body kernels (see cuda_nbody_reference.hpp).
// Compiled by nvcc_wrapper as C++; nothing here goes through Kokkos' launch
// path or tdmaps' maps.
#include "cuda_nbody_reference.hpp"

#if defined(KOKKOS_ENABLE_CUDA)

#include <cuda_runtime.h>
#include <Kokkos_Core.hpp>

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

namespace tdmaps_bench {
namespace cuda_nbody {

namespace {

using tdmaps::index_t;

/// A body (x, y, z, m) or a result (ax, ay, az, e): one 16-byte (fp32) or
/// 32-byte (fp64) load or store. (CUDA 13 deprecates double4.)
template <class Real>
struct alignas(4 * sizeof(Real)) Body4 {
  Real x, y, z, w;
};

// The chapter's math (tdmaps::nbody's too): rsqrtf in fp32, 1 / sqrt in fp64.
__device__ __forceinline__ float inv_sqrt(float v) { return rsqrtf(v); }
__device__ __forceinline__ double inv_sqrt(double v) { return 1.0 / sqrt(v); }
// square's: the hardware's approximation without its denormal path in fp32
// (the same values as rsqrtf for normal inputs, and d^2 >= eps^2 is one),
// CUDA's rsqrt in fp64 (within 1 ulp, one function instead of two).
__device__ __forceinline__ float inv_sqrt_fast(float v) {
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
__device__ __forceinline__ double inv_sqrt_fast(double v) { return rsqrt(v); }
// 1 / v for square's Lennard-Jones: the hardware's approximation in fp32
// (within 1 ulp); in fp64 its approximation refined by two Newton steps
// (within 1 ulp for the normal v of the lattice, without the division's
// special-case path).
__device__ __forceinline__ float recip_fast(float v) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
  return r;
}
__device__ __forceinline__ double recip_fast(double v) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(v));
  r = fma(r, fma(-v, r, 1.0), r);
  return fma(r, fma(-v, r, 1.0), r);
}

/// Gravity, the chapter's body-body interaction: with r = x_j - x_i and
/// d2 = |r|^2 + eps^2, body i's terms are m_j r / d2^(3/2) (acceleration,
/// G = 1) and m_j / d2^(1/2) (potential, w). The body itself gives r = 0:
/// no force, and a potential term m_i / eps that finish() takes out again
/// (the same value). Fast: square's math, eps^2 first (d2 in three FMAs).
/// Energy: the potential summed (else w stays 0: the chapter's kernel,
/// accelerations alone).
template <class Real, bool Fast, bool Energy>
struct Gravity {
  static constexpr bool energy = Energy;
  Real G;
  Real eps2;
  __device__ __forceinline__ static Real inv(Real v) { return Fast ? inv_sqrt_fast(v) : inv_sqrt(v); }
  __device__ __forceinline__ Body4<Real> term(const Body4<Real>& bi, const Body4<Real>& bj) const {
    const Real dx = bj.x - bi.x, dy = bj.y - bi.y, dz = bj.z - bi.z;
    const Real d2 = Fast ? eps2 + dx * dx + dy * dy + dz * dz : dx * dx + dy * dy + dz * dz + eps2;
    const Real id = inv(d2);
    const Real m_inv = bj.w * id;
    const Real s = m_inv * id * id;
    return Body4<Real>{s * dx, s * dy, s * dz, m_inv};
  }
  /// The acceleration and the energy share -G m_i / 2 sum_{j != i} m_j / d;
  /// `self`: body i's own term is in the sums.
  __device__ __forceinline__ Body4<Real> finish(const Body4<Real>& bi, bool self, const Body4<Real>& acc) const {
    const Real phi = self ? acc.w - bi.w * inv(eps2) : acc.w;
    return Body4<Real>{G * acc.x, G * acc.y, G * acc.z, Energy ? Real(-0.5) * G * bi.w * phi : Real(0)};
  }
};

/// Lennard-Jones without cutoff: the force on i is
/// 24 epsilon (2 (sigma/r)^12 - (sigma/r)^6) / r^2 (x_i - x_j), its
/// acceleration that over m_i (finish()); w sums the pair energies
/// 4 epsilon ((sigma/r)^12 - (sigma/r)^6). The body itself (r = 0) adds
/// nothing. Fast: square's math. Energy: as Gravity's.
template <class Real, bool Fast, bool Energy>
struct LennardJones {
  static constexpr bool energy = Energy;
  Real sigma2;
  Real eps24;
  Real eps4;
  __device__ __forceinline__ Body4<Real> term(const Body4<Real>& bi, const Body4<Real>& bj) const {
    const Real dx = bj.x - bi.x, dy = bj.y - bi.y, dz = bj.z - bi.z;
    const Real r2 = dx * dx + dy * dy + dz * dz;
    const Real ir2 = r2 > Real(0) ? (Fast ? recip_fast(r2) : Real(1) / r2) : Real(0);
    const Real s2 = sigma2 * ir2;
    const Real s6 = s2 * s2 * s2;
    const Real s12 = s6 * s6;
    const Real g = eps24 * (s12 + s12 - s6) * ir2;
    return Body4<Real>{-g * dx, -g * dy, -g * dz, eps4 * (s12 - s6)};
  }
  __device__ __forceinline__ Body4<Real> finish(const Body4<Real>& bi, bool, const Body4<Real>& acc) const {
    const Real minv = Real(1) / bi.w;
    return Body4<Real>{acc.x * minv, acc.y * minv, acc.z * minv, Energy ? Real(0.5) * acc.w : Real(0)};
  }
};

template <class Real, class LawT>
__device__ __forceinline__ void interact(const LawT& law, const Body4<Real>& bi, const Body4<Real>& bj,
                                         Body4<Real>& acc) {
  const Body4<Real> t = law.term(bi, bj);
  acc.x += t.x;
  acc.y += t.y;
  acc.z += t.z;
  if (LawT::energy) acc.w += t.w;
}

/// Neumaier's compensated sums of four components (the reference).
template <class Real>
struct Sum4 {
  Body4<Real> s{Real(0), Real(0), Real(0), Real(0)};
  Body4<Real> c{Real(0), Real(0), Real(0), Real(0)};
  __device__ __forceinline__ static void add1(Real& sum, Real& comp, Real v) {
    const Real t = sum + v;
    comp += fabs(sum) >= fabs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  __device__ __forceinline__ void add(const Body4<Real>& v) {
    add1(s.x, c.x, v.x);
    add1(s.y, c.y, v.y);
    add1(s.z, c.z, v.z);
    add1(s.w, c.w, v.w);
  }
  __device__ __forceinline__ Body4<Real> value() const {
    return Body4<Real>{s.x + c.x, s.y + c.y, s.z + c.z, s.w + c.w};
  }
};

// ---- gems ------------------------------------------------------------------

constexpr int gems_threads = 256;  // p of the chapter: threads per block = bodies per tile

/// One thread per target body t (body i = t * stride); the block stages the
/// sources tile by tile (one body per thread), every thread walks the whole
/// tile from shared memory (a broadcast read), barriers around each tile.
/// A last, partial tile is loaded and walked up to its size only.
/// Compensated (the reference): body i itself skipped, Neumaier sums.
template <class Real, class LawT, bool Compensated>
__global__ void __launch_bounds__(gems_threads)
    gems_kernel(const LawT law, const Body4<Real>* __restrict__ bodies, const index_t n, const index_t targets,
                const index_t stride, Body4<Real>* __restrict__ out) {
  __shared__ Body4<Real> tile[gems_threads];
  const int tid = static_cast<int>(threadIdx.x);
  const index_t t = static_cast<index_t>(blockIdx.x) * gems_threads + tid;
  const bool active = t < targets;
  const index_t i = active ? t * stride : 0;  // idle threads still load tiles
  const Body4<Real> me = bodies[i];
  Body4<Real> acc{Real(0), Real(0), Real(0), Real(0)};
  Sum4<Real> sum;
  const auto walk = [&](index_t base, int count) {
    if constexpr (Compensated) {
      for (int k = 0; k < count; ++k)
        if (base + k != i) sum.add(law.term(me, tile[k]));
    } else if (count == gems_threads) {
#pragma unroll 4
      for (int k = 0; k < gems_threads; ++k) interact(law, me, tile[k], acc);
    } else {
      for (int k = 0; k < count; ++k) interact(law, me, tile[k], acc);
    }
  };
  index_t base = 0;
  for (; base + gems_threads <= n; base += gems_threads) {
    tile[tid] = bodies[base + tid];
    __syncthreads();
    walk(base, gems_threads);
    __syncthreads();
  }
  if (base < n) {
    const int count = static_cast<int>(n - base);
    if (tid < count) tile[tid] = bodies[base + tid];
    __syncthreads();
    walk(base, count);
  }
  if (!active) return;
  if constexpr (Compensated)
    out[t] = law.finish(me, false, sum.value());
  else
    out[t] = law.finish(me, true, acc);
}

// ---- square ----------------------------------------------------------------

constexpr int square_threads = 256;

/// R bodies per thread (first + r P, r < R: each load of a warp is
/// contiguous), Q groups of P = 256 / Q threads: per round the block stages
/// 256 sources, group q walks sources q P .. q P + P - 1 of them, so each
/// shared read feeds R interactions. At the end groups 1 .. Q - 1 leave their
/// sums in shared memory and group 0 adds them and writes. P >= 32: a warp
/// lies in one group and reads one address at a time (a broadcast).
template <class Real, class LawT, int R, int Q>
__global__ void __launch_bounds__(square_threads)
    square_kernel(const LawT law, const Body4<Real>* __restrict__ bodies, const index_t targets, const index_t sources,
                  Body4<Real>* __restrict__ out) {
  constexpr int P = square_threads / Q;
  static_assert(P >= 32 && P % 32 == 0, "a warp lies in one group");
  __shared__ Body4<Real> tile[square_threads];
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % P, q = tid / P;
  const index_t first = static_cast<index_t>(blockIdx.x) * (P * R) + lane;
  Body4<Real> me[R], acc[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const index_t i = first + static_cast<index_t>(r) * P;
    me[r] = bodies[i < targets ? i : 0];
    acc[r] = Body4<Real>{Real(0), Real(0), Real(0), Real(0)};
  }
  const Body4<Real>* const mine = tile + q * P;
  index_t base = 0;
  for (; base + square_threads <= sources; base += square_threads) {
    tile[tid] = bodies[base + tid];
    __syncthreads();
#pragma unroll 4
    for (int k = 0; k < P; ++k) {
      const Body4<Real> b = mine[k];
#pragma unroll
      for (int r = 0; r < R; ++r) interact(law, me[r], b, acc[r]);
    }
    __syncthreads();
  }
  if (base < sources) {
    const int count = static_cast<int>(sources - base);
    if (tid < count) tile[tid] = bodies[base + tid];
    __syncthreads();
    const int left = count - q * P;
    const int walk = left < 0 ? 0 : (left < P ? left : P);
    for (int k = 0; k < walk; ++k) {
      const Body4<Real> b = mine[k];
#pragma unroll
      for (int r = 0; r < R; ++r) interact(law, me[r], b, acc[r]);
    }
  }
  if constexpr (Q > 1) {
    __shared__ Body4<Real> part[(Q - 1) * R * P];
    if (q > 0) {
#pragma unroll
      for (int r = 0; r < R; ++r) part[((q - 1) * R + r) * P + lane] = acc[r];
    }
    __syncthreads();
    if (q == 0) {
      for (int g = 1; g < Q; ++g) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const Body4<Real> o = part[((g - 1) * R + r) * P + lane];
          acc[r].x += o.x;
          acc[r].y += o.y;
          acc[r].z += o.z;
          acc[r].w += o.w;
        }
      }
    }
  }
  if (q == 0) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const index_t i = first + static_cast<index_t>(r) * P;
      if (i < targets) out[i] = law.finish(me[r], i < sources, acc[r]);
    }
  }
}

template <class Real, class LawT>
using SquareFn = void (*)(LawT, const Body4<Real>*, index_t, index_t, Body4<Real>*);

template <class Real, class LawT, int R>
SquareFn<Real, LawT> square_fn_q(int splits) {
  switch (splits) {
    case 1:
      return square_kernel<Real, LawT, R, 1>;
    case 2:
      return square_kernel<Real, LawT, R, 2>;
    case 4:
      return square_kernel<Real, LawT, R, 4>;
    case 8:
      return square_kernel<Real, LawT, R, 8>;
  }
  return nullptr;
}

template <class Real, class LawT>
SquareFn<Real, LawT> square_fn(const SquareShape& s) {
  SquareFn<Real, LawT> f = nullptr;
  switch (s.rows) {
    case 1:
      f = square_fn_q<Real, LawT, 1>(s.splits);
      break;
    case 2:
      f = square_fn_q<Real, LawT, 2>(s.splits);
      break;
    case 4:
      f = square_fn_q<Real, LawT, 4>(s.splits);
      break;
  }
  if (f == nullptr)
    throw std::invalid_argument("tdmaps cuda_nbody: no square kernel of shape " + shape_label(s) +
                                " (rows 1, 2, 4; splits 1, 2, 4, 8)");
  return f;
}

// ---- host side ---------------------------------------------------------------

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("tdmaps cuda_nbody: ") + what + ": " + cudaGetErrorString(e));
}

cudaStream_t stream() { return Kokkos::Cuda().cuda_stream(); }

template <class Real, bool Fast, bool Energy>
Gravity<Real, Fast, Energy> gravity_of(const LawParams& p) {
  if (!(p.eps2 > 0)) throw std::invalid_argument("tdmaps cuda_nbody: gravity needs a softening eps^2 > 0");
  return Gravity<Real, Fast, Energy>{static_cast<Real>(p.G), static_cast<Real>(p.eps2)};
}

template <class Real, bool Fast, bool Energy>
LennardJones<Real, Fast, Energy> lennard_jones_of(const LawParams& p) {
  return LennardJones<Real, Fast, Energy>{static_cast<Real>(p.sigma * p.sigma), static_cast<Real>(24 * p.epsilon),
                                  static_cast<Real>(4 * p.epsilon)};
}

/// f(law) with the law of (law, p), Fast as asked and p.energy's Energy.
template <class Real, bool Fast, class F>
void with_law(Law law, const LawParams& p, F&& f) {
  if (law == Law::gravity) {
    if (p.energy)
      f(gravity_of<Real, Fast, true>(p));
    else
      f(gravity_of<Real, Fast, false>(p));
  } else {
    if (p.energy)
      f(lennard_jones_of<Real, Fast, true>(p));
    else
      f(lennard_jones_of<Real, Fast, false>(p));
  }
}

template <class Real>
Body4<Real>* as_body4(Real* p, const char* what) {
  if (reinterpret_cast<std::uintptr_t>(p) % alignof(Body4<Real>) != 0)
    throw std::invalid_argument(std::string("tdmaps cuda_nbody: ") + what + " is not " +
                                std::to_string(alignof(Body4<Real>)) + "-byte aligned");
  return reinterpret_cast<Body4<Real>*>(p);
}

unsigned grid_of(index_t items, index_t per_block) {
  const index_t blocks = (items + per_block - 1) / per_block;
  if (blocks > INT_MAX) throw std::runtime_error("tdmaps cuda_nbody: grid exceeds the launch limit");
  return static_cast<unsigned>(blocks);
}

template <class Real, class LawT>
void launch_square(const LawT& law, const SquareShape& s, index_t targets, index_t sources, const Body4<Real>* b,
                   Body4<Real>* o) {
  const SquareFn<Real, LawT> f = square_fn<Real, LawT>(s);
  const index_t per_block = static_cast<index_t>(square_threads / s.splits) * s.rows;
  f<<<grid_of(targets, per_block), square_threads, 0, stream()>>>(law, b, targets, sources, o);
  check(cudaGetLastError(), "square kernel launch");
}

template <class Real, bool Compensated>
void launch_gems(Law law, const LawParams& p, index_t n, const Real* bodies, index_t targets, index_t stride,
                 Real* out) {
  if (targets == 0) return;
  if (n < 1 || targets < 0 || stride < 1 || (targets - 1) * stride >= n)
    throw std::invalid_argument("tdmaps cuda_nbody::gems: targets t * stride, t < " + std::to_string(targets) +
                                ", stride " + std::to_string(stride) + ", must lie among the " + std::to_string(n) +
                                " bodies");
  const Body4<Real>* b = as_body4(const_cast<Real*>(bodies), "bodies");
  Body4<Real>* o = as_body4(out, "out");
  const unsigned grid = grid_of(targets, gems_threads);
  with_law<Real, false>(law, p, [&](const auto& l) {
    gems_kernel<Real, std::decay_t<decltype(l)>, Compensated>
        <<<grid, gems_threads, 0, stream()>>>(l, b, n, targets, stride, o);
  });
  check(cudaGetLastError(), "gems kernel launch");
}

}  // namespace

std::vector<SquareShape> square_shapes() {
  std::vector<SquareShape> all;
  for (int rows : {1, 2, 4})
    for (int splits : {1, 2, 4, 8}) all.push_back(SquareShape{rows, splits});
  return all;
}

std::string shape_label(const SquareShape& s) { return "r" + std::to_string(s.rows) + "q" + std::to_string(s.splits); }

template <class Real>
void gems(Law law, const LawParams& p, index_t n, const Real* bodies, index_t targets, index_t stride, Real* out) {
  launch_gems<Real, false>(law, p, n, bodies, targets, stride, out);
}

void reference(Law law, const LawParams& p, index_t n, const double* bodies, index_t targets, index_t stride,
               double* out) {
  LawParams all = p;
  all.energy = true;
  launch_gems<double, true>(law, all, n, bodies, targets, stride, out);
}

template <class Real>
void square(Law law, const LawParams& p, const SquareShape& shape, index_t targets, index_t sources, const Real* bodies,
            Real* out) {
  if (targets == 0) return;
  if (targets < 0 || sources < 1)
    throw std::invalid_argument("tdmaps cuda_nbody::square: " + std::to_string(targets) + " targets and " +
                                std::to_string(sources) + " sources");
  const Body4<Real>* b = as_body4(const_cast<Real*>(bodies), "bodies");
  Body4<Real>* o = as_body4(out, "out");
  with_law<Real, true>(law, p, [&](const auto& l) { launch_square<Real>(l, shape, targets, sources, b, o); });
}

template <class Real>
std::string square_attributes(Law law, const LawParams& p, const SquareShape& shape) {
  cudaFuncAttributes a{};
  with_law<Real, true>(law, p, [&](const auto& l) {
    check(cudaFuncGetAttributes(&a, square_fn<Real, std::decay_t<decltype(l)>>(shape)), "cudaFuncGetAttributes");
  });
  return "regs=" + std::to_string(a.numRegs) + " local_bytes=" + std::to_string(a.localSizeBytes);
}

template void gems<float>(Law, const LawParams&, index_t, const float*, index_t, index_t, float*);
template void gems<double>(Law, const LawParams&, index_t, const double*, index_t, index_t, double*);
template void square<float>(Law, const LawParams&, const SquareShape&, index_t, index_t, const float*, float*);
template void square<double>(Law, const LawParams&, const SquareShape&, index_t, index_t, const double*, double*);
template std::string square_attributes<float>(Law, const LawParams&, const SquareShape&);
template std::string square_attributes<double>(Law, const LawParams&, const SquareShape&);

}  // namespace cuda_nbody
}  // namespace tdmaps_bench

#endif
