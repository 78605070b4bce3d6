#include "apps/flysim/options/realtime_options.hpp"

#include <fmt/format.h>

#include "actors/schedule.hpp"
#include "model/errors.hpp"

namespace flysim::app {

std::vector<OptionSpec> realtime_options() {
  return {
      {"cpus.engine", OptionType::text, "",
       "CPU list (e.g. 2-5,8) for the CPU engine's pool threads; empty: not pinned. While the engine is CUDA these CPUs "
       "are free (status: cpus_freed)"},
      {"cpus.plasticity", OptionType::text, "", "CPU list for the plasticity shards' threads; empty: not pinned"},
      {"cpus.other", OptionType::text, "",
       "CPU list for every other thread (sim loop, recorder, checkpointer, control API, CAF, the CUDA engine's thread); "
       "empty: not pinned"},
      {"run.pace-batch-ms", OptionType::number, fmt::format("{:g}", Schedule::kDefaultPaceBatchMs),
       "a paced run issues this much simulated time at once and runs up to twice it ahead of the wall clock; larger "
       "costs the host less (fewer wake-ups and messages) and never changes a spike (1..1000)"},
      {"run.max-lag-ms", OptionType::number, "100",
       "a paced run more than this far behind the pace is logged (once, with the likely cause; again when that changes)"},
      {"status.window-s", OptionType::number, "10",
       "window of status's rates, lag p99/max and host cores per role, seconds (1..3600)"},
  };
}

namespace {
CpuList cpu_list_option(const Options& o, const std::string& key) {
  try {
    return parse_cpu_list(o.text(key));
  } catch (const input_error& e) {
    o.reject(key, fmt::format("is not a CPU list like 2-5,8: {}", e.what()));
  }
}
}  // namespace

RealtimeSettings realtime_settings(const Options& o) {
  RealtimeSettings s;
  s.cpus.engine = cpu_list_option(o, "cpus.engine");
  s.cpus.plasticity = cpu_list_option(o, "cpus.plasticity");
  s.cpus.other = cpu_list_option(o, "cpus.other");
  s.cpus.allowed = allowed_cpus();
  for (const auto& [key, cpus] : {std::pair{"cpus.engine", &s.cpus.engine}, std::pair{"cpus.plasticity", &s.cpus.plasticity},
                                  std::pair{"cpus.other", &s.cpus.other}})
    if (const int cpu = first_cpu_outside(*cpus, s.cpus.allowed); cpu >= 0)
      o.reject(key, fmt::format("names CPU {}, which this process may not use (allowed: {}; see taskset -p, or the "
                                "cgroup's cpuset)",
                                cpu, format_cpu_list(s.cpus.allowed)));
  s.max_lag_ms = o.number("run.max-lag-ms");
  if (!(s.max_lag_ms > 0) || s.max_lag_ms > 3.6e6) o.reject("run.max-lag-ms", "must be above 0 and at most 3600000 (an hour)");
  s.pace_batch_ms = o.number("run.pace-batch-ms");
  if (!(s.pace_batch_ms >= 1) || s.pace_batch_ms > 1000) o.reject("run.pace-batch-ms", "must lie in 1..1000 ms");
  s.window_s = o.number("status.window-s");
  if (!(s.window_s >= 1) || s.window_s > 3600) o.reject("status.window-s", "must lie in 1..3600 seconds");
  return s;
}

}  // namespace flysim::app
