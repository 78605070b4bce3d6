#include "kernels/engine.hpp"

#include <stdexcept>

namespace flysim {

void check_span(kernels::EpochSpan span, int32_t next_step, int32_t delay_steps) {
  if (span.first != next_step || span.steps < 1 || span.first % delay_steps + span.steps > delay_steps)
    throw std::logic_error("epoch [" + std::to_string(span.first) + ", +" + std::to_string(span.steps) +
                           ") does not continue step " + std::to_string(next_step) + " within one delay cell of " +
                           std::to_string(delay_steps) + " steps");
}

void check_stimulus(const StimulusPlan& stimulus, std::size_t neurons) {
  for (uint32_t i : stimulus.poisson_neurons)
    if (i >= neurons)
      throw std::invalid_argument("stimulus names Poisson neuron " + std::to_string(i) + " of a network of " +
                                  std::to_string(neurons));
  for (std::size_t k = 0; k < stimulus.kicks.size(); ++k) {
    const Kick& kick = stimulus.kicks[k];
    if (kick.neuron >= neurons)
      throw std::invalid_argument("kick at step " + std::to_string(kick.step) + " names neuron " +
                                  std::to_string(kick.neuron) + " of a network of " + std::to_string(neurons));
    if (k > 0 && stimulus.kicks[k - 1].step > kick.step)
      throw std::invalid_argument("kicks are not sorted by step: step " + std::to_string(stimulus.kicks[k - 1].step) +
                                  " before step " + std::to_string(kick.step));
  }
}

void check_stimulus_change(const StimulusPlan& current, const StimulusPlan* next, std::size_t neurons) {
  if (next == nullptr) throw std::invalid_argument("set_stimulus needs a stimulus plan, got none");
  if (next->seed != current.seed)
    throw std::invalid_argument("a stimulus change must keep the seed " + std::to_string(current.seed) + ", got " +
                                std::to_string(next->seed));
  check_stimulus(*next, neurons);
}

std::vector<Spike> run_until(Engine& engine, int32_t next_step, int32_t end_step, int32_t delay_steps) {
  std::vector<Spike> all;
  while (next_step < end_step) {
    const kernels::EpochSpan span = next_epoch(next_step, end_step, delay_steps);
    const std::vector<Spike> spikes = engine.advance(span);
    all.insert(all.end(), spikes.begin(), spikes.end());
    next_step += span.steps;
  }
  return all;
}

std::vector<Spike> Engine::advance_cells(kernels::EpochSpan span) {
  return run_until(*this, span.first, span.first + span.steps, cell_steps());
}

}  // namespace flysim
