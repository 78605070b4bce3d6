#pragma once
// Every message type and atom of flysim, in one place, with its inspect() (CAF 0.17
// style: f(meta::type_name, fields...)). Registered by register_message_types().
#include <caf/all.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "model/snapshot.hpp"
#include "messages/cost.hpp"
#include "messages/inspect_fields.hpp"
#include "model/engine_state.hpp"
#include "model/responder.hpp"
#include "model/shard_setup.hpp"
#include "model/spike.hpp"

namespace flysim {

// ---- atoms (0.17: atom_constant, at most 10 characters)
using advance_atom = caf::atom_constant<caf::atom("advance")>;
using export_atom = caf::atom_constant<caf::atom("export")>;
using import_atom = caf::atom_constant<caf::atom("import")>;
using rest_atom = caf::atom_constant<caf::atom("rest")>;
using describe_atom = caf::atom_constant<caf::atom("describe")>;
using record_atom = caf::atom_constant<caf::atom("record")>;
using finish_atom = caf::atom_constant<caf::atom("finish")>;
using run_atom = caf::atom_constant<caf::atom("run")>;
using position_atom = caf::atom_constant<caf::atom("position")>;
using checkpoint_atom = caf::atom_constant<caf::atom("checkpoint")>;
using learn_atom = caf::atom_constant<caf::atom("learn")>;
using flush_atom = caf::atom_constant<caf::atom("flush")>;
using weights_atom = caf::atom_constant<caf::atom("weights")>;
using spawn_atom = caf::atom_constant<caf::atom("spawn")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;
using stimulus_atom = caf::atom_constant<caf::atom("stimulus")>;
using version_atom = caf::atom_constant<caf::atom("version")>;

// ---- sim_loop -> engine: advance the current batch (its first trial: `trial`) through
// [first, first + steps): one delay cell, or several in a paced run without plasticity
// (Engine::advance_cells)
struct EpochRequest {
  int32_t trial = 0;
  int32_t first = 0;
  int32_t steps = 0;
};

// ---- engine -> sim_loop -> recorder: the spikes of one epoch, sorted (step, neuron)
struct EpochSpikes {
  int32_t trial = 0;
  int32_t first = 0;
  int32_t steps = 0;
  std::vector<Spike> spikes;
};

// ---- plasticity shard -> sim_loop -> engine: the weights one plasticity period
// changed (each shard's ascending by plastic index), and the period: trial and first step
struct WeightUpdate {
  int32_t trial = 0;
  int32_t first = 0;
  std::vector<WeightChange> changes;
};

// ---- recorder -> sim_loop: what was written
struct RecorderSummary {
  uint64_t spikes = 0;
  uint32_t active_neurons = 0;   // neurons with at least one spike
  std::vector<Responder> top;    // highest rates first
  std::vector<Responder> readouts;  // the readout neurons (output.readouts) the network has
};

// One plasticity period's update as the engine applied it: the period (its trial and
// first step), the position whose epoch first saw the new weights, how many changed.
struct AppliedWeights {
  int32_t trial = 0, first = 0;
  int32_t at_trial = 0, at_step = 0;
  uint64_t changes = 0;
};
// RunSummary::applied and RunSummary::swaps list at most this many, the first (a service
// learns and swaps without end; model/first_listed.hpp).
constexpr std::size_t kAppliedWeightsListed = 1000;
constexpr std::size_t kSwapsListed = 1000;

// ---- sim_loop -> caller: the whole run
struct RunSummary {
  RecorderSummary recorded;
  std::string engine;            // the engine's describe()
  int32_t trials = 0;
  double simulated_s = 0.0;      // per trial
  double simulated_this_run_s = 0.0;  // all trials, less what a restored checkpoint had done
  double wall_s = 0.0;
  double paused_s = 0.0;         // of wall_s, paused by a pause command
  double cpu_s = 0.0;            // process CPU time (getrusage) during the run
  double peak_memory_MiB = 0.0;  // peak resident set of the process (getrusage)
  std::vector<std::string> checkpoints;  // the newest checkpoint.keep files written (on disk), oldest first
  uint64_t checkpoints_written = 0;      // all of them
  uint64_t checkpoints_failed = 0;       // those that could not be written
  std::vector<std::string> swaps;        // "trial 0 step 5000: swapped to cuda ...", the first kSwapsListed
  uint64_t swaps_done = 0;               // all of them (fallbacks included)
  uint64_t stimulus_changes = 0;         // live stimulus commands applied
  std::string last_stimulus;             // the last one's description: the stimulus at the end
  uint32_t plasticity_shards = 0;        // 0: plasticity off
  uint64_t weight_changes = 0;           // weight changes the engine applied
  uint64_t weight_updates = 0;           // periods' updates the engine applied
  std::vector<AppliedWeights> applied;   // the first kAppliedWeightsListed of them, in order
  std::vector<int32_t> final_weights;    // per plastic index, when asked for
  bool stopped_early = false;            // a stop request (Ctrl-C, SIGTERM) ended it
  int32_t stopped_trial = 0, stopped_step = 0;  // where, when stopped_early
  LagFigures lag;                        // paced runs: behind the pace, over the whole run
  double max_lag_ms = 0.0;               // run.max-lag-ms
  CostReport cost;                       // host cores per role over the whole run
};

// The types of model/ carry one field list (fields()), shared with the checkpoint
// format: a field added there travels in messages and checkpoints alike (inspect_fields).

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, Spike& x) {
  return inspect_fields(f, "flysim.spike", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, EngineState& x) {
  return inspect_fields(f, "flysim.engine_state", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, WeightChange& x) {
  return f(caf::meta::type_name("flysim.weight_change"), x.plastic, x.weight);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, WeightUpdate& x) {
  return f(caf::meta::type_name("flysim.weight_update"), x.trial, x.first, x.changes);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, Traces& x) {
  return inspect_fields(f, "flysim.traces", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, StdpRule& x) {
  return f(caf::meta::type_name("flysim.stdp_rule"), x.a_plus, x.a_minus, x.w_min, x.w_max, x.pre_decay, x.post_decay);
}
// The sign column travels as int8_t: CAF 0.17 loads a std::vector<uint8_t> (a "byte
// sequence", data_processor.hpp apply_sequence) by resizing it to the length the input
// claims before reading a byte, so a corrupt or hostile length field asks for up to 2^64
// bytes. Other vectors are loaded element by element and stop where the input ends.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ShardConnections& x) {
  std::vector<int8_t> inhibitory;
  if constexpr (Inspector::reads_state) inhibitory.assign(x.inhibitory.begin(), x.inhibitory.end());
  return f(caf::meta::type_name("flysim.shard_connections"), x.plastic, x.pre, x.post, x.weight, inhibitory,
           caf::meta::load_callback([&]() -> caf::error {
             x.inhibitory.assign(inhibitory.begin(), inhibitory.end());
             return caf::none;
           }));
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ShardSetup& x) {
  return f(caf::meta::type_name("flysim.shard_setup"), x.shard, x.shards, x.neurons, x.rule, x.connections, x.trial, x.pre,
           x.post);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, ShardState& x) {
  return f(caf::meta::type_name("flysim.shard_state"), x.trial, x.pre, x.post, x.weights);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, PlasticityState& x) {
  return inspect_fields(f, "flysim.plasticity_state", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, EpochRequest& x) {
  return f(caf::meta::type_name("flysim.epoch_request"), x.trial, x.first, x.steps);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, EpochSpikes& x) {
  return f(caf::meta::type_name("flysim.epoch_spikes"), x.trial, x.first, x.steps, x.spikes);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, Responder& x) {
  return f(caf::meta::type_name("flysim.responder"), x.root_id, x.index, x.spikes, x.rate_Hz);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, RecorderSummary& x) {
  return f(caf::meta::type_name("flysim.recorder_summary"), x.spikes, x.active_neurons, x.top, x.readouts);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, AppliedWeights& x) {
  return f(caf::meta::type_name("flysim.applied_weights"), x.trial, x.first, x.at_trial, x.at_step, x.changes);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, RunSummary& x) {
  return f(caf::meta::type_name("flysim.run_summary"), x.recorded, x.engine, x.trials, x.simulated_s, x.simulated_this_run_s, x.wall_s,
           x.paused_s, x.cpu_s, x.peak_memory_MiB, x.checkpoints, x.checkpoints_written, x.checkpoints_failed, x.swaps, x.swaps_done, x.stimulus_changes, x.last_stimulus, x.plasticity_shards, x.weight_changes, x.weight_updates,
           x.applied, x.final_weights,
           x.stopped_early, x.stopped_trial, x.stopped_step, x.lag, x.max_lag_ms, x.cost);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, Kick& x) {
  return inspect_fields(f, "flysim.kick", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, PoissonGroup& x) {
  return inspect_fields(f, "flysim.poisson_group", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, StimulusPlan& x) {
  return inspect_fields(f, "flysim.stimulus_plan", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, TrialPlan& x) {
  return inspect_fields(f, "flysim.trial_plan", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, RecorderPosition& x) {
  return inspect_fields(f, "flysim.recorder_position", x);
}
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, Snapshot& x) {
  return inspect_fields(f, "flysim.snapshot", x);
}

// Registers every type above with the actor system (0.17 needs this explicitly for
// anything that crosses a process boundary; local use works either way).
void register_message_types(caf::actor_system_config& cfg);

// The text of an error made by fail() below, or CAF's rendering of any other error.
std::string describe_error(const caf::error& err);

// An error carrying a human-readable message (an exception's what()).
caf::error fail(const std::string& message);

// The engine (a GPU) failed and its state is lost: the sim loop falls back to the CPU.
caf::error engine_failed(const std::string& message);
bool is_engine_failure(const caf::error& err);

}  // namespace flysim
