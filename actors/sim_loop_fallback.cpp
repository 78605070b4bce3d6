// The sim loop's answer to a failing engine (a GPU that errs mid-run): the state of the
// last in-memory snapshot goes to a new CPU pool, which recomputes from there; what the
// failed engine had already delivered is recorded once (actors/README.md).
#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include "actors/engine_actor.hpp"
#include "actors/sim_loop_ops.hpp"

namespace flysim::sim_loop_ops {

void take_fallback_if_due(self_ptr self) {
  auto& st = self->state;
  if (!st.engine_may_fail || st.plan.fallback_every_steps <= 0 || !st.plan.plasticity.shards.empty()) return;
  const int64_t at_steps = steps_to(st.issued, st.schedule->geometry());
  // Due by step, not by "no snapshot held yet", so one in flight is not asked for twice.
  if (at_steps < st.next_fallback_steps) return;
  st.next_fallback_steps = at_steps + st.plan.fallback_every_steps;
  const RunPosition at = st.issued;
  if (at.step == 0) {
    // A trial's first epoch: its trials start at rest, a state known without asking.
    st.fallback = FallbackPoint{at, {}};
    return;
  }
  const uint64_t generation = st.engine_generation;
  ++st.in_flight;
  // Sent before the epoch at `at`: the engine's mailbox keeps the order.
  self->request(st.engine, caf::infinite, export_atom::value).then(
      [=](std::vector<EngineState>& batch) {
        auto& st = self->state;
        if (generation != st.engine_generation) return;
        --st.in_flight;
        st.fallback = FallbackPoint{at, std::move(batch)};
        finish_if_done(self);
      },
      on_engine_error(self, generation));
}

std::function<void(caf::error&)> on_engine_error(self_ptr self, uint64_t generation) {
  return [=](caf::error& err) {
    if (generation != self->state.engine_generation) return;  // an engine already given up
    if (is_engine_failure(err))
      fall_back(self, err);
    else
      abort_run(self, err);
  };
}

void fallback_after_command(self_ptr self) { self->state.next_fallback_steps = 0; }

void fall_back(self_ptr self, const caf::error& err) {
  auto& st = self->state;
  const std::string failed = st.engine_description;
  if (!st.fallback) {
    abort_run(self, fail(fmt::format("the engine ({}) failed at trial {} step {} and no in-memory snapshot is held ({}); {}",
                                     failed, st.done.trial, st.done.step, describe_error(err),
                                     st.checkpoint_files.empty() ? "no checkpoint was written"
                                                                 : "continue with --restore=" + st.checkpoint_files.back())));
    return;
  }
  const FallbackPoint point = *st.fallback;
  spdlog::error("ENGINE FAILURE: {} failed after trial {} step {}: {}", failed, st.done.trial, st.done.step, describe_error(err));
  spdlog::error("falling back to the CPU pool from the in-memory snapshot at trial {} step {}; recomputing {} steps already "
                "recorded (not written again)",
                point.at.trial, point.at.step,
                steps_to(st.done, st.schedule->geometry()) - steps_to(point.at, st.schedule->geometry()));
  // Every reply of the failed engine from now on is dropped, and it is let go.
  ++st.engine_generation;
  self->unlink_from(st.engine);
  self->send_exit(st.engine, caf::exit_reason::kill);
  if (st.recorded_until < st.done) st.recorded_until = st.done;
  st.in_flight = 0;
  st.swapping = true;  // nothing is issued until the new engine holds the state
  std::shared_ptr<Engine> engine;
  try {
    engine = st.plan.make_engine(EngineKind::cpu, 0, st.plan.trial_plan);
  } catch (const std::exception& e) {
    abort_run(self, fail(std::string("fallback to the CPU pool failed: ") + e.what()));
    return;
  }
  const std::string description = engine->describe();
  auto next = spawn_engine(self->system(), std::move(engine), EngineKind::cpu);
  self->link_to(next);
  st.engine = next;
  const uint64_t generation = st.engine_generation;
  const auto resumed = [=]() {
    auto& st = self->state;
    if (generation != st.engine_generation) return;
    st.engine_description = description;
    st.engine_threads = st.plan.default_threads;
    st.engine_kind = EngineKind::cpu;
    st.engine_may_fail = false;
    st.fallback.reset();
    st.issued = point.at;
    const std::string line = fmt::format("trial {} step {}: {} failed; fell back to {} from the snapshot at trial {} step {}",
                                         st.recorded_until.trial, st.recorded_until.step, failed, description, point.at.trial,
                                         point.at.step);
    spdlog::warn("engine {}", line);
    st.swap_log.add(line);
    st.swapping = false;
    issue(self);
    finish_if_done(self);
  };
  if (point.batch.empty()) {
    // The schedule has started these trials already: the new engine starts them at rest.
    self->request(next, caf::infinite, rest_atom::value, point.at.trial, batch_size_at(point.at.trial, st.schedule->geometry()))
        .then([=](rest_atom) { resumed(); }, on_error(self));
  } else {
    self->request(next, caf::infinite, import_atom::value, point.batch).then([=](import_atom) { resumed(); }, on_error(self));
  }
}

}  // namespace flysim::sim_loop_ops
