#pragma once
// What a serving process (flysim shard, flysim worker) does once its node actor exists:
// publish it where the listen options say, print the address, wait for a stop signal,
// then unpublish it and stop it within the shutdown deadline.
#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <string>
#include <thread>

#include "apps/flysim/process/shutdown_deadline.hpp"
#include "apps/flysim/process/stop_signal.hpp"
#include "apps/flysim/remote/listen_options.hpp"
#include "apps/flysim/remote/network_layer.hpp"

namespace flysim::app {

// A serving process's actor system on CAF's network layer with `token`, its threads named
// (fs-caf-N in pidstat -t); the shutdown deadline is declared first so that it outlives
// the system's destructor, which it bounds.
struct ServingSystem {
  explicit ServingSystem(const std::string& token);
  ShutdownDeadline deadline;
  caf::actor_system_config cfg;
  CredentialFiles credentials;
  caf::actor_system system;
};

struct ServedNode {
  std::string command;     // "shard": stdout says "flysim shard: serving WHAT on ADDRESS:PORT"
  std::string what;        // "plasticity shards"
  std::string log_name;    // "shard node": the log lines' prefix
  std::string peers;       // "runs": who gets through with the token
  std::string token_key;   // the peers' option for the token
};

// Publishes `node`, serves until a stop signal, then arms `deadline` (`limit`), ends the
// publication and calls `stop` (which tells the node to exit). Throws cannot_listen's
// error when the port cannot be bound.
template <class Handle>
void serve_until_stopped(caf::actor_system& system, const Handle& node, const ListenRequest& listen, const ServedNode& words,
                         ShutdownDeadline& deadline, std::chrono::seconds limit, const std::function<void()>& stop) {
  auto published = publish_node(system, node, listen.port, listen.bind);
  if (!published) {
    caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
    throw cannot_listen(system, listen, published.error());
  }
  // stdout carries the address (a script reads the chosen port from it); logs go to stderr.
  std::cout << "flysim " << words.command << ": serving " << words.what << " on " << listen.bind << ":" << *published << std::endl;
  spdlog::info("{}: TLS; only {} that give the token in {} (as {}) get through", words.log_name, words.peers,
               listen.token_from, words.token_key);
  while (stop_signal() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  spdlog::info("{}: stopping (signal {})", words.log_name, stop_signal());
  deadline.arm(limit, words.log_name, 0);
  // CAF 0.17 waits forever for a published actor that was not told to exit.
  unpublish_node(system, node, *published);
  stop();
  spdlog::info("{}: stopped", words.log_name);
}

}  // namespace flysim::app
