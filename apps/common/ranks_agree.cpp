// The ranks' agreement before any work and the error convention over ranks
// (ranks.hpp): one collective exchange settles both, so a rank that failed
// and ranks that are ready meet in the same calls whatever happened.
#include "cli.hpp"
#include "ranks.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(TDMAPS_HAVE_MPI)
#include <mpi.h>
#endif

namespace tdmaps {
namespace app {

namespace {

#if defined(TDMAPS_HAVE_MPI)
std::uint64_t fnv1a(const std::string& s, std::uint64_t h = 14695981039346656037ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t k = 0; k < ranks.size() && k < 6; ++k) s += (k ? ", " : "") + std::to_string(ranks[k]);
  if (ranks.size() > 6) s += ", ... (" + std::to_string(ranks.size()) + " ranks)";
  return s;
}

/// "name: v0 (rank 0), v1 (ranks 1, 2)" from every rank's value.
std::string describe_difference(const std::string& name, const std::vector<std::string>& values) {
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (std::size_t r = 0; r < values.size(); ++r) {
    std::size_t g = 0;
    while (g < groups.size() && groups[g].first != values[r]) ++g;
    if (g == groups.size()) groups.push_back({values[r], {}});
    groups[g].second.push_back(static_cast<int>(r));
  }
  std::string s = name + ": ";
  for (std::size_t g = 0; g < groups.size() && g < 4; ++g)
    s += (g ? ", " : "") + groups[g].first + " (" + rank_list(groups[g].second) + ")";
  if (groups.size() > 4) s += ", ... (" + std::to_string(groups.size()) + " values)";
  return s;
}
#endif

}  // namespace

RunFacts& RunFacts::add(const std::string& name, const std::string& value) {
  items.emplace_back(name, value);
  return *this;
}

RunFacts& RunFacts::add(const std::string& name, std::int64_t value) { return add(name, std::to_string(value)); }

RunFacts& RunFacts::add_real(const std::string& name, double value) {
  char text[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, value);
    if (std::strtod(text, nullptr) == value) break;
  }
  return add(name, text);
}

RunFacts& RunFacts::add_file(const std::string& name, const std::string& path) {
  try {
    char text[32];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash_file(path)));
    return add(name, text);
  } catch (const std::exception& e) {
    return add(name, e.what());
  }
}

std::uint64_t hash_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw Error(path + ": cannot read it to compare the ranks' inputs");
  // Eight bytes a step, multiply and rotate: several GB/s, so the check
  // costs little next to reading the points.
  std::vector<unsigned char> buf(std::size_t(1) << 20);
  std::uint64_t h = 0x9e3779b97f4a7c15ull, total = 0;
  for (;;) {
    std::size_t got = std::fread(buf.data(), 1, buf.size(), f);
    if (got == 0) break;
    total += got;
    while (got % 8 != 0) buf[got++] = 0;  // the length, mixed in below, tells the padding apart
    for (std::size_t k = 0; k < got; k += 8) {
      std::uint64_t w = 0;
      for (int b = 7; b >= 0; --b) w = (w << 8) | buf[k + static_cast<std::size_t>(b)];
      h = (h ^ (w * 0xff51afd7ed558ccdull)) * 0xc4ceb9fe1a85ec53ull;
      h = (h << 29) | (h >> 35);
    }
  }
  const bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) throw Error(path + ": read error while comparing the ranks' inputs");
  h ^= total * 0x9e3779b97f4a7c15ull;
  h ^= h >> 33;
  return h * 0xff51afd7ed558ccdull;
}

