#pragma once
// The messages of the live service (flysim serve): commands an operator sends
// through the control API (live_command.hpp), the reply that says where each took
// effect, and the status. The HTTP layer turns JSON into these; the sim loop decides;
// the journal stores the commands. Each type lists its fields once, with their JSON keys.
#include <caf/all.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "messages/cost.hpp"
#include "messages/inspect_fields.hpp"
#include "messages/live_command.hpp"
#include "model/named_field.hpp"

namespace flysim {

using status_atom = caf::atom_constant<caf::atom("status")>;
using command_atom = caf::atom_constant<caf::atom("command")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;

// The answer to a live command: applied (at which boundary) or refused (why).
struct LiveReply {
  bool ok = false;
  std::string message;  // what happened, or why not: one line
  int32_t trial = 0;    // the boundary where it took effect
  int32_t step = 0;
  std::string file;     // checkpoint: the file written
};
template <same_unqualified<LiveReply> T, class F>
decltype(auto) fields(T& x, F&& f) {
  return f(named("ok", x.ok), named("message", x.message), named("trial", x.trial), named("step", x.step), named("file", x.file));
}

// A further Poisson group of the running stimulus, as GET /status lists it.
struct StatusGroup {
  std::string name;
  uint32_t neurons = 0;
  double rate_Hz = 0.0;
};
template <same_unqualified<StatusGroup> T, class F>
decltype(auto) fields(T& x, F&& f) {
  return f(named("name", x.name), named("neurons", x.neurons), named("rate_hz", x.rate_Hz));
}

// What GET /status reports. Rates are over the last status window.
struct ServiceStatus {
  std::string state;            // "running", "paused", "stopping", "done"
  int32_t trial = 0, step = 0;  // the end of the last epoch answered
  int32_t trials = 0;           // of the plan
  double simulated_s = 0.0;     // since the start of this run
  double wall_s = 0.0;          // since the start of this run
  double wall_per_simulated = 0.0;  // over the window
  std::string pace;             // "off", "realtime" or the factor
  double lag_ms = 0.0;          // how far the simulation is behind the pace now (0 when off)
  std::string engine;           // the engine's describe()
  int32_t threads = 0;          // CPU pool threads (0 on CUDA)
  double host_cpu_s = 0.0;      // process CPU time since the start
  double host_cores = 0.0;      // process CPU time per wall second over the window
  uint64_t spikes = 0;          // since the start of this run
  double spikes_per_simulated_s = 0.0;  // over the window
  uint32_t shards = 0;          // plasticity shards (0: off)
  std::string last_checkpoint;  // empty: none yet
  double stimulus_rate_Hz = 0.0;
  uint32_t poisson_neurons = 0;     // of the default group
  std::vector<StatusGroup> groups;  // the further Poisson groups, in the plan's order
  uint32_t silenced_neurons = 0;
  std::string silence_mode;         // "outgoing" or "both"
  double lag_p99_ms = 0.0;      // over the window: 99% of the epochs were at most this far behind
  double lag_max_ms = 0.0;      // over the window
  double max_lag_ms = 0.0;      // run.max-lag-ms: more than this is logged as falling behind
  double window_s = 0.0;        // the window of the rates, the lag figures and the cost
  // CPU engine, paced: host cores the engine needs to hold the pace, measured (0: not measured).
  double engine_cores_needed = 0.0;
  std::vector<std::string> warnings;  // what an operator should act on, now
  std::string cpus_engine, cpus_plasticity, cpus_other;  // the partitions (cpus.*; "" = not pinned)
  std::string cpus_freed;       // CUDA engine: cpus.engine CPUs no role uses now
  CostReport cost;              // host cores per role over the window (host/THREADS.md)
  std::string gpu_note;         // which GPU was read, or why none could be (NVML not available)
  std::vector<GpuProcess> gpu_neighbours;  // other processes on that GPU
};
template <same_unqualified<ServiceStatus> T, class F>
decltype(auto) fields(T& x, F&& f) {
  return f(named("state", x.state), named("trial", x.trial), named("step", x.step), named("trials", x.trials),
           named("simulated_s", x.simulated_s), named("wall_s", x.wall_s), named("wall_per_simulated", x.wall_per_simulated),
           named("pace", x.pace), named("lag_ms", x.lag_ms), named("engine", x.engine), named("threads", x.threads),
           named("host_cpu_s", x.host_cpu_s), named("host_cores", x.host_cores), named("spikes", x.spikes),
           named("spikes_per_simulated_s", x.spikes_per_simulated_s), named("shards", x.shards),
           named("last_checkpoint", x.last_checkpoint), named("stimulus_rate_hz", x.stimulus_rate_Hz),
           named("poisson_neurons", x.poisson_neurons), named("groups", x.groups),
           named("silenced_neurons", x.silenced_neurons), named("silence_mode", x.silence_mode), named("lag_p99_ms", x.lag_p99_ms), named("lag_max_ms", x.lag_max_ms),
           named("max_lag_ms", x.max_lag_ms), named("window_s", x.window_s), named("engine_cores_needed", x.engine_cores_needed),
           named("warnings", x.warnings), named("cpus_engine", x.cpus_engine), named("cpus_plasticity", x.cpus_plasticity),
           named("cpus_other", x.cpus_other), named("cpus_freed", x.cpus_freed), named("cost", x.cost),
           named("gpu_note", x.gpu_note), named("gpu_neighbours", x.gpu_neighbours));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LiveReply& x) {
  return inspect_fields(f, "flysim.live_reply", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, StatusGroup& x) {
  return inspect_fields(f, "flysim.status_group", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ServiceStatus& x) {
  return inspect_fields(f, "flysim.service_status", x);
}

}  // namespace flysim
