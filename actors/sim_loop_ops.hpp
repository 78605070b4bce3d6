#pragma once
// The sim loop's operations (not time steps): thin glue between the actor's messages and
// the parts in actors/sim_loop/, shared by the files that implement it. Internal to
// actors/: nothing else includes it.
#include <functional>

#include "actors/sim_loop.hpp"
#include "actors/stimulus_command.hpp"

namespace flysim::sim_loop_ops {

using self_ptr = sim_loop_actor::stateful_pointer<sim_loop_state>;

// ---- sim_loop.cpp: the clock, epochs, swaps
// Answers the caller with `err`, stops the shards, ends the sim loop.
void abort_run(self_ptr self, const caf::error& err);
// A request's error handler: abort_run with the error.
std::function<void(caf::error&)> on_error(self_ptr self);
// Sends requests until the window is full, a swap is under way, or the plan is done.
void issue(self_ptr self);
// Finishes the run when everything is answered, written and applied.
void finish_if_done(self_ptr self);
// A hot-swap at the issued position to an engine of `kind` (`threads` for a CPU pool, 0:
// the default); answers live command `live_id` (0: scripted) when done or refused.
void request_swap(self_ptr self, EngineKind kind, unsigned threads, uint64_t live_id);
// Seconds since the run started.
double elapsed_s(const sim_loop_state& st);

// ---- sim_loop_plasticity.cpp
// Tells every shard to exit (the run is over, or failed).
void stop_shards(self_ptr self);
// The end of a plasticity period at step `end` of `trial`: asks every shard to flush.
void request_period_weights(self_ptr self, int32_t trial, int32_t end);
// Sends the engine every update due at the issued position; false while one is still
// awaited.
bool apply_due_weights(self_ptr self);
// The summary's updates applied and where (RunSummary::weight_updates, applied).
void add_plasticity_summary(self_ptr self, RunSummary& summary);
// Monitors the shards (a down message stops the run) and queues a restored run's
// unapplied weights.
void watch_shards(self_ptr self);

// ---- sim_loop_fallback.cpp
// Before an epoch: an in-memory snapshot of a failable engine when one is due.
void take_fallback_if_due(self_ptr self);
// The engine failed: a CPU pool recomputes from the last snapshot.
void fall_back(self_ptr self, const caf::error& err);
// The error handler of a request to the engine of `generation`: a failure falls back,
// any other error ends the run, and errors of an engine already replaced are dropped.
std::function<void(caf::error&)> on_engine_error(self_ptr self, uint64_t generation);

// ---- sim_loop_checkpoint.cpp
// A checkpoint of the state at the issued position, written by the checkpointer; answers
// live command `live_id` (0: none to answer) with the file once it is on disk. `asked_for`:
// a checkpoint command's (live or replayed), never removed by checkpoint.keep.
void request_checkpoint(self_ptr self, uint64_t live_id, bool asked_for);

// ---- sim_loop_live.cpp
// A live command (or a stop signal) for the schedule to place; wakes the loop.
void receive_live(self_ptr self, LiveCommand command, uint64_t id);
// Applies a command at the issued position: journaled first when it is live (id != 0).
void apply_command(self_ptr self, const LiveCommand& command, uint64_t live_id);
// Answers live command `id`, if anyone waits for it.
void answer_live(self_ptr self, uint64_t id, LiveReply reply);
// What GET /status reports, now.
ServiceStatus service_status(self_ptr self);
// A stimulus command: the new plan goes to the engine before the next epoch.
// Applies `change`, the plan `command` makes (stimulus_change, checked by the caller).
void apply_stimulus(self_ptr self, const StimulusCommand& command, StimulusChange change, uint64_t live_id);

// ---- sim_loop_realtime.cpp
// Sets up the lag figures, their watch and the status samples (at spawn).
void start_realtime(self_ptr self);
// After an epoch of a paced run: records the lag, logs when it passes run.max-lag-ms.
void record_lag(self_ptr self);
// Records a status sample (at most twice a second) for the windowed rates, and at most
// once a status window logs the engine's warnings when their kinds change.
void sample_status(self_ptr self);
// The status's lag p99/max, cost, warnings, CPU partitions and GPU neighbours.
void add_realtime_status(self_ptr self, ServiceStatus& s);
// The summary's lag over the whole run and cost per role.
void add_realtime_summary(self_ptr self, RunSummary& summary);

}  // namespace flysim::sim_loop_ops
