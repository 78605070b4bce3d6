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
  if (const std::string problem = groups_and_silence_problem(stimulus, neurons); !problem.empty())
    throw std::invalid_argument(problem);
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

namespace {
void require_one_trial(std::size_t trials, const char* call) {
  if (trials != 1)
    throw std::logic_error(std::string("Engine::") + call + " is for a batch of one trial; this batch holds " +
                           std::to_string(trials) + ": use the batch call");
}

void check_batch_size(int64_t count, int32_t capacity) {
  if (count < 1 || count > capacity)
    throw std::invalid_argument("a batch of " + std::to_string(count) + " trials for an engine that holds 1.." +
                                std::to_string(capacity));
}
}  // namespace

std::vector<Spike> Engine::advance(kernels::EpochSpan span) {
  BatchSpikes spikes = advance_batch(span);
  require_one_trial(spikes.size(), "advance");
  return std::move(spikes.front());
}

EngineState Engine::export_state() const {
  std::vector<EngineState> states = export_batch();
  require_one_trial(states.size(), "export_state");
  return std::move(states.front());
}

void check_batch(const std::vector<EngineState>& states, int32_t capacity, std::size_t neurons) {
  check_batch_size(static_cast<int64_t>(states.size()), capacity);
  for (std::size_t k = 0; k < states.size(); ++k) {
    const EngineState& s = states[k];
    if (s.v.size() != neurons || s.g.size() != neurons || s.last_spike.size() != neurons)
      throw std::invalid_argument("engine state holds " + std::to_string(s.v.size()) + " neurons, the network " +
                                  std::to_string(neurons));
    if (s.trial != states.front().trial + static_cast<int32_t>(k) || s.next_step != states.front().next_step)
      throw std::invalid_argument("a batch must hold consecutive trials at one step: trial " + std::to_string(s.trial) +
                                  " at step " + std::to_string(s.next_step) + " follows trial " +
                                  std::to_string(states.front().trial) + " at step " +
                                  std::to_string(states.front().next_step));
  }
}

void check_rest_batch(int32_t first_trial, int32_t count, int32_t capacity) {
  check_batch_size(count, capacity);
  if (first_trial < 0) throw std::invalid_argument("trials are numbered from 0, asked for trial " + std::to_string(first_trial));
}

std::vector<Spike> run_until(Engine& engine, int32_t next_step, int32_t end_step) {
  if (end_step <= next_step) return {};
  BatchSpikes spikes = engine.advance_cells({next_step, end_step - next_step});
  require_one_trial(spikes.size(), "run_until");
  return std::move(spikes.front());
}

BatchSpikes Engine::advance_cells(kernels::EpochSpan span) {
  BatchSpikes all;
  for (int32_t next = span.first, end = span.first + span.steps; next < end;) {
    const kernels::EpochSpan cell = next_epoch(next, end, cell_steps());
    BatchSpikes spikes = advance_batch(cell);
    if (all.empty()) {
      all = std::move(spikes);
    } else {
      for (std::size_t k = 0; k < all.size(); ++k) all[k].insert(all[k].end(), spikes[k].begin(), spikes[k].end());
    }
    next += cell.steps;
  }
  return all;
}

}  // namespace flysim
