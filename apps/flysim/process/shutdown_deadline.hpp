#pragma once
// A bound on how long a server may take to shut down. CAF 0.17's ~actor_system waits
// without limit for every actor and thread (docs/CAF-0.17.md, "Shutdown hangs"); a
// process asked to stop must end anyway. Declare the deadline before the actor system
// so that it outlives the system's destructor, and arm it once the stop begins: if the
// deadline is still armed when the time is up, it logs one line saying so, flushes the
// logs and ends the process with std::_Exit(exit_code).
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace flysim::app {

class ShutdownDeadline {
 public:
  ShutdownDeadline() = default;
  ShutdownDeadline(const ShutdownDeadline&) = delete;
  ShutdownDeadline& operator=(const ShutdownDeadline&) = delete;
  // Disarms it: the shutdown finished in time.
  ~ShutdownDeadline();

  // Starts the clock (once; later calls do nothing). `what` names the process in the
  // log line ("shard node").
  void arm(std::chrono::milliseconds limit, std::string what, int exit_code);

 private:
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  std::thread watcher_;
};

}  // namespace flysim::app
