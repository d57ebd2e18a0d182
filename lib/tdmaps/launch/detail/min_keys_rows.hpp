#ifndef TDMAPS_LAUNCH_DETAIL_MIN_KEYS_ROWS_HPP
#define TDMAPS_LAUNCH_DETAIL_MIN_KEYS_ROWS_HPP

// The rows of keys of tdmaps::pair_min_keys and tdmaps::pair_min_k_keys: the
// traits of a KeyOf the walk reads (ordered by distance, a bound on a key's
// sum), the relaxed read of a key and the atomic insertion sort of a row
// (tdmaps/launch/pair_min_keys.hpp says what they do).

#include <tdmaps/core/types.hpp>
#include <tdmaps/launch/reduce.hpp>

#include <Kokkos_Core.hpp>

#include <type_traits>
#include <utility>

namespace tdmaps {

namespace detail {

/// A relaxed atomic read of *p (keys other threads change meanwhile).
template <class T>
KOKKOS_FORCEINLINE_FUNCTION T load_relaxed(T* p) {
#if KOKKOS_VERSION >= 40000
  return static_cast<T>(Kokkos::atomic_load(native(p)));
#else
  return *static_cast<volatile T*>(p);
#endif
}

/// Inserts `key` into row p of `keys` (n x k, the row sorted ascending), an
/// insertion sort by atomics that any number of threads may run on one row
/// at once. Each slot only ever decreases: slot s keeps the smaller of its
/// key and the carried one (atomic_fetch_min) and the larger is carried on.
/// A key carried to slot s is no smaller than any key of slots 0 .. s - 1
/// (it passed them, and they only decreased since), so each atomic keeps
/// the row sorted, and a key carried past slot k - 1 is dropped with k keys
/// no larger than it in the row. The carry starts at the first slot above
/// `key`, found from the end (a slot read before another thread lowers it
/// only makes the carry start earlier); a row whose last slot is no larger
/// than `key` is left as it is.
template <class Keys>
KOKKOS_FORCEINLINE_FUNCTION void insert_sorted(const Keys& keys, const index_t p, const int k,
                                               typename Keys::non_const_value_type key) {
  using Key = typename Keys::non_const_value_type;
  int s = k;
  while (s > 0 && load_relaxed(&keys(p, s - 1)) > key) --s;
  for (; s < k; ++s) {
    const Key old = static_cast<Key>(Kokkos::atomic_fetch_min(native(&keys(p, s)), native(key)));
    if (old > key) key = old;  // the larger goes on
    if (key == ~Key(0)) return;  // it was an empty slot
  }
}

/// Whether KeyOf declares `static constexpr bool ordered_by_distance = true`:
/// key_of(s, self, partner) orders pairs by s, then by the partner, and is
/// ~0 (none) for a NaN s. pair_min_keys then finds each row's smallest
/// (s, partner) before making one key of it (the same minimum).
template <class KeyOf, class = void>
struct ordered_by_distance : std::false_type {};
template <class KeyOf>
struct ordered_by_distance<KeyOf, std::void_t<decltype(KeyOf::ordered_by_distance)>>
    : std::integral_constant<bool, KeyOf::ordered_by_distance> {};

/// Whether KeyOf, ordered by distance, gives `Real sum_bound(Key) const`
/// (pair_min_k_keys then compares each pair's sum with its row's bound
/// before it makes a key).
template <class KeyOf, class Key, class Real, class = void>
struct has_sum_bound : std::false_type {};
template <class KeyOf, class Key, class Real>
struct has_sum_bound<KeyOf, Key, Real, std::void_t<decltype(std::declval<const KeyOf&>().sum_bound(std::declval<Key>()))>>
    : std::integral_constant<bool, ordered_by_distance<KeyOf>::value &&
                                       std::is_same<decltype(std::declval<const KeyOf&>().sum_bound(std::declval<Key>())),
                                                    Real>::value> {};

}  // namespace detail

}  // namespace tdmaps

#endif
