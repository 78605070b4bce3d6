#include "stimulus_support.hpp"

#include <algorithm>

#include "model/lif_params.hpp"

namespace flysim::test {

StimulusChange stimulus_change(const EngineSetup& before, int32_t at, double rate_Hz) {
  const StimulusPlan& old = *before.stimulus;
  const auto n = static_cast<uint32_t>(before.network->neuron_count());
  auto plan = std::make_shared<StimulusPlan>(old);
  plan->poisson_neurons.clear();
  for (std::size_t k = 0; k < old.poisson_neurons.size(); k += 2) plan->poisson_neurons.push_back(old.poisson_neurons[k]);
  for (uint32_t i = n, added = 0; i-- > 0 && added < 10;) {
    if (std::find(old.poisson_neurons.begin(), old.poisson_neurons.end(), i) != old.poisson_neurons.end()) continue;
    plan->poisson_neurons.push_back(i);
    ++added;
  }
  std::sort(plan->poisson_neurons.begin(), plan->poisson_neurons.end());
  for (int32_t step = at + 3; step < at + 2000; step += 50)
    for (uint32_t j = 0; j < 10; ++j) plan->kicks.push_back({step, (static_cast<uint32_t>(step) * 7 + j * 131) % n});
  // As load_kicks leaves them: sorted by (step, neuron), one kick per neuron and step.
  std::sort(plan->kicks.begin(), plan->kicks.end());
  plan->kicks.erase(std::unique(plan->kicks.begin(), plan->kicks.end()), plan->kicks.end());
  return {plan, poisson_threshold(rate_Hz, LifParams{}.dt_ms)};
}

EngineSetup with_change(EngineSetup setup, const StimulusChange& change) {
  setup.stimulus = change.plan;
  setup.constants.poisson_threshold = change.poisson_threshold;
  return setup;
}

std::vector<Spike> run_with_change(Engine& engine, int32_t next_step, int32_t at, const StimulusChange& change,
                                   int32_t end) {
  std::vector<Spike> spikes = run_until(engine, next_step, at);
  engine.set_stimulus(change.plan, change.poisson_threshold);
  const std::vector<Spike> after = run_until(engine, at, end);
  spikes.insert(spikes.end(), after.begin(), after.end());
  return spikes;
}

}  // namespace flysim::test
