// The apps' result collectives of Ranks (ranks.hpp): sums of doubles, ORs of
// flag words, the k smallest keys of rows and the gather of variable-length
// lists on rank 0. Each agrees
// first (ranks that disagree stop before any collective of the result) and
// moves at most 2^26 entries per MPI call (MPI counts are int).
#include "ranks.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#if defined(TDMAPS_HAVE_MPI)
#include <mpi.h>
#endif

namespace tdmaps {
namespace app {

namespace {
constexpr std::int64_t mpi_chunk = std::int64_t(1) << 26;
}

void Ranks::sum_f64(double* values, std::int64_t count) const {
#if defined(TDMAPS_HAVE_MPI)
  if (size_ > 1) agree();
  for (std::int64_t at = 0; size_ > 1 && at < count; at += mpi_chunk) {
    const int c = static_cast<int>(count - at < mpi_chunk ? count - at : mpi_chunk);
    MPI_Allreduce(MPI_IN_PLACE, values + at, c, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
#else
  (void)values;
  (void)count;
#endif
}

#if defined(TDMAPS_HAVE_MPI)
namespace {
/// MPI_Op of min_k_u64: each of `len` rows of the datatype's k keys of
/// inout becomes the k smallest of it and in's row, both sorted ascending.
void merge_min_k(void* in, void* inout, int* len, MPI_Datatype* type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  const int k = bytes / static_cast<int>(sizeof(std::uint64_t));
  std::vector<std::uint64_t> row(static_cast<std::size_t>(k));
  const std::uint64_t* a = static_cast<const std::uint64_t*>(in);
  std::uint64_t* b = static_cast<std::uint64_t*>(inout);
  for (int r = 0; r < *len; ++r, a += k, b += k) {
    int i = 0, j = 0;
    for (int c = 0; c < k; ++c) row[std::size_t(c)] = (j >= k || (i < k && a[i] <= b[j])) ? a[i++] : b[j++];
    for (int c = 0; c < k; ++c) b[c] = row[std::size_t(c)];
  }
}
}  // namespace
#endif

void Ranks::min_k_u64(std::uint64_t* rows, std::int64_t count, int k) const {
#if defined(TDMAPS_HAVE_MPI)
  if (size_ <= 1 || count == 0) return;
  agree();
  if (k < 1) throw Error("min_k_u64: k = " + std::to_string(k));
  MPI_Datatype row;
  MPI_Type_contiguous(k, MPI_UINT64_T, &row);
  MPI_Type_commit(&row);
  MPI_Op op;
  MPI_Op_create(&merge_min_k, 1, &op);
  const std::int64_t per = std::max<std::int64_t>(1, mpi_chunk / k);  // rows a call
  for (std::int64_t at = 0; at < count; at += per) {
    const int c = static_cast<int>(count - at < per ? count - at : per);
    MPI_Allreduce(MPI_IN_PLACE, rows + at * k, c, row, op, MPI_COMM_WORLD);
  }
  MPI_Op_free(&op);
  MPI_Type_free(&row);
#else
  (void)rows;
  (void)count;
  (void)k;
#endif
}

void Ranks::or_u32(std::uint32_t* values, std::int64_t count) const {
#if defined(TDMAPS_HAVE_MPI)
  if (size_ > 1) agree();
  for (std::int64_t at = 0; size_ > 1 && at < count; at += mpi_chunk) {
    const int c = static_cast<int>(count - at < mpi_chunk ? count - at : mpi_chunk);
    MPI_Allreduce(MPI_IN_PLACE, values + at, c, MPI_UINT32_T, MPI_BOR, MPI_COMM_WORLD);
  }
#else
  (void)values;
  (void)count;
#endif
}

std::vector<std::int64_t> Ranks::gather_i64(const std::vector<std::int64_t>& local) const {
  if (size_ == 1) return local;
  std::vector<std::int64_t> all;
#if defined(TDMAPS_HAVE_MPI)
  agree();
  // Counts first (64-bit), then each rank's list in chunks, rank by rank:
  // point-to-point keeps every message under MPI's int count.
  std::vector<long long> counts(static_cast<std::size_t>(size_), 0);
  long long mine = static_cast<long long>(local.size());
  MPI_Gather(&mine, 1, MPI_LONG_LONG, counts.data(), 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank_ == 0) {
    long long total = 0;
    for (long long c : counts) total += c;
    all.reserve(static_cast<std::size_t>(total));
    all.insert(all.end(), local.begin(), local.end());
    for (int r = 1; r < size_; ++r) {
      const std::size_t at = all.size();
      all.resize(at + static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]));
      for (long long k = 0; k < counts[static_cast<std::size_t>(r)]; k += mpi_chunk) {
        const int c = static_cast<int>(counts[static_cast<std::size_t>(r)] - k < mpi_chunk
                                           ? counts[static_cast<std::size_t>(r)] - k
                                           : mpi_chunk);
        MPI_Recv(all.data() + at + k, c, MPI_INT64_T, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    }
  } else {
    for (long long k = 0; k < mine; k += mpi_chunk) {
      const int c = static_cast<int>(mine - k < mpi_chunk ? mine - k : mpi_chunk);
      MPI_Send(local.data() + k, c, MPI_INT64_T, 0, 7, MPI_COMM_WORLD);
    }
  }
#endif
  return all;
}

}  // namespace app
}  // namespace tdmaps
