#include "apps/flysim/stop_signal.hpp"

#include <atomic>
#include <csignal>

namespace flysim::app {

namespace {
std::atomic<int> g_stop_signal{0};
extern "C" void on_stop_signal(int sig) { g_stop_signal.store(sig); }
}  // namespace

void catch_stop_signals() {
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
}

int stop_signal() { return g_stop_signal.load(); }

}  // namespace flysim::app
