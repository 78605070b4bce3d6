#include "actors/sim_loop.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "actors/engine_actor.hpp"
#include "actors/sim_loop_ops.hpp"
#include "host/process_usage.hpp"
#include "model/lif_params.hpp"
#include "kernels/engine.hpp"

namespace flysim {

ScheduleGeometry geometry_of(const RunPlan& plan) {
  return {plan.trials,
          plan.steps_per_trial,
          plan.delay_steps,
          plan.dt_ms,
          plan.start,
          plan.checkpoint_granularity,
          plan.batch,
          plan.plasticity.shards.empty()};
}

namespace sim_loop_ops {

double elapsed_s(const sim_loop_state& st) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - st.started).count();
}

void abort_run(self_ptr self, const caf::error& err) {
  self->state.finishing = true;
  stop_shards(self);
  if (self->state.promise.pending()) self->state.promise.deliver(err);
  self->quit(err);
}

std::function<void(caf::error&)> on_error(self_ptr self) {
  return [=](caf::error& err) { abort_run(self, err); };
}

// For a request to a linked actor: when it went down, its exit message brings the reason
// (a write error of the recorder, say), which "request_receiver_down" would hide.
std::function<void(caf::error&)> on_error_of_linked(self_ptr self) {
  return [=](caf::error& err) {
    if (err != caf::sec::request_receiver_down) abort_run(self, err);
  };
}

int64_t steps_since_start(const sim_loop_state& st) {
  const ScheduleGeometry g = geometry_of(st.plan);
  return simulated_steps_to(st.window.done(), g) - simulated_steps_to(st.plan.start, g);
}

void log_progress(self_ptr self, bool force) {
  auto& st = self->state;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - st.last_progress < st.plan.progress_every) return;
  st.last_progress = now;
  const RunPosition done = st.window.done();
  const double simulated_s = steps_to_seconds(static_cast<double>(steps_since_start(st)), st.plan.dt_ms);
  const int32_t first = std::min(done.trial + 1, st.plan.trials);
  const int32_t last = std::min(done.trial + st.plan.batch, st.plan.trials);
  // A run until stopped has one endless trial: no length to be a part of.
  const std::string of = endless(st.plan.trial_plan) ? "" : fmt::format(" of {:.1f}", st.plan.steps_per_trial * st.plan.dt_ms);
  spdlog::info("{} {}/{}: {:.1f}{} ms simulated, {} spikes, {:.4f} wall s per simulated s",
               first == last ? "trial" : "trials", first == last ? std::to_string(first) : fmt::format("{}-{}", first, last),
               st.plan.trials, done.step * st.plan.dt_ms, of, st.spikes, simulated_s > 0 ? elapsed_s(st) / simulated_s : 0.0);
}

void deliver_summary(self_ptr self, RecorderSummary recorded, std::string engine, std::vector<int32_t> final_weights) {
  auto& st = self->state;
  RunSummary summary;
  summary.recorded = std::move(recorded);
  summary.engine = std::move(engine);
  summary.trials = st.plan.trials;
  summary.simulated_s = steps_to_seconds(st.plan.steps_per_trial, st.plan.dt_ms);
  summary.simulated_this_run_s = steps_to_seconds(static_cast<double>(steps_since_start(st)), st.plan.dt_ms);
  summary.stopped_early = st.schedule->stopped();
  summary.stopped_trial = st.window.done().trial;
  summary.stopped_step = st.window.done().step;
  add_realtime_summary(self, summary);
  add_plasticity_summary(self, summary);
  summary.wall_s = elapsed_s(st);
  summary.paused_s = st.schedule->paused_s(summary.wall_s);
  summary.cpu_s = process_cpu_seconds() - st.cpu_at_start;
  summary.peak_memory_MiB = peak_memory_MiB();
  summary.checkpoints.assign(st.checkpoints.newest().begin(), st.checkpoints.newest().end());
  summary.checkpoints_written = st.checkpoints.count();
  summary.checkpoints_failed = st.checkpoints.failures();
  summary.swaps = st.swap_log.items();
  summary.swaps_done = st.swap_log.count();
  summary.stimulus_changes = st.stimulus_changes;
  summary.last_stimulus = st.last_stimulus;
  summary.plasticity_shards = static_cast<uint32_t>(st.plan.plasticity.shards.size());
  summary.weight_changes = st.weights.changes_applied();
  summary.final_weights = std::move(final_weights);
  stop_shards(self);
  st.promise.deliver(std::move(summary));
}

