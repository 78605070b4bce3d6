#pragma once
// Where each role's threads run: the cpus.* options (host/THREADS.md). A thread calls
// enter_role() when it starts; that names it for its role and, when a partition is
// installed, pins it to the role's CPUs (sched_setaffinity on the calling thread).
//
// The partition is process-wide, installed once by flysim run/serve before it starts
// any thread, because the threads start in places that know nothing of options (CAF's
// scheduler, cpp-httplib, the engine's pool, the CUDA driver) and a thread's CPU
// affinity is itself the kernel's per-process state. Pinning and naming only decide
// where and under which name work runs, never what it computes.
#include <string>

#include "host/cpu_list.hpp"
#include "host/thread_role.hpp"

namespace flysim {

struct CpuPartition {
  CpuList engine;      // cpus.engine: CPU pool workers
  CpuList plasticity;  // cpus.plasticity: plasticity shards
  CpuList other;       // cpus.other: every other role (the CUDA engine's thread too)
  CpuList allowed;     // what the process may use (allowed_cpus() before any pinning)
  // The CPUs a role's threads are pinned to: its list, or when that is empty, every
  // allowed CPU (so a thread started by a pinned one is not left on its starter's CPUs).
  const CpuList& cpus_for(ThreadRole role) const;
  bool pins_anything() const { return !engine.empty() || !plasticity.empty() || !other.empty(); }
  // While the engine is CUDA its thread runs on `other`: the CPUs of `engine` that no
  // other list names are free for other work.
  CpuList freed_by_gpu() const { return cpus_without(engine, cpus_union(other, plasticity)); }
};

// Installs the partition for the threads that enter a role from now on (replacing any
// earlier one; an empty partition pins nothing).
void install_cpu_partition(const CpuPartition& partition);
// The partition installed (empty lists when none is).
CpuPartition installed_cpu_partition();

// Names the calling thread thread_name(role, index) and pins it to the installed
// partition's CPUs for the role. Returns "" or why the pinning failed (the kernel's
// error): names and pins are observation aids, so a failure is reported, not fatal.
std::string enter_role(ThreadRole role, unsigned index = 0);
// The same for a thread of the `other` role with a name of its own (fs-cost, fs-signals).
std::string enter_role_as(ThreadRole role, const std::string& name);

// The calling thread's name, as the kernel holds it.
std::string current_thread_name();

}  // namespace flysim
