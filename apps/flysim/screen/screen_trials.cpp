#include "apps/flysim/screen/screen_trials.hpp"

#include <fmt/format.h>

#include "model/lif_params.hpp"
#include "io/reference_spikes.hpp"

namespace flysim::app {

ExperimentCounts run_screen_experiment(Engine& engine, const TrialBatches& plan, const Network& net, const std::string& name,
                                       double dt_ms, std::string* spike_lines, const std::function<void(int32_t)>& trials_done) {
  ExperimentCounts counts{name, plan.trials, {}};
  std::vector<std::vector<uint64_t>> by_index(net.neuron_count());
  std::vector<std::string> batch_lines;  // per trial of the batch: spikes arrive epoch by epoch
  run_trial_batches(
      engine, plan,
      [&](int32_t first, const BatchSpikes& spikes) {
        if (batch_lines.size() < spikes.size()) batch_lines.resize(spikes.size());
        for (std::size_t k = 0; k < spikes.size(); ++k)
          for (const Spike& s : spikes[k]) {
            std::vector<uint64_t>& per_trial = by_index[s.neuron];
            if (per_trial.empty()) per_trial.assign(static_cast<std::size_t>(plan.trials), 0);
            ++per_trial[static_cast<std::size_t>(first) + k];
            if (spike_lines)
              append_reference_spike(batch_lines[k], s.step, dt_ms, first + static_cast<int32_t>(k), net.root_ids[s.neuron], name);
          }
      },
      [&](int32_t done) {
        for (std::string& lines : batch_lines) {
          if (spike_lines) *spike_lines += lines;
          lines.clear();
        }
        trials_done(done);
      });
  for (std::size_t i = 0; i < by_index.size(); ++i)
    if (!by_index[i].empty()) counts.spikes[net.root_ids[i]] = std::move(by_index[i]);
  return counts;
}

ExperimentCounts run_screen_experiment(Engine& engine, StimulusPlan plan, double rate_Hz, const TrialBatches& batches,
                                       const Network& net, const std::string& name, double dt_ms, std::string* spike_lines,
                                       const std::function<void(int32_t)>& trials_done) {
  engine.set_stimulus(std::make_shared<const StimulusPlan>(std::move(plan)), poisson_threshold(rate_Hz, dt_ms));
  return run_screen_experiment(engine, batches, net, name, dt_ms, spike_lines, trials_done);
}

}  // namespace flysim::app
