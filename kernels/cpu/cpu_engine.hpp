#pragma once
// The CPU pool engine: the epoch of kernels/README.md on a fixed thread pool.
#include <memory>
#include <vector>

#include "kernels/cpu/thread_pool.hpp"
#include "kernels/engine.hpp"
#include "kernels/spike_queue.hpp"

namespace flysim {

class CpuEngine final : public Engine {
 public:
  CpuEngine(EngineSetup setup, unsigned threads);
  std::string describe() const override;
  std::vector<Spike> advance(kernels::EpochSpan span) override;
  EngineState export_state() const override;
  void import_state(const EngineState& state) override;

 private:
  // Everything the sweep reads of one neuron, in 32 bytes: the active neurons are a
  // sparse subset, so one cache line per neuron instead of one per array is what makes
  // the sweep fast.
  struct NeuronRecord {
    double v;                 // mV
    double g;                 // mV
    int32_t last_spike;       // step
    uint32_t synaptic_slots;  // ring slots holding input
    uint32_t kick_steps;      // kicks in the current epoch
    uint8_t poisson;          // Poisson-driven
    uint8_t listed;           // in active_
  };

  // Adds the connections of `spikes` that deliver at or after `first_delivery`; lists
  // the targets that were not yet active.
  void scatter(const std::vector<Spike>& spikes, int32_t first_delivery);
  // Adds neuron i to the active list unless it is there (thread-safe: the flag decides).
  void enlist(uint32_t i, std::vector<uint32_t>& joined);
  // Merges newly listed neurons into active_, keeping it sorted.
  void join_active(std::vector<uint32_t>& joined);
  // The active list from scratch: every neuron not at rest, every Poisson neuron.
  void rebuild_active();
  bool stays_active(const NeuronRecord& r) const;
  kernels::RngKey rng_key() const;

  EngineSetup setup_;
  std::size_t n_;
  ThreadPool pool_;
  int32_t trial_ = 0;
  int32_t next_step_ = 0;
  std::vector<NeuronRecord> neurons_;
  // [neuron][slot], fixed-point units: a neuron's slots share a cache line or two (the
  // GPU keeps [slot][neuron], which coalesces; the layout is the engine's own affair).
  std::vector<int64_t> ring_;
  SpikeQueue queue_;
  // The neurons the sweep visits, in index order: everything not exactly at rest,
  // everything with input this epoch, the Poisson neurons. The rest of the brain costs
  // nothing (each neuron's update depends on that neuron alone, so which neurons are
  // listed, and in which order, never changes a result).
  std::vector<uint32_t> active_;
  std::vector<std::vector<uint32_t>> worker_joined_, worker_kept_;
  std::vector<std::vector<Spike>> worker_spikes_;
};

}  // namespace flysim
