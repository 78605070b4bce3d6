#pragma once
// One experiment of a screen on the engine: its trials batch by batch, counted per
// neuron and trial, and (when asked) its spikes as lines of spikes.csv.
#include <functional>
#include <string>

#include "kernels/trial_batches.hpp"
#include "io/screen_results.hpp"

namespace flysim::app {

// Runs `plan`'s trials on `engine` (its stimulus already set). `spike_lines`, when not
// null, receives "t,trial,flywire_id,exp_name" lines (t in s, printed exactly) in trial,
// step, neuron index order: the order of flysim run's spike file.
ExperimentCounts run_screen_experiment(Engine& engine, const TrialBatches& plan, const Network& net, const std::string& name,
                                       double dt_ms, std::string* spike_lines, const std::function<void(int32_t)>& trials_done);

// The same after setting `engine`'s stimulus to `plan`, its default group at `rate_Hz`
// (a plan the engine refuses throws its error).
ExperimentCounts run_screen_experiment(Engine& engine, StimulusPlan plan, double rate_Hz, const TrialBatches& batches,
                                       const Network& net, const std::string& name, double dt_ms, std::string* spike_lines,
                                       const std::function<void(int32_t)>& trials_done);

}  // namespace flysim::app
