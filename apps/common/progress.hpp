#ifndef TDMAPS_APPS_COMMON_PROGRESS_HPP
#define TDMAPS_APPS_COMMON_PROGRESS_HPP

// Progress of a CLI's long phases on stderr (target tdmaps::app_common).
//
//   Progress p(quiet);
//   p.phase("compute", repetitions, Progress::Unit::runs, expected_seconds);
//   p.advance(done);            from the thread doing the work
//   p.phase("write", bytes, Progress::Unit::bytes);
//   p.done();                   (the destructor does it too)
//
// Nothing is printed for a phase shorter than ~2 s (TDMAPS_PROGRESS_AFTER_S
// overrides it). After that, on a
// terminal: one bar line redrawn in place (fraction, rate, elapsed, ETA); not
// a terminal (logs, pipes): a plain line when the phase starts being long
// and then every 10 s. quiet: nothing. A phase whose progress is not counted
// inside one unit (a single kernel run) shows its elapsed time, and an ETA
// from `expected_seconds` when the caller knows one (e.g. the time of the
// warm-up run of the same kernel); it never invents a fraction.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace tdmaps {
namespace app {

class Progress {
 public:
  enum class Unit { runs, bytes };

  explicit Progress(bool quiet);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Starts a phase of `total` units; expected_seconds < 0: unknown.
  void phase(const std::string& name, std::int64_t total, Unit unit, double expected_seconds = -1);
  void advance(std::int64_t done);
  /// Ends the current phase (clears the bar line).
  void done();

 private:
  void loop();
  void draw(bool final_line);
  double elapsed() const;

  const bool quiet_;
  const bool terminal_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
  bool stop_ = false;
  bool active_ = false;
  bool drawn_ = false;  ///< a bar or a line was printed for this phase
  std::string name_;
  std::int64_t total_ = 0, done_ = 0;
  Unit unit_ = Unit::runs;
  double expected_ = -1;
  double start_ = 0, last_line_ = 0;
};

}  // namespace app
}  // namespace tdmaps

#endif
