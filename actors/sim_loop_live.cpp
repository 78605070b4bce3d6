// The sim loop's live side (flysim serve): commands placed by the schedule, journaled
// before they take effect, and the status an operator reads.
#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "actors/sim_loop_ops.hpp"
#include "host/process_usage.hpp"
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
    answer_live(self, id, {false, "the run is " + std::string(st.finishing ? "finishing" : "stopping"),
                           st.window.done().trial, st.window.done().step, ""});
    return;
  }
  spdlog::debug("live command {} received at trial {} step {}", to_json(command), st.window.issued().trial,
                st.window.issued().step);
  st.schedule->receive(std::move(command), id);
  issue(self);
  finish_if_done(self);
}

void answer_live(self_ptr self, uint64_t id, LiveReply reply) { self->state.live.answer(id, std::move(reply)); }

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
    request_checkpoint(self, live_id, true);  // live or replayed from the journal
  }
  void operator()(const StimulusCommand& c) const { apply_stimulus(self, c, std::move(*change), live_id); }
  void operator()(const PauseCommand&) const {
    self->state.schedule->pause(elapsed_s(self->state));
    self->send(self->state.recorder, flush_atom::value);
    answer_live(self, live_id, {true, "paused at " + where(at), at.trial, at.step, ""});
  }
  void operator()(const ResumeCommand&) const {
    self->state.schedule->resume(self->state.window.done(), elapsed_s(self->state));
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
  const RunPosition at = st.window.issued();
  // Commands queued behind a stop at the same boundary are refused as later ones are.
  if (st.schedule->stopped() && !std::holds_alternative<StopCommand>(command)) {
    answer_live(self, live_id, {false, "the run is stopping", at.trial, at.step, ""});
    return;
  }
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
      // A command that cannot be journaled would make the run impossible to replay; a stop
      // still ends the run, whose journal then replays to the end of the plan.
      if (!std::holds_alternative<StopCommand>(command)) {
        answer_live(self, live_id, {false, std::string("not applied: ") + e.what(), at.trial, at.step, ""});
        return;
      }
      spdlog::error("{}: the stop is not in the journal ({}): a replay of it runs to the end of the plan", where(at), e.what());
    }
  }
  const auto* swap = std::get_if<SwapCommand>(&command);
  spdlog::info("{}: {} {}", where(at), action_name(command), swap ? swap->engine : "");
  st.fallback.after_command();
  std::visit(CommandEffect{self, at, live_id, change}, command);
}

ServiceStatus service_status(self_ptr self) {
  sample_status(self);
  const auto& st = self->state;
  ServiceStatus s;
  s.state = st.finishing ? "done" : st.schedule->stopped() ? "stopping" : st.schedule->paused() ? "paused" : "running";
  const RunPosition done = st.window.done();
  s.trial = done.trial;
  s.step = done.step;
  s.trials = st.plan.trials;
  const ScheduleGeometry& g = st.schedule->geometry();
  s.simulated_s = steps_to_seconds(static_cast<double>(steps_to(done, g) - steps_to(g.start, g)), st.plan.dt_ms);
  s.wall_s = elapsed_s(st);
  s.pace = st.plan.pace_text;
  s.lag_ms = st.schedule->lag_ms(done, s.wall_s);
  s.engine = st.engine.description;
  s.threads = static_cast<int32_t>(st.engine.threads);
  s.host_cpu_s = process_cpu_seconds() - st.cpu_at_start;
  s.spikes = st.spikes;
  s.shards = static_cast<uint32_t>(st.plan.plasticity.shards.size());
  s.last_checkpoint = st.checkpoints.last();
  s.stimulus_rate_Hz = st.plan.trial_plan.stimulus_rate_Hz;
  const StimulusPlan& stimulus = st.plan.trial_plan.stimulus;
  s.poisson_neurons = static_cast<uint32_t>(stimulus.poisson_neurons.size());
  for (const PoissonGroup& g : stimulus.groups) s.groups.push_back({g.name, static_cast<uint32_t>(g.neurons.size()), g.rate_Hz});
  s.silenced_neurons = static_cast<uint32_t>(stimulus.silenced.size());
  s.silence_mode = silence_mode_name(stimulus.silence_mode);
  const WindowRates rates = st.realtime->rates();
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
  const RunPosition at = st.window.issued();
  const TrialPlan next = std::move(change.plan);
  const uint32_t threshold = change.poisson_threshold;
  // The plan keeps the trial's kicks that fired already; the operator is told those to come.
  const auto kicks_ahead = std::count_if(next.stimulus.kicks.begin(), next.stimulus.kicks.end(),
                                         [&](const Kick& k) { return k.step >= at.step; });
  const std::string summary =
      fmt::format("stimulus from {}: {} Poisson neurons at {} Hz, {} groups, {} kicks to come, {} silenced ({})", where(at),
                  next.stimulus.poisson_neurons.size(), next.stimulus_rate_Hz, next.stimulus.groups.size(), kicks_ahead,
                  next.stimulus.silenced.size(), silence_mode_name(next.stimulus.silence_mode));
  st.plan.trial_plan = next;
  ++st.stimulus_changes;
  st.last_stimulus = summary;
  // Queued behind the epochs before `at`, ahead of every later one.
  const uint64_t generation = st.window.request();
  self->request(st.engine.actor, caf::infinite, stimulus_atom::value, next.stimulus, threshold).then([=](stimulus_atom) {
    self->state.window.reply(generation);
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
