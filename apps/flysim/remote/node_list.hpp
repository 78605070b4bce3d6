#pragma once
// A list of nodes in an option ("HOST:PORT,...,local"): where plasticity shards
// (plasticity.nodes) or a screen's experiments (screen.nodes) run.
#include <cstdint>
#include <string>
#include <vector>

#include "apps/flysim/options/options.hpp"

namespace flysim::app {

// A node of the list: another process at host:port, or this process (host empty).
struct NodeAddress {
  std::string host;  // empty: in this process ('local')
  uint16_t port = 0;
  std::string name() const { return host.empty() ? "local" : host + ":" + std::to_string(port); }
};

// The nodes of option `key`, in order; empty when the option is. An item that is not
// HOST:PORT (port 1..65535) or 'local', or an IPv6 address, is refused naming the option.
std::vector<NodeAddress> parse_node_list(const Options& o, const std::string& key);

// parse_node_list, each node at most once (as written): a screen that took a node twice
// would run that node's engines twice over. A repeated node is refused naming the option.
std::vector<NodeAddress> parse_distinct_node_list(const Options& o, const std::string& key);

}  // namespace flysim::app
