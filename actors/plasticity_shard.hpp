#pragma once
// A plasticity shard: a thin actor around kernels/stdp's StdpShard. Spawned detached
// (each shard is real work on its own thread), by the run for local shards or by a
// shard node (flysim shard) for remote ones.
#include <optional>

#include "kernels/stdp/stdp_shard.hpp"
#include "messages/interfaces.hpp"

namespace flysim {

struct plasticity_shard_state {
  std::optional<stdp::StdpShard> shard;
  static inline const char* name = "plasticity_shard";
};

// `owner`, when given, is monitored: the shard ends when its owner goes down (a run in
// another process that ended or lost its connection).
plasticity_shard_actor::behavior_type plasticity_shard_behavior(
    plasticity_shard_actor::stateful_pointer<plasticity_shard_state> self, stdp::StdpShard shard,
    caf::strong_actor_ptr owner);

// Throws std::invalid_argument when the setup is inconsistent (StdpShard checks it).
plasticity_shard_actor spawn_plasticity_shard(caf::actor_system& system, ShardSetup setup,
                                              caf::strong_actor_ptr owner = nullptr);

}  // namespace flysim
