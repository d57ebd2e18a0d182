// The collision app over omega ranges (MPI ranks, chunks): collide() on the
// parts of omega_range() partitions of lambda, bb and rb leagues, tile and
// element kernels, rho 8 and 32, 1..7 parts (empty parts included). Counts
// and pair lists against a host fp64 nested loop (the parts' counts sum to
// the oracle's, their lists merge to its sorted list); the flag layouts of
// the parts OR (int flags: add) to the whole league's result, every output
// poisoned first. Inputs: fixed seeds (named in every failure message).
#include <tdmaps/collision.hpp>
#include <tdmaps/tdmaps.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace tc = tdmaps::collision;
using tdmaps::index_t;
using Space = TEST_EXECSPACE;
using Mem = Space::memory_space;

std::vector<std::pair<index_t, index_t>> oracle_pairs(const std::vector<float>& s) {
  const index_t n = static_cast<index_t>(s.size() / 4);
  std::vector<std::pair<index_t, index_t>> p;
  for (index_t i = 1; i < n; ++i)
    for (index_t j = 0; j < i; ++j) {
      const double dx = double(s[4 * i]) - double(s[4 * j]), dy = double(s[4 * i + 1]) - double(s[4 * j + 1]);
      const double dz = double(s[4 * i + 2]) - double(s[4 * j + 2]);
      if (std::sqrt(dx * dx + dy * dy + dz * dz) < double(s[4 * i + 3]) + double(s[4 * j + 3])) p.emplace_back(i, j);
    }
  return p;
}

/// The words of one flag result over the whole league, and the OR of the
/// parts' words (each part's output poisoned first).
template <class Map>
std::string flags_parts_or_to_whole(const tc::ConstSpheres<Mem>& spheres, const Map& map, tc::Kernel kernel,
                                    tc::Result result, index_t parts) {
  const index_t n = map.domain.n;
  const index_t words = result == tc::Result::flags      ? tc::flag_words(n)
                        : result == tc::Result::rowflags ? tc::row_flag_words(n)
                        : result == tc::Result::tileflags ? tc::tile_flag_words(n)
                                                          : tc::pair_count(n);
  const auto run = [&](const tdmaps::OmegaRange* r) {
    tc::Output<Mem> out;
    Kokkos::View<std::uint32_t*, Mem> w(Kokkos::view_alloc(Kokkos::WithoutInitializing, "w"), std::size_t(words));
    Kokkos::View<std::int32_t*, Mem> ints(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ints"), std::size_t(words));
    Kokkos::deep_copy(w, 0xA5A5A5A5u);
    Kokkos::deep_copy(ints, std::int32_t(-7));
    if (result == tc::Result::flags) out.flags = w;
    if (result == tc::Result::rowflags) out.rowflags = w;
    if (result == tc::Result::tileflags) out.tileflags = w;
    if (result == tc::Result::intflags) out.intflags = ints;
    const index_t c = r ? tc::collide(Space(), spheres, map, *r, result, kernel, out)
                        : tc::collide(Space(), spheres, map, result, kernel, out);
    std::vector<std::uint32_t> h(static_cast<std::size_t>(words));
    auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), w);
    auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ints);
    for (std::size_t k = 0; k < h.size(); ++k)
      h[k] = result == tc::Result::intflags ? static_cast<std::uint32_t>(hi(k)) : hw(k);
    return std::make_pair(c, h);
  };
  const auto whole = run(nullptr);
  std::vector<std::uint32_t> merged(static_cast<std::size_t>(words), 0u);
  index_t count = 0;
  for (index_t p = 0; p < parts; ++p) {
    const tdmaps::OmegaRange r = tdmaps::omega_range(map, p, parts);
    const auto part = run(&r);
    count += part.first;
    for (std::size_t k = 0; k < merged.size(); ++k)
      merged[k] = result == tc::Result::intflags ? merged[k] + part.second[k] : merged[k] | part.second[k];
  }
  std::ostringstream err;
  if (count != whole.first) err << tc::name(result) << ": parts count " << count << " != " << whole.first << "; ";
  for (std::size_t k = 0; k < merged.size(); ++k)
    if (merged[k] != whole.second[k]) {
      err << tc::name(result) << " word " << k << ": parts " << std::hex << merged[k] << " != " << whole.second[k]
          << std::dec << "; ";
      break;
    }
  return err.str();
}

