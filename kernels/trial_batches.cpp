#include "kernels/trial_batches.hpp"

#include <algorithm>
#include <stdexcept>

namespace flysim {

void run_trial_batches(Engine& engine, const TrialBatches& plan,
                       const std::function<void(int32_t first_trial, const BatchSpikes&)>& epoch_spikes,
                       const std::function<void(int32_t)>& trials_done) {
  if (plan.batch < 1 || plan.batch > engine.batch_capacity())
    throw std::invalid_argument("batches of " + std::to_string(plan.batch) + " trials on an engine that holds 1.." +
                                std::to_string(engine.batch_capacity()));
  for (int32_t first = 0; first < plan.trials; first += plan.batch) {
    engine.start_at_rest(first, std::min(plan.batch, plan.trials - first));
    for (int32_t step = 0; step < plan.steps_per_trial;) {
      const kernels::EpochSpan span = next_epoch(step, plan.steps_per_trial, plan.delay_steps);
      epoch_spikes(first, engine.advance_batch(span));
      step += span.steps;
    }
    trials_done(std::min(first + plan.batch, plan.trials));
  }
}

TrialCounts count_spikes_per_trial(Engine& engine, const TrialBatches& plan, const std::vector<uint32_t>& neurons,
                                   const std::function<void(int32_t)>& trials_done) {
  // Position of each counted neuron in `neurons`, by model index (-1: not counted).
  std::vector<int32_t> counted_as(plan.neurons, -1);
  for (std::size_t k = 0; k < neurons.size(); ++k) counted_as.at(neurons[k]) = static_cast<int32_t>(k);
  TrialCounts counts(static_cast<std::size_t>(plan.trials), std::vector<uint64_t>(neurons.size(), 0));
  run_trial_batches(
      engine, plan,
      [&](int32_t first, const BatchSpikes& spikes) {
        for (std::size_t k = 0; k < spikes.size(); ++k)
          for (const Spike& spike : spikes[k])
            if (counted_as[spike.neuron] >= 0) ++counts[first + k][static_cast<std::size_t>(counted_as[spike.neuron])];
      },
      trials_done);
  return counts;
}

}  // namespace flysim
