#pragma once
// The CPU pool engine: the epoch of kernels/README.md on a fixed thread pool.
#include <memory>
#include <vector>

#include "kernels/cpu/thread_pool.hpp"
#include "kernels/engine.hpp"
#include "kernels/plastic_weights.hpp"
#include "kernels/spike_queue.hpp"

namespace flysim {

class CpuEngine final : public Engine {
 public:
  CpuEngine(EngineSetup setup, unsigned threads);
  std::string describe() const override;
  std::vector<Spike> advance(kernels::EpochSpan span) override;
  int32_t cell_steps() const override { return setup_.constants.delay_steps; }
  EngineState export_state() const override;
  void import_state(const EngineState& state) override;
  void apply_weights(const std::vector<WeightChange>& changes) override;
  void set_stimulus(std::shared_ptr<const StimulusPlan> stimulus, uint32_t poisson_threshold) override;

 private:
  // The state of a neuron the sweep visits. Active neurons live densely in active_,
  // sorted by index, so the sweep streams through memory; a neuron leaves the list
  // only exactly at rest (v = v_0, g = 0), so all the rest of the brain needs is its
  // last spike step (rest_last_spike_).
  struct ActiveNeuron {
    double v;            // mV
    double g;            // mV
    int32_t last_spike;  // step
    uint32_t index;      // model index
    uint8_t poisson;     // Poisson-driven (never leaves the list)
  };

  // Adds the connections of `spikes` that deliver at or after `first_delivery`; lists
  // the targets that were not yet active.
  void scatter(const std::vector<Spike>& spikes, int32_t first_delivery);
  // Marks neuron i listed; true when it was not (thread-safe: the flag decides).
  bool enlist(uint32_t i);
  // Merges newly listed neurons (at rest) into active_, keeping it sorted.
  void join_active(std::vector<uint32_t>& joined);
  bool stays_active(const ActiveNeuron& a) const;
  // Sets poisson_ from the plan's Poisson neurons.
  void flag_poisson();

  EngineSetup setup_;
  std::size_t n_;
  ThreadPool pool_;
  PlasticEdges plastic_;
  // The scatter's weights: the network's, or with plasticity on the engine's own copy
  // (the network is shared read-only with other engines).
  std::vector<int32_t> own_weights_;
  const int32_t* weights_;
  int32_t trial_ = 0;
  int32_t next_step_ = 0;
  std::vector<ActiveNeuron> active_, merged_;
  std::vector<int32_t> rest_last_spike_;   // per neuron, valid while not listed
  std::vector<uint8_t> listed_;            // per neuron: in active_
  std::vector<uint8_t> poisson_;           // per neuron: Poisson-driven
  std::vector<uint32_t> synaptic_slots_;   // per neuron: ring slots holding input
  std::vector<uint32_t> kick_steps_;       // per neuron: kicks in the current epoch
  // [neuron][slot], fixed-point units: a neuron's slots share a cache line or two (the
  // GPU keeps [slot][neuron], which coalesces; the layout is the engine's own affair).
  std::vector<int64_t> ring_;
  SpikeQueue queue_;
  std::vector<std::vector<uint32_t>> worker_joined_;
  std::vector<std::vector<ActiveNeuron>> worker_kept_;
  std::vector<std::vector<Spike>> worker_spikes_;
};

}  // namespace flysim
