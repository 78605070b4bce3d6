#include "apps/flysim/remote/node_list.hpp"

#include <algorithm>
#include <charconv>

namespace flysim::app {

std::vector<NodeAddress> parse_node_list(const Options& o, const std::string& key) {
  std::vector<NodeAddress> nodes;
  const std::string text = o.text(key);
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (item == "local") {
      nodes.push_back({});
      continue;
    }
    if (item.find('[') != std::string::npos || std::count(item.begin(), item.end(), ':') > 1)
      o.reject(key, "has '" + item + "': IPv6 addresses are not supported; give the node's IPv4 address or host name, e.g. "
                    "127.0.0.1:7000");
    const std::size_t colon = item.rfind(':');
    unsigned port = 0;
    const char* digits = item.data() + (colon == std::string::npos ? item.size() : colon + 1);
    const auto [end, ec] = std::from_chars(digits, item.data() + item.size(), port);
    if (colon == std::string::npos || colon == 0 || ec != std::errc() || end != item.data() + item.size() || port < 1 ||
        port > 65535)
      o.reject(key, "has '" + item + "'; expected HOST:PORT (port 1..65535) or 'local', separated by commas");
    nodes.push_back({item.substr(0, colon), static_cast<uint16_t>(port)});
  }
  return nodes;
}

std::vector<NodeAddress> parse_distinct_node_list(const Options& o, const std::string& key) {
  std::vector<NodeAddress> nodes = parse_node_list(o, key);
  for (auto it = nodes.begin(); it != nodes.end(); ++it)
    if (std::any_of(nodes.begin(), it, [&](const NodeAddress& before) { return before.name() == it->name(); }))
      o.reject(key, "lists '" + it->name() + "' twice; each node takes part once, with all its engines");
  return nodes;
}

}  // namespace flysim::app
