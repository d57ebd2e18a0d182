#ifndef TDMAPS_EDM_LINEAR_HPP
#define TDMAPS_EDM_LINEAR_HPP

// The linear kernel: the packed or condensed output in its memory order,
// RunKernel::run_width consecutive values per thread (tdmaps::for_each_run:
// the lambda formula at element granularity finds a thread's first pair,
// then it steps), one vector store per thread where the output is aligned.
// It uses the map's domain only, not its blocks. Its stores are whole memory
// sectors, which a tile's rows of a packed or condensed output are not (a
// block's row starts anywhere in a sector).

#include <tdmaps/kokkos_ext/intrinsics.hpp>
#include <tdmaps/core/types.hpp>
#include <tdmaps/edm/element.hpp>
#include <tdmaps/edm/layout.hpp>
#include <tdmaps/launch/for_each_run.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tdmaps {
namespace edm {
namespace detail {

/// Linear kernel: a run of run_width consecutive outputs of the packed
/// (rows order) or condensed (columns order) layout per thread. The fixed
/// point (row i for packed, column j for condensed) is loaded once and again
/// only where the run crosses into the next row / column; the moving points
/// are consecutive rows of x, read as padded points with one vector load
/// where the layout allows it (d = 1, 2, 4 and x aligned).
template <class Real, class MemorySpace>
struct RunKernel {
  static constexpr int run_width = 4;
  struct alignas(run_width * sizeof(Real)) Values {
    Real v[run_width];
  };

  EdmData<Real, MemorySpace> e;
  RunOrder order = RunOrder::rows;
  Triangle triangle = Triangle::lower;
  bool vector_store = false;  ///< out.data() aligned to sizeof(Values)
  bool vector_load = false;   ///< x.data() aligned to sizeof(PaddedPoint<Real, d>), d in {1, 2, 4}

  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION void load(index_t p, Real (&c)[D]) const {
    if constexpr (D == 1 || D == 2 || D == 4) {
      if (vector_load) {
        const PaddedPoint<Real, D> q = reinterpret_cast<const PaddedPoint<Real, D>*>(e.x.data())[p];
        for (int k = 0; k < D; ++k) c[k] = q.c[k];
        return;
      }
    }
    for (int k = 0; k < D; ++k) c[k] = e.x(p, k);
  }

  template <int D>
  KOKKOS_FORCEINLINE_FUNCTION void run(const Run& r) const {
    const bool columns = order == RunOrder::columns;
    index_t i = r.i, j = r.j;
    index_t fixed = columns ? j : i;
    Real f[D];
    load<D>(fixed, f);
    Values out;
    TDMAPS_UNROLL
    for (int s = 0; s < run_width; ++s) {
      if (s < r.count) {
        const index_t now = columns ? j : i;
        if (now != fixed) {  // the run went on into the next row (column)
          fixed = now;
          load<D>(fixed, f);
        }
        Real m[D];
        load<D>(columns ? i : j, m);
        Real sum = 0;
        for (int k = 0; k < D; ++k) {
          const Real u = m[k] - f[k];
          sum += u * u;
        }
        out.v[s] = sqrt_real(sum);
        run_next(e.n, triangle, order, i, j);
      }
    }
    Real* const at = e.out.data() + r.k0;
    if (r.count == run_width && vector_store) {
      *reinterpret_cast<Values*>(at) = out;
    } else {
      TDMAPS_UNROLL  // constant indices keep `out` in registers
      for (int s = 0; s < run_width; ++s)
        if (s < r.count) at[s] = out.v[s];
    }
  }

  /// Run-time d: coordinates from x as stored.
  KOKKOS_FORCEINLINE_FUNCTION void run_any(const Run& r) const {
    index_t i = r.i, j = r.j;
    for (int s = 0; s < r.count; ++s) {
      e.out(r.k0 + s) = sqrt_real(sq_dist_rows<0, Real>(e.x, i, j, e.d));
      run_next(e.n, triangle, order, i, j);
    }
  }

  KOKKOS_FUNCTION void operator()(const Run& r) const {
    switch (e.d) {  // uniform over the launch
      case 1: return run<1>(r);
      case 2: return run<2>(r);
      case 3: return run<3>(r);
      case 4: return run<4>(r);
      default: return run_any(r);
    }
  }
};

template <class ExecSpace, class Real>
void run_linear(const ExecSpace& space, const EdmData<Real, typename ExecSpace::memory_space>& e,
                const std::string& label) {
  if (e.layout == Layout::full)
    throw std::invalid_argument(
        "tdmaps::edm: the linear kernel writes the packed and condensed layouts (in their memory order); "
        "the full layout takes the tile or element kernel");
  RunKernel<Real, typename ExecSpace::memory_space> k;
  k.e = e;
  k.order = e.layout == Layout::packed ? RunOrder::rows : RunOrder::columns;
  k.triangle = layout_triangle(e.layout);
  using Values = typename RunKernel<Real, typename ExecSpace::memory_space>::Values;
  k.vector_store = reinterpret_cast<std::uintptr_t>(e.out.data()) % sizeof(Values) == 0;
  const std::size_t point = e.d == 1 || e.d == 2 || e.d == 4 ? static_cast<std::size_t>(e.d) * sizeof(Real) : 0;
  k.vector_load = point > 0 && reinterpret_cast<std::uintptr_t>(e.x.data()) % point == 0;
  for_each_run<RunKernel<Real, typename ExecSpace::memory_space>::run_width>(space, e.n, k.triangle, k.order, k, label);
}

}  // namespace detail
}  // namespace edm
}  // namespace tdmaps

#endif
