#include "apps/flysim/remote/network_layer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

#include "apps/flysim/process/build_version.hpp"
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

std::string why_unreachable(caf::actor_system& system, const caf::error& err, const std::string& serve_command,
                            const std::string& token_option) {
  // A token mismatch fails the TLS handshake, reported by timing alone as one of two
  // errors: disconnect_during_handshake when the node's answer comes after CAF's first
  // SSL_connect, a cannot_connect_to_node without context when it comes before (a TCP
  // connection that failed has its reason as context: "ip_connect failed").
  const bool tls_handshake_failed =
      authenticates_peers(system) && err == caf::sec::cannot_connect_to_node && err.context().empty();
  if (err == caf::sec::disconnect_during_handshake || tls_handshake_failed)
    return "the handshake failed: its --token-file and this side's " + token_option +
           " differ, only one side has a token, or what listens there is not a flysim node";
  // The node's actor answers other messages than the one asked for: another kind of node,
  // or another build.
  if (err == caf::sec::unexpected_actor_messaging_interface)
    return "what listens there is not `" + serve_command + "` of this build: a flysim node of another kind (a worker where a "
           "shard node is asked for, or the reverse), or another build of flysim than this one (" + build_version() +
           "; `flysim version` says which; run the same build on both)";
  return system.render(err) + " (is `" + serve_command + "` running there" +
         (authenticates_peers(system) ? ", with --token-file holding the same token as " + token_option + "?)"
                                      : ", without --token-file?)");
}

}  // namespace flysim::app