int Ranks::exchange(int status, bool usage, const std::string& message, const RunFacts& facts) const {
  agreed_ = true;
#if defined(TDMAPS_HAVE_MPI)
  // Every rank's status, fact names and message at once: maxima of the
  // values and of their complements (the minima).
  const std::uint64_t nf = facts.items.size();
  std::uint64_t names = fnv1a("");
  for (const auto& f : facts.items) names = fnv1a(f.first + '\n', names);
  const std::uint64_t said = fnv1a(message, usage ? 1 : 2);
  std::uint64_t v[8] = {static_cast<std::uint64_t>(status), nf, names, said};
  for (int k = 0; k < 4; ++k) v[k + 4] = ~v[k];
  MPI_Allreduce(MPI_IN_PLACE, v, 8, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  auto same = [&](int k) { return v[k] == ~v[k + 4]; };

  if (v[0] != 0) {
    // Someone failed: the first failing rank's message, printed by rank 0.
    int first = status != 0 ? rank_ : size_;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    std::string text = rank_ == first ? message.substr(0, 1 << 16) : std::string();
    long long head[3] = {status, usage ? 1 : 0, static_cast<long long>(text.size())};
    MPI_Bcast(head, 3, MPI_LONG_LONG, first, MPI_COMM_WORLD);
    text.resize(static_cast<std::size_t>(head[2]));
    if (head[2] > 0) MPI_Bcast(&text[0], static_cast<int>(head[2]), MPI_CHAR, first, MPI_COMM_WORLD);
    if (root() && !text.empty()) {
      const bool everywhere = same(0) && same(3);  // every rank, the same status and message
      print_error(everywhere ? text : "rank " + std::to_string(first) + " of " + std::to_string(size_) + ": " + text,
                  head[1] != 0);
    }
    return static_cast<int>(head[0]);
  }
  if (!same(1) || !same(2)) {
    if (root())
      print_error("ranks disagree: they do not check the same facts of the run (different programs or versions?); "
                  "give every rank the same command",
                  false);
    return exit_runtime_error;
  }

  std::vector<std::uint64_t> h(2 * nf);
  for (std::size_t i = 0; i < nf; ++i) {
    h[i] = fnv1a(facts.items[i].first + '\0' + facts.items[i].second);
    h[nf + i] = ~h[i];
  }
  if (nf > 0) MPI_Allreduce(MPI_IN_PLACE, h.data(), static_cast<int>(2 * nf), MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  std::vector<std::size_t> diff;
  for (std::size_t i = 0; i < nf; ++i)
    if (h[i] != ~h[nf + i]) diff.push_back(i);
  if (diff.empty()) return 0;

  // The differing values to rank 0 (sizes first: no rank receives more than it expects).
  std::string mine;
  for (std::size_t i : diff) mine += facts.items[i].second.substr(0, 256) + '\0';
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(root() ? static_cast<std::size_t>(size_) : 1), displs(lens.size(), 0);
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (root()) {
    long long total = 0;
    for (int r = 0; r < size_; ++r) {
      displs[static_cast<std::size_t>(r)] = static_cast<int>(total);
      total += lens[static_cast<std::size_t>(r)];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(mine.data(), len, MPI_CHAR, root() ? &all[0] : nullptr, lens.data(), displs.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  if (root()) {
    std::vector<std::vector<std::string>> values(diff.size(), std::vector<std::string>(static_cast<std::size_t>(size_)));
    for (int r = 0; r < size_; ++r) {
      std::size_t at = static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]);
      for (std::size_t k = 0; k < diff.size(); ++k) {
        const std::size_t end = all.find('\0', at);
        values[k][static_cast<std::size_t>(r)] = all.substr(at, end - at);
        at = end + 1;
      }
    }
    std::string text = "ranks disagree: ";
    for (std::size_t k = 0; k < diff.size(); ++k)
      text += (k ? "; " : "") + describe_difference(facts.items[diff[k]].first, values[k]);
    print_error(text + "; give every rank the same options and input", false);
  }
  return exit_runtime_error;
#else
  (void)usage;
  (void)message;
  (void)facts;
  return status;
#endif
}

void Ranks::agree() const {
  if (agreed_ || size_ == 1) {
    agreed_ = true;
    return;
  }
  const int status = exchange(0, false, std::string(), facts_);
  if (status != 0) throw RanksStopped{status};
}

int Ranks::run(const std::function<int()>& body) {
  if (size_ == 1) return run_main(body);  // one process: the plain convention
  int status = 0;
  bool usage = false, everywhere = false;
  std::string message;
  try {
    status = body();
  } catch (const RanksStopped& s) {
    return s.status;  // reported by rank 0 already
  } catch (const AllRanksError& e) {
    status = exit_runtime_error;
    message = e.what();
    everywhere = true;
  } catch (const UsageError& e) {
    status = exit_usage_error;
    usage = true;
    message = e.what();
  } catch (const std::invalid_argument& e) {
    // The library's argument checks reached through options the CLI could not judge alone.
    status = exit_usage_error;
    usage = true;
    message = e.what();
  } catch (const std::exception& e) {
    status = exit_runtime_error;
    message = e.what();
  } catch (...) {
    status = exit_runtime_error;
    message = "unexpected exception";
  }
  // Not agreed yet: no rank has started a collective of its own, so all meet here or in agree().
  if (!agreed_) return exchange(status, usage, message, facts_);
  if (status == 0) return 0;
  if (everywhere) {
    if (root()) print_error(message, usage);
    return status;
  }
  // This rank alone: the others may wait in a collective for it.
  if (!message.empty())
    print_error("rank " + std::to_string(rank_) + " of " + std::to_string(size_) + ": " + message, usage);
  abort(status);
  return status;
}

}  // namespace app
}  // namespace tdmaps
