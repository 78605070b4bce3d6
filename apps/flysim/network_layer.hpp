#pragma once
// CAF's network layer for remote plasticity shards, set up the same way by `flysim run`
// (when plasticity.nodes names a node) and `flysim shard`.
#include <caf/actor_system_config.hpp>

namespace flysim::app {

// How long a connection may stay silent before it counts as broken: both sides send a
// heartbeat every second, so only a peer that stopped (a frozen process, a machine or
// network that went away without closing the connection) stays silent this long.
inline constexpr int kRemoteSilenceLimitSeconds = 10;

// Loads the middleman with heartbeats and kRemoteSilenceLimitSeconds; a broken
// connection then reaches the sim loop as a down message from the node's shards.
void load_network_layer(caf::actor_system_config& cfg);

}  // namespace flysim::app
