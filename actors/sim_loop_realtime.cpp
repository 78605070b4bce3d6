// The sim loop's real-time side (host/THREADS.md): the lag behind the pace, recorded at
// every epoch and logged when it passes run.max-lag-ms; the engine's warnings from the
// cost per role; and what status and the summary say about both. Everything here only
// observes: no decision of the schedule depends on it.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "actors/sim_loop_ops.hpp"
#include "host/process_usage.hpp"
#include "host/cost_diagnosis.hpp"

namespace flysim::sim_loop_ops {

namespace {
EngineLoad engine_load(const sim_loop_state& st, double wall_per_simulated) {
  return {st.engine.kind == EngineKind::cuda, st.engine.threads, st.schedule->pace(), wall_per_simulated, st.schedule->paused()};
}

LagCause lag_cause(const sim_loop_state& st, const CostReport& cost) {
  return cause_of_lag(cost, st.plan.cpus.allowed.empty() ? allowed_cpus().size() : st.plan.cpus.allowed.size());
}

// At most once a status window: logs the engine's warnings when their kinds change.
void judge_engine_if_due(self_ptr self, double wall_per_simulated) {
  auto& st = self->state;
  if (!st.plan.cost || !st.realtime->engine_judgement_due(elapsed_s(st))) return;
  const EngineVerdict verdict = judge_engine(st.plan.cost->report(), engine_load(st, wall_per_simulated));
  for (const std::string& text : st.realtime->new_warnings(verdict.warnings)) spdlog::warn("{}", text);
}
}  // namespace

void start_realtime(self_ptr self) {
  auto& st = self->state;
  st.realtime.emplace(st.plan.status_window_s, st.plan.max_lag_ms, st.plan.dt_ms);
}

void record_lag(self_ptr self) {
  auto& st = self->state;
  if (st.schedule->pace() <= 0) return;
  const double now = elapsed_s(st);
  const double lag = st.schedule->lag_ms(st.window.done(), now);
  const auto cause = [&] { return lag_cause(st, st.plan.cost ? st.plan.cost->report() : CostReport{}); };
  if (const auto line = st.realtime->record_lag(now, lag, cause)) {
    if (line->warning) spdlog::warn("{}", line->text);
    else spdlog::info("{}", line->text);
  }
}

void sample_status(self_ptr self) {
  auto& st = self->state;
  const double now = elapsed_s(st);
  if (!st.realtime->sample_due(now)) return;
  st.realtime->add_sample(
      {now, process_cpu_seconds() - st.cpu_at_start, steps_to(st.window.done(), st.schedule->geometry()), st.spikes});
  judge_engine_if_due(self, st.realtime->rates().wall_per_simulated);
}

void add_realtime_status(self_ptr self, ServiceStatus& s) {
  const auto& st = self->state;
  const LagFigures window = st.realtime->lag_window(s.wall_s);
  s.lag_p99_ms = window.p99_ms;
  s.lag_max_ms = window.max_ms;
  s.max_lag_ms = st.plan.max_lag_ms;
  s.window_s = st.plan.status_window_s;
  if (st.plan.cost) s.cost = st.plan.cost->report();
  const EngineVerdict verdict = judge_engine(s.cost, engine_load(st, s.wall_per_simulated));
  s.engine_cores_needed = verdict.cores_needed;
  if (s.lag_ms > st.plan.max_lag_ms)
    s.warnings.push_back(fmt::format("{:.1f} ms behind the pace (run.max-lag-ms={}); likely cause: {}", s.lag_ms,
                                     st.plan.max_lag_ms, lag_cause(st, s.cost).text));
  for (const CostWarning& w : verdict.warnings) s.warnings.push_back(w.text);
  const CpuPartition& cpus = st.plan.cpus;
  s.cpus_engine = format_cpu_list(cpus.engine);
  s.cpus_plasticity = format_cpu_list(cpus.plasticity);
  s.cpus_other = format_cpu_list(cpus.other);
  if (st.engine.kind == EngineKind::cuda) s.cpus_freed = format_cpu_list(cpus.freed_by_gpu());
  if (st.plan.gpu) {
    const GpuNeighbours neighbours = gpu_neighbours(*st.plan.gpu, static_cast<uint32_t>(::getpid()));
    s.gpu_note = neighbours.note;
    s.gpu_neighbours = neighbours.processes;
  }
}

void add_realtime_summary(self_ptr self, RunSummary& summary) {
  const auto& st = self->state;
  summary.lag = st.realtime->lag_whole_run();
  summary.max_lag_ms = st.plan.max_lag_ms;
  if (st.plan.cost) summary.cost = st.plan.cost->report_since_start();
}

}  // namespace flysim::sim_loop_ops
