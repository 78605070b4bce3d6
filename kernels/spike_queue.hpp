#pragma once
// Host-side bookkeeping of the delay ring that every engine shares: which spikes are
// being delivered in the current delay cell and which wait for the next one.
#include <cstdint>
#include <span>
#include <vector>

#include "model/spike.hpp"

namespace flysim {

class SpikeQueue {
 public:
  // At the start of a cell: the previous cell's spikes become the ones being delivered;
  // returns them (the engine scatters them into its ring).
  const std::vector<Spike>& begin_cell();
  // Appends one epoch's spikes (sorted, later than everything recorded before).
  void record(std::span<const Spike> epoch_spikes);
  // Every spike whose delivery is not finished at next_step: the content of the ring.
  std::vector<Spike> undelivered(int32_t next_step, int32_t delay_steps) const;
  // Restores from undelivered(); returns the spikes the engine must scatter now
  // (those of the previous cell when next_step is inside a cell), else nothing.
  const std::vector<Spike>& restore(const std::vector<Spike>& spikes, int32_t next_step, int32_t delay_steps);
  void clear();
  // The current cell's spikes so far, scattered at the next cell's start.
  const std::vector<Spike>& waiting() const { return pending_; }

 private:
  std::vector<Spike> delivering_;  // scattered at the start of the current cell
  std::vector<Spike> pending_;     // emitted in the current cell, scattered at the next
};

}  // namespace flysim
