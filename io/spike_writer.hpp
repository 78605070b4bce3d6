#pragma once
// A spike output, whatever its format: what the recorder writes a run's spikes through.
// make_spike_writer (io/output_writers.hpp) makes one by format name.
#include <cstdint>
#include <memory>
#include <span>

#include "model/network.hpp"
#include "model/spike.hpp"

namespace flysim {

// What a spike output knows of the run.
struct SpikeRunInfo {
  std::shared_ptr<const Network> network;  // the neurons' root IDs
  double dt_ms = 0.1;
  int32_t steps_per_trial = 0;  // a batch that ends at this step ends its trial
};

// One epoch of one trial: steps [first, first + steps), its spikes in (step, neuron) order.
struct SpikeBatch {
  int32_t trial = 0;
  int32_t first = 0;
  int32_t steps = 0;
  std::span<const Spike> spikes;
};

class SpikeWriter {
 public:
  virtual ~SpikeWriter() = default;
  // Opens the output and writes what comes before the spikes. Throws input_error.
  virtual void begin(const SpikeRunInfo& run) = 0;
  // The trials of a batch (run.batch) come interleaved, each in order; the output holds
  // them as trials run one after another. Throws input_error (a full disk).
  virtual void write(const SpikeBatch& batch) = 0;
  // A streamed output hands what it was given to the kernel now (a paused run).
  virtual void flush() = 0;
  // Writes what is still held (a run stopped early) and commits the output.
  virtual void finish() = 0;
  // Gives up: an atomic output leaves nothing (an earlier file stays untouched), a
  // streamed one keeps the whole lines it was given. Destroying an unfinished writer aborts it.
  virtual void abort() = 0;
};

}  // namespace flysim
