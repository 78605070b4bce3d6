#pragma once
// The CPU pool engine: the epoch of kernels/README.md on a fixed thread pool, for a
// batch of trials over one network (cpu_trial.hpp holds a trial's state). With at least
// as many trials as threads the pool spreads the trials (each advanced whole by one
// worker: no atomics contended, one hand-off per epoch for the batch); with fewer it
// spreads each trial's neurons, as for a single run. The results are the same.
#include <memory>
#include <vector>

#include "kernels/cpu/cpu_trial.hpp"
#include "kernels/cpu/packed_rows.hpp"
#include "kernels/cpu/thread_pool.hpp"
#include "kernels/engine.hpp"
#include "kernels/plastic_weights.hpp"

namespace flysim {

class CpuEngine final : public Engine {
 public:
  CpuEngine(EngineSetup setup, unsigned threads);
  std::string describe() const override;
  int32_t batch_capacity() const override { return static_cast<int32_t>(trials_.size()); }
  BatchSpikes advance_batch(kernels::EpochSpan span) override;
  std::vector<EngineState> export_batch() const override;
  void import_batch(const std::vector<EngineState>& states) override;
  void start_at_rest(int32_t first_trial, int32_t count) override;
  int32_t cell_steps() const override { return setup_.constants.delay_steps; }
  void apply_weights(const std::vector<WeightChange>& changes) override;
  void set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) override;
  // Whether trial k of the batch lists every neuron now (EngineSetup::cpu_list_all_from).
  bool lists_every_neuron(std::size_t k) const { return trials_.at(k).lists_every_neuron(); }
  // Cells trial k swept block by block so far (EngineSetup::cpu_block_neurons).
  int64_t cells_in_blocks(std::size_t k) const { return trials_.at(k).cells_in_blocks(); }

 private:
  CpuShared shared() const;
  // Calls work(k) for each trial k of the batch: spread over the pool (each trial on one
  // worker, its loops on that worker) or one after the other (each trial's loops spread
  // over the pool).
  void for_each_trial(const std::function<void(std::size_t, const RunWorkers&)>& work);
  // Sets the per-neuron tables (Poisson flags and thresholds, driven list, silenced set) from the plan.
  void flag_poisson();

  EngineSetup setup_;
  std::size_t n_;
  ThreadPool pool_;
  PlasticEdges plastic_;
  // The scatter's weights: the network's, or with plasticity on the engine's own copy
  // (the network is shared read-only with other engines).
  std::vector<int32_t> own_weights_;
  const int32_t* weights_;
  bool rows_sorted_;  // rows_sorted_by_target: the scatter's workers then find their targets by search
  std::unique_ptr<PackedRows> packed_rows_;  // where the weights are the network's (no plastic ones)
  std::vector<uint8_t> poisson_;       // per neuron: Poisson-driven
  std::vector<uint32_t> thresholds_;   // per neuron: Poisson threshold
  std::vector<uint32_t> driven_;       // Poisson-driven neurons, ascending
  std::vector<uint8_t> silenced_;      // per neuron: silenced; empty when none is
  std::vector<CpuTrial> trials_;  // batch_capacity() of them; the first batch_size_ in use
  std::size_t batch_size_ = 0;
};

}  // namespace flysim
