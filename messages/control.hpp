#pragma once
// The messages of the live service (flysim serve): commands an operator sends
// through the control API, the reply that says where each took effect, and the status.
// The HTTP layer turns JSON into these; the sim loop decides; the journal stores them.
#include <caf/all.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "messages/cost.hpp"

namespace flysim {

using status_atom = caf::atom_constant<caf::atom("status")>;
using command_atom = caf::atom_constant<caf::atom("command")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;

// A timed kick asked for live: `after_ms` after the boundary where the command applies.
struct LiveKick {
  int64_t neuron_id = 0;
  double after_ms = 0.0;
};

// One live command. `action` is one of: swap, checkpoint, stimulus, pause, resume, stop.
struct LiveCommand {
  std::string action;
  std::string engine;                // swap: "cpu" or "cuda"
  int32_t threads = 0;               // swap to cpu: pool threads (0: engine.threads)
  double rate_Hz = -1.0;             // stimulus: new Poisson rate (negative: unchanged)
  bool replace_ids = false;          // stimulus: poisson_ids replaces the Poisson set
  std::vector<int64_t> poisson_ids;  // stimulus: root IDs of the new Poisson set
  std::vector<LiveKick> kicks;       // stimulus: kicks to add
  std::string group;                 // stimulus: rate_Hz and poisson_ids are this Poisson group's ("" : the default group)
  bool replace_silenced = false;     // stimulus: silenced_ids replaces the silenced set
  std::vector<int64_t> silenced_ids; // stimulus: root IDs of the new silenced set
  std::string silence_mode;          // stimulus: "outgoing" or "both" ("" : unchanged)
};

// The answer to a live command: applied (at which boundary) or refused (why).
struct LiveReply {
  bool ok = false;
  std::string message;  // what happened, or why not: one line
  int32_t trial = 0;    // the boundary where it took effect
  int32_t step = 0;
  std::string file;     // checkpoint: the file written
};

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
  double lag_p99_ms = 0.0;      // over the window: 99% of the epochs were at most this far behind
  double lag_max_ms = 0.0;      // over the window
  double max_lag_ms = 0.0;      // run.max-lag-ms: more than this is logged as falling behind
  std::string engine;           // the engine's describe()
  int32_t threads = 0;          // CPU pool threads (0 on CUDA)
  double host_cpu_s = 0.0;      // process CPU time since the start
  double host_cores = 0.0;      // process CPU time per wall second over the window
  uint64_t spikes = 0;          // since the start of this run
  double spikes_per_simulated_s = 0.0;  // over the window
  uint32_t shards = 0;          // plasticity shards (0: off)
  std::string last_checkpoint;  // empty: none yet
  double stimulus_rate_Hz = 0.0;
  uint32_t poisson_neurons = 0;
  double window_s = 0.0;        // the window of the rates, the lag figures and the cost
  CostReport cost;              // host cores per role over the window (host/THREADS.md)
  // CPU engine, paced: host cores the engine needs to hold the pace, measured (0: not measured).
  double engine_cores_needed = 0.0;
  std::vector<std::string> warnings;  // what an operator should act on, now
  std::string cpus_engine, cpus_plasticity, cpus_other;  // the partitions (cpus.*; "" = not pinned)
  std::string cpus_freed;       // CUDA engine: cpus.engine CPUs no role uses now
  std::string gpu_note;         // which GPU was read, or why none could be (NVML not available)
  std::vector<GpuProcess> gpu_neighbours;  // other processes on that GPU
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LiveKick& x) {
  return f(caf::meta::type_name("flysim.live_kick"), x.neuron_id, x.after_ms);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LiveCommand& x) {
  return f(caf::meta::type_name("flysim.live_command"), x.action, x.engine, x.threads, x.rate_Hz, x.replace_ids,
           x.poisson_ids, x.kicks, x.group, x.replace_silenced, x.silenced_ids, x.silence_mode);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, LiveReply& x) {
  return f(caf::meta::type_name("flysim.live_reply"), x.ok, x.message, x.trial, x.step, x.file);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ServiceStatus& x) {
  return f(caf::meta::type_name("flysim.service_status"), x.state, x.trial, x.step, x.trials, x.simulated_s, x.wall_s,
           x.wall_per_simulated, x.pace, x.lag_ms, x.engine, x.threads, x.host_cpu_s, x.host_cores, x.spikes,
           x.spikes_per_simulated_s, x.shards, x.last_checkpoint, x.stimulus_rate_Hz, x.poisson_neurons, x.lag_p99_ms,
           x.lag_max_ms, x.max_lag_ms, x.window_s, x.cost, x.engine_cores_needed, x.warnings, x.cpus_engine, x.cpus_plasticity,
           x.cpus_other, x.cpus_freed, x.gpu_note, x.gpu_neighbours);
}

}  // namespace flysim
