#include "apps/flysim/run/run_builder.hpp"

#include <spdlog/spdlog.h>

#include <system_error>

#include "apps/flysim/options/batch_option.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/process/stop_signal.hpp"

namespace flysim::app {

RunBuilder::RunBuilder(const Options& o)
    : o_(o), engine_(engine_choice(o)), params_(model_params(o)), constants_(derive_constants(params_)) {}

TrialShape RunBuilder::trial_shape(Forever forever) const { return app::trial_shape(o_, params_.dt_ms, forever); }

std::shared_ptr<const Network> RunBuilder::load_network() const {
  auto net = obtain_network(network_source(o_), [](const std::string& line) {
    throw_if_stopped("loading the network");
    spdlog::info("{}", line);
  });
  throw_if_stopped("loading the network");
  return net;
}

StimulusPlan RunBuilder::stimulus(const Network& net) const { return stimulus_plan(o_, net); }

TrialBatches RunBuilder::trial_batches(const TrialShape& shape, std::size_t neurons) const {
  TrialBatches plan;
  plan.trials = shape.trials;
  plan.steps_per_trial = shape.steps_per_trial;
  plan.delay_steps = constants_.delay_steps;
  plan.neurons = neurons;
  plan.batch = batch_option(o_, plan.trials, engine_.where(), plan.neurons, plan.delay_steps, "", false);
  return plan;
}

EngineBuilder RunBuilder::engines(std::shared_ptr<const Network> net, int32_t batch,
                                  std::shared_ptr<const std::vector<uint64_t>> plastic_edges, HostWait wait) const {
  return EngineBuilder(EngineSetup{std::move(net), nullptr, constants_, std::move(plastic_edges), wait, engine_.device, batch},
                       engine_.threads, params_.dt_ms);
}

}  // namespace flysim::app
