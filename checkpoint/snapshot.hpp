#pragma once
// Everything a run needs to continue from an epoch boundary: what a checkpoint file
// holds and what a hot-swap hands from one engine to the next. Plain data; the file
// format is checkpoint/checkpoint_file.hpp (the only place that includes Cereal).
#include <cstdint>
#include <string>
#include <vector>

#include "model/engine_state.hpp"
#include "model/plasticity.hpp"
#include "model/stimulus.hpp"

namespace flysim {

// The run plan as it was when the run started (a restored run continues this plan).
struct PlanRecord {
  int32_t trials = 1;
  int32_t steps_per_trial = 0;
  double stimulus_rate_Hz = 0.0;
  StimulusPlan stimulus;  // Poisson neurons, kicks, seed
  friend bool operator==(const PlanRecord&, const PlanRecord&) = default;
};

// Where the recorder stood: spikes per neuron over all trials so far.
struct RecorderPosition {
  uint64_t spikes = 0;
  std::vector<uint64_t> counts;
  friend bool operator==(const RecorderPosition&, const RecorderPosition&) = default;
};

struct Snapshot {
  EngineState engine;  // trial, next step, v, g, last spike, the delay ring's spikes
  PlanRecord plan;
  RecorderPosition recorder;
  // What the plasticity observers learned (weights, traces); settings empty when off.
  PlasticityState plasticity;
};

// The header fields of a checkpoint, readable without the payload.
struct CheckpointHeader {
  uint32_t format_version = 0;
  std::string compatibility;
  std::string kernel_version;
  uint64_t network_hash = 0;
  uint64_t payload_bytes = 0;
  uint64_t payload_checksum = 0;
};

}  // namespace flysim
