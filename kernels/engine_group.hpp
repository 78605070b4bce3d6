#pragma once
// Several engines as one: a batch of trials split into consecutive parts, as even as the
// engines' capacities allow, part j on engine j, each advanced on its own thread and the
// spikes joined in trial order. A trial's spikes and state do not depend on the batch
// that holds it, so the group gives what one engine holding the whole batch gives
// (flysim run over several CUDA devices, or several engines on one). Plastic weights are
// each engine's own: a run with plasticity goes one trial at a time and never groups.
#include <memory>
#include <vector>

#include "kernels/cpu/thread_pool.hpp"
#include "kernels/engine.hpp"

namespace flysim {

class EngineGroup final : public Engine {
 public:
  // At least one engine, all over the same network and delay cell.
  explicit EngineGroup(std::vector<std::unique_ptr<Engine>> engines);
  // "N engines: " and each engine's description.
  std::string describe() const override;
  // The engines' capacities added up.
  int32_t batch_capacity() const override { return capacity_; }
  BatchSpikes advance_batch(kernels::EpochSpan span) override;
  BatchSpikes advance_cells(kernels::EpochSpan span) override;
  std::vector<EngineState> export_batch() const override;
  void import_batch(const std::vector<EngineState>& states) override;
  void start_at_rest(int32_t first_trial, int32_t count) override;
  int32_t cell_steps() const override { return engines_.front()->cell_steps(); }
  void apply_weights(const std::vector<WeightChange>& changes) override;
  void set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) override;

 private:
  // How many of the batch's `count` trials engine j holds.
  std::vector<int32_t> split(int32_t count) const;
  // Runs advance(engine) on the engines that hold trials, each on its own thread, and joins
  // their trials' spikes in order; an engine_failure of any is rethrown before other errors.
  BatchSpikes advance_each(const std::function<BatchSpikes(Engine&)>& advance);

  std::vector<std::unique_ptr<Engine>> engines_;
  int32_t capacity_ = 0;
  std::vector<int32_t> held_;  // trials of the current batch per engine
  ThreadPool threads_;
};

}  // namespace flysim
