#pragma once
// CAF's network layer for remote plasticity shards, set up the same way by `flysim run`
// (when plasticity.nodes names a node) and `flysim shard`: BASP over TLS with peers
// authenticated by a shared token (token_certificate.hpp, user_token.hpp).
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include <string>
#include <vector>

#include "messages/interfaces.hpp"

namespace flysim::app {

// How long a connection may stay silent before it counts as broken: both sides send a
// heartbeat every second, so only a peer that stopped (a frozen process, a machine or
// network that went away without closing the connection) stays silent this long.
inline constexpr int kRemoteSilenceLimitSeconds = 10;

// The token's certificate and key as memory files (memfd) that CAF's OpenSSL module
// opens by path (/proc/self/fd/N) for every connection: nothing is written to disk.
// Must outlive the actor system.
class CredentialFiles {
 public:
  CredentialFiles() = default;
  CredentialFiles(CredentialFiles&& other) noexcept : fds_(std::move(other.fds_)) { other.fds_.clear(); }
  CredentialFiles& operator=(CredentialFiles&&) = delete;
  CredentialFiles(const CredentialFiles&) = delete;
  ~CredentialFiles();
  // A memory file holding `bytes`; returns its path.
  std::string add(const std::string& name, const std::string& bytes);

 private:
  std::vector<int> fds_;
};

// Loads the middleman with heartbeats and kRemoteSilenceLimitSeconds; a broken
// connection then reaches the sim loop as a down message from the node's shards.
// With a token (read_token_file), also CAF's OpenSSL module with the token's
// certificate as the only one trusted. Keep the result until the system is gone.
[[nodiscard]] CredentialFiles load_network_layer(caf::actor_system_config& cfg, const std::string& token = "");

// True when load_network_layer was given a token.
bool authenticates_peers(caf::actor_system& system);

// Publishes the node on `address`:`port` (TLS when authenticates_peers); the port bound.
caf::expected<uint16_t> publish_node(caf::actor_system& system, const shard_node_actor& node, uint16_t port,
                                     const std::string& address);

// Connects to the node at `host`:`port` (TLS when authenticates_peers).
caf::expected<shard_node_actor> reach_node(caf::actor_system& system, const std::string& host, uint16_t port);

// Ends a publication made by publish_node.
void unpublish_node(caf::actor_system& system, const shard_node_actor& node, uint16_t port);

}  // namespace flysim::app
