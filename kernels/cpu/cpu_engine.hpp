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
  // Adds the connections of `spikes` that deliver at or after `first_delivery`.
  void scatter(const std::vector<Spike>& spikes, int32_t first_delivery);
  kernels::RngKey rng_key() const;

  EngineSetup setup_;
  std::size_t n_;
  ThreadPool pool_;
  int32_t trial_ = 0;
  int32_t next_step_ = 0;
  std::vector<double> v_, g_;
  std::vector<int32_t> last_spike_;
  std::vector<int64_t> ring_;             // [slot][neuron], fixed-point units
  std::vector<uint32_t> synaptic_slots_;  // per neuron: ring slots holding input
  std::vector<uint32_t> kick_steps_;      // per neuron: kicks in the current epoch
  std::vector<uint8_t> poisson_;          // per neuron: Poisson-driven
  SpikeQueue queue_;
  std::vector<std::vector<Spike>> worker_spikes_;
};

}  // namespace flysim
