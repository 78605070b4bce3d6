#pragma once
// Spawns a run's plasticity shards where plasticity.nodes puts them: in this process,
// or on `flysim shard` nodes through CAF's middleman.
#include <caf/all.hpp>

#include <vector>

#include "apps/flysim/options/plasticity_options.hpp"
#include "messages/interfaces.hpp"

namespace flysim::app {

// `owner` asks the nodes for the remote shards and must live as long as the run: a
// remote shard ends when its owner goes down. Throws input_error naming a node that
// cannot be reached or refuses.
std::vector<plasticity_shard_actor> spawn_shards(caf::actor_system& system, caf::scoped_actor& owner,
                                                 std::vector<ShardSetup> setups, const std::vector<ShardPlace>& places);

}  // namespace flysim::app
