// The sim loop's side of plasticity (kernels/stdp/README.md): period flushes, the
// weight updates' fixed apply steps, and the shards' health.
#include <spdlog/spdlog.h>

#include "actors/sim_loop_ops.hpp"

namespace flysim::sim_loop_ops {

void stop_shards(self_ptr self) {
  for (auto& shard : self->state.plan.plasticity.shards) self->send_exit(shard, caf::exit_reason::user_shutdown);
}

// The end of a plasticity period: every shard reports the weights it changed; the
// merged update waits in the weight pipeline for its apply position.
void request_period_weights(self_ptr self, int32_t trial, int32_t end) {
  auto& st = self->state;
  const auto& shards = st.plan.plasticity.shards;
  const WeightPipeline::Flushed flushed = st.weights.await_period(trial, end, shards.size());
  for (const auto& shard : shards)
    self->request(shard, caf::infinite, flush_atom::value, trial, flushed.first).then([=](WeightUpdate& update) {
      if (self->state.weights.add(flushed.ticket, update.changes)) {
        issue(self);
        finish_if_done(self);
      }
    }, on_error(self));
}

bool apply_due_weights(self_ptr self) {
  auto& st = self->state;
  const RunPosition at = st.window.issued();
  for (;;) {
    switch (st.weights.due(at)) {
      case WeightPipeline::Due::nothing:
        return true;
      case WeightPipeline::Due::awaited:
        return false;
      case WeightPipeline::Due::ready:
        break;
    }
    WeightUpdate update = st.weights.take(at);
    spdlog::debug("plasticity: {} weight changes of the period from trial {} step {} applied at trial {} step {}",
                  update.changes.size(), update.trial, update.first, at.trial, at.step);
    const uint64_t generation = st.window.request();
    self->request(st.engine.actor, caf::infinite, weights_atom::value, std::move(update)).then([=](weights_atom) {
      self->state.window.reply(generation);
      finish_if_done(self);
    }, on_error(self));
  }
}

void add_plasticity_summary(self_ptr self, RunSummary& summary) {
  const auto& st = self->state;
  summary.weight_updates = st.weights.applied().count();
  summary.applied = st.weights.applied().items();
}

void watch_shards(self_ptr self) {
  auto& st = self->state;
  // A shard that goes away (its node's process ended, the connection broke, or the
  // shard failed) stops the run: without it, what is learned would depend on timing.
  // The checkpoints written so far stay; the message says where to continue.
  for (const auto& shard : st.plan.plasticity.shards) self->monitor(shard);
  self->set_down_handler([=](caf::down_msg& msg) {
    auto& st = self->state;
    if (st.finishing) return;
    const auto& shards = st.plan.plasticity.shards;
    std::size_t k = 0;
    while (k < shards.size() && shards[k].address() != msg.source) ++k;
    if (k == shards.size()) return;
    const std::string last = st.checkpoints.last();
    const std::string where = last.empty() ? "no checkpoint was written; the run must start again"
                                           : "the last checkpoint is " + last + ": continue with --restore=" + last;
    abort_run(self, fail("plasticity shard " + std::to_string(k + 1) + " of " + std::to_string(shards.size()) + " (" +
                         st.plan.plasticity.places[k] + ") went away at trial " + std::to_string(st.window.done().trial) +
                         " step " + std::to_string(st.window.done().step) + " (" + describe_error(msg.reason) + "); " + where));
  });
  // A restored run's learned-but-unapplied weights: the update of the period that ended
  // at the checkpoint (a period boundary), due one period later.
  if (!st.plan.plasticity.shards.empty() && st.plan.start.step > 0)
    st.weights.restore(st.plan.start, st.plan.plasticity.restored_pending);
}

}  // namespace flysim::sim_loop_ops
