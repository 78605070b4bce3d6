#include "apps/flysim/remote/network_layer.hpp"

#include <caf/io/all.hpp>
// Not caf/openssl/all.hpp: 0.17.6's openssl/unpublish.hpp names unpublish_atom_v, which
// only 0.18 has, and does not compile.
#include <caf/openssl/manager.hpp>
#include <caf/openssl/publish.hpp>
#include <caf/openssl/remote_actor.hpp>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

#include "apps/flysim/remote/token_certificate.hpp"

namespace flysim::app {

CredentialFiles::~CredentialFiles() {
  for (int fd : fds_) ::close(fd);
}

std::string CredentialFiles::add(const std::string& name, const std::string& bytes) {
  const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error("memfd_create failed for " + name);
  fds_.push_back(fd);
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) throw std::runtime_error("cannot write the memory file " + name);
    done += static_cast<std::size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

CredentialFiles load_network_layer(caf::actor_system_config& cfg, const std::string& token) {
  cfg.load<caf::io::middleman>();
  cfg.set("middleman.heartbeat-interval", caf::timespan{std::chrono::seconds(1)});
  cfg.set("middleman.connection-timeout", caf::timespan{std::chrono::seconds(kRemoteSilenceLimitSeconds)});
  CredentialFiles files;
  if (token.empty()) return files;
  const TokenCertificate credentials = token_certificate(token);
  cfg.openssl_certificate = files.add("flysim-token-certificate", credentials.certificate_pem);
  cfg.openssl_key = files.add("flysim-token-key", credentials.private_key_pem);
  // The certificate is its own CA: a peer is trusted when it presents this very one.
  cfg.openssl_cafile = cfg.openssl_certificate;
  cfg.load<caf::openssl::manager>();
  return files;
}

bool authenticates_peers(caf::actor_system& system) { return system.has_openssl_manager(); }

caf::expected<uint16_t> publish_node(caf::actor_system& system, const shard_node_actor& node, uint16_t port,
                                     const std::string& address) {
  if (authenticates_peers(system)) return caf::openssl::publish(node, port, address.c_str(), true);
  return system.middleman().publish(node, port, address.c_str(), true);
}

caf::expected<shard_node_actor> reach_node(caf::actor_system& system, const std::string& host, uint16_t port) {
  if (authenticates_peers(system)) return caf::openssl::remote_actor<shard_node_actor>(system, host, port);
  return system.middleman().remote_actor<shard_node_actor>(host, port);
}

void unpublish_node(caf::actor_system& system, const shard_node_actor& node, uint16_t port) {
  if (authenticates_peers(system))
    caf::make_function_view(system.openssl_manager().actor_handle())(caf::unpublish_atom::value, node.address(), port);
  else
    system.middleman().unpublish(node, port);
}

}  // namespace flysim::app
