#pragma once
// The sim loop: owns the clock and the run plan. It talks to the engine once per epoch
// and keeps a few epochs in flight, so the engine never waits for a round trip; the
// engine's mailbox keeps them in order. Spikes go on to the recorder as they arrive.
#include <chrono>
#include <cstdint>

#include "messages/interfaces.hpp"

namespace flysim {

struct RunPlan {
  int32_t trials = 1;
  int32_t steps_per_trial = 0;
  int32_t delay_steps = 18;
  double dt_ms = 0.1;
  std::size_t neurons = 0;
  double v0 = -52.0;
  // Progress is logged at most this often (wall time).
  std::chrono::milliseconds progress_every{1000};
  // Epoch requests in flight at once.
  int32_t window = 4;
};

struct sim_loop_state {
  RunPlan plan;
  engine_actor engine;
  recorder_actor recorder;
  caf::typed_response_promise<RunSummary> promise;
  int32_t issue_trial = 0, issue_step = 0;   // next request to send
  int32_t done_trial = 0, done_step = 0;     // last answer received
  int32_t in_flight = 0;
  uint64_t spikes = 0;
  std::chrono::steady_clock::time_point started, last_progress;
  double cpu_at_start = 0.0;
  static inline const char* name = "sim_loop";
};

sim_loop_actor::behavior_type sim_loop_behavior(sim_loop_actor::stateful_pointer<sim_loop_state> self, RunPlan plan,
                                                engine_actor engine, recorder_actor recorder);

// Process CPU time (user + system) in seconds, from getrusage.
double process_cpu_seconds();
// Peak resident memory of the process in MiB, from getrusage.
double peak_memory_MiB();

}  // namespace flysim
