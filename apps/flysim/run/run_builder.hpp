#pragma once
// The one way a run is built from its options, for flysim run, serve, sweep and screen
// (README.md): where the engine runs, the model, the trials, the network, the stimulus,
// the batches and the engines. Each option is read and checked once, here or in a
// function this calls; ActorRunBuilder adds what run and serve need on top.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"
#include "apps/flysim/run/engine_builder.hpp"
#include "apps/flysim/run/trial_options.hpp"
#include "kernels/trial_batches.hpp"
#include "model/lif_params.hpp"
#include "model/network.hpp"
#include "model/stimulus.hpp"

namespace flysim::app {

class RunBuilder {
 public:
  // Checks engine.* and the model (model.*, stimulus.rate); input_error names the option.
  explicit RunBuilder(const Options& o);

  const Options& options() const { return o_; }
  const EngineChoice& engine() const { return engine_; }
  const LifParams& params() const { return params_; }
  const LifConstants& constants() const { return constants_; }

  // run.trials, run.duration-ms and run.seed, checked (trial_options.hpp).
  TrialShape trial_shape(Forever forever) const;
  // The network of network.* through the cache, each stage logged; a stop signal ends the loading.
  std::shared_ptr<const Network> load_network() const;
  // The stimulus of stimulus.* and run.seed on `net`.
  StimulusPlan stimulus(const Network& net) const;
  // Trials of `shape` batch by batch (run.batch, 'auto' as many as fit) on `neurons` neurons.
  TrialBatches trial_batches(const TrialShape& shape, std::size_t neurons) const;
  // Engines of engine.kind's place over `net`, each holding `batch` trials.
  EngineBuilder engines(std::shared_ptr<const Network> net, int32_t batch,
                        std::shared_ptr<const std::vector<uint64_t>> plastic_edges = nullptr,
                        HostWait wait = HostWait::poll) const;

 private:
  const Options& o_;
  EngineChoice engine_;
  LifParams params_;
  LifConstants constants_;
};

}  // namespace flysim::app
