#pragma once
// A small plasticity split for tests that need real shard messages: two shards of a
// six-neuron network with every connection plastic and some traces set (steps 3 and 7),
// and an epoch of spikes after those steps.
#include <vector>

#include "messages/messages.hpp"
#include "model/shard_setup.hpp"

namespace flysim::test {

std::vector<ShardSetup> small_shard_setups();
EpochSpikes small_epoch();

}  // namespace flysim::test
