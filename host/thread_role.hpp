#pragma once
// What each thread of flysim is for, told by its name (host/THREADS.md). A thread
// names itself when it starts (thread_placement.hpp); the kernel keeps the name
// (/proc/self/task/TID/comm), so whoever reads the per-thread CPU counters can say
// which role used them, as pidstat -t shows them.
#include <array>
#include <string>

namespace flysim {

enum class ThreadRole {
  sim_loop,      // fs-simloop: the clock, the plan, the pace
  engine,        // fs-engine-N: CPU pool worker N (worker 0 is the engine actor's thread)
  gpu,           // fs-gpu: the thread that drives the CUDA engine (and the driver threads it starts)
  plasticity,    // fs-shard-N: plasticity shard N
  recorder,      // fs-recorder: the spike and rate files
  checkpointer,  // fs-ckpt: checkpoint files
  http,          // fs-http: the control API's server and its request threads
  caf,           // fs-caf-N, fs-caf-clock: CAF's scheduler workers and its timer
  main,          // fs-main: the thread that started the run
  other,         // anything else: fs-cost (the sampler), fs-signals, threads named by others
};

inline constexpr std::array<ThreadRole, 10> kThreadRoles = {
    ThreadRole::sim_loop, ThreadRole::engine, ThreadRole::gpu,  ThreadRole::plasticity, ThreadRole::recorder,
    ThreadRole::checkpointer, ThreadRole::http, ThreadRole::caf, ThreadRole::main, ThreadRole::other};

// The role's name in reports: "simloop", "engine", "gpu", "plasticity", ...
std::string role_label(ThreadRole role);

// The thread name of a role's thread: thread_name(engine, 3) = "fs-engine-3". Roles of
// one thread ignore `index`. At most 15 characters (the kernel's limit).
std::string thread_name(ThreadRole role, unsigned index = 0);

// The role a thread name stands for (the inverse of thread_name; other for any name
// flysim did not give).
ThreadRole role_of_thread(const std::string& name);

}  // namespace flysim