void finish(self_ptr self) {
  log_progress(self, true);
  self->state.finishing = true;
  const auto& st = self->state;
  const double recorded_s = steps_to_seconds(static_cast<double>(simulated_steps_to(st.window.done(), geometry_of(st.plan))), st.plan.dt_ms);
  self->request(st.recorder, caf::infinite, finish_atom::value, recorded_s).then([=](RecorderSummary& recorded) {
    self->request(self->state.engine.actor, caf::infinite, describe_atom::value).then([=](std::string& engine) mutable {
      if (!self->state.plan.plasticity.want_final_weights) {
        deliver_summary(self, std::move(recorded), std::move(engine), {});
        return;
      }
      self->request(self->state.engine.actor, caf::infinite, export_atom::value).then([=](std::vector<EngineState>& batch) mutable {
        deliver_summary(self, std::move(recorded), std::move(engine), std::move(batch.front().plastic_weights));
      }, on_error(self));
    }, on_error(self));
  }, on_error_of_linked(self));
}

bool plan_done(const sim_loop_state& st) { return st.window.issued().trial >= st.plan.trials || st.schedule->stopped(); }

void finish_if_done(self_ptr self) {
  const auto& st = self->state;
  // A stopped run leaves the weights of unfinished periods unapplied: they would take
  // effect after the last recorded spike.
  if (plan_done(st) && st.window.in_flight() == 0 && st.checkpoints.being_written() == 0 && !st.window.held() &&
      (st.weights.empty() || st.schedule->stopped()) && !st.finishing)
    finish(self);
}

// One epoch of the batch: each trial's spikes, in trial order.
void on_epoch(self_ptr self, std::vector<EpochSpikes>& batch) {
  auto& st = self->state;
  const EpochSpikes& front = batch.front();
  const RunPosition end{front.trial, front.first + front.steps};
  if (!st.fallback.drop_recorded(batch)) {
    // Recomputed after a fallback: these spikes were recorded from the failed engine.
    issue(self);
    finish_if_done(self);
    return;
  }
  st.window.complete(end);
  record_lag(self);
  // Plasticity runs batches of one trial (each trial learns from the one before).
  for (const auto& shard : st.plan.plasticity.shards) self->send(shard, learn_atom::value, front);
  if (!st.plan.plasticity.shards.empty() && st.weights.period_ends_at(end.step))
    request_period_weights(self, end.trial, end.step);
  for (EpochSpikes& epoch : batch) {
    st.spikes += epoch.spikes.size();
    self->send(st.recorder, record_atom::value, std::move(epoch));
  }
  log_progress(self, false);
  sample_status(self);
  issue(self);
  finish_if_done(self);
}

