// The map contract (tdmaps/maps/map_concept.hpp): toy maps written from that
// header's comment alone run under for_each_element and for_each_tile and
// cover the triangle exactly once (hit counts against the host nested loop
// of HitCounter::check), and the contract's traits hold, at compile time, for
// every shipped map and fail for types that break it.
#include "coverage.hpp"

#include <tdmaps/maps/map_concept.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using tdmaps::Block2;
using tdmaps::Domain2;
using tdmaps::index_t;
using tdmaps::Triangle;

// ---- toy maps, written from the contract's comment --------------------------

/// One launch: the block triangle column by column (column bj holds blocks
/// bi = bj .. nb - 1), found by a walk over the columns: slow, obviously right.
struct ToyColumnsMap {
  using space_tag = tdmaps::BlockSpaceTag;
  static constexpr const char* name = "toy_columns";
  Domain2 domain;

  ToyColumnsMap() = default;
  explicit ToyColumnsMap(const Domain2& d) : domain(d) {}
  ToyColumnsMap(index_t n, int rho, Triangle t = Triangle::lower) : domain(n, rho, t) {}

  index_t league_size() const { return domain.nb * (domain.nb + 1) / 2; }
  KOKKOS_FUNCTION bool block(index_t omega, Block2& b) const {
    index_t bj = 0;
    while (omega >= domain.nb - bj) omega -= domain.nb - bj++;
    b.bi = bj + omega;
    b.bj = bj;
    return true;
  }
};

/// Two launches: the diagonal blocks, then the nb x nb box of which only the
/// blocks strictly under the diagonal are taken (block() returns false for
/// the others).
struct ToyTwoLaunchMap {
  using space_tag = tdmaps::BlockSpaceTag;
  static constexpr const char* name = "toy_two_launch";
  Domain2 domain;

  ToyTwoLaunchMap() = default;
  explicit ToyTwoLaunchMap(const Domain2& d) : domain(d) {}
  ToyTwoLaunchMap(index_t n, int rho, Triangle t = Triangle::lower) : domain(n, rho, t) {}

  int launches() const { return 2; }
  index_t league_size(int l) const { return l == 0 ? domain.nb : domain.nb * domain.nb; }
  KOKKOS_FUNCTION bool block(int l, index_t omega, Block2& b) const {
    if (l == 0) {
      b.bi = b.bj = omega;
      return true;
    }
    b.bi = omega / domain.nb;
    b.bj = omega % domain.nb;
    return b.bj < b.bi;
  }
};

/// Thread space: thread k -> the k-th element of the row-major triangle, its
/// row by a binary search over the row starts.
struct ToyRowsThreadMap {
  using space_tag = tdmaps::ThreadSpaceTag;
  static constexpr const char* name = "toy_rows";
  Domain2 domain;

  ToyRowsThreadMap() = default;
  explicit ToyRowsThreadMap(const Domain2& d) : domain(d) {}
  ToyRowsThreadMap(index_t n, int rho, Triangle t = Triangle::lower) : domain(n, rho, t) {}

  index_t elements() const { return domain.elements(); }
  /// First linear index of row i: T(i) with the diagonal, T(i - 1) without.
  KOKKOS_FUNCTION index_t row_start(index_t i) const {
    return domain.triangle == Triangle::lower ? i * (i + 1) / 2 : i * (i - 1) / 2;
  }
  KOKKOS_FUNCTION void element(index_t k, index_t& i, index_t& j) const {
    index_t lo = 0, hi = domain.n;  // the row is in [lo, hi): row_start(lo) <= k < row_start(hi)
    while (hi - lo > 1) {
      const index_t mid = (lo + hi) / 2;
      if (row_start(mid) <= k)
        lo = mid;
      else
        hi = mid;
    }
    i = lo;
    j = k - row_start(lo);
  }
};

// ---- the traits, at compile time ---------------------------------------------

template <class Map>
constexpr bool block_space_single() {
  return tdmaps::check_map<Map>() && tdmaps::is_map_v<Map> && tdmaps::is_block_space_map_v<Map> &&
         !tdmaps::is_multi_launch_map_v<Map> && !tdmaps::is_thread_space_map_v<Map>;
}
template <class Map>
constexpr bool block_space_multi() {
  return tdmaps::check_map<Map>() && tdmaps::is_map_v<Map> && tdmaps::is_block_space_map_v<Map> &&
         tdmaps::is_multi_launch_map_v<Map> && !tdmaps::is_thread_space_map_v<Map>;
}
template <class Map>
constexpr bool thread_space() {
  return tdmaps::check_map<Map>() && tdmaps::is_map_v<Map> && tdmaps::is_thread_space_map_v<Map> &&
         !tdmaps::is_block_space_map_v<Map> && !tdmaps::is_multi_launch_map_v<Map>;
}
template <class Sqrt>
constexpr bool lambda_forms() {
  return block_space_single<tdmaps::LambdaMap<Sqrt, tdmaps::Exact>>() &&
         block_space_single<tdmaps::LambdaMap<Sqrt, tdmaps::Epsilon>>();
}

