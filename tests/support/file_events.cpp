#include "file_events.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace flysim::test {

bool wait_in_folder(const std::string& folder, const std::function<bool()>& ready, double timeout_s) {
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) throw std::runtime_error("inotify_init1 failed");
  // Watched before the first check, so that nothing written in between is missed.
  if (::inotify_add_watch(fd, folder.c_str(), IN_CREATE | IN_MODIFY | IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
    ::close(fd);
    throw std::runtime_error("cannot watch " + folder);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool done = ready();
  while (!done) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) > 0) {
      char events[4096];
      while (::read(fd, events, sizeof events) > 0) {
      }
    }
    done = ready();
  }
  ::close(fd);
  return done;
}

}  // namespace flysim::test