// A hot-swap: no new requests; the old engine finishes what it has, exports its state,
// and a new engine of the asked kind imports it and goes on. A new engine that cannot be
// built (CUDA asked for where it cannot run) leaves the old one running, unchanged.
void request_swap(self_ptr self, EngineKind kind, unsigned threads, uint64_t live_id) {
  auto& st = self->state;
  st.window.hold();
  const uint64_t generation = st.window.request();
  const RunPosition at = st.window.issued();
  self->request(st.engine.actor, caf::infinite, export_atom::value).then([=](std::vector<EngineState>& batch) {
    auto& st = self->state;
    st.window.reply(generation);
    const auto swap_started = std::chrono::steady_clock::now();
    std::shared_ptr<Engine> engine;
    try {
      engine = st.plan.make_engine(kind, threads, st.plan.trial_plan);
    } catch (const std::exception& e) {
      spdlog::error("engine swap to {} at trial {} step {} failed, the run goes on with {}: {}", to_string(kind), at.trial,
                    at.step, st.engine.description, e.what());
      answer_live(self, live_id, {false, std::string("still on ") + st.engine.description + ": " + e.what(),
                                  at.trial, at.step, ""});
      st.window.release();
      issue(self);
      finish_if_done(self);
      return;
    }
    const std::string description = engine->describe();
    const unsigned pool_threads = kind == EngineKind::cpu ? (threads > 0 ? threads : st.plan.default_threads) : 0;
    auto next = spawn_engine(self->system(), std::move(engine), kind, st.plan.engine_thread);
    self->link_to(next);
    self->request(next, caf::infinite, import_atom::value, batch).then([=](import_atom) {
      auto& st = self->state;
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - swap_started).count();
      self->unlink_from(st.engine.actor);
      // Not exit_reason::normal: CAF 0.17's default exit handler ignores it, and the old
      // engine stayed alive with its pool's threads (seen in the cost per role).
      self->send_exit(st.engine.actor, caf::exit_reason::user_shutdown);
      st.engine = {next, description, pool_threads, kind};
      st.window.replace_engine();
      st.fallback.engine_replaced(kind == EngineKind::cuda);
      const std::string line = "trial " + std::to_string(at.trial) + " step " + std::to_string(at.step) +
                               ": swapped to " + description + " in " + std::to_string(ms) + " ms";
      spdlog::info("engine {}", line);
      st.swap_log.add(line);
      answer_live(self, live_id, {true, "swapped to " + description, at.trial, at.step, ""});
      st.window.release();
      issue(self);
      finish_if_done(self);
    }, on_error(self));
  }, on_error(self));
}

namespace {
// Wakes the loop when the pace lets the next epoch go (one wake-up at a time).
void arm_tick(self_ptr self, double until_s) {
  auto& st = self->state;
  if (st.tick_armed) return;
  st.tick_armed = true;
  const double delay_s = std::max(0.0, until_s - elapsed_s(st));
  self->delayed_send(self, std::chrono::microseconds(static_cast<int64_t>(delay_s * 1e6)), tick_atom::value);
}
}  // namespace

// Sends requests until the window is full, a swap is under way, the pace says wait, or
// the schedule has nothing more; each decision is the schedule's.
void issue(self_ptr self) {
  auto& st = self->state;
  while (st.window.has_room() && !st.finishing && apply_due_weights(self) &&
         !st.weights.period_not_ended_yet(st.window.done(), st.window.issued())) {
    Schedule::Action action = st.schedule->next(st.window.issued(), elapsed_s(st));
    switch (action.kind) {
      case Schedule::Action::Kind::start_trial: {
        // As an epoch's: a failing engine falls back, and a reply of an engine given up
        // is dropped (the fallback has reset what is in flight).
        const int32_t trial = st.window.issued().trial;
        const uint64_t generation = st.window.request();
        self->request(st.engine.actor, caf::infinite, rest_atom::value, trial, batch_size_at(trial, st.schedule->geometry()))
            .then(
                [=](rest_atom) {
                  if (self->state.window.reply(generation)) issue(self);
                },
                on_engine_error(self, generation));
        continue;
      }
      case Schedule::Action::Kind::checkpoint:
        request_checkpoint(self, 0, false);
        continue;
      case Schedule::Action::Kind::command:
        apply_command(self, action.command, action.live_id);
        continue;
      case Schedule::Action::Kind::epoch: {
        take_fallback_if_due(self);
        const RunPosition at = st.window.issued();
        const uint64_t generation = st.window.request_epoch(action.steps);
        self->request(st.engine.actor, caf::infinite, advance_atom::value, EpochRequest{at.trial, at.step, action.steps})
            .then(
                [=](std::vector<EpochSpikes>& batch) {
                  if (self->state.window.reply(generation)) on_epoch(self, batch);
                },
                on_engine_error(self, generation));
        continue;
      }
      case Schedule::Action::Kind::wait:
        arm_tick(self, action.until_s);
        return;
      case Schedule::Action::Kind::idle:
      case Schedule::Action::Kind::done:
        return;
    }
  }
}
}  // namespace sim_loop_ops

