#include "apps/flysim/network_layer.hpp"

#include <caf/io/all.hpp>

#include <chrono>

namespace flysim::app {

void load_network_layer(caf::actor_system_config& cfg) {
  cfg.load<caf::io::middleman>();
  cfg.set("middleman.heartbeat-interval", caf::timespan{std::chrono::seconds(1)});
  cfg.set("middleman.connection-timeout", caf::timespan{std::chrono::seconds(kRemoteSilenceLimitSeconds)});
}

}  // namespace flysim::app
