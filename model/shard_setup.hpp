#pragma once
// What a plasticity shard is made from and what it reports, as plain data: sent to
// local and remote shards alike (kernels/stdp/README.md).
#include <cstdint>
#include <string>
#include <vector>

#include "model/network.hpp"
#include "model/plasticity.hpp"
#include "model/stdp_rule.hpp"

namespace flysim {

// The connections one shard owns, in plastic-index order (so by pre, then post).
struct ShardConnections {
  std::vector<uint32_t> plastic;  // plastic index
  std::vector<uint32_t> pre, post;
  std::vector<int32_t> weight;    // learned, signed units
  std::vector<uint8_t> inhibitory;  // the connection's sign in the network
  friend bool operator==(const ShardConnections&, const ShardConnections&) = default;
};

// Everything a shard starts from; built by make_shard_setups, sent to local or remote
// shards alike.
struct ShardSetup {
  uint32_t shard = 0, shards = 1;
  uint32_t neurons = 0;
  StdpRule rule;
  ShardConnections connections;
  int32_t trial = 0;
  Traces pre, post;  // every neuron's traces (each shard keeps all of them)
};

// What a shard reports for a checkpoint: its traces and its connections' weights.
struct ShardState {
  int32_t trial = 0;
  Traces pre, post;
  std::vector<WeightChange> weights;
};

// Connection pre->post belongs to shard post % shards.
inline uint32_t owner_shard(uint32_t post, uint32_t shards) { return post % shards; }

// Splits the plastic connections over `shards` shards, starting from `learned`.
std::vector<ShardSetup> make_shard_setups(const Network& net, const std::vector<uint64_t>& plastic_edges,
                                          const StdpRule& rule, uint32_t shards, const PlasticityState& learned);

// The shard-count-independent state from every shard's report (traces from shard 0:
// all shards compute them from the same spikes).
PlasticityState merge_shard_states(const std::vector<ShardState>& states, std::size_t plastic_count,
                                   const std::string& settings);

}  // namespace flysim
