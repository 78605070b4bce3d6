#include "apps/flysim/remote/shard_placement.hpp"

#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <map>

#include "actors/plasticity_shard.hpp"
#include "apps/flysim/process/build_version.hpp"
#include "apps/flysim/remote/network_layer.hpp"
#include "model/errors.hpp"

namespace flysim::app {

namespace {
// Throws when the shard node `name` is another build of flysim (results may not depend
// on which process computed them) or does not say which it is.
void refuse_other_build(caf::scoped_actor& owner, const shard_node_actor& node, const std::string& name) {
  std::string theirs, problem;
  owner->request(node, std::chrono::minutes(2), version_atom::value)
      .receive([&](std::string& version) { theirs = std::move(version); }, [&](caf::error& err) { problem = describe_error(err); });
  if (!problem.empty()) throw input_error("plasticity.nodes: " + name + " did not say which flysim it is: " + problem);
  if (const std::string other = build_mismatch(name, theirs); !other.empty()) throw input_error("plasticity.nodes: " + other);
}
}  // namespace

std::vector<plasticity_shard_actor> spawn_shards(caf::actor_system& system, caf::scoped_actor& owner,
                                                 std::vector<ShardSetup> setups, const std::vector<ShardPlace>& places) {
  std::vector<plasticity_shard_actor> shards;
  std::map<std::string, shard_node_actor> nodes;
  for (std::size_t k = 0; k < setups.size(); ++k) {
    const ShardPlace& place = places[k];
    const std::size_t connections = setups[k].connections.plastic.size();
    if (place.host.empty()) {
      shards.push_back(spawn_plasticity_shard(system, std::move(setups[k])));
      spdlog::info("plasticity shard {}/{}: local, {} plastic connections", k + 1, setups.size(), connections);
      continue;
    }
    auto node = nodes.find(place.name());
    if (node == nodes.end()) {
      auto reached = reach_node<shard_node_actor>(system, place.host, place.port);
      if (!reached)
        throw input_error("plasticity.nodes: cannot reach the shard node " + place.name() + ": " +
                          why_unreachable(system, reached.error(), "flysim shard --port=" + std::to_string(place.port), "plasticity.token-file"));
      refuse_other_build(owner, *reached, "the shard node " + place.name());
      node = nodes.emplace(place.name(), *reached).first;
    }
    std::string problem;
    owner->request(node->second, std::chrono::minutes(2), spawn_atom::value, std::move(setups[k]))
        .receive([&](plasticity_shard_actor& shard) { shards.push_back(shard); },
                 [&](caf::error& err) { problem = describe_error(err); });
    if (!problem.empty())
      throw input_error("plasticity.nodes: the shard node " + place.name() + " did not start shard " + std::to_string(k + 1) +
                        ": " + problem);
    spdlog::info("plasticity shard {}/{}: on {}, {} plastic connections", k + 1, setups.size(), place.name(), connections);
  }
  return shards;
}

}  // namespace flysim::app
