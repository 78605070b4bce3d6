#pragma once
// Everything a run needs to continue from an epoch boundary: what a checkpoint file
// holds and what a hot-swap hands from one engine to the next. Plain data, shared by
// messages/ (CAF) and checkpoint/ (the file format, the only place that includes Cereal).
#include <cstdint>
#include <string>
#include <vector>

#include "model/engine_state.hpp"
#include "model/lif_params.hpp"
#include "model/plasticity.hpp"
#include "model/stimulus.hpp"

namespace flysim {

// The most trials a plan may hold (run.trials, and a checkpoint's plan).
inline constexpr int32_t kMaxTrials = 1000000;

// What a run simulates: its trials, their length and their stimulus. Every checkpoint
// holds it (a restored run continues it) and live stimulus changes update it; the rest
// of a run's plan (actors/sim_loop.hpp RunPlan) says how the run is carried out.
struct TrialPlan {
  int32_t trials = 1;
  int32_t steps_per_trial = 0;
  double stimulus_rate_Hz = 0.0;
  StimulusPlan stimulus;  // Poisson neurons, kicks, seed
  friend bool operator==(const TrialPlan&, const TrialPlan&) = default;
};

// One endless trial (run.duration-ms=forever): the longest trial there is, run until stopped.
inline bool endless(const TrialPlan& p) { return p.steps_per_trial == kMaxRunSteps; }

template <class F>
decltype(auto) fields(TrialPlan& x, F&& f) {
  return f(x.trials, x.steps_per_trial, x.stimulus_rate_Hz, x.stimulus);
}

// Where the recorder stood: spikes per neuron over all trials so far.
struct RecorderPosition {
  uint64_t spikes = 0;
  std::vector<uint64_t> counts;
  friend bool operator==(const RecorderPosition&, const RecorderPosition&) = default;
};

template <class F>
decltype(auto) fields(RecorderPosition& x, F&& f) {
  return f(x.spikes, x.counts);
}

struct Snapshot {
  // The first trial of the batch: trial, next step, v, g, last spike, the delay ring's spikes.
  EngineState engine;
  TrialPlan plan;
  RecorderPosition recorder;
  // What the plasticity observers learned (weights, traces); settings empty when off.
  PlasticityState plasticity;
  // run.batch of the run: trials run in batches [k*batch, (k+1)*batch), and a restored
  // run goes on in the same batches.
  int32_t batch = 1;
  // The batch's other trials, in order, at the same step (empty for a batch of one).
  std::vector<EngineState> later_trials;
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

template <class F>
decltype(auto) fields(Snapshot& x, F&& f) {
  return f(x.engine, x.plan, x.recorder, x.plasticity, x.batch, x.later_trials);
}

// Every trial of the snapshot's batch, in order (what an engine imports).
std::vector<EngineState> batch_states(const Snapshot& s);
// Sets the snapshot's batch from an engine's export (one state at least).
void set_batch_states(Snapshot& s, std::vector<EngineState> states);

}  // namespace flysim
