#include "actors/plasticity_shard.hpp"

#include "host/thread_placement.hpp"

namespace flysim {

plasticity_shard_actor::behavior_type plasticity_shard_behavior(
    plasticity_shard_actor::stateful_pointer<plasticity_shard_state> self, stdp::StdpShard shard,
    caf::strong_actor_ptr owner, ShardThread thread) {
  // A shard with a thread of its own names and places it; on a pool the thread is CAF's.
  if (thread == ShardThread::own) enter_role(ThreadRole::plasticity, shard.shard_index());
  self->state.shard.emplace(std::move(shard));
  if (owner) {
    self->monitor(owner);
    self->set_down_handler([=](caf::down_msg&) { self->quit(); });
  }
  return {
      [=](learn_atom, const EpochSpikes& epoch) {
        // A bad epoch ends the shard with the reason; whoever monitors it (the sim loop)
        // stops the run with that message.
        try {
          self->state.shard->observe(epoch.trial, epoch.spikes);
        } catch (const std::exception& e) {
          self->quit(fail(std::string("plasticity shard: ") + e.what()));
        }
      },
      [=](flush_atom, int32_t trial, int32_t first) { return WeightUpdate{trial, first, self->state.shard->flush()}; },
      [=](export_atom) { return self->state.shard->state(); },
  };
}

plasticity_shard_actor spawn_plasticity_shard(caf::actor_system& system, ShardSetup setup, caf::strong_actor_ptr owner,
                                              ShardThread thread) {
  stdp::StdpShard shard(std::move(setup));
  if (thread == ShardThread::pool) return system.spawn(plasticity_shard_behavior, std::move(shard), std::move(owner), thread);
  return system.spawn<caf::detached>(plasticity_shard_behavior, std::move(shard), std::move(owner), thread);
}

}  // namespace flysim
