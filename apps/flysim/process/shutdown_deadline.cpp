#include "apps/flysim/process/shutdown_deadline.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>

namespace flysim::app {

void ShutdownDeadline::arm(std::chrono::milliseconds limit, std::string what, int exit_code) {
  if (watcher_.joinable()) return;
  watcher_ = std::thread([this, limit, what = std::move(what), exit_code] {
    std::unique_lock lock(mutex_);
    if (finished_.wait_for(lock, limit, [this] { return done_; })) return;
    spdlog::warn("{}: the actor system did not shut down within {} ms; ending the process anyway", what, limit.count());
    spdlog::default_logger()->flush();
    std::fflush(stdout);
    std::fflush(stderr);
    // _Exit: exit() would run the static destructors while the actor system's threads
    // are still running.
    std::_Exit(exit_code);
  });
}

ShutdownDeadline::~ShutdownDeadline() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  finished_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

}  // namespace flysim::app
