#pragma once
// The epoch of kernels/README.md in its plainest form, for tests: every neuron every
// epoch, a dense delay ring, one trial, no threads, no imports. It shares with the
// engines only what must be shared (kernels/lif.hpp's per-neuron arithmetic, the rules
// of kernels/epoch_rules.hpp and SpikeQueue's bookkeeping of pending spikes), none of the
// CPU pool's lists, shares and entry moves, so the pool's bits can be held to it.
#include <cstdint>
#include <vector>

#include "kernels/engine.hpp"
#include "kernels/spike_queue.hpp"

namespace flysim::test {

class PlainEngine {
 public:
  explicit PlainEngine(const EngineSetup& setup);
  // The epoch through `span` (inside one delay cell, continuing the last): its spikes,
  // sorted by (step, neuron).
  std::vector<Spike> advance(kernels::EpochSpan span);
  EngineState export_state() const;

 private:
  // Whether the stimulus silences `neuron`.
  bool silenced(uint32_t neuron) const;
  EngineSetup setup_;
  std::size_t n_;
  int32_t next_step_ = 0;
  std::vector<double> v_, g_;
  std::vector<int32_t> last_spike_;
  std::vector<int64_t> ring_;  // [neuron][slot], fixed-point units
  std::vector<uint32_t> synaptic_slots_;
  SpikeQueue queue_;
};

}  // namespace flysim::test
