#include "actors/stimulus_command.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/engine.hpp"
#include "model/errors.hpp"
#include "model/lif_params.hpp"

namespace flysim {

namespace {
// The model indices of the IDs of field `what`, ascending; an unknown or repeated one is
// an input_error naming the field and its position.
std::vector<uint32_t> indices_of(const std::vector<int64_t>& ids, const Network& net, const std::string& what) {
  return root_ids_as_indices(ids, net, [&](std::size_t k) { return what + "[" + std::to_string(k) + "]"; });
}

// The named group's rate and neurons from `c`: a new group needs both; an empty neuron
// list removes the group.
void change_group(StimulusPlan& plan, const StimulusCommand& c, const Network& net, double dt_ms) {
  const std::string& name = *c.group;
  auto it = std::find_if(plan.groups.begin(), plan.groups.end(), [&](const PoissonGroup& g) { return g.name == name; });
  if (it == plan.groups.end()) {
    if (c.poisson_ids && c.poisson_ids->empty()) throw input_error("there is no group '" + name + "' to remove");
    if (!c.rate_Hz || !c.poisson_ids) throw input_error("group '" + name + "' is new: give its rate_hz and poisson_ids");
    plan.groups.push_back({name, {}, 0.0, 0u});
    it = plan.groups.end() - 1;
  }
  if (c.rate_Hz) {
    it->rate_Hz = *c.rate_Hz;
    it->threshold = poisson_threshold(*c.rate_Hz, dt_ms);
  }
  if (c.poisson_ids) it->neurons = indices_of(*c.poisson_ids, net, "poisson_ids");
  if (it->neurons.empty()) plan.groups.erase(it);
}
}  // namespace

StimulusChange stimulus_change(const TrialPlan& current, const StimulusCommand& c, RunPosition at, const Network& net,
                               double dt_ms) {
  TrialPlan next = current;
  const auto index = index_of_ids(net.root_ids, "network");
  const auto neuron = [&](int64_t id) {
    const auto it = index.find(id);
    if (it == index.end()) throw input_error("neuron ID " + std::to_string(id) + " is not in the network");
    return it->second;
  };
  if (c.group) {
    change_group(next.stimulus, c, net, dt_ms);
  } else {
    if (c.rate_Hz) next.stimulus_rate_Hz = *c.rate_Hz;
    if (c.poisson_ids) next.stimulus.poisson_neurons = indices_of(*c.poisson_ids, net, "poisson_ids");
  }
  if (c.silence_ids) next.stimulus.silenced = indices_of(*c.silence_ids, net, "silence_ids");
  if (c.silence_mode) next.stimulus.silence_mode = *c.silence_mode;
  for (const LiveKick& k : c.kicks ? *c.kicks : std::vector<LiveKick>{}) {
    const int64_t step = int64_t{at.step} + duration_to_steps(k.after_ms, dt_ms);
    if (step >= current.steps_per_trial)
      throw input_error(fmt::format("a kick {} ms after step {} falls after the end of the trial", k.after_ms, at.step));
    next.stimulus.kicks.push_back({static_cast<int32_t>(step), neuron(k.neuron_id)});
  }
  std::sort(next.stimulus.kicks.begin(), next.stimulus.kicks.end(),
            [](const Kick& a, const Kick& b) { return a.step != b.step ? a.step < b.step : a.neuron < b.neuron; });
  // A service that takes kicks for hours does not carry the fired ones in its plan and checkpoints.
  drop_fired_kicks(next.stimulus.kicks, at.trial, at.step, current.trials);
  if (const std::string problem = groups_and_silence_problem(next.stimulus, net.neuron_count(), net.root_ids); !problem.empty())
    throw input_error(problem);
  check_stimulus_change(current.stimulus, &next.stimulus, net.neuron_count());
  const uint32_t threshold = poisson_threshold(next.stimulus_rate_Hz, dt_ms);  // refuses a rate above 1/dt
  return {std::move(next), threshold};
}

}  // namespace flysim
