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
  // Adds the connections of `spikes` that deliver at or after `first_delivery`; lists
  // the targets that were not yet active.
  void scatter(const std::vector<Spike>& spikes, int32_t first_delivery);
  // Adds neuron i to the active list unless it is there (thread-safe: the flag decides).
  void enlist(uint32_t i, std::vector<uint32_t>& joined);
  // Merges newly listed neurons into active_, keeping it sorted.
  void join_active(std::vector<uint32_t>& joined);
  // The active list from scratch: every neuron not at rest, every Poisson neuron.
  void rebuild_active();
  kernels::RngKey rng_key() const;

  EngineSetup setup_;
  std::size_t n_;
  ThreadPool pool_;
  int32_t trial_ = 0;
  int32_t next_step_ = 0;
  std::vector<double> v_, g_;
  std::vector<int32_t> last_spike_;
  // [neuron][slot], fixed-point units: a neuron's slots share a cache line or two (the
  // GPU keeps [slot][neuron], which coalesces; the layout is the engine's own affair).
  std::vector<int64_t> ring_;
  std::vector<uint32_t> synaptic_slots_;  // per neuron: ring slots holding input
  std::vector<uint32_t> kick_steps_;      // per neuron: kicks in the current epoch
  std::vector<uint8_t> poisson_;          // per neuron: Poisson-driven
  SpikeQueue queue_;
  // The neurons the sweep visits: everything not exactly at rest, everything with input
  // this epoch, the Poisson neurons. The rest of the brain costs nothing (any order:
  // each neuron's update depends on that neuron alone).
  std::vector<uint32_t> active_;
  std::vector<uint8_t> listed_;  // per neuron: in active_
  std::vector<std::vector<uint32_t>> worker_joined_, worker_kept_;
  std::vector<std::vector<Spike>> worker_spikes_;
};

}  // namespace flysim
