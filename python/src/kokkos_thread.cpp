// The thread that owns Kokkos. Kokkos keeps per-thread state: the OpenMP
// backend of Kokkos 3.x sets its instance in a thread-local pointer in
// Kokkos::initialize, so a parallel_for from any other thread fails ("in
// parallel or not initialized") and OpenMP::concurrency() reads a null
// pointer there; CUDA's current device is per thread too. So the module
// starts one worker thread, initialises Kokkos on it, runs every Kokkos call
// of the module there (on_kokkos) and finalises it there; this holds for any
// Kokkos version and backend, since Kokkos only ever sees the thread that
// initialised it. Callers release the GIL, hand their job over and wait:
// Python threads run meanwhile, Kokkos sees one job at a time.
//
// Kokkos started by someone else before the import (Kokkos::is_initialized()
// already): this module does not own it and runs its jobs on the calling
// thread, one at a time; which threads may call is then that owner's rule.

#include "common.hpp"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pythread.h>

#include <Kokkos_Core.hpp>

#include <tdmaps/kokkos_ext/backend.hpp>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace py = pybind11;

namespace tdmaps {
namespace python {

namespace {

// How often a waiting main thread looks for signals (Ctrl-C), and so, with
// the jobs' time between check_cancel() calls, how soon it raises.
constexpr std::chrono::milliseconds poll_interval(50);

/// One worker: jobs handed over one at a time (the caller holds `callers`).
class Worker {
 public:
  Worker() : thread_([this] { loop(); }) {}

  /// Runs f on the worker and waits, calling poll() every poll_interval
  /// meanwhile (without the worker's lock); rethrows f's exception.
  void run(const std::function<void()>& f, const std::function<void()>& poll = nullptr) {
    std::unique_lock<std::mutex> lock(m_);
    job_ = &f;
    done_ = false;
    cv_.notify_all();
    while (!cv_.wait_for(lock, poll_interval, [this] { return done_; }))
      if (poll) {
        lock.unlock();
        poll();
        lock.lock();
      }
    std::exception_ptr e = error_;
    error_ = nullptr;
    lock.unlock();
    if (e) std::rethrow_exception(e);
  }

  /// Ends the loop and joins the thread (after the last job).
  void stop() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      cv_.wait(lock, [this] { return job_ != nullptr || stop_; });
      if (job_ == nullptr) return;
      const std::function<void()>* f = job_;
      lock.unlock();
      std::exception_ptr e;
      try {
        (*f)();
      } catch (...) {
        e = std::current_exception();
      }
      lock.lock();
      error_ = e;
      job_ = nullptr;
      done_ = true;
      cv_.notify_all();
    }
  }