using namespace sim_loop_ops;

sim_loop_actor::behavior_type sim_loop_behavior(sim_loop_actor::stateful_pointer<sim_loop_state> self, RunPlan plan,
                                                engine_actor engine, recorder_actor recorder,
                                                checkpointer_actor checkpointer) {
  auto& st = self->state;
  st.plan = std::move(plan);
  st.engine = {std::move(engine), st.plan.first_engine, st.plan.first_engine_threads, st.plan.first_engine_kind};
  st.recorder = std::move(recorder);
  st.checkpointer = std::move(checkpointer);
  st.window = InFlightWindow(st.plan.start, st.plan.window, st.plan.steps_per_trial, st.plan.batch);
  const bool plastic = !st.plan.plasticity.shards.empty();
  st.fallback = FallbackTracker(plastic ? 0 : st.plan.fallback_every_steps, st.plan.first_engine_may_fail);
  st.weights = WeightPipeline(plastic ? st.plan.plasticity.period_steps : 0, st.plan.steps_per_trial, st.plan.trials);
  st.checkpoints = CheckpointFiles(st.plan.checkpoints_listed);
  st.schedule.emplace(geometry_of(st.plan), st.plan.checkpoints, st.plan.commands, st.plan.pace, st.plan.pace_batch_ms);
  start_realtime(self);
  // Linked: when the sim loop ends (done, failed or interrupted), so do they; the
  // recorder then removes its unfinished files.
  self->link_to(st.engine.actor);
  self->link_to(st.recorder);
  if (st.checkpointer) self->link_to(st.checkpointer);
  // An exit message (Ctrl-C, or a linked actor that failed) must still answer the
  // caller: a response promise dropped undelivered leaves it waiting forever (CAF 0.17).
  self->set_exit_handler([=](caf::exit_msg& msg) {
    if (msg.reason != caf::exit_reason::normal) abort_run(self, msg.reason);
  });
  watch_shards(self);
  return {
      [=](run_atom) -> caf::typed_response_promise<RunSummary> {
        auto& st = self->state;
        st.promise = self->make_response_promise<RunSummary>();
        st.started = st.last_progress = std::chrono::steady_clock::now();
        st.cpu_at_start = process_cpu_seconds();
        issue(self);
        finish_if_done(self);
        return st.promise;
      },
      [=](stop_atom) {
        // A stop signal: journaled and applied like a live stop, with nobody to answer.
        receive_live(self, StopCommand{}, self->state.live.unanswered());
      },
      [=](status_atom) { return service_status(self); },
      [=](command_atom, LiveCommand& command) -> caf::typed_response_promise<LiveReply> {
        auto promise = self->make_response_promise<LiveReply>();
        receive_live(self, std::move(command), self->state.live.add(promise));
        return promise;
      },
      [=](tick_atom) {
        self->state.tick_armed = false;
        issue(self);
      },
  };
}

sim_loop_actor spawn_sim_loop(caf::actor_system& system, RunPlan plan, engine_actor engine, recorder_actor recorder,
                              checkpointer_actor checkpointer, SimLoopThread thread) {
  if (thread == SimLoopThread::pool)
    return system.spawn(sim_loop_behavior, std::move(plan), std::move(engine), std::move(recorder), std::move(checkpointer));
  // The thread names itself before the behavior runs (which CAF does on that thread).
  return system.spawn<caf::detached>(
      [](sim_loop_actor::stateful_pointer<sim_loop_state> self, RunPlan plan, engine_actor engine, recorder_actor recorder,
         checkpointer_actor checkpointer) {
        enter_role(ThreadRole::sim_loop);
        return sim_loop_behavior(self, std::move(plan), std::move(engine), std::move(recorder), std::move(checkpointer));
      },
      std::move(plan), std::move(engine), std::move(recorder), std::move(checkpointer));
}

}  // namespace flysim
