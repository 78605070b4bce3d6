// A service runs without glibc's per-thread caches of freed small blocks: no other thread
// can reuse them, so each of its ~20 threads' caches keeps pages resident for good, and
// the engine's hot path hardly allocates (docs/WATCH.md, "Memory, second round"). glibc
// reads the setting only from the environment at start, hence the exec.
#include "apps/flysim/process/thread_caches.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace flysim::app {

void exec_without_thread_caches(char** argv) {
  constexpr const char* kTunable = "glibc.malloc.tcache_count";
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string before = tunables ? tunables : "";
  if (before.find(kTunable) != std::string::npos) return;
  const std::string after = std::string(kTunable) + "=0" + (before.empty() ? "" : ":" + before);
  setenv("GLIBC_TUNABLES", after.c_str(), 1);
  execv("/proc/self/exe", argv);
  // The exec failed: the environment as it was.
  if (tunables)
    setenv("GLIBC_TUNABLES", before.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

}  // namespace flysim::app
