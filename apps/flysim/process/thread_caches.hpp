#pragma once
// glibc's per-thread caches of freed blocks (tcache), turned off for a long-lived service.

namespace flysim::app {

// Re-executes this program (same pid, same arguments) with glibc.malloc.tcache_count=0
// put before what GLIBC_TUNABLES holds, unless it is set there already; returns when it is set, or
// when the exec failed (the service then runs with the caches). Call it first thing in
// main, before any thread starts: glibc reads its tunables only when a program starts.
void exec_without_thread_caches(char** argv);

}  // namespace flysim::app
