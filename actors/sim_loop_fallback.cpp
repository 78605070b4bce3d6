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
  const RunPosition at = st.window.issued();
  if (!st.fallback.due(steps_to(at, st.schedule->geometry()))) return;
  if (at.step == 0) {
    // A trial's first epoch: its trials start at rest, a state known without asking.
    st.fallback.hold({at, {}});
    return;
  }
  const uint64_t generation = st.window.request();
  // Sent before the epoch at `at`: the engine's mailbox keeps the order.
  self->request(st.engine.actor, caf::infinite, export_atom::value).then(
      [=](std::vector<EngineState>& batch) {
        auto& st = self->state;
        if (!st.window.reply(generation)) return;
        st.fallback.hold({at, std::move(batch)});
        finish_if_done(self);
      },
      on_engine_error(self, generation));
}

std::function<void(caf::error&)> on_engine_error(self_ptr self, uint64_t generation) {
  return [=](caf::error& err) {
    if (!self->state.window.current(generation)) return;  // an engine already given up
    if (is_engine_failure(err))
      fall_back(self, err);
    else
      abort_run(self, err);
  };
}

void fall_back(self_ptr self, const caf::error& err) {
  auto& st = self->state;
  const std::string failed = st.engine.description;
  const RunPosition done = st.window.done();
  if (!st.fallback.point()) {
    abort_run(self, fail(fmt::format("the engine ({}) failed at trial {} step {} and no in-memory snapshot is held ({}); {}",
                                     failed, done.trial, done.step, describe_error(err),
                                     st.checkpoints.last().empty() ? "no checkpoint was written"
                                                                   : "continue with --restore=" + st.checkpoints.last())));
    return;
  }
  const FallbackPoint point = *st.fallback.point();
  spdlog::error("ENGINE FAILURE: {} failed after trial {} step {}: {}", failed, done.trial, done.step, describe_error(err));
  spdlog::error("falling back to the CPU pool from the in-memory snapshot at trial {} step {}; recomputing {} steps already "
                "recorded (not written again)",
                point.at.trial, point.at.step,
                steps_to(done, st.schedule->geometry()) - steps_to(point.at, st.schedule->geometry()));
  // Every reply of the failed engine from now on is dropped, it is let go, and nothing
  // is issued until the new engine holds the state.
  st.window.give_up_engine();
  self->unlink_from(st.engine.actor);
  self->send_exit(st.engine.actor, caf::exit_reason::kill);
  st.fallback.engine_failed(done);
  std::shared_ptr<Engine> engine;
  try {
    engine = st.plan.make_engine(EngineKind::cpu, 0, st.plan.trial_plan);
  } catch (const std::exception& e) {
    abort_run(self, fail(std::string("fallback to the CPU pool failed: ") + e.what()));
    return;
  }
  const std::string description = engine->describe();
  auto next = spawn_engine(self->system(), std::move(engine), EngineKind::cpu, st.plan.engine_thread);
  self->link_to(next);
  st.engine.actor = next;
  const uint64_t generation = st.window.generation();
  const auto resumed = [=]() {
    auto& st = self->state;
    if (!st.window.current(generation)) return;
    st.engine = {next, description, st.plan.default_threads, EngineKind::cpu};
    st.fallback.resumed();
    const RunPosition recorded = st.fallback.recorded_until();
    const std::string line = fmt::format("trial {} step {}: {} failed; fell back to {} from the snapshot at trial {} step {}",
                                         recorded.trial, recorded.step, failed, description, point.at.trial, point.at.step);
    spdlog::warn("engine {}", line);
    st.swap_log.add(line);
    st.window.resume_from(point.at);
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
