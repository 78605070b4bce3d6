// The sim loop's live side (flysim serve): commands placed by the schedule, journaled
// before they take effect, and the status an operator reads.
#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "actors/sim_loop_ops.hpp"
#include "actors/stimulus_command.hpp"
#include "kernels/engine.hpp"
#include "messages/control_json.hpp"
#include "model/errors.hpp"
#include "model/lif_params.hpp"
#include "model/stimulus.hpp"

namespace flysim::sim_loop_ops {

namespace {
std::string where(RunPosition at) { return fmt::format("trial {} step {}", at.trial, at.step); }

EngineKind engine_kind_named(const std::string& name) { return name == "cuda" ? EngineKind::cuda : EngineKind::cpu; }
}  // namespace

void receive_live(self_ptr self, LiveCommand command, uint64_t id) {
  auto& st = self->state;
  if (st.finishing || (st.schedule->stopped() && !std::holds_alternative<StopCommand>(command))) {
    answer_live(self, id, {false, "the run is " + std::string(st.finishing ? "finishing" : "stopping"), st.done.trial,
                           st.done.step, ""});
    return;
  }
  spdlog::debug("live command {} received at trial {} step {}", to_json(command), st.issued.trial, st.issued.step);
  st.schedule->receive(std::move(command), id);
  issue(self);
  finish_if_done(self);
}

void answer_live(self_ptr self, uint64_t id, LiveReply reply) {
  auto& replies = self->state.replies;
  const auto it = replies.find(id);
  if (it == replies.end()) return;
  it->second.deliver(std::move(reply));
  replies.erase(it);
}

namespace {
// What each command does at st.issued, once it is journaled: one handler per command type.
struct CommandEffect {
  self_ptr self;
  RunPosition at;
  uint64_t live_id;
  std::optional<StimulusChange>& change;  // a stimulus command's, checked before it was journaled

