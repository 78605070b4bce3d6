#pragma once
// Host cores per role as text (host/THREADS.md): the table that the run's summary,
// `flysim ctl status` and `flysim cost` print, so all three read alike.
#include <string>

#include "host/cost_meter.hpp"

namespace flysim::app {

// One line per role that has threads or used CPU: threads, cores, the busiest thread's
// cores; then the time of threads that ended, and the whole process. Each line starts
// with `indent`.
std::string cost_table(const CostReport& report, const std::string& indent);

// One line per thread (tid, name, role, cores, CPU seconds since it started), busiest
// first, like pidstat -t.
std::string thread_table(const CostReport& report, const std::string& indent);

// "now 0.0 ms, p99 1.2 ms, max 3.4 ms (run.max-lag-ms=100)".
std::string lag_text(double now_ms, double p99_ms, double max_ms, double max_lag_ms);

}  // namespace flysim::app
