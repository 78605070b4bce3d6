#pragma once
// Every typed actor interface of flysim (VAST's actors.hpp habit): one line per handler.
#include <caf/all.hpp>

#include "messages/activity.hpp"
#include "messages/control.hpp"
#include "messages/messages.hpp"
#include "messages/screen_work.hpp"

namespace flysim {

// The engine: owns a kernels Engine (CPU pool or CUDA stream) and its state.
using engine_actor = caf::typed_actor<
    // Advance one epoch of the current batch; reply with each trial's spikes, in order.
    caf::replies_to<advance_atom, EpochRequest>::with<std::vector<EpochSpikes>>,
    // Export the complete state of every trial of the batch at the current boundary.
    caf::replies_to<export_atom>::with<std::vector<EngineState>>,
    // Replace the batch (new trials, restore, hot-swap); reply when done.
    caf::replies_to<import_atom, std::vector<EngineState>>::with<import_atom>,
    // Start trials (first, count) at rest at step 0, as importing resting states would,
    // without sending them; reply when done.
    caf::replies_to<rest_atom, int32_t, int32_t>::with<rest_atom>,
    // Set plastic connections' weights before the next epoch; reply when done.
    caf::replies_to<weights_atom, WeightUpdate>::with<weights_atom>,
    // Replace the stimulus (plan, Poisson threshold) before the next epoch.
    caf::replies_to<stimulus_atom, StimulusPlan, uint32_t>::with<stimulus_atom>,
    // Describe the engine ("cpu pool, 2 threads").
    caf::replies_to<describe_atom>::with<std::string>>;

// A plasticity shard: runs STDP on the plastic connections onto its postsynaptic neurons.
using plasticity_shard_actor = caf::typed_actor<
    // Learn from one epoch's spikes (every epoch, in order, from the sim loop).
    caf::reacts_to<learn_atom, EpochSpikes>,
    // End a plasticity period: reply with the weights it changed.
    caf::replies_to<flush_atom, int32_t, int32_t>::with<WeightUpdate>,
    // Report traces and weights for a checkpoint.
    caf::replies_to<export_atom>::with<ShardState>>;

// A shard node (flysim shard): spawns shards for runs in other processes.
using shard_node_actor = caf::typed_actor<
    // Spawn a shard from its setup; the shard ends when the requester goes down.
    caf::replies_to<spawn_atom, ShardSetup>::with<plasticity_shard_actor>,
    // Which flysim the node is (its build version): a run refuses a node of another build.
    caf::replies_to<version_atom>::with<std::string>>;

// A screen worker (flysim worker): opens a session for a coordinator's screen and
// answers the sender with (hello_atom, ScreenWorkerReady); the session ends when the
// sender goes down. The coordinator asks its build version first: that message's shape
// never changes, so a worker of any other build is named, not left waiting on a hello it
// cannot read.
using screen_worker_actor =
    caf::typed_actor<caf::reacts_to<hello_atom, ScreenWorkerSetup>, caf::replies_to<version_atom>::with<std::string>>;

// One engine of a worker's session: runs one experiment and answers the sender with
// (work_atom, ScreenWorkResult).
using screen_slot_actor = caf::typed_actor<caf::reacts_to<work_atom, ScreenWorkItem>>;

// The live page's figures: an activity window's answers. The recorder has
// these handlers; only flysim serve's recorder keeps a window (the others answer an error).
using activity_actor = caf::typed_actor<
    // The raster: the N most active neurons, their counts per bin since a position.
    caf::replies_to<raster_atom, int64_t, uint32_t>::with<RasterReport>,
    // Population and readout rates per bin since a position.
    caf::replies_to<rates_atom, int64_t>::with<RatesReport>,
    // The N top responders over the window.
    caf::replies_to<top_atom, uint32_t>::with<TopReport>>;

// The recorder: writes spikes and rates, counts per neuron.
using recorder_actor = activity_actor::extend<
    // Record one epoch's spikes (they arrive in order from the sim loop).
    caf::reacts_to<record_atom, EpochSpikes>,
    // Where the recorder stands (for a snapshot): spikes per neuron so far.
    caf::replies_to<position_atom>::with<RecorderPosition>,
    // Hand what a streamed spike file holds to the kernel now (a pause, a status).
    caf::reacts_to<flush_atom>,
    // Close the files (commit them under their names); reply with the summary, rates
    // over the given simulated seconds (less than the plan's when the run stopped early).
    caf::replies_to<finish_atom, double>::with<RecorderSummary>,
    // The stimulus changed: these neurons (model indices) are driven now (the page marks them).
    caf::reacts_to<stimulus_atom, std::vector<uint32_t>>>;

// The checkpointer: writes snapshots to files atomically, keeps the newest few.
using checkpointer_actor = caf::typed_actor<
    // Write one snapshot; reply with the file's path once it is safely on disk. The flag:
    // asked for (the control channel), a file the asker was given and never removed;
    // otherwise one of the schedule's, of which the newest checkpoint.keep stay.
    caf::replies_to<checkpoint_atom, Snapshot, bool>::with<std::string>>;

// The sim loop: owns the clock and the run plan.
using sim_loop_actor = caf::typed_actor<
    // Run the whole plan; reply when every trial is done and recorded.
    caf::replies_to<run_atom>::with<RunSummary>,
    // Stop early: finish the epochs in flight, commit what was recorded, then answer
    // run_atom with a summary that says where the run stopped.
    caf::reacts_to<stop_atom>,
    // The service's status (GET /status).
    caf::replies_to<status_atom>::with<ServiceStatus>,
    // A live command: applied at an epoch boundary the schedule picks, journaled first.
    caf::replies_to<command_atom, LiveCommand>::with<LiveReply>,
    // Internal: the pace lets the next epoch go now.
    caf::reacts_to<tick_atom>>;

// What the control actor asks the sim loop: the sim loop's status and command handlers.
using live_actor = caf::typed_actor<
    caf::replies_to<status_atom>::with<ServiceStatus>,
    caf::replies_to<command_atom, LiveCommand>::with<LiveReply>>;

// The control actor: what the HTTP handlers talk to (they never touch the simulation).
// It forwards status and commands to the sim loop, the page's questions to the activity
// window, and answers.
using control_actor = live_actor::extend_with<activity_actor>;

}  // namespace flysim
