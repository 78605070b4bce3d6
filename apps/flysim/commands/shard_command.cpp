// flysim shard: serves plasticity shards to runs in other processes (plasticity.nodes).
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include <iostream>
#include <thread>

#include "actors/caf_thread_roles.hpp"
#include "actors/shard_node.hpp"
#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/remote/listen_address.hpp"
#include "apps/flysim/remote/network_layer.hpp"
#include "apps/flysim/process/shutdown_deadline.hpp"
#include "apps/flysim/process/stop_signal.hpp"
#include "apps/flysim/remote/token_certificate.hpp"
#include "apps/flysim/remote/user_token.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {

// How long the node and its shards get to stop, and how long the whole actor system
// gets before the process ends regardless (ShutdownDeadline).
constexpr std::chrono::seconds kNodeStopLimit{2};
constexpr std::chrono::seconds kShutdownLimit{5};

std::vector<OptionSpec> shard_options() {
  std::vector<OptionSpec> specs = {
      {"port", OptionType::integer, "0", "TCP port to listen on (0: any free port; the one chosen is printed)"},
      {"bind", OptionType::text, "127.0.0.1",
       "IPv4 address to listen on. Loopback by default: only processes on this machine can connect. Any other "
       "address (0.0.0.0: every interface) needs token-file"},
      {"token-file", OptionType::path, "",
       "file holding a secret of at least 16 characters that the runs give as plasticity.token-file: connections "
       "are TLS-encrypted and only peers with the same token get through. Required unless bind is loopback; without "
       "it the node takes this user's own token (~/.cache/flysim/shard-token), as this user's runs do"},
  };
  const auto logs = log_options();
  specs.insert(specs.end(), logs.begin(), logs.end());
  return specs;
}

// Tells the node to stop (it stops its shards) and waits for it, at most `limit`.
void stop_node(caf::actor_system& system, const shard_node_actor& node, std::chrono::seconds limit) {
  caf::scoped_actor self{system};
  self->monitor(node);
  self->send_exit(node, caf::exit_reason::user_shutdown);
  self->receive([](caf::down_msg&) {},
                caf::after(limit) >> [&] { spdlog::warn("shard node: the node did not stop within {} s", limit.count()); });
}

}  // namespace

int shard_command(const std::vector<std::string>& args) {
  const auto specs = shard_options();
  if (print_help_if_asked(args, "flysim shard [--port=P] [--bind=ADDRESS --token-file=FILE]",
                          "Serves plasticity shards for runs in other processes: a run with plasticity.nodes=HOST:PORT "
                          "places its shards here. Runs until Ctrl-C or SIGTERM; a shard ends when its run ends or its "
                          "connection drops.",
                          specs))
    return 0;
  const Options o = Options::parse(specs, args);
  configure_logging(o);
  const int64_t port = o.integer("port");
  if (port < 0 || port > 65535) o.reject("port", "must be 0..65535");
  const std::string bind = o.text("bind");
  if (looks_like_ipv6(bind))
    o.reject("bind", "is an IPv6 address; flysim shard listens on IPv4 only: give 127.0.0.1 (this machine), 0.0.0.0 "
                     "(every interface) or one interface's IPv4 address");
  if (!is_ipv4_literal(bind)) o.reject("bind", "is not an IPv4 address such as 127.0.0.1 or 0.0.0.0");
  std::string token;
  if (!o.text("token-file").empty())
    token = read_token_file(o.text("token-file"), "token-file");
  else if (!is_ipv4_loopback(bind))
    o.reject("bind", "is reachable from other machines, so the node needs --token-file=FILE (a secret that the runs give "
                     "as plasticity.token-file); without one anyone who can reach the port could use it");
  else
    token = user_token();

  // Before the address is printed: whoever reads it may send SIGTERM at once, and that
  // must stop the node cleanly rather than kill it.
  catch_stop_signals();
  // Declared first so that it outlives the actor system's destructor, which it bounds.
  ShutdownDeadline deadline;
  caf::actor_system_config cfg;
  register_message_types(cfg);
  CredentialFiles credentials = load_network_layer(cfg, token);
  // Its shards run on CAF's workers: fs-caf-N in pidstat -t.
  name_caf_threads(cfg);
  caf::actor_system system{cfg};
  auto node = system.spawn(shard_node_behavior);
  auto published = publish_node(system, node, static_cast<uint16_t>(port), bind);
  if (!published) {
    caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
    const std::string why = why_cannot_listen(bind, static_cast<uint16_t>(port));
    throw input_error("cannot listen on " + bind + ":" + std::to_string(port) + ": " +
                      (why.empty() ? system.render(published.error()) : why));
  }
  // stdout carries the address (a script reads the chosen port from it); logs go to stderr.
  std::cout << "flysim shard: serving plasticity shards on " << bind << ":" << *published << std::endl;
  spdlog::info("shard node: TLS; only runs with the token of {} (plasticity.token-file) get through",
               o.text("token-file").empty() ? user_token_path() + ", this user's runs on this machine," : o.text("token-file"));
  while (stop_signal() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  spdlog::info("shard node: stopping (signal {})", stop_signal());
  deadline.arm(kShutdownLimit, "shard node", 0);
  // CAF 0.17 waits forever for a published actor that was not told to exit.
  unpublish_node(system, node, *published);
  stop_node(system, node, kNodeStopLimit);
  spdlog::info("shard node: stopped");
  return 0;
}

}  // namespace flysim::app
