#pragma once
// One plasticity shard's work as plain C++ (the actor is actors/plasticity_shard): it
// owns the plastic connections onto a fixed set of postsynaptic neurons, reads every
// epoch's spikes in order and runs the pair-based rule on them (README.md here).
#include <cstdint>
#include <vector>

#include "kernels/stdp/stdp_rule.hpp"
#include "model/shard_setup.hpp"
#include "model/spike.hpp"

namespace flysim::stdp {

class StdpShard {
 public:
  explicit StdpShard(ShardSetup setup);
  // One epoch's spikes of `trial`, sorted by (step, neuron); epochs arrive in order. A
  // new trial starts with empty traces (its steps count from 0 again).
  void observe(int32_t trial, const std::vector<Spike>& spikes);
  // The connections whose weight changed since the last flush, by plastic index.
  std::vector<WeightChange> flush();
  ShardState state() const;
  std::size_t connection_count() const { return c_.plastic.size(); }

 private:
  void observe_step(int32_t step, const Spike* first, const Spike* last);
  void change(uint32_t local, int32_t weight);

  uint32_t shard_, shards_;
  StdpRule rule_;
  ShardConnections c_;
  int32_t trial_;
  Traces pre_, post_;
  std::vector<uint32_t> out_offsets_;  // local connections of pre i: [out_offsets_[i], out_offsets_[i+1])
  std::vector<uint32_t> in_offsets_;   // of post j: in_list_[in_offsets_[j], in_offsets_[j+1])
  std::vector<uint32_t> in_list_;
  std::vector<uint8_t> changed_;       // per local connection, since the last flush
  std::vector<uint32_t> changed_list_;
};

}  // namespace flysim::stdp
