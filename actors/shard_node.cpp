#include "actors/shard_node.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "actors/plasticity_shard.hpp"

namespace flysim {

shard_node_actor::behavior_type shard_node_behavior(shard_node_actor::stateful_pointer<shard_node_state> self,
                                                    std::string build_version) {
  // Shards whose run ended leave the list, so that the list is what a shutdown stops.
  self->set_down_handler([=](caf::down_msg& msg) {
    auto& shards = self->state.shards;
    shards.erase(std::remove_if(shards.begin(), shards.end(), [&](const plasticity_shard_actor& s) { return s.address() == msg.source; }),
                 shards.end());
  });
  self->set_exit_handler([=](caf::exit_msg& msg) {
    spdlog::info("shard node: stopping {} running shard(s)", self->state.shards.size());
    for (auto& shard : self->state.shards) self->send_exit(shard, msg.reason);
    self->state.shards.clear();
    self->quit(msg.reason);
  });
  return {
      [=](spawn_atom, ShardSetup& setup) -> caf::result<plasticity_shard_actor> {
        spdlog::info("shard node: spawning shard {} of {} ({} plastic connections) for {}", setup.shard + 1, setup.shards,
                     setup.connections.plastic.size(), caf::to_string(self->current_sender()));
        try {
          auto shard = spawn_plasticity_shard(self->system(), std::move(setup), self->current_sender(), ShardThread::pool);
          self->monitor(shard);
          self->state.shards.push_back(shard);
          return shard;
        } catch (const std::exception& e) {
          return fail(std::string("shard node: ") + e.what());
        }
      },
      [=](version_atom) { return build_version; },
  };
}

}  // namespace flysim