// Every shipped map.
static_assert(block_space_single<tdmaps::BoundingBoxMap>(), "BB: one-launch block-space map");
static_assert(lambda_forms<tdmaps::SqrtIEEE>() && lambda_forms<tdmaps::SqrtNewton>() &&
                  lambda_forms<tdmaps::SqrtRsqrt>() && lambda_forms<tdmaps::SqrtDouble>(),
              "lambda: one-launch block-space map, every sqrt and form");
static_assert(block_space_single<tdmaps::RectangularBoxMap>(), "RB: one-launch block-space map");
static_assert(block_space_multi<tdmaps::RecursiveMap>(), "REC: several-launch block-space map");
static_assert(block_space_multi<tdmaps::HadoukenMap>(), "Hadouken: several-launch block-space map");
static_assert(thread_space<tdmaps::UpperTriangularMap>(), "UTM: thread-space map");
// The toys.
static_assert(block_space_single<ToyColumnsMap>(), "toy: one-launch block-space map");
static_assert(block_space_multi<ToyTwoLaunchMap>(), "toy: several-launch block-space map");
static_assert(thread_space<ToyRowsThreadMap>(), "toy: thread-space map");

// Types that break the contract are no maps (the traits say false; check_map
// would stop the compilation with the missing member's message).
struct NoSpaceTag {
  static constexpr const char* name = "x";
  Domain2 domain;
  index_t league_size() const { return 0; }
  bool block(index_t, Block2&) const { return false; }
};
struct NoName {
  using space_tag = tdmaps::BlockSpaceTag;
  Domain2 domain;
  index_t league_size() const { return 0; }
  bool block(index_t, Block2&) const { return false; }
};
struct NoDomain {
  using space_tag = tdmaps::BlockSpaceTag;
  static constexpr const char* name = "x";
  index_t league_size() const { return 0; }
  bool block(index_t, Block2&) const { return false; }
};
struct NoBlock {
  using space_tag = tdmaps::BlockSpaceTag;
  static constexpr const char* name = "x";
  Domain2 domain;
  index_t league_size() const { return 0; }
};
struct BothForms : ToyColumnsMap {
  int launches() const { return 1; }
  index_t league_size(int) const { return 0; }
  bool block(int, index_t, Block2&) const { return false; }
  using ToyColumnsMap::block;
  using ToyColumnsMap::league_size;
};
struct NotTriviallyCopyable : ToyColumnsMap {
  NotTriviallyCopyable() = default;
  NotTriviallyCopyable(const NotTriviallyCopyable& o) : ToyColumnsMap(o) {}
};
struct ThreadTagBlockMembers : ToyColumnsMap {
  using space_tag = tdmaps::ThreadSpaceTag;  // says thread space, has no elements() / element()
};
static_assert(!tdmaps::is_map_v<NoSpaceTag>, "no space_tag: no map");
static_assert(!tdmaps::is_map_v<NoName>, "no name: no map");
static_assert(!tdmaps::is_map_v<NoDomain>, "no domain: no map");
static_assert(!tdmaps::is_map_v<NoBlock>, "no block(): no map");
static_assert(!tdmaps::is_map_v<BothForms>, "both launch forms: no map");
static_assert(!tdmaps::is_map_v<NotTriviallyCopyable>, "not trivially copyable: no map");
static_assert(!tdmaps::is_map_v<ThreadTagBlockMembers>, "thread tag without element(): no map");
static_assert(!tdmaps::is_map_v<int>, "int: no map");
static_assert(tdmaps::is_block_space_map_v<tdmaps::RuntimeLambdaMap> && tdmaps::check_map<tdmaps::RuntimeLambdaMap>(),
              "RuntimeLambdaMap is a one-launch block-space map");
static_assert(tdmaps::is_lambda_map_v<tdmaps::RuntimeLambdaMap>, "RuntimeLambdaMap is a lambda map (omega ranges)");

