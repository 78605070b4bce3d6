#pragma once
// What the commands that run many trials in one process share (flysim sweep, flysim
// screen): run's options that decide what a trial computes, their checks, the trial
// plan and the one engine that runs every trial.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"
#include "kernels/engine.hpp"
#include "kernels/engine_factory.hpp"
#include "kernels/trial_batches.hpp"
#include "model/lif_params.hpp"

namespace flysim::app {

// run's network.*, stimulus.*, model.*, run.duration-ms, run.trials (default 30),
// run.batch, run.seed, engine.kind/cuda-device/threads; then `own`; log.* last.
std::vector<OptionSpec> trial_run_options(const std::vector<OptionSpec>& own);

struct TrialRunSetup {
  LifParams params;
  LifConstants constants;
  double duration_ms = 0;
  int32_t trials = 1;
  unsigned threads = 1;
  EngineKind kind{};
  int device = 0;
};

// The checked options of trial_run_options: each bad one an input_error naming it.
TrialRunSetup trial_run_setup(const Options& o);

// Simulated seconds per trial (whole steps).
double trial_seconds(const TrialRunSetup& setup);

// The trial plan on a network of `neurons` neurons, its batch from run.batch.
TrialBatches trial_batches(const Options& o, const TrialRunSetup& setup, std::size_t neurons);

// The one engine of the command, holding plan.batch trials, its default group at `poisson_threshold`.
std::unique_ptr<Engine> make_trial_engine(const TrialRunSetup& setup, const TrialBatches& plan,
                                          std::shared_ptr<const Network> net, std::shared_ptr<const StimulusPlan> stimulus,
                                          uint32_t poisson_threshold);

// Creates the folder of option `dir_key`, then loads the network (network.*), logging
// progress; a stop signal while it loads ends the command.
std::shared_ptr<const Network> load_network_into(const Options& o, const std::string& dir_key);

// The network index of each root ID of option `key`; an ID the network lacks is refused by name.
std::vector<uint32_t> readout_indices(const Options& o, const std::string& key, const Network& net,
                                      const std::vector<int64_t>& ids);

}  // namespace flysim::app
