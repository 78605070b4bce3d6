#pragma once
// Trials of one plan run batch by batch on one engine, without actors: what `flysim
// sweep` does at each stimulus rate, and the reference the batch tests compare with.
// Each batch starts from rest (Engine::start_at_rest) and is cut into epochs at delay-cell
// boundaries (next_epoch), exactly as the sim loop does, so the spikes are those of
// `flysim run` with the same plan.
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/engine.hpp"

namespace flysim {

struct TrialBatches {
  int32_t trials = 1;
  int32_t steps_per_trial = 0;
  int32_t batch = 1;  // at most the engine's batch_capacity()
  int32_t delay_steps = 18;
  std::size_t neurons = 0;  // of the network
};

// Spikes of `neurons` (model indices) per trial: [trial][k] counts neurons[k]'s spikes.
using TrialCounts = std::vector<std::vector<uint64_t>>;

// Runs every trial of `plan` on `engine` (its network and stimulus): `epoch_spikes` gets
// each epoch's spikes with the number of the batch's first trial; `trials_done` is called
// after each batch with the number of trials finished so far.
void run_trial_batches(Engine& engine, const TrialBatches& plan,
                       const std::function<void(int32_t first_trial, const BatchSpikes&)>& epoch_spikes,
                       const std::function<void(int32_t)>& trials_done);

// run_trial_batches, counting the spikes of `neurons` only.
TrialCounts count_spikes_per_trial(Engine& engine, const TrialBatches& plan, const std::vector<uint32_t>& neurons,
                                   const std::function<void(int32_t)>& trials_done);

}  // namespace flysim
