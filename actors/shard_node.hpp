#pragma once
// A shard node: what `flysim shard` publishes. Runs in other processes ask it to spawn
// plasticity shards (plasticity.nodes); each shard ends when the run that asked for it
// goes down, and all of them end with the node.
#include <string>
#include <vector>

#include "messages/interfaces.hpp"

namespace flysim {

struct shard_node_state {
  std::vector<plasticity_shard_actor> shards;
  static inline const char* name = "shard_node";
};

// `build_version`: what the node answers a version request with (the program's build).
shard_node_actor::behavior_type shard_node_behavior(shard_node_actor::stateful_pointer<shard_node_state> self,
                                                    std::string build_version);

}  // namespace flysim