template <class Map>
std::string check_parts(const std::vector<float>& host, const Map& map, tc::Kernel kernel, index_t parts) {
  const tc::ConstSpheres<Mem> spheres = tc::to_device(Space(), host);
  const auto want = oracle_pairs(host);
  std::ostringstream err;
  index_t count = 0;
  std::vector<std::pair<index_t, index_t>> got;
  for (index_t p = 0; p < parts; ++p) {
    const tdmaps::OmegaRange r = tdmaps::omega_range(map, p, parts);
    tc::Output<Mem> none;
    count += tc::collide(Space(), spheres, map, r, tc::Result::count, kernel, none);
    tc::Output<Mem> out;
    const index_t k = tc::collide(Space(), spheres, map, r, tc::Result::pairs, kernel, out);
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.pairs);
    if (static_cast<index_t>(h.extent(0)) != k) err << "part " << p << ": " << h.extent(0) << " pairs, count " << k << "; ";
    for (std::size_t q = 0; q < h.extent(0); ++q) {
      if (q > 0 && std::make_pair(h(q - 1, 0), h(q - 1, 1)) >= std::make_pair(h(q, 0), h(q, 1)))
        err << "part " << p << ": pairs not sorted at " << q << "; ";
      got.emplace_back(h(q, 0), h(q, 1));
    }
  }
  if (count != static_cast<index_t>(want.size())) err << "count " << count << " != " << want.size() << "; ";
  std::sort(got.begin(), got.end());
  if (got != want) err << "merged pair list differs (" << got.size() << " against " << want.size() << "); ";
  for (tc::Result r : {tc::Result::flags, tc::Result::rowflags, tc::Result::tileflags, tc::Result::intflags})
    err << flags_parts_or_to_whole(spheres, map, kernel, r, parts);
  return err.str();
}

TEST(TEST_CATEGORY, collision_omega_range_parts_equal_the_whole) {
  const tc::RadiusRange radii = tc::default_radii(3, tc::Density::dense);
  for (index_t n : {2, 33, 100, 257}) {
    const std::uint64_t seed = 8800 + static_cast<std::uint64_t>(n);
    const std::vector<float> host = tc::random_spheres_host(n, 3, radii, seed);
    for (int rho : {8, 32})
      for (index_t parts : {1, 2, 3, 7}) {
        const auto t = tdmaps::Triangle::strict_lower;
        const std::string where = "n " + std::to_string(n) + ", rho " + std::to_string(rho) + ", parts " +
                                  std::to_string(parts) + ", seed " + std::to_string(seed);
        for (tc::Kernel k : {tc::Kernel::tile, tc::Kernel::element}) {
          EXPECT_EQ(check_parts(host, tdmaps::LambdaMap<>(n, rho, t), k, parts), "") << "lambda " << tc::name(k) << ", " << where;
          EXPECT_EQ(check_parts(host, tdmaps::BoundingBoxMap(n, rho, t), k, parts), "") << "bb " << tc::name(k) << ", " << where;
          EXPECT_EQ(check_parts(host, tdmaps::RectangularBoxMap(n, rho, t), k, parts), "") << "rb " << tc::name(k) << ", " << where;
        }
      }
  }
}

TEST(TEST_CATEGORY, collision_omega_range_needs_a_one_launch_block_map) {
  const index_t n = 40;
  const auto t = tdmaps::Triangle::strict_lower;
  const tc::ConstSpheres<Mem> spheres =
      tc::to_device(Space(), tc::random_spheres_host(n, 3, tc::default_radii(3, tc::Density::dense), 5));
  tc::Output<Mem> out;
  const tdmaps::LambdaMap<> lambda(n, 8, t);
  EXPECT_THROW(tc::collide(Space(), spheres, lambda, tdmaps::OmegaRange{0, 1}, tc::Result::count, tc::Kernel::linear, out),
               std::invalid_argument);
  EXPECT_THROW(tc::collide(Space(), spheres, lambda, tdmaps::OmegaRange{0, lambda.league_size() + 1}, tc::Result::count,
                           tc::Kernel::tile, out),
               std::invalid_argument);
  const tdmaps::RecursiveMap rec(n, 8, t);  // several launches: no omega ranges
  EXPECT_THROW(tc::collide(Space(), spheres, rec, tdmaps::OmegaRange{0, 1}, tc::Result::count, tc::Kernel::tile, out),
               std::invalid_argument);
}

}  // namespace
