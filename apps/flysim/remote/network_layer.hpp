#pragma once
// CAF's network layer between flysim processes, set up the same way by `flysim run`
// (plasticity.nodes), `flysim shard`, `flysim screen` (screen.nodes) and `flysim worker`:
// BASP over TLS with peers authenticated by a shared token (token_certificate.hpp,
// user_token.hpp).
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/all.hpp>
// Not caf/openssl/all.hpp: 0.17.6's openssl/unpublish.hpp names unpublish_atom_v, which
// only 0.18 has, and does not compile.
#include <caf/openssl/manager.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/openssl/remote_actor.hpp>

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

// Publishes `node` (a typed actor handle) on `address`:`port` (TLS when
// authenticates_peers); the port bound.
template <class Handle>
caf::expected<uint16_t> publish_node(caf::actor_system& system, const Handle& node, uint16_t port, const std::string& address) {
  if (authenticates_peers(system)) return caf::openssl::publish(node, port, address.c_str(), true);
  return system.middleman().publish(node, port, address.c_str(), true);
}

// Connects to the node of type `Handle` at `host`:`port` (TLS when authenticates_peers).
template <class Handle>
caf::expected<Handle> reach_node(caf::actor_system& system, const std::string& host, uint16_t port) {
  if (authenticates_peers(system)) return caf::openssl::remote_actor<Handle>(system, host, port);
  return system.middleman().remote_actor<Handle>(host, port);
}

// Why a node could not be reached, in words, for an error that names the node: a
// handshake that failed after the TCP connection stood (either side may break it off)
// is, in practice, a token mismatch (`token_option` is the option that gives this
// side's token); otherwise CAF's error and whether `serve_command` ("flysim shard
// --port=7000") runs there.
std::string why_unreachable(caf::actor_system& system, const caf::error& err, const std::string& serve_command,
                            const std::string& token_option);

// Ends a publication made by publish_node.
template <class Handle>
void unpublish_node(caf::actor_system& system, const Handle& node, uint16_t port) {
  if (authenticates_peers(system))
    caf::make_function_view(system.openssl_manager().actor_handle())(caf::unpublish_atom::value, node.address(), port);
  else
    system.middleman().unpublish(node, port);
}

}  // namespace flysim::app
