#pragma once
// One trial's state in the CPU pool engine, and its epoch (kernels/README.md). The
// engine holds a batch of these over one shared network; a trial's loops run either
// spread over the pool's workers (few trials) or on one worker (the pool spreads the
// trials instead). Either way the arithmetic and the order of the results are the same.
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/engine.hpp"
#include "kernels/spike_queue.hpp"

namespace flysim {

// What every trial of a CPU engine reads and none writes during an epoch.
struct CpuShared {
  const Network& network;
  const LifConstants& constants;
  const StimulusPlan& stimulus;
  const std::vector<uint8_t>& poisson;  // per neuron: Poisson-driven
  const int32_t* weights;               // the scatter's, by edge
};

// Runs job(worker, workers) for workers 0..workers-1 and returns when all are done: the
// pool's run, or one call job(0, 1) on the calling thread.
using RunWorkers = std::function<void(const std::function<void(unsigned, unsigned)>&)>;

class CpuTrial {
 public:
  // `workers`: the most workers a loop of this trial is spread over (the pool's size).
  CpuTrial(std::size_t neurons, int32_t delay_steps, unsigned workers);

  int32_t trial() const { return trial_; }
  int32_t next_step() const { return next_step_; }
  // The epoch of this trial through `span`: its spikes, sorted by (step, neuron).
  std::vector<Spike> advance(const CpuShared& shared, kernels::EpochSpan span, const RunWorkers& run);
  // The state without plastic weights (the engine's, shared by its trials).
  EngineState export_state(const CpuShared& shared) const;
  void import_state(const CpuShared& shared, const EngineState& state, const RunWorkers& run);
  // The Poisson flags changed (set_stimulus): listed neurons take their new flag, newly
  // driven ones are listed.
  void reflag_poisson(const CpuShared& shared);

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
  void scatter(const CpuShared& shared, const std::vector<Spike>& spikes, int32_t first_delivery, const RunWorkers& run);
  // Marks neuron i listed; true when it was not (thread-safe: the flag decides).
  bool enlist(uint32_t i);
  // Merges newly listed neurons (at rest) into active_, keeping it sorted.
  void join_active(const CpuShared& shared, std::vector<uint32_t>& joined);
  bool stays_active(const CpuShared& shared, const ActiveNeuron& a) const;

  std::size_t n_;
  int32_t trial_ = 0;
  int32_t next_step_ = 0;
  std::vector<ActiveNeuron> active_, merged_;
  std::vector<int32_t> rest_last_spike_;   // per neuron, valid while not listed
  std::vector<uint8_t> listed_;            // per neuron: in active_
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