  std::mutex m_;
  std::condition_variable cv_;
  const std::function<void()>* job_ = nullptr;
  bool done_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

enum class Owner { none, worker, external };

// Changed by initialize / finalize only, under callers(); atomic for the
// checks made without it (is_initialized, a fork's child).
std::atomic<Owner> owner{Owner::none};
std::atomic<bool> finalized{false};
std::atomic<pid_t> owner_pid{0};
std::atomic<bool> exiting{false};  // finalised by the interpreter's exit (atexit)
// Never destroyed: a static std::thread still joinable at process exit (no
// finalize, e.g. _tdmaps used without the package) would call std::terminate.
Worker* worker = nullptr;
std::atomic<int> cuda_device{-1};  // cached by kokkos_cuda_device()
// Set when the caller of the running job has a pending KeyboardInterrupt;
// check_cancel() reads it on the Kokkos thread. Cleared before each job.
std::atomic<bool> cancel_requested{false};
// Python's main thread, the only one whose PyErr_CheckSignals runs handlers.
unsigned long main_thread_ident = 0;

/// One job at a time, whoever calls (timed: a waiting main thread polls signals).
std::timed_mutex& callers() {
  static std::timed_mutex* m = new std::timed_mutex;  // never destroyed: used until the process ends
  return *m;
}

/// The reason Kokkos cannot run a job now, or "" (under callers()).
std::string unusable() {
  if (finalized || owner == Owner::none || !Kokkos::is_initialized())
    return "tdmaps: Kokkos is not initialised (finalised at interpreter exit, or by another module)";
  if (owner == Owner::worker && ::getpid() != owner_pid)
    return "tdmaps: Kokkos was started in process " + std::to_string(owner_pid.load()) +
           "; a forked child cannot use it (its threads did not survive the fork): import tdmaps in the child, e.g. "
           "with multiprocessing's 'spawn' or 'forkserver' start method";
  return "";
}

void run_locked(const std::function<void()>& job, const std::function<void()>& poll) {
  const std::string why = unusable();
  if (!why.empty()) throw std::runtime_error(why);
  cancel_requested = false;
  if (owner == Owner::worker) worker->run(job, poll);
  else job();  // Kokkos owned by someone else: on this thread, not interruptible
}

}  // namespace

void on_kokkos(const std::function<void()>& job) {
  // A fork's child inherits callers() in whatever state the parent's threads
  // left it: refuse before locking it.
  if (owner == Owner::worker && ::getpid() != owner_pid) throw std::runtime_error(unusable());
  if (exiting) throw std::runtime_error(unusable());
  std::exception_ptr error;
  // Ctrl-C: the main thread takes the GIL every poll_interval to run the
  // signal handlers; a KeyboardInterrupt (left set as Python's error) asks
  // the job to stop at its next check_cancel(), and is raised once the job
  // has ended (it uses this frame's arrays until then). Other threads wait
  // without polling: Python runs signal handlers on the main thread only,
  // and a daemon thread must not take the GIL while the interpreter ends.
  const bool polls = PyThread_get_thread_ident() == main_thread_ident;
  bool interrupted = false;
  PyThreadState* state = PyEval_SaveThread();
  const std::function<void()> poll = [&] {
    if (interrupted) return;
    PyEval_RestoreThread(state);
    if (PyErr_CheckSignals() != 0) {
      interrupted = true;
      cancel_requested = true;
    }
    state = PyEval_SaveThread();
  };
  std::unique_lock<std::timed_mutex> lock(callers(), std::defer_lock);
  if (!polls) lock.lock();
  else
    while (!lock.try_lock_for(poll_interval)) {
      poll();
      if (interrupted) {  // interrupted while another thread's job ran: this one never starts
        PyEval_RestoreThread(state);
        throw py::error_already_set();
      }
    }
  try {
    run_locked(job, polls ? poll : std::function<void()>());
  } catch (const Cancelled&) {
    // The interrupt's KeyboardInterrupt is raised below.
  } catch (...) {
    error = std::current_exception();
  }
  // The GIL is taken back before callers() is let go, so the atexit
  // finalize (which needs callers()) cannot run, and the interpreter cannot
  // start finalising, while this thread waits for the GIL: Python would end
  // a waiting daemon thread there (pthread_exit), unwinding C++ frames that
  // still hold Python objects. Nothing waits for callers() with the GIL held.
  // A thread that gets here after that finalize is a daemon thread (Python
  // joined the others first): it waits for the process to end, as Python
  // 3.14 makes such threads do.
  if (exiting)
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  PyEval_RestoreThread(state);
  lock.unlock();
  if (interrupted) throw py::error_already_set();  // the KeyboardInterrupt, over any error of the cut job
  if (error) std::rethrow_exception(error);
}

void check_cancel() {
  if (cancel_requested.load(std::memory_order_relaxed)) throw Cancelled();
}

void require_kokkos() {
  if (owner == Owner::worker && ::getpid() != owner_pid) throw std::runtime_error(unusable());
  if (finalized || owner == Owner::none || !Kokkos::is_initialized()) throw std::runtime_error(unusable());
}

int kokkos_cuda_device() {
  if constexpr (!backend::is_gpu<ExecSpace>::value) {
    return -1;
  } else {
    if (cuda_device.load() < 0) on_kokkos([] { cuda_device = backend::device_id(ExecSpace()); });
    return cuda_device.load();
  }
}

void bind_kokkos_thread(py::module_& m) {
  main_thread_ident = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
  m.def(
      "initialize",
      [](const std::vector<std::string>& args) {
        py::gil_scoped_release nogil;
        std::lock_guard<std::timed_mutex> lock(callers());
        if (finalized) throw std::runtime_error("tdmaps: Kokkos was finalised already; it cannot start again in this process");
        if (owner != Owner::none) return false;
        if (Kokkos::is_initialized()) {
          owner = Owner::external;
          return false;
        }
        Worker* w = new Worker;
        try {
          w->run([&args] {
            std::vector<std::string> storage{"tdmaps"};
            storage.insert(storage.end(), args.begin(), args.end());
            std::vector<char*> argv;
            for (auto& s : storage) argv.push_back(&s[0]);
            argv.push_back(nullptr);
            int argc = static_cast<int>(storage.size());
            Kokkos::initialize(argc, argv.data());
          });
        } catch (...) {
          w->stop();
          delete w;
          throw;
        }
        worker = w;
        owner = Owner::worker;
        owner_pid = ::getpid();
        return true;
      },
      py::arg("args") = std::vector<std::string>(),
      "Starts Kokkos on tdmaps' own thread unless it runs already (True: this call started it); args are Kokkos' "
      "--kokkos-* options.");
  m.def(
      "finalize",
      [](bool at_exit) {
        py::gil_scoped_release nogil;
        if (owner == Owner::worker && ::getpid() != owner_pid) return false;  // a fork's child owns no thread
        if (finalized) return false;  // before callers(), which a parked daemon thread may hold
        std::lock_guard<std::timed_mutex> lock(callers());
        if (owner != Owner::worker || finalized || !Kokkos::is_initialized()) return false;
        finalized = true;
        exiting = at_exit;
        try {
          worker->run([] { Kokkos::finalize(); });
        } catch (...) {
          worker->stop();
          throw;
        }
        worker->stop();
        return true;
      },
      py::arg("at_exit") = false,
      "Ends Kokkos if this module started it and it runs, on the thread that started it (True: this call ended it); "
      "later calls do nothing. at_exit: called by the interpreter's exit (atexit), so any thread that calls tdmaps "
      "afterwards is a daemon thread, parked until the process ends.");
  m.def("is_initialized", []() { return owner != Owner::none && !finalized && Kokkos::is_initialized(); });
  m.def("owns_kokkos", []() { return owner == Owner::worker; }, "Whether this module started Kokkos (and so finalises it).");
}

}  // namespace python
}  // namespace tdmaps
