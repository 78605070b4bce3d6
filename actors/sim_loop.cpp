#include "actors/sim_loop.hpp"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include "kernels/engine.hpp"

namespace flysim {

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double peak_memory_MiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

namespace {
using self_ptr = sim_loop_actor::stateful_pointer<sim_loop_state>;

double elapsed_s(const sim_loop_state& st) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - st.started).count();
}

void abort_run(self_ptr self, const caf::error& err) {
  self->state.promise.deliver(err);
  self->quit(err);
}

void log_progress(self_ptr self, bool force) {
  auto& st = self->state;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - st.last_progress < st.plan.progress_every) return;
  st.last_progress = now;
  const double simulated_s = (static_cast<double>(st.done_trial) * st.plan.steps_per_trial + st.done_step) * st.plan.dt_ms * 1e-3;
  const double wall = elapsed_s(st);
  spdlog::info("trial {}/{}: {:.1f} of {:.1f} ms simulated, {} spikes so far, {:.3f} wall s per simulated s",
               std::min(st.done_trial + 1, st.plan.trials), st.plan.trials, st.done_step * st.plan.dt_ms,
               st.plan.steps_per_trial * st.plan.dt_ms, st.spikes, simulated_s > 0 ? wall / simulated_s : 0.0);
}

void finish(self_ptr self) {
  log_progress(self, true);
  self->request(self->state.recorder, caf::infinite, finish_atom::value)
      .then(
          [=](RecorderSummary& recorded) {
            self->request(self->state.engine, caf::infinite, describe_atom::value)
                .then(
                    [=](std::string& engine) mutable {
                      auto& st = self->state;
                      RunSummary summary;
                      summary.recorded = std::move(recorded);
                      summary.engine = std::move(engine);
                      summary.trials = st.plan.trials;
                      summary.simulated_s = st.plan.steps_per_trial * st.plan.dt_ms * 1e-3;
                      summary.wall_s = elapsed_s(st);
                      summary.cpu_s = process_cpu_seconds() - st.cpu_at_start;
                      summary.peak_memory_MiB = peak_memory_MiB();
                      st.promise.deliver(std::move(summary));
                    },
                    [=](caf::error& err) { abort_run(self, err); });
          },
          [=](caf::error& err) { abort_run(self, err); });
}

void issue(self_ptr self);

void on_epoch(self_ptr self, EpochSpikes& epoch) {
  auto& st = self->state;
  --st.in_flight;
  st.spikes += epoch.spikes.size();
  st.done_trial = epoch.trial;
  st.done_step = epoch.first + epoch.steps;
  self->send(st.recorder, record_atom::value, std::move(epoch));
  log_progress(self, false);
  if (st.in_flight == 0 && st.issue_trial == st.plan.trials) {
    finish(self);
    return;
  }
  issue(self);
}

// Sends requests until the window is full or the plan is exhausted: a new trial starts
// with an import of the resting state, then its epochs follow in order.
void issue(self_ptr self) {
  auto& st = self->state;
  while (st.in_flight < st.plan.window && st.issue_trial < st.plan.trials) {
    ++st.in_flight;
    if (st.issue_step == 0) {
      self->request(st.engine, caf::infinite, import_atom::value, resting_state(st.plan.neurons, st.plan.v0, st.issue_trial))
          .then([=](import_atom) { --self->state.in_flight; issue(self); },
                [=](caf::error& err) { abort_run(self, err); });
      st.issue_step = -1;  // imported; epochs start at step 0
      continue;
    }
    const int32_t from = st.issue_step < 0 ? 0 : st.issue_step;
    const kernels::EpochSpan span = next_epoch(from, st.plan.steps_per_trial, st.plan.delay_steps);
    self->request(st.engine, caf::infinite, advance_atom::value, EpochRequest{st.issue_trial, span.first, span.steps})
        .then([=](EpochSpikes& epoch) { on_epoch(self, epoch); }, [=](caf::error& err) { abort_run(self, err); });
    st.issue_step = span.first + span.steps;
    if (st.issue_step == st.plan.steps_per_trial) {
      ++st.issue_trial;
      st.issue_step = 0;
    }
  }
}
}  // namespace

sim_loop_actor::behavior_type sim_loop_behavior(sim_loop_actor::stateful_pointer<sim_loop_state> self, RunPlan plan,
                                                engine_actor engine, recorder_actor recorder) {
  self->state.plan = plan;
  self->state.engine = std::move(engine);
  self->state.recorder = std::move(recorder);
  return {
      [=](run_atom) -> caf::typed_response_promise<RunSummary> {
        auto& st = self->state;
        st.promise = self->make_response_promise<RunSummary>();
        st.started = st.last_progress = std::chrono::steady_clock::now();
        st.cpu_at_start = process_cpu_seconds();
        if (st.plan.steps_per_trial <= 0 || st.plan.trials <= 0) {
          finish(self);
          return st.promise;
        }
        issue(self);
        return st.promise;
      },
  };
}

}  // namespace flysim
