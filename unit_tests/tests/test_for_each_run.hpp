// for_each_run: every element of the triangle visited once, in the order's
// linear index (k = T(i) + j, T(i - 1) + j, or the column-major positions),
// for small and odd n, both triangles, both orders and several run widths;
// run_start exact at row / column boundaries up to n = max_side. Oracles: the
// host nested loop of HitCounter and the closed-form index of each order.
#include "oracle.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace {

using tdmaps::index_t;
using tdmaps::RunOrder;
using tdmaps::Triangle;
using ExecSpace = TEST_EXECSPACE;

/// Linear index of (i, j) in `order`, by the closed forms (no square root).
KOKKOS_INLINE_FUNCTION index_t index_of(index_t n, Triangle t, RunOrder o, index_t i, index_t j) {
  const bool strict = t == Triangle::strict_lower;
  if (o == RunOrder::rows) return strict ? (i - 1) * i / 2 + j : i * (i + 1) / 2 + j;
  // Column c holds n - c (lower) or n - 1 - c (strict) elements.
  return strict ? n * j - j * (j + 1) / 2 + (i - j - 1) : n * j - j * (j - 1) / 2 + (i - j);
}

struct RunHits {
  tdmaps_test::HitCounter<ExecSpace> counter;
  Kokkos::View<int, ExecSpace::memory_space> wrong_index;
  RunOrder order;
  int width;
  KOKKOS_FUNCTION void operator()(const tdmaps::Run& r) const {
    if (r.k0 % width != 0 || r.count < 1 || r.count > width) Kokkos::atomic_add(&wrong_index(), 1);
    index_t i = r.i, j = r.j;
    for (int s = 0; s < r.count; ++s) {
      counter(i, j);
      if (index_of(counter.n, counter.triangle, order, i, j) != r.k0 + s) Kokkos::atomic_add(&wrong_index(), 1);
      tdmaps::run_next(counter.n, counter.triangle, order, i, j);
    }
  }
};

template <int Width>
std::string run_coverage(index_t n, Triangle t, RunOrder o) {
  RunHits k{tdmaps_test::HitCounter<ExecSpace>(n, t), Kokkos::View<int, ExecSpace::memory_space>("wrong"), o, Width};
  tdmaps::for_each_run<Width>(ExecSpace(), n, t, o, k, "tdmaps::test::run_coverage");
  ExecSpace().fence();
  int wrong = 0;
  Kokkos::deep_copy(wrong, k.wrong_index);
  std::string err = k.counter.check();
  if (wrong != 0) err += std::to_string(wrong) + " elements at the wrong linear index";
  return err;
}

}  // namespace

TEST(TEST_CATEGORY, for_each_run_covers_every_order_and_width) {
  for (index_t n : {0, 1, 2, 3, 5, 8, 31, 32, 33, 100, 257, 1000}) {
    for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
      for (RunOrder o : {RunOrder::rows, RunOrder::columns}) {
        const std::string what = "n = " + std::to_string(n) + (t == Triangle::lower ? ", lower" : ", strict") +
                                 (o == RunOrder::rows ? ", rows" : ", columns");
        EXPECT_EQ(run_coverage<1>(n, t, o), "") << what << ", width 1";
        EXPECT_EQ(run_coverage<4>(n, t, o), "") << what << ", width 4";
        EXPECT_EQ(run_coverage<32>(n, t, o), "") << what << ", width 32";
      }
    }
  }
  EXPECT_THROW(tdmaps::for_each_run<4>(ExecSpace(), -1, Triangle::lower, RunOrder::rows,
                                       RunHits{tdmaps_test::HitCounter<ExecSpace>(0, Triangle::lower),
                                               Kokkos::View<int, ExecSpace::memory_space>("w"), RunOrder::rows, 4}),
               std::invalid_argument);
}

namespace {

/// run_start at k - 1, k, k + 1 around the first element of row / column m.
struct StartCheck {
  Kokkos::View<const index_t*, ExecSpace::memory_space> lines;
  index_t n;
  Triangle triangle;
  RunOrder order;
  KOKKOS_FUNCTION void operator()(const int s, index_t& wrong) const {
    const index_t m = lines(s);
    const bool strict = triangle == Triangle::strict_lower;
    // First element of row m (rows) or column m (columns).
    const index_t first_i = order == RunOrder::rows ? m : (strict ? m + 1 : m);
    const index_t k = index_of(n, triangle, order, first_i, order == RunOrder::rows ? 0 : m);
    const index_t total = tdmaps::run_total(n, triangle);
    for (index_t q = k - 1; q <= k + 1; ++q) {
      if (q < 0 || q >= total) continue;
      index_t i, j;
      tdmaps::run_start(n, triangle, order, q, i, j);
      const bool in = j >= 0 && i < n && (strict ? j < i : j <= i);
      if (!in || index_of(n, triangle, order, i, j) != q) ++wrong;
    }
  }
};

}  // namespace

// Exact at the boundaries (the element before, at and after the first one of
// a row or column) for n up to tdmaps::max_side = 2^31, where the linear
// index passes 2^61: lines near 0, near n, powers of two and random ones.
TEST(TEST_CATEGORY, run_start_is_exact_at_boundaries_up_to_max_side) {
  std::mt19937_64 gen(20261122u);
  for (index_t n : {index_t(46341), index_t(1) << 24, (index_t(1) << 31) - 1, tdmaps::max_side}) {
    std::vector<index_t> lines{0, 1, 2, 3, n / 2, n - 3, n - 2, n - 1};
    for (int b = 1; (index_t(1) << b) < n; ++b) {
      lines.push_back((index_t(1) << b) - 1);
      lines.push_back(index_t(1) << b);
    }
    std::uniform_int_distribution<index_t> u(0, n - 1);
    for (int r = 0; r < 2000; ++r) lines.push_back(u(gen));
    for (Triangle t : {Triangle::lower, Triangle::strict_lower}) {
      for (RunOrder o : {RunOrder::rows, RunOrder::columns}) {
        std::vector<index_t> valid;
        for (index_t m : lines) {
          const bool strict = t == Triangle::strict_lower;
          // Rows 0 (strict: empty) and, for columns, the strict triangle's column n - 1 (empty) have no first element.
          if (o == RunOrder::rows && strict && m == 0) continue;
          if (o == RunOrder::columns && strict && m == n - 1) continue;
          valid.push_back(m);
        }
        Kokkos::View<index_t*, ExecSpace::memory_space> dev("lines", valid.size());
        Kokkos::deep_copy(dev, Kokkos::View<const index_t*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(valid.data(),
                                                                                                         valid.size()));
        index_t wrong = 0;
        Kokkos::parallel_reduce("tdmaps::test::run_start", Kokkos::RangePolicy<ExecSpace>(0, static_cast<int>(valid.size())),
                                StartCheck{dev, n, t, o}, wrong);
        EXPECT_EQ(wrong, 0) << "n = " << n << (t == Triangle::lower ? ", lower" : ", strict")
                            << (o == RunOrder::rows ? ", rows" : ", columns");
      }
    }
  }
}
