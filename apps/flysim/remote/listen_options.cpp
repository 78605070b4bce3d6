#include "apps/flysim/remote/listen_options.hpp"

#include "apps/flysim/remote/listen_address.hpp"
#include "apps/flysim/remote/token_certificate.hpp"
#include "apps/flysim/remote/user_token.hpp"

namespace flysim::app {

std::vector<OptionSpec> listen_specs(const std::string& peer_token_key) {
  return {
      {"port", OptionType::integer, "0", "TCP port to listen on (0: any free port; the one chosen is printed)"},
      {"bind", OptionType::text, "127.0.0.1",
       "IPv4 address to listen on. Loopback by default: only processes on this machine can connect. Any other "
       "address (0.0.0.0: every interface) needs token-file"},
      {"token-file", OptionType::path, "",
       "file holding a secret of at least 16 characters that the peers give as " + peer_token_key +
           ": connections are TLS-encrypted and only peers with the same token get through. Required unless bind is "
           "loopback; without it this process takes this user's own token (~/.cache/flysim/shard-token), as this "
           "user's peers do"},
  };
}

ListenRequest listen_request(const Options& o, const std::string& peer_token_key) {
  ListenRequest r;
  const int64_t port = o.integer("port");
  if (port < 0 || port > 65535) o.reject("port", "must be 0..65535");
  r.port = static_cast<uint16_t>(port);
  r.bind = o.text("bind");
  if (looks_like_ipv6(r.bind))
    o.reject("bind", "is an IPv6 address; flysim listens on IPv4 only: give 127.0.0.1 (this machine), 0.0.0.0 "
                     "(every interface) or one interface's IPv4 address");
  if (!is_ipv4_literal(r.bind)) o.reject("bind", "is not an IPv4 address such as 127.0.0.1 or 0.0.0.0");
  if (!o.text("token-file").empty()) {
    r.token = read_token_file(o.text("token-file"), "token-file");
    r.token_from = o.text("token-file");
  } else if (!is_ipv4_loopback(r.bind)) {
    o.reject("bind", "is reachable from other machines, so this needs --token-file=FILE (a secret that the peers give "
                     "as " + peer_token_key + "); without one anyone who can reach the port could use it");
  } else {
    r.token = user_token();
    r.token_from = user_token_path() + " (this user's own: only this user's processes on this machine read it)";
  }
  return r;
}

input_error cannot_listen(caf::actor_system& system, const ListenRequest& listen, const caf::error& err) {
  const std::string why = why_cannot_listen(listen.bind, listen.port);
  return input_error("cannot listen on " + listen.bind + ":" + std::to_string(listen.port) + ": " +
                     (why.empty() ? system.render(err) : why));
}

}  // namespace flysim::app
