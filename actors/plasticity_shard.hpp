#pragma once
// A plasticity shard: a thin actor around kernels/stdp's StdpShard, spawned by the run
// for local shards or by a shard node (flysim shard) for remote ones.
#include <optional>

#include "kernels/stdp/stdp_shard.hpp"
#include "messages/interfaces.hpp"

namespace flysim {

struct plasticity_shard_state {
  std::optional<stdp::StdpShard> shard;
  static inline const char* name = "plasticity_shard";
};


// Where a shard runs. `own`: a thread of its own (a run's local shards, real work next
// to the engine's pool). `pool`: the actor system's scheduler (a shard node, whose
// cores are all for shards). A node cannot use `own`: the network layer may keep a
// stopped detached shard alive, and ~actor_system would wait for it (docs/CAF-0.17.md).
enum class ShardThread { own, pool };

// `owner`, when given, is monitored: the shard ends when its owner goes down (a run in
// another process that ended or lost its connection). A shard on a thread of its own
// names it fs-shard-N and pins it to cpus.plasticity.
plasticity_shard_actor::behavior_type plasticity_shard_behavior(
    plasticity_shard_actor::stateful_pointer<plasticity_shard_state> self, stdp::StdpShard shard,
    caf::strong_actor_ptr owner, ShardThread thread);

// Throws std::invalid_argument when the setup is inconsistent (StdpShard checks it).
plasticity_shard_actor spawn_plasticity_shard(caf::actor_system& system, ShardSetup setup,
                                              caf::strong_actor_ptr owner = nullptr, ShardThread thread = ShardThread::own);

}  // namespace flysim
