// Implementation of apps/common/progress.hpp.
#include "progress.hpp"

#include "cli.hpp"
#include "npy.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace tdmaps {
namespace app {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

constexpr double line_seconds = 10.0;  ///< plain-line interval when stderr is not a terminal

/// A phase shorter than this prints nothing: 2 s, or TDMAPS_PROGRESS_AFTER_S
/// (the tests set 0 to see the output of short runs).
double quiet_seconds() {
  static const double s = [] {
    const char* v = std::getenv("TDMAPS_PROGRESS_AFTER_S");
    char* end = nullptr;
    const double x = v != nullptr ? std::strtod(v, &end) : 2.0;
    return v != nullptr && end != v && x >= 0 ? x : 2.0;
  }();
  return s;
}

std::string duration_text(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1f s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, static_cast<int>(s) / 60 % 60);
  return buf;
}

std::string gb_text(std::int64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", static_cast<double>(b) * 1e-9);
  return buf;
}

}  // namespace

Progress::Progress(bool quiet) : quiet_(quiet), terminal_(::isatty(2) == 1) {}

Progress::~Progress() {
  done();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

double Progress::elapsed() const { return now_seconds() - start_; }

void Progress::phase(const std::string& name, std::int64_t total, Unit unit, double expected_seconds) {
  done();
  if (quiet_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  name_ = name;
  total_ = total;
  done_ = 0;
  unit_ = unit;
  expected_ = expected_seconds;
  start_ = now_seconds();
  last_line_ = 0;
  drawn_ = false;
  active_ = true;
  if (quiet_seconds() <= 0) draw(false);  // no threshold: every phase shows, however short
  if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
}

void Progress::advance(std::int64_t done) {
  if (quiet_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = done;
}

void Progress::done() {
  if (quiet_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (active_ && drawn_ && terminal_) {
    draw(true);
  }
  active_ = false;
}

void Progress::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, std::chrono::milliseconds(100));
    if (stop_ || !active_) continue;
    const double t = elapsed();
    if (t < quiet_seconds()) continue;
    if (terminal_) {
      draw(false);
    } else if (!drawn_ || t - last_line_ >= line_seconds) {
      draw(false);
      last_line_ = t;
    }
  }
}

// Called with the mutex held.
void Progress::draw(bool final_line) {
  const double t = elapsed();
  std::string line = program_name() + ": " + name_;
  double eta = -1;
  if (unit_ == Unit::bytes) {
    const double f = total_ > 0 ? static_cast<double>(done_) / static_cast<double>(total_) : 1.0;
    if (terminal_) {
      const int width = 24, fill = static_cast<int>(f * width);
      line += " [" + std::string(static_cast<std::size_t>(fill), '#') + std::string(static_cast<std::size_t>(width - fill), '-') + "]";
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, " %3d%% ", static_cast<int>(f * 100));
    line += buf + gb_text(done_) + " of " + gb_text(total_);
    if (t > 0) {
      std::snprintf(buf, sizeof buf, ", %.2f GB/s", static_cast<double>(done_) / t * 1e-9);
      line += buf;
    }
    if (done_ > 0) eta = t * (1.0 - f) / f;
  } else {
    if (total_ > 1) line += " run " + std::to_string(done_ < total_ ? done_ + 1 : total_) + " of " + std::to_string(total_);
    const double per = done_ > 0 ? t / static_cast<double>(done_) : expected_;
    if (per > 0) eta = per * static_cast<double>(total_) - t;
  }
  line += ", elapsed " + duration_text(t);
  if (!final_line) {
    if (eta >= 0) line += ", ETA " + duration_text(eta);
    else if (unit_ == Unit::runs && !(expected_ > 0) && done_ == 0) line += ", ETA unknown";
    else if (eta < 0 && (expected_ > 0 || done_ > 0)) line += ", taking longer than estimated";
  } else {
    line += ", done";
  }
  if (terminal_) {
    std::fprintf(stderr, "\r%-100s%s", line.c_str(), final_line ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace app
}  // namespace tdmaps