/// Every map with_map can build (names, aliases, every sqrt and form)
/// satisfies the contract in its space.
struct CheckDispatched {
  bool& block_space;
  template <class Map>
  void operator()(const Map&) const {
    static_assert(tdmaps::is_map_v<Map>, "with_map built a type that breaks the map contract");
    block_space = tdmaps::is_block_space_map_v<Map>;
  }
};

}  // namespace

TEST(TEST_CATEGORY, map_contract_toy_one_launch_covers_triangle) {
  tdmaps_test::check_coverage<TEST_EXECSPACE, ToyColumnsMap, true>(100);
}

TEST(TEST_CATEGORY, map_contract_toy_two_launches_cover_triangle) {
  tdmaps_test::check_coverage<TEST_EXECSPACE, ToyTwoLaunchMap, true>(100);
}

TEST(TEST_CATEGORY, map_contract_toy_thread_space_covers_triangle) {
  tdmaps_test::check_coverage<TEST_EXECSPACE, ToyRowsThreadMap, false>(100);
}

TEST(TEST_CATEGORY, map_contract_holds_for_every_dispatched_map) {
  const Domain2 d(100, 16);
  for (const auto& map : tdmaps::accepted_map_names()) {
    for (const auto& sqrt : tdmaps::sqrt_names()) {
      for (const auto& form : tdmaps::form_names()) {
        bool block_space = false;
        tdmaps::with_map(tdmaps::MapSpec{map, sqrt, form}, d, CheckDispatched{block_space});
        EXPECT_EQ(block_space, map != "utm") << map << " " << sqrt << " " << form;
      }
    }
  }
}

// runtime_lambda_map: the variant spec names, with_map's errors for the names
// it does not know; map_over (the warp walks' side-block map) keeps it.
TEST(TEST_CATEGORY, runtime_lambda_map_takes_the_specs_variant_and_keeps_it_over_other_domains) {
  using tdmaps::LambdaForm;
  using tdmaps::LambdaSqrt;
  const Domain2 d(1000, 16);
  const std::vector<std::pair<std::string, LambdaSqrt>> sqrts{
      {"sqrt", LambdaSqrt::ieee}, {"newton", LambdaSqrt::newton}, {"rsqrt", LambdaSqrt::rsqrt}, {"fp64", LambdaSqrt::fp64}};
  ASSERT_EQ(sqrts.size(), tdmaps::sqrt_names().size());
  for (const auto& s : sqrts) {
    for (const auto& f : std::vector<std::pair<std::string, LambdaForm>>{{"exact", LambdaForm::exact}, {"eps", LambdaForm::eps}}) {
      const tdmaps::RuntimeLambdaMap m = tdmaps::runtime_lambda_map(tdmaps::MapSpec{"lambda", s.first, f.first}, d);
      EXPECT_EQ(m.sqrt, s.second) << s.first;
      EXPECT_EQ(m.form, f.second) << f.first;
      EXPECT_EQ(m.domain.n, 1000);
      EXPECT_EQ(m.league_size(), tdmaps::LambdaMap<>(d).league_size());
      const tdmaps::RuntimeLambdaMap w = tdmaps::detail::warp_walk_map(m, 128);
      EXPECT_EQ(w.sqrt, s.second);
      EXPECT_EQ(w.form, f.second);
      EXPECT_EQ(w.domain.n, 8 * 32);  // ceil(1000 / 128) side-blocks of 32
      EXPECT_EQ(w.domain.triangle, Triangle::strict_lower);
    }
  }
  const tdmaps::BoundingBoxMap bb = tdmaps::map_over(tdmaps::BoundingBoxMap(d), Domain2(64, 32));
  EXPECT_EQ(bb.domain.n, 64);
  EXPECT_EQ(bb.domain.rho, 32);
  // Unknown names: with_map's message, word for word.
  for (const tdmaps::MapSpec& bad : {tdmaps::MapSpec{"lambda", "fast", "exact"}, tdmaps::MapSpec{"lambda", "rsqrt", "loose"}}) {
    std::string expected, got;
    try {
      tdmaps::with_map(bad, d, [](const auto&) {});
    } catch (const std::invalid_argument& e) {
      expected = e.what();
    }
    try {
      tdmaps::runtime_lambda_map(bad, d);
    } catch (const std::invalid_argument& e) {
      got = e.what();
    }
    EXPECT_NE(expected, "");
    EXPECT_EQ(got, expected);
  }
  EXPECT_THROW(tdmaps::runtime_lambda_map(tdmaps::MapSpec{"bb", "rsqrt", "exact"}, d), std::invalid_argument);
  EXPECT_NO_THROW(tdmaps::runtime_lambda_map(tdmaps::MapSpec{"lambda", "rsqrt", "exact"}, d));
}
