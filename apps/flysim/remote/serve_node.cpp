#include "apps/flysim/remote/serve_node.hpp"

#include "actors/caf_thread_roles.hpp"

namespace flysim::app {

namespace {
CredentialFiles network_layer_of(caf::actor_system_config& cfg, const std::string& token) {
  register_message_types(cfg);
  CredentialFiles files = load_network_layer(cfg, token);
  name_caf_threads(cfg);
  return files;
}
}  // namespace

ServingSystem::ServingSystem(const std::string& token) : credentials(network_layer_of(cfg, token)), system(cfg) {}

}  // namespace flysim::app
