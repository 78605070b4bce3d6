#include "actors/stimulus_command.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/engine.hpp"
#include "model/errors.hpp"
#include "model/lif_params.hpp"

namespace flysim {

StimulusChange stimulus_change(const TrialPlan& current, const LiveCommand& c, RunPosition at, const Network& net, double dt_ms) {
  TrialPlan next = current;
  if (c.rate_Hz >= 0) next.stimulus_rate_Hz = c.rate_Hz;
  const auto index = index_of_ids(net.root_ids, "network");
  const auto neuron = [&](int64_t id) {
    const auto it = index.find(id);
    if (it == index.end()) throw input_error("neuron ID " + std::to_string(id) + " is not in the network");
    return it->second;
  };
  if (c.replace_ids) {
    next.stimulus.poisson_neurons.clear();
    for (int64_t id : c.poisson_ids) next.stimulus.poisson_neurons.push_back(neuron(id));
    std::sort(next.stimulus.poisson_neurons.begin(), next.stimulus.poisson_neurons.end());
  }
  for (const LiveKick& k : c.kicks) {
    const int64_t step = int64_t{at.step} + duration_to_steps(k.after_ms, dt_ms);
    if (step >= current.steps_per_trial)
      throw input_error(fmt::format("a kick {} ms after step {} falls after the end of the trial", k.after_ms, at.step));
    next.stimulus.kicks.push_back({static_cast<int32_t>(step), neuron(k.neuron_id)});
  }
  std::sort(next.stimulus.kicks.begin(), next.stimulus.kicks.end(),
            [](const Kick& a, const Kick& b) { return a.step != b.step ? a.step < b.step : a.neuron < b.neuron; });
  check_stimulus_change(current.stimulus, &next.stimulus, net.neuron_count());
  const uint32_t threshold = poisson_threshold(next.stimulus_rate_Hz, dt_ms);  // refuses a rate above 1/dt
  return {std::move(next), threshold};
}

}  // namespace flysim