  void operator()(const SwapCommand& c) const {
    request_swap(self, engine_kind_named(c.engine), static_cast<unsigned>(c.threads.value_or(0)), live_id);
  }
  void operator()(const CheckpointCommand&) const {
    if (!self->state.checkpointer) {
      answer_live(self, live_id, {false, "checkpoints are off: start the run with checkpoint.dir set", at.trial, at.step, ""});
      return;
    }
    request_checkpoint(self, live_id);
  }
  void operator()(const StimulusCommand& c) const { apply_stimulus(self, c, std::move(*change), live_id); }
  void operator()(const PauseCommand&) const {
    self->state.schedule->pause();
    self->send(self->state.recorder, flush_atom::value);
    answer_live(self, live_id, {true, "paused at " + where(at), at.trial, at.step, ""});
  }
  void operator()(const ResumeCommand&) const {
    self->state.schedule->resume(self->state.done, elapsed_s(self->state));
    answer_live(self, live_id, {true, "resumed at " + where(at), at.trial, at.step, ""});
  }
  void operator()(const StopCommand&) const {
    self->state.schedule->stop();
    spdlog::warn("stopping at {}: finishing the epochs in flight, then writing what was recorded", where(at));
    answer_live(self, live_id, {true, "stopping at " + where(at), at.trial, at.step, ""});
    finish_if_done(self);
  }
};
}  // namespace

void apply_command(self_ptr self, const LiveCommand& command, uint64_t live_id) {
  auto& st = self->state;
  const RunPosition at = st.issued;
  // A stimulus change is checked before it is journaled: a refused one is not in the journal.
  std::optional<StimulusChange> change;
  if (const auto* stimulus = std::get_if<StimulusCommand>(&command)) {
    try {
      change = stimulus_change(st.plan.trial_plan, *stimulus, at, *st.plan.network, st.plan.dt_ms);
    } catch (const std::exception& e) {
      answer_live(self, live_id, {false, std::string("stimulus not changed: ") + e.what(), at.trial, at.step, ""});
      return;
    }
  }
  if (live_id != 0 && st.plan.journal) {
    try {
      st.plan.journal->append({at.trial, at.step, to_json(command)});
    } catch (const std::exception& e) {
      // A command that cannot be journaled would make the run impossible to replay.
      answer_live(self, live_id, {false, std::string("not applied: ") + e.what(), at.trial, at.step, ""});
      return;
    }
  }
  const auto* swap = std::get_if<SwapCommand>(&command);
  spdlog::info("{}: {} {}", where(at), action_name(command), swap ? swap->engine : "");
  fallback_after_command(self);
  std::visit(CommandEffect{self, at, live_id, change}, command);
}

void sample_status(self_ptr self) {
  auto& st = self->state;
  const double now = elapsed_s(st);
  if (!st.samples.empty() && now - st.samples.back().wall_s < 0.5) return;
  st.samples.push_back({now, process_cpu_seconds() - st.cpu_at_start, steps_to(st.done, st.schedule->geometry()), st.spikes});
  while (st.samples.size() > 2 && now - st.samples[1].wall_s >= st.plan.status_window_s) st.samples.pop_front();
  judge_engine_if_due(self, window_rates(st).wall_per_simulated);
}

WindowRates window_rates(const sim_loop_state& st) {
  WindowRates r;
  if (st.samples.size() < 2) return r;
  const StatusSample &a = st.samples.front(), &b = st.samples.back();
  const double wall = b.wall_s - a.wall_s, simulated = static_cast<double>(b.steps - a.steps) * st.plan.dt_ms * 1e-3;
  r.wall_per_simulated = simulated > 0 ? wall / simulated : 0.0;
  r.host_cores = wall > 0 ? (b.cpu_s - a.cpu_s) / wall : 0.0;
  r.spikes_per_simulated_s = simulated > 0 ? static_cast<double>(b.spikes - a.spikes) / simulated : 0.0;
  return r;
}

ServiceStatus service_status(self_ptr self) {
  sample_status(self);
  const auto& st = self->state;
  ServiceStatus s;
  s.state = st.finishing ? "done" : st.schedule->stopped() ? "stopping" : st.schedule->paused() ? "paused" : "running";
  s.trial = st.done.trial;
  s.step = st.done.step;
  s.trials = st.plan.trials;
  const ScheduleGeometry& g = st.schedule->geometry();
  s.simulated_s = static_cast<double>(steps_to(st.done, g) - steps_to(g.start, g)) * st.plan.dt_ms * 1e-3;
  s.wall_s = elapsed_s(st);
  s.pace = st.plan.pace_text;
  s.lag_ms = st.schedule->lag_ms(st.done, s.wall_s);
  s.engine = st.engine_description;
  s.threads = static_cast<int32_t>(st.engine_threads);
  s.host_cpu_s = process_cpu_seconds() - st.cpu_at_start;
  s.spikes = st.spikes;
  s.shards = static_cast<uint32_t>(st.plan.plasticity.shards.size());
  s.last_checkpoint = st.checkpoint_files.empty() ? "" : st.checkpoint_files.back();
  s.stimulus_rate_Hz = st.plan.trial_plan.stimulus_rate_Hz;
  s.poisson_neurons = static_cast<uint32_t>(st.plan.trial_plan.stimulus.poisson_neurons.size());
  const WindowRates rates = window_rates(st);
  s.wall_per_simulated = rates.wall_per_simulated;
  s.host_cores = rates.host_cores;
  s.spikes_per_simulated_s = rates.spikes_per_simulated_s;
  add_realtime_status(self, s);
  return s;
}

}  // namespace flysim::sim_loop_ops

namespace flysim::sim_loop_ops {

void apply_stimulus(self_ptr self, const StimulusCommand& command, StimulusChange change, uint64_t live_id) {
  auto& st = self->state;
  const RunPosition at = st.issued;
  const TrialPlan next = std::move(change.plan);
  const uint32_t threshold = change.poisson_threshold;
  const std::string summary =
      fmt::format("stimulus from {}: {} Poisson neurons at {} Hz, {} groups, {} kicks, {} silenced ({})", where(at),
                  next.stimulus.poisson_neurons.size(), next.stimulus_rate_Hz, next.stimulus.groups.size(),
                  next.stimulus.kicks.size(), next.stimulus.silenced.size(), silence_mode_name(next.stimulus.silence_mode));
  st.plan.trial_plan = next;
  // Queued behind the epochs before `at`, ahead of every later one.
  ++st.in_flight;
  self->request(st.engine, caf::infinite, stimulus_atom::value, next.stimulus, threshold).then([=](stimulus_atom) {
    --self->state.in_flight;
    // The live page marks the stimulated neurons: the recorder's window learns the new set.
    if (command.poisson_ids || command.kicks || command.group)
      self->send(self->state.recorder, stimulus_atom::value, stimulated_neurons(next.stimulus));
    spdlog::info("{}", summary);
    answer_live(self, live_id, {true, summary, at.trial, at.step, ""});
    issue(self);
    finish_if_done(self);
  }, on_error(self));
}

}  // namespace flysim::sim_loop_ops
