#include "kernels/cpu/cpu_engine.hpp"

#include <algorithm>
#include <atomic>
#include <stdexcept>

namespace flysim {

CpuEngine::CpuEngine(EngineSetup setup, unsigned threads)
    : setup_(std::move(setup)),
      n_(setup_.network->neuron_count()),
      pool_(threads),
      plastic_(setup_.plastic_edges, setup_.network->out_weights),
      weights_(setup_.network->out_weights.data()),
      rows_sorted_(rows_sorted_by_target(*setup_.network)) {
  if (setup_.batch < 1) throw std::invalid_argument("an engine holds at least one trial, asked for " + std::to_string(setup_.batch));
  if (!plastic_.empty()) {
    own_weights_ = setup_.network->out_weights;
    weights_ = own_weights_.data();
  } else {
    packed_rows_ = std::make_unique<PackedRows>(*setup_.network);
  }
  check_stimulus(*setup_.stimulus, n_);
  flag_poisson();
  trials_.reserve(static_cast<std::size_t>(setup_.batch));
  for (int32_t k = 0; k < setup_.batch; ++k)
    trials_.emplace_back(n_, setup_.constants.delay_steps, pool_.size(), setup_.cpu_spread_from, setup_.cpu_list_all_from,
                         setup_.cpu_block_neurons);
  start_at_rest(0, 1);
}

std::string CpuEngine::describe() const {
  return "cpu pool, " + std::to_string(pool_.size()) + (pool_.size() == 1 ? " thread" : " threads") +
         (trials_.size() > 1 ? ", batches of " + std::to_string(trials_.size()) + " trials" : "");
}

CpuShared CpuEngine::shared() const {
  const bool silencing = !silenced_.empty();
  return {*setup_.network,
          setup_.constants,
          *setup_.stimulus,
          poisson_,
          thresholds_,
          driven_,
          weights_,
          rows_sorted_,
          packed_rows_.get(),
          silencing ? silenced_.data() : nullptr,
          silencing && setup_.stimulus->silence_mode == SilenceMode::both ? silenced_.data() : nullptr};
}

void CpuEngine::flag_poisson() {
  poisson_ = poisson_flags(*setup_.stimulus, n_);
  thresholds_ = poisson_thresholds(*setup_.stimulus, setup_.constants.poisson_threshold, n_);
  driven_ = driven_neurons(*setup_.stimulus);
  silenced_ = silence_mask(*setup_.stimulus, n_);
}

void CpuEngine::for_each_trial(const std::function<void(std::size_t, const RunWorkers&)>& work) {
  const RunWorkers pooled = [this](const std::function<void(unsigned, unsigned)>& job) { pool_.run(job); };
  if (batch_size_ < pool_.size()) {
    for (std::size_t k = 0; k < batch_size_; ++k) work(k, pooled);
    return;
  }
  const RunWorkers alone = [](const std::function<void(unsigned, unsigned)>& job) { job(0, 1); };
  // Trials differ in cost (activity): workers take the next one as they finish, and a
  // helper the system has not run yet (another process on its core) is not waited for.
  pool_.run_items(batch_size_, [&](std::size_t k) { work(k, alone); });
}

BatchSpikes CpuEngine::advance_batch(kernels::EpochSpan span) {
  const CpuShared s = shared();
  BatchSpikes spikes(batch_size_);
  for_each_trial([&](std::size_t k, const RunWorkers& run) { spikes[k] = trials_[k].advance(s, span, run); });
  return spikes;
}

std::vector<EngineState> CpuEngine::export_batch() const {
  const CpuShared s = shared();
  std::vector<EngineState> states;
  for (std::size_t k = 0; k < batch_size_; ++k) {
    states.push_back(trials_[k].export_state(s));
    if (!plastic_.empty()) states.back().plastic_weights = plastic_.gather(weights_);
  }
  return states;
}

void CpuEngine::apply_weights(const std::vector<WeightChange>& changes) {
  plastic_.check(changes);
  const std::vector<uint64_t>& edges = plastic_.edges();
  for (const WeightChange& c : changes) own_weights_[edges[c.plastic]] = c.weight;
}

void CpuEngine::set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) {
  check_stimulus_change(*setup_.stimulus, stimulus.get(), n_);
  setup_.stimulus = std::move(stimulus);
  setup_.constants.poisson_threshold = poisson_threshold;
  flag_poisson();
  const CpuShared s = shared();
  for (std::size_t k = 0; k < batch_size_; ++k) trials_[k].reflag_poisson(s);
}

void CpuEngine::import_batch(const std::vector<EngineState>& states) {
  check_batch(states, batch_capacity(), n_);
  // The weights are the engine's, shared by its trials: the first state's stand for all.
  if (!states.front().plastic_weights.empty()) {
    plastic_.check_all(states.front().plastic_weights);
    for (std::size_t p = 0; p < states.front().plastic_weights.size(); ++p)
      own_weights_[plastic_.edges()[p]] = states.front().plastic_weights[p];
  }
  batch_size_ = states.size();
  const CpuShared s = shared();
  for_each_trial([&](std::size_t k, const RunWorkers& run) { trials_[k].import_state(s, states[k], run); });
}

void CpuEngine::start_at_rest(int32_t first_trial, int32_t count) {
  check_rest_batch(first_trial, count, batch_capacity());
  batch_size_ = static_cast<std::size_t>(count);
  const CpuShared s = shared();
  for_each_trial([&](std::size_t k, const RunWorkers&) { trials_[k].start_at_rest(s, first_trial + static_cast<int32_t>(k)); });
}

}  // namespace flysim
