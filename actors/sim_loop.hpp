#pragma once
// The sim loop: owns the clock and the run plan. It talks to the engine once per epoch
// and keeps a few epochs in flight, so the engine never waits for a round trip (the
// engine's mailbox keeps them in order). Spikes go on to the recorder as they arrive.
// At delay-cell boundaries it takes snapshots for checkpoints and hot-swaps
// (actors/README.md).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "actors/engine_actor.hpp"
#include "actors/schedule.hpp"
#include "actors/sim_loop/checkpoint_files.hpp"
#include "actors/sim_loop/fallback_tracker.hpp"
#include "actors/sim_loop/in_flight_window.hpp"
#include "actors/sim_loop/live_replies.hpp"
#include "actors/sim_loop/realtime_monitor.hpp"
#include "actors/sim_loop/weight_pipeline.hpp"
#include "model/snapshot.hpp"
#include "kernels/engine_factory.hpp"
#include "messages/interfaces.hpp"
#include "host/cost_sampler.hpp"
#include "model/first_listed.hpp"
#include "host/gpu_processes.hpp"
#include "io/journal.hpp"
#include "host/thread_placement.hpp"

namespace flysim {

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
  // Trials the engine advances together (run.batch; the engine holds this many): the
  // run goes batch by batch, each epoch request advancing every trial of a batch.
  int32_t batch = 1;
  int32_t delay_steps = 18;
  double dt_ms = 0.1;
  std::size_t neurons = 0;
  // Where the run starts: (0, 0) from rest, else a restored snapshot's position (the
  // engine already holds that state).
  RunPosition start;
  // Checkpoints, at delay-cell (or plasticity-period) boundaries, in order.
  std::vector<RunPosition> checkpoints;
  // Commands fixed in advance: scripted swaps (run.swap-at), a replayed journal.
  std::vector<PlacedCommand> commands;
  // Simulated seconds per wall second; 0: as fast as possible (run.pace).
  double pace = 0.0;
  // Simulated ms a paced run issues at once, and twice that it may run ahead of the wall
  // clock (run.pace-batch-ms, Schedule::kDefaultPaceBatchMs).
  double pace_batch_ms = Schedule::kDefaultPaceBatchMs;
  std::string pace_text = "off";
  TrialPlan trial_plan;  // stored in every checkpoint; live stimulus changes update it
  // The first engine's describe() and CPU pool threads (0 on CUDA), for the status.
  std::string first_engine;
  unsigned first_engine_threads = 0;
  // The network, read only: live stimulus commands name neurons by root ID.
  std::shared_ptr<const Network> network;
  // Builds the engine a swap (or a fallback) asks for, with `threads` for a CPU pool (0:
  // engine.threads) and the stimulus as it is now (trial_plan.stimulus at
  // trial_plan.stimulus_rate_Hz); throws input_error when it cannot.
  std::function<std::shared_ptr<Engine>(EngineKind, unsigned threads, const TrialPlan& now)> make_engine;
  // Where the engines of swaps and fallbacks run: their own threads in a run, CAF's
  // scheduler in the deterministic actor tests (actors/README.md).
  EngineThread engine_thread = EngineThread::own;
  // A failing engine (CUDA) is replaced by the CPU pool from an in-memory snapshot taken
  // this often (steps; 0: never) and after every command (engine.fallback-every-ms).
  int64_t fallback_every_steps = 0;
  // The first engine may fail (CUDA, or a fault-injecting engine in tests).
  bool first_engine_may_fail = false;
  // Live commands are journaled here before they take effect (null: no journal).
  std::shared_ptr<JournalWriter> journal;
  // The CPU pool's threads when a swap does not say (engine.threads).
  unsigned default_threads = 1;
  // Checkpoints fall on multiples of this many steps: a delay cell, or with plasticity a
  // plasticity period (where the learned state restores with any shard count).
  int32_t checkpoint_granularity = 18;
  // The newest checkpoint files the sim loop remembers for the status and the summary:
  // those still on disk (checkpoint.keep). A service writes them without end.
  std::size_t checkpoints_listed = 3;
  // Progress is logged at most this often (wall time).
  std::chrono::milliseconds progress_every{1000};
  // Epoch requests in flight at once.
  int32_t window = 4;
  PlasticityPlan plasticity;
  // Real-time operation (host/THREADS.md): the window of the status's rates, lag
  // figures and cost (status.window-s); a lag above max_lag_ms is logged (run.max-lag-ms).
  double status_window_s = 10.0;
  double max_lag_ms = 100.0;
  // Host cores per role (null: not measured); the CPU partition (cpus.*); NVML for the
  // processes on the GPU (null: not read).
  std::shared_ptr<CostSampler> cost;
  CpuPartition cpus;
  std::shared_ptr<const NvmlReader> gpu;
  // The kind of the first engine.
  EngineKind first_engine_kind = EngineKind::cpu;
};

// The schedule's view of a plan.
ScheduleGeometry geometry_of(const RunPlan& plan);

// The engine the loop talks to now, as the status and the summary describe it.
struct EngineInUse {
  engine_actor actor;
  std::string description;
  unsigned threads = 0;  // of the CPU pool; 0 on CUDA
  EngineKind kind = EngineKind::cpu;
};

// The actor's state: the plan, its collaborators, and the parts under actors/sim_loop/
// that own the loop's bookkeeping (actors/sim_loop/README.md).
struct sim_loop_state {
  RunPlan plan;
  std::optional<Schedule> schedule;
  EngineInUse engine;
  recorder_actor recorder;
  checkpointer_actor checkpointer;
  caf::typed_response_promise<RunSummary> promise;
  InFlightWindow window;
  FallbackTracker fallback;
  WeightPipeline weights;
  LiveReplies<caf::typed_response_promise<LiveReply>> live;
  std::optional<RealtimeMonitor> realtime;
  CheckpointFiles checkpoints;
  FirstListed<std::string> swap_log{kSwapsListed};  // RunSummary::swaps, swaps_done
  uint64_t stimulus_changes = 0;  // live stimulus commands applied
  std::string last_stimulus;      // the last one's description
  bool tick_armed = false;  // a wake-up for the pace is on its way
  bool finishing = false;
  uint64_t spikes = 0;
  std::chrono::steady_clock::time_point started, last_progress;
  double cpu_at_start = 0.0;
  static inline const char* name = "sim_loop";
};

// Spawn it with spawn_sim_loop.
sim_loop_actor::behavior_type sim_loop_behavior(sim_loop_actor::stateful_pointer<sim_loop_state> self, RunPlan plan,
                                                engine_actor engine, recorder_actor recorder,
                                                checkpointer_actor checkpointer);
// Where the sim loop runs. `own`: a thread of its own (fs-simloop), so that its cost and
// CPUs are its own role's. `pool`: CAF's scheduler (fs-caf-N), for a run whose shards
// live on other nodes: CAF 0.17's ~actor_system waits, without limit, for a detached
// actor's object to be destroyed, and a local actor that has sent to a remote node is
// kept alive by the network layer (docs/CAF-0.17.md, "Shutdown hangs"); and for the
// deterministic actor tests, whose test scheduler runs only scheduled actors.
enum class SimLoopThread { own, pool };
sim_loop_actor spawn_sim_loop(caf::actor_system& system, RunPlan plan, engine_actor engine, recorder_actor recorder,
                              checkpointer_actor checkpointer, SimLoopThread thread);

}  // namespace flysim
