// flysim shard: serves plasticity shards to runs in other processes (plasticity.nodes).
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/shard_node.hpp"
#include "apps/flysim/commands/commands.hpp"
#include "apps/flysim/options/common_options.hpp"
#include "apps/flysim/remote/listen_options.hpp"
#include "apps/flysim/process/build_version.hpp"
#include "apps/flysim/remote/serve_node.hpp"
#include "apps/flysim/process/stop_signal.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {

// How long the node and its shards get to stop, and how long the whole actor system
// gets before the process ends regardless (ShutdownDeadline).
constexpr std::chrono::seconds kNodeStopLimit{2};
constexpr std::chrono::seconds kShutdownLimit{5};

std::vector<OptionSpec> shard_options() {
  std::vector<OptionSpec> specs = listen_specs("plasticity.token-file");
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
  const ListenRequest listen = listen_request(o, "plasticity.token-file");

  // Before the address is printed: whoever reads it may send SIGTERM at once, and that
  // must stop the node cleanly rather than kill it.
  catch_stop_signals();
  ServingSystem serving(listen.token);
  caf::actor_system& system = serving.system;
  auto node = system.spawn(shard_node_behavior, build_version());
  serve_until_stopped(system, node, listen, {"shard", "plasticity shards", "shard node", "runs", "plasticity.token-file"}, serving.deadline,
                      kShutdownLimit, [&] { stop_node(system, node, kNodeStopLimit); });
  return 0;
}

}  // namespace flysim::app
