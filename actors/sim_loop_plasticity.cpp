// The sim loop's side of plasticity (kernels/stdp/README.md): period flushes, the
// weight updates' fixed apply steps, and the shards' health.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "actors/sim_loop_ops.hpp"

namespace flysim::sim_loop_ops {

void stop_shards(self_ptr self) {
  for (auto& shard : self->state.plan.plasticity.shards) self->send_exit(shard, caf::exit_reason::user_shutdown);
}

// The end of a plasticity period: every shard reports the weights it changed; the
// merged update waits in st.weights for its apply position.
void request_period_weights(self_ptr self, int32_t trial, int32_t end) {
  auto& st = self->state;
  const auto& shards = st.plan.plasticity.shards;
  const int32_t first = end - 1 - (end - 1) % st.plan.plasticity.period_steps;
  st.weights.push_back({weights_apply_position(trial, end, st.plan), shards.size(), WeightUpdate{trial, first, {}}});
  PendingWeights* pending = &st.weights.back();
  for (const auto& shard : shards)
    self->request(shard, caf::infinite, flush_atom::value, trial, first).then([=](WeightUpdate& update) {
      // Concatenated as the answers arrive, not sorted: shards own disjoint connections,
      // so the order of the writes cannot change the weights the engine ends up with.
      auto& changes = pending->update.changes;
      changes.insert(changes.end(), update.changes.begin(), update.changes.end());
      if (--pending->awaiting == 0) {
        issue(self);
        finish_if_done(self);
      }
    }, on_error(self));
}

// The sim loop waits while an update is awaited: its place is fixed, whatever the
// shards' speed.
bool apply_due_weights(self_ptr self) {
  auto& st = self->state;
  while (!st.weights.empty() && st.weights.front().apply_at <= st.issued) {
    PendingWeights& front = st.weights.front();
    if (front.awaiting > 0) return false;
    st.weight_changes += front.update.changes.size();
    st.applied_weights.add(
        {front.update.trial, front.update.first, st.issued.trial, st.issued.step, front.update.changes.size()});
    spdlog::debug("plasticity: {} weight changes of the period from trial {} step {} applied at trial {} step {}",
                  front.update.changes.size(), front.update.trial, front.update.first, st.issued.trial, st.issued.step);
    ++st.in_flight;
    self->request(st.engine, caf::infinite, weights_atom::value, std::move(front.update)).then([=](weights_atom) {
      --self->state.in_flight;
      finish_if_done(self);
    }, on_error(self));
    st.weights.pop_front();
  }
  return true;
}

void add_plasticity_summary(self_ptr self, RunSummary& summary) {
  const auto& st = self->state;
  summary.weight_updates = st.applied_weights.count();
  summary.applied = st.applied_weights.items();
}

bool period_not_ended_yet(self_ptr self) {
  const auto& st = self->state;
  if (st.plan.plasticity.shards.empty()) return false;
  // The first period not yet flushed is the one holding st.done (its flush is queued
  // when the epoch that ends it comes back); a finished trial's next is the next trial's first.
  const int32_t period = st.plan.plasticity.period_steps, trial_steps = st.plan.steps_per_trial;
  RunPosition d = st.done;
  if (d.step >= trial_steps) d = {d.trial + 1, 0};
  if (d.trial >= st.plan.trials) return false;
  const auto end = static_cast<int32_t>(std::min<int64_t>((int64_t{d.step} / period + 1) * period, trial_steps));
  return !(st.issued < weights_apply_position(d.trial, end, st.plan));
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
    std::string where = st.checkpoint_files.empty()
                            ? "no checkpoint was written; the run must start again"
                            : "the last checkpoint is " + st.checkpoint_files.back() + ": continue with --restore=" +
                                  st.checkpoint_files.back();
    abort_run(self, fail("plasticity shard " + std::to_string(k + 1) + " of " + std::to_string(shards.size()) + " (" +
                         st.plan.plasticity.places[k] + ") went away at trial " + std::to_string(st.done.trial) +
                         " step " + std::to_string(st.done.step) + " (" + describe_error(msg.reason) + "); " + where));
  });
  // A restored run's learned-but-unapplied weights: the update of the period that ended
  // at the checkpoint (a period boundary), due one period later.
  if (!st.plan.plasticity.shards.empty() && st.plan.start.step > 0)
    st.weights.push_back({weights_apply_position(st.plan.start.trial, st.plan.start.step, st.plan), 0,
                          WeightUpdate{st.plan.start.trial, st.plan.start.step - st.plan.plasticity.period_steps,
                                       st.plan.plasticity.restored_pending}});
}

}  // namespace flysim::sim_loop_ops
