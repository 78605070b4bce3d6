#pragma once
// The options of real-time operation (host/THREADS.md): CPU partitions per role
// (cpus.engine, cpus.plasticity, cpus.other), the lag that is logged (run.max-lag-ms)
// and the window of status's rates, lag figures and cost (status.window-s). None of
// them changes what a run computes.
#include <vector>

#include "apps/flysim/options/options.hpp"
#include "host/thread_placement.hpp"

namespace flysim::app {

std::vector<OptionSpec> realtime_options();

struct RealtimeSettings {
  CpuPartition cpus;        // allowed: the CPUs the process may use now
  double max_lag_ms = 100;
  double pace_batch_ms = 10;  // run.pace-batch-ms
  double window_s = 10;
};

// Reads and checks the options: a CPU list that is malformed or names a CPU the process
// may not use is refused naming the option and the CPU (input_error).
RealtimeSettings realtime_settings(const Options& o);

}  // namespace flysim::app
