// The sim loop's checkpoints: a snapshot assembled from the engine, the recorder and the
// plasticity shards at one boundary, then written by the checkpointer.
#include <spdlog/spdlog.h>

#include <memory>

#include "actors/sim_loop_ops.hpp"

namespace flysim::sim_loop_ops {

namespace {
void write_checkpoint(self_ptr self, Snapshot& snapshot, uint64_t live_id, bool asked_for) {
  auto& st = self->state;
  const RunPosition at{snapshot.engine.trial, snapshot.engine.next_step};
  self->request(st.checkpointer, caf::infinite, checkpoint_atom::value, std::move(snapshot), asked_for).then([=](std::string& path) {
    spdlog::info("checkpoint written: {}", path);
    self->state.checkpoints.written(path);
    answer_live(self, live_id, {true, "checkpoint written: " + path, at.trial, at.step, path});
    finish_if_done(self);
  }, [=](caf::error& err) {
    // A checkpoint that cannot be written costs the run nothing it has computed.
    const std::string why = describe_error(err);
    spdlog::error("trial {} step {}: {}; the run goes on", at.trial, at.step, why);
    self->state.checkpoints.failed();
    answer_live(self, live_id, {false, why, at.trial, at.step, ""});
    finish_if_done(self);
  });
}

// A snapshot being assembled: the engine's state is in; the recorder's position and the
// shards' states are on their way.
struct SnapshotParts {
  uint64_t live_id = 0;
  bool asked_for = false;
  Snapshot snapshot;
  std::vector<ShardState> shards;
  std::size_t awaiting = 0;
};

void snapshot_part_done(self_ptr self, const std::shared_ptr<SnapshotParts>& parts) {
  if (--parts->awaiting > 0) return;
  const PlasticityPlan& plasticity = self->state.plan.plasticity;
  if (!plasticity.shards.empty()) {
    try {
      parts->snapshot.plasticity = merge_shard_states(parts->shards, plasticity.plastic_count, plasticity.settings);
    } catch (const std::exception& e) {
      abort_run(self, fail(std::string("checkpoint: ") + e.what()));
      return;
    }
  }
  write_checkpoint(self, parts->snapshot, parts->live_id, parts->asked_for);
}

}  // namespace

// A checkpoint: the engine's state at this boundary; then, in the same handler, before
// any later epoch is forwarded, the recorder's position and the shards' traces and
// weights (all of them have seen exactly the epochs before the boundary); then the
// file, written by the checkpointer.
void request_checkpoint(self_ptr self, uint64_t live_id, bool asked_for) {
  auto& st = self->state;
  const uint64_t generation = st.window.request();
  self->request(st.engine.actor, caf::infinite, export_atom::value).then([=](std::vector<EngineState>& batch) mutable {
    auto& st = self->state;
    st.window.reply(generation);
    st.checkpoints.writing();
    const auto& shards = st.plan.plasticity.shards;
    auto parts = std::make_shared<SnapshotParts>();
    parts->live_id = live_id;
    parts->asked_for = asked_for;
    parts->snapshot.plan = st.plan.trial_plan;
    parts->snapshot.batch = st.plan.batch;
    set_batch_states(parts->snapshot, std::move(batch));
    parts->shards.resize(shards.size());
    parts->awaiting = 1 + shards.size();
    self->request(st.recorder, caf::infinite, position_atom::value).then([=](RecorderPosition& position) {
      parts->snapshot.recorder = std::move(position);
      snapshot_part_done(self, parts);
    }, on_error(self));
    for (std::size_t k = 0; k < shards.size(); ++k)
      self->request(shards[k], caf::infinite, export_atom::value).then([=](ShardState& shard) {
        parts->shards[k] = std::move(shard);
        snapshot_part_done(self, parts);
      }, on_error(self));
  }, on_error(self));
}

}  // namespace flysim::sim_loop_ops
