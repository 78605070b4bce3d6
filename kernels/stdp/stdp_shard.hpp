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
  std::size_t connection_count() const { return plastic_.size(); }
  // Which shard of how many this is (ShardSetup::shard).
  uint32_t shard_index() const { return shard_; }

 private:
  // What a pairing touches, packed so that one is one cache line fetch: the potentiation
  // loop visits connections in postsynaptic order, which is random in the plastic order
  // they are stored in.
  struct Synapse {
    int32_t weight;      // learned, signed units
    uint8_t inhibitory;  // the connection's sign in the network
    uint8_t changed;     // since the last flush
  };
  struct Trace {
    double value;  // just after `step`
    int32_t step;  // kNeverSpiked: never
  };

  // Larger than any trace the rule can build (at most 1 + tau/dt after a spike every
  // step), small enough that amplitude x trace stays a finite number of units.
  static constexpr double kMaxTraceValue = 1e6;
  // Throws std::invalid_argument when the rule could not have come from derive_stdp_rule.
  static void check_rule(const StdpRule& r);
  void observe_step(int32_t step, const Spike* first, const Spike* last);
  void pair(uint32_t local, double trace, double amplitude, int64_t sign);
  static std::vector<Trace> packed(const Traces& t);
  static Traces unpacked(const std::vector<Trace>& t);

  uint32_t shard_, shards_;
  StdpRule rule_;
  std::vector<uint32_t> plastic_;      // per local connection: plastic index
  std::vector<uint32_t> post_of_;      // per local connection (plastic order)
  std::vector<Synapse> synapses_;      // per local connection (plastic order)
  int32_t trial_;
  std::vector<Trace> pre_, post_;      // per neuron
  int32_t latest_step_ = kNeverSpiked;  // of any trace: no spike may come before it
  std::vector<uint32_t> out_offsets_;  // local connections of pre i: [out_offsets_[i], out_offsets_[i+1])
  std::vector<uint32_t> in_offsets_;   // of post j: in_list_ / in_pre_ [in_offsets_[j], in_offsets_[j+1])
  std::vector<uint32_t> in_list_;      // local connection, in postsynaptic order
  std::vector<uint32_t> in_pre_;       // its presynaptic neuron (read in order, not through in_list_)
  std::vector<uint32_t> changed_list_;
};

}  // namespace flysim::stdp
