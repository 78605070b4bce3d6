#include "kernels/spike_queue.hpp"

#include "kernels/engine.hpp"

namespace flysim {

const std::vector<Spike>& SpikeQueue::begin_cell() {
  delivering_.swap(pending_);
  pending_.clear();
  return delivering_;
}

void SpikeQueue::record(std::span<const Spike> epoch_spikes) {
  pending_.insert(pending_.end(), epoch_spikes.begin(), epoch_spikes.end());
}

std::vector<Spike> SpikeQueue::undelivered(int32_t next_step, int32_t delay_steps) const {
  if (next_step % delay_steps == 0) return pending_;
  std::vector<Spike> all = delivering_;
  all.insert(all.end(), pending_.begin(), pending_.end());
  return all;
}

const std::vector<Spike>& SpikeQueue::restore(const std::vector<Spike>& spikes, int32_t next_step, int32_t delay_steps) {
  clear();
  for (const Spike& s : spikes) (kernels::still_delivering(s, next_step, delay_steps) ? delivering_ : pending_).push_back(s);
  return delivering_;
}

void SpikeQueue::clear() {
  delivering_.clear();
  pending_.clear();
}

}  // namespace flysim
