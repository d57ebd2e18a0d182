// The backend layer's memory paths (lib/tdmaps/kokkos_ext/backend.hpp) on
// every tested backend: the collision summary the host reads without a copy
// (tdmaps::collision::summary_space), the free memory the CLIs check before
// allocating (tdmaps::app::free_memory_bytes, check_fits), and the staging
// memory of the MPI paths (tdmaps::app::staging_space).
#include "common/memory.hpp"
#include "common/staging.hpp"

#include <tdmaps/collision.hpp>
#include <tdmaps/kokkos_ext/backend.hpp>
#include <tdmaps/kokkos_ext/lanes.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace tcb = tdmaps::collision;
using BSpace = TEST_EXECSPACE;
using BMem = BSpace::memory_space;

// Written by the device, read by the host with no copy: host-accessible
// memory, and on a GPU not the device's own memory space.
using Summary = tcb::summary_space<BMem>::type;
static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, Summary>::accessible,
              "the collision summary must be host-readable");
static_assert(Kokkos::SpaceAccessibility<BSpace, Summary>::accessible,
              "the collision summary must be device-writable");
static_assert(tdmaps::backend::is_gpu<BSpace>::value == tdmaps::backend::is_device_memory<BMem>::value,
              "a GPU backend's memory space is device memory, a host backend's is not");
static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, tdmaps::app::staging_space<BSpace>::type>::accessible,
              "staging memory must be host memory");

/// The host-side fp64 count of colliding pairs of 3-D spheres (x, y, z, r):
/// distance < the sum of the radii (test_collision.hpp's definition).
tdmaps::index_t oracle_count(const std::vector<float>& s) {
  const tdmaps::index_t n = static_cast<tdmaps::index_t>(s.size() / 4);
  tdmaps::index_t c = 0;
  for (tdmaps::index_t i = 1; i < n; ++i)
    for (tdmaps::index_t j = 0; j < i; ++j) {
      double d2 = 0;
      for (int k = 0; k < 3; ++k) {
        const double d = double(s[std::size_t(4 * i + k)]) - double(s[std::size_t(4 * j + k)]);
        d2 += d * d;
      }
      const double reach = double(s[std::size_t(4 * i + 3)]) + double(s[std::size_t(4 * j + 3)]);
      if (std::sqrt(d2) < reach) ++c;
    }
  return c;
}

}  // namespace

TEST(TEST_CATEGORY, backend_collision_summary_is_read_by_the_host_without_a_copy) {
  // Several calls through one Output (its counters and summary reused), for
  // both kernels: the count and the summary the host reads equal the oracle.
  for (const tdmaps::index_t n : {tdmaps::index_t(2), tdmaps::index_t(257), tdmaps::index_t(1000)}) {
    const std::vector<float> host =
        tcb::random_spheres_host(n, 3, tcb::default_radii(3, tcb::Density::dense), 70u + static_cast<unsigned>(n));
    const tdmaps::index_t want = oracle_count(host);
    const tcb::ConstSpheres<BMem> spheres = tcb::to_device(BSpace(), host);
    tcb::Output<BMem> out;
    for (const auto kernel : {tcb::Kernel::tile, tcb::Kernel::linear})
      for (int round = 0; round < 2; ++round) {
        const tdmaps::index_t c = tcb::collide(BSpace(), spheres, tdmaps::LambdaMap<>(n, 32, tdmaps::Triangle::strict_lower),
                                               tcb::Result::count, kernel, out);
        const std::string where = "n " + std::to_string(n) + ", kernel " + tcb::name(kernel) + ", round " +
                                  std::to_string(round);
        EXPECT_EQ(c, want) << where;
        ASSERT_EQ(out.summary.extent(0), 2u) << where;
        EXPECT_EQ(static_cast<tdmaps::index_t>(out.summary(0)), want) << where;  // a host read, no deep_copy
        EXPECT_EQ(out.summary(1), ~0ull) << where;                                // no bad sphere
      }
  }
}

TEST(TEST_CATEGORY, backend_free_memory_is_known_and_checked) {
  const std::int64_t free_b = tdmaps::app::free_memory_bytes<BMem>();
  EXPECT_GT(free_b, 0);
  if (tdmaps::backend::is_device_memory<BMem>::value) {
    EXPECT_EQ(free_b, tdmaps::backend::device_free_bytes<BMem>());
  } else {
    EXPECT_EQ(tdmaps::backend::device_free_bytes<BMem>(), -1);  // host memory: the host's figure
    EXPECT_EQ(free_b, tdmaps::app::host_available_bytes());
  }
  EXPECT_NO_THROW(tdmaps::app::check_fits<BMem>(1024, "a small buffer"));
  try {
    tdmaps::app::check_fits<BMem>(std::int64_t(1) << 62, "a buffer of 4 EiB");
    ADD_FAILURE() << "check_fits accepted 4 EiB";
  } catch (const tdmaps::app::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("a buffer of 4 EiB needs"), std::string::npos) << what;
    EXPECT_NE(what.find(BMem::name()), std::string::npos) << what;
  }
}

TEST(TEST_CATEGORY, backend_traits_of_the_tested_space) {
  using tdmaps::backend::lane_width;
  constexpr int w = lane_width<BSpace>::value;
  static_assert(w == 1 || w == 32 || w == 64, "lane widths are 1, 32 or 64");
  EXPECT_EQ(tdmaps::is_gpu_space<BSpace>::value, tdmaps::backend::is_gpu<BSpace>::value);
  EXPECT_EQ(tdmaps::intrinsics::lane_width<BSpace>::value, w);
  if (!tdmaps::backend::is_gpu<BSpace>::value) {
    EXPECT_EQ(w, 1);
    EXPECT_EQ(tdmaps::backend::device_id(BSpace()), -1);
    EXPECT_EQ(tdmaps::backend::native_stream(BSpace()), nullptr);
  } else {
    EXPECT_GE(tdmaps::backend::device_id(BSpace()), 0);
    EXPECT_GT(tdmaps::backend::device_count(), 0);
  }
  // Kokkos grants a lane walk's vector length or the launch refuses: a
  // length Kokkos cannot give (more lanes than a team may have) is refused.
  using Policy = Kokkos::TeamPolicy<BSpace>;
  Policy ok(BSpace(), 1, 1, w);
  EXPECT_NO_THROW(tdmaps::backend::check_vector_length(ok, w, "test"));
  EXPECT_THROW(tdmaps::backend::check_vector_length(ok, w + 1, "test"), std::runtime_error);
}
