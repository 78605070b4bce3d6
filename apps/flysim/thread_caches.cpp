// Why a service runs without glibc's per-thread caches: each thread that frees a small
// block (up to 1 KiB) keeps it in a cache of its own, up to 7 of each size, for its next
// malloc of that size. No other thread can reuse those blocks, and a page holding any of
// them stays resident. A service has about 20 threads (9 HTTP, the CAF workers, the sim
// loop, recorder, checkpointer, the engine's pool...), and each one's cache fills as it
// meets new sizes: a request on an HTTP thread that had none before, more spikes per
// epoch after a stimulus change, a new pool after a swap. The 10-minute watch of a paced
// net2000 service grew +2.13% after its first minute with the caches, +0.29% without
// them (docs/WATCH.md, "Memory"). Without them every malloc and free goes to the one
// arena (M_ARENA_MAX=1, apps/flysim/main.cpp); the engine's hot path hardly allocates,
// and the default scenario is no slower (wall s per simulated s, medians of 7
// interleaved runs: 0.419 with the caches, 0.402 without). glibc reads the setting only
// from the environment at start, hence the exec.
#include "apps/flysim/thread_caches.hpp"

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
