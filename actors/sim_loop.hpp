#pragma once
// The sim loop: owns the clock and the run plan. It talks to the engine once per epoch
// and keeps a few epochs in flight, so the engine never waits for a round trip (the
// engine's mailbox keeps them in order). Spikes go on to the recorder as they arrive.
// At delay-cell boundaries it takes snapshots for checkpoints and hot-swaps
// (actors/README.md).
#include <chrono>
#include <deque>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "checkpoint/snapshot.hpp"
#include "kernels/engine_factory.hpp"
#include "messages/interfaces.hpp"

namespace flysim {

// A place in a run: trial and step within it. Ordered as the run goes.
struct RunPosition {
  int32_t trial = 0;
  int32_t step = 0;
  friend auto operator<=>(const RunPosition&, const RunPosition&) = default;
};

struct SwapPoint {
  RunPosition at;
  EngineKind kind = EngineKind::cpu;
};

// Plasticity (kernels/stdp/README.md): shards observe every epoch; the weights one
// period changed are applied by the engine at the start of the period after next (or at
// the end of the trial, whichever comes first), never when a reply happens to arrive.
struct PlasticityPlan {
  std::vector<plasticity_shard_actor> shards;  // empty: plasticity off
  std::vector<std::string> places;             // per shard: "local" or "host:port"
  int32_t period_steps = 0;
  std::size_t plastic_count = 0;
  std::string settings;                        // describe_plasticity()
  // A restored run: the weights learned before the checkpoint but not yet applied.
  std::vector<WeightChange> restored_pending;
  bool want_final_weights = false;             // RunSummary::final_weights
};

struct RunPlan {
  int32_t trials = 1;
  int32_t steps_per_trial = 0;
  int32_t delay_steps = 18;
  double dt_ms = 0.1;
  std::size_t neurons = 0;
  double v0 = -52.0;
  // Where the run starts: (0, 0) from rest, else a restored snapshot's position (the
  // engine already holds that state).
  RunPosition start;
  // Snapshots for checkpoints and engine swaps, at delay-cell boundaries, in order.
  std::vector<RunPosition> checkpoints;
  std::vector<SwapPoint> swaps;
  PlanRecord record;  // stored in every checkpoint
  // Builds the engine a swap asks for (throws input_error when it cannot).
  std::function<std::shared_ptr<Engine>(EngineKind)> make_engine;
  // Progress is logged at most this often (wall time).
  std::chrono::milliseconds progress_every{1000};
  // Epoch requests in flight at once.
  int32_t window = 4;
  PlasticityPlan plasticity;
};

// Where the weights of the plasticity period ending at `end` (a step of `trial`) are
// applied: one period later, or at the start of the next trial when that is sooner.
RunPosition weights_apply_position(int32_t trial, int32_t end, const RunPlan& plan);

// Converts simulated time since the start of the run (all trials in a row) to the
// first boundary (a multiple of `granularity` steps, a delay cell or a plasticity
// period) at or after it, never step 0 of a trial.
RunPosition position_at_ms(double ms, const RunPlan& plan, int32_t granularity);

// The weights one plasticity period changed, on their way to the engine.
struct PendingWeights {
  RunPosition apply_at;
  std::size_t awaiting = 0;  // shards yet to answer
  WeightUpdate update;
};

struct sim_loop_state {
  RunPlan plan;
  engine_actor engine;
  recorder_actor recorder;
  checkpointer_actor checkpointer;
  caf::typed_response_promise<RunSummary> promise;
  RunPosition issued;             // next epoch to request
  bool trial_started = false;     // the resting state of issued.trial was imported
  RunPosition done;               // end of the last epoch answered
  std::size_t next_checkpoint = 0, next_swap = 0;
  bool swapping = false;          // no requests while the engine is being replaced
  int32_t in_flight = 0, writing = 0;
  uint64_t spikes = 0;
  std::vector<std::string> checkpoint_files, swap_log;
  std::deque<PendingWeights> weights;   // in the order they apply
  uint64_t weight_changes = 0;
  bool finishing = false;
  bool stop_requested = false;    // stop_atom: no new epochs; finish what is in flight
  std::chrono::steady_clock::time_point started, last_progress;
  double cpu_at_start = 0.0;
  static inline const char* name = "sim_loop";
};

sim_loop_actor::behavior_type sim_loop_behavior(sim_loop_actor::stateful_pointer<sim_loop_state> self, RunPlan plan,
                                                engine_actor engine, recorder_actor recorder,
                                                checkpointer_actor checkpointer);

// Process CPU time (user + system) in seconds, from getrusage.
double process_cpu_seconds();
// Peak resident memory of the process in MiB, from getrusage.
double peak_memory_MiB();

}  // namespace flysim
