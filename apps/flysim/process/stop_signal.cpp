#include "apps/flysim/process/stop_signal.hpp"

#include <atomic>
#include <csignal>
#include <string>

#include "model/errors.hpp"

namespace flysim::app {

namespace {
std::atomic<int> g_stop_signal{0};
std::atomic<int> g_stop_count{0};
extern "C" void on_stop_signal(int sig) {
  int none = 0;
  g_stop_signal.compare_exchange_strong(none, sig);
  g_stop_count.fetch_add(1);
}
}  // namespace

void catch_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
}

int stop_signal() { return g_stop_signal.load(); }
int stop_signal_count() { return g_stop_count.load(); }

void throw_if_stopped(const char* doing) {
  if (const int sig = stop_signal(); sig != 0) throw interrupted(sig, std::string("interrupted while ") + doing);
}

}  // namespace flysim::app
