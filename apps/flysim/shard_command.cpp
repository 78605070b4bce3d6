// flysim shard: serves plasticity shards to runs in other processes (plasticity.nodes).
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include <iostream>
#include <thread>

#include "actors/shard_node.hpp"
#include "apps/flysim/commands.hpp"
#include "apps/flysim/common_options.hpp"
#include "apps/flysim/network_layer.hpp"
#include "apps/flysim/stop_signal.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {
std::vector<OptionSpec> shard_options() {
  std::vector<OptionSpec> specs = {
      {"port", OptionType::integer, "0", "TCP port to listen on (0: any free port; the one chosen is printed)"},
      {"bind", OptionType::text, "127.0.0.1",
       "address to listen on. Loopback by default: only processes on this machine can connect. Give 0.0.0.0 (or an "
       "interface address) to serve other machines; the connection is neither authenticated nor encrypted"},
  };
  const auto logs = log_options();
  specs.insert(specs.end(), logs.begin(), logs.end());
  return specs;
}
}  // namespace

int shard_command(const std::vector<std::string>& args) {
  const auto specs = shard_options();
  if (print_help_if_asked(args, "flysim shard [--port=P] [--bind=ADDRESS]",
                          "Serves plasticity shards for runs in other processes: a run with plasticity.nodes=HOST:PORT "
                          "places its shards here. Runs until Ctrl-C or SIGTERM; a shard ends when its run ends or its "
                          "connection drops.",
                          specs))
    return 0;
  const Options o = Options::parse(specs, args);
  configure_logging(o);
  const int64_t port = o.integer("port");
  if (port < 0 || port > 65535) o.reject("port", "must be 0..65535");

  caf::actor_system_config cfg;
  register_message_types(cfg);
  load_network_layer(cfg);
  caf::actor_system system{cfg};
  auto node = system.spawn(shard_node_behavior);
  auto published = system.middleman().publish(node, static_cast<uint16_t>(port), o.text("bind").c_str(), true);
  if (!published) {
    caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
    o.reject("port", "cannot listen on " + o.text("bind") + ":" + std::to_string(port) + ": " + system.render(published.error()));
  }
  // stdout carries the address (a script reads the chosen port from it); logs go to stderr.
  std::cout << "flysim shard: serving plasticity shards on " << o.text("bind") << ":" << *published << std::endl;
  catch_stop_signals();
  while (stop_signal() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  spdlog::info("shard node: stopping (signal {})", stop_signal());
  // CAF 0.17 waits forever for a published actor that was not told to exit.
  system.middleman().unpublish(node, *published);
  caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
  return 0;
}

}  // namespace flysim::app
