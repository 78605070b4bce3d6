// The sim loop's real-time side (host/THREADS.md): the lag behind the pace, recorded at
// every epoch and logged when it passes run.max-lag-ms; the engine's warnings from the
// cost per role; and what status and the summary say about both. Everything here only
// observes: no decision of the schedule depends on it.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>

#include "actors/sim_loop_ops.hpp"
#include "host/cost_diagnosis.hpp"

namespace flysim::sim_loop_ops {

namespace {
// How often the cause of a lag that persists is looked at again (a cost reading).
constexpr double kCauseEveryS = 1.0;

EngineLoad engine_load(const sim_loop_state& st, double wall_per_simulated) {
  return {st.engine_kind == EngineKind::cuda, st.engine_threads, st.schedule->pace(), wall_per_simulated, st.schedule->paused()};
}

LagCause lag_cause(const sim_loop_state& st, const CostReport& cost) {
  return cause_of_lag(cost, st.plan.cpus.allowed.empty() ? allowed_cpus().size() : st.plan.cpus.allowed.size());
}

std::vector<std::string> kinds_of(const std::vector<CostWarning>& warnings) {
  std::vector<std::string> kinds;
  for (const CostWarning& w : warnings) kinds.push_back(w.kind);
  return kinds;
}
}  // namespace

void start_realtime(self_ptr self) {
  auto& st = self->state;
  st.lag.emplace(st.plan.status_window_s);
  st.lag_watch.emplace(st.plan.max_lag_ms);
  st.engine_kind = st.plan.first_engine_kind;
}

void record_lag(self_ptr self) {
  auto& st = self->state;
  if (st.schedule->pace() <= 0) return;
  const double now = elapsed_s(st);
  const double lag = st.schedule->lag_ms(st.done, now);
  st.lag->record(now, lag);
  // The watch sees every epoch while it matters; the cause costs a reading of /proc, so
  // it is looked at again at most once a second.
  const bool over = lag > st.plan.max_lag_ms;
  if (!over && !st.lag_watch->behind()) return;
  if (over && now - st.lag_cause_checked_s >= kCauseEveryS) {
    st.lag_cause_checked_s = now;
    st.lag_cause = lag_cause(st, st.plan.cost ? st.plan.cost->report() : CostReport{});
  }
  if (const auto line = st.lag_watch->observe(now, lag, st.lag_cause.kind, st.lag_cause.text)) {
    if (line->warning) spdlog::warn("{}", line->text);
    else spdlog::info("{}", line->text);
  }
}

void judge_engine_if_due(self_ptr self, double wall_per_simulated) {
  auto& st = self->state;
  const double now = elapsed_s(st);
  if (!st.plan.cost || now - st.engine_judged_s < st.plan.status_window_s) return;
  st.engine_judged_s = now;
  const EngineVerdict verdict = judge_engine(st.plan.cost->report(), engine_load(st, wall_per_simulated));
  std::vector<std::string> kinds = kinds_of(verdict.warnings);
  if (kinds == st.engine_warnings_logged) return;
  for (const CostWarning& w : verdict.warnings)
    if (std::find(st.engine_warnings_logged.begin(), st.engine_warnings_logged.end(), w.kind) == st.engine_warnings_logged.end())
      spdlog::warn("{}", w.text);
  st.engine_warnings_logged = std::move(kinds);
}

void add_realtime_status(self_ptr self, ServiceStatus& s) {
  const auto& st = self->state;
  const LagFigures window = st.lag->window(s.wall_s);
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
  if (st.engine_kind == EngineKind::cuda) s.cpus_freed = format_cpu_list(cpus.freed_by_gpu());
  if (st.plan.gpu) {
    const GpuNeighbours neighbours = gpu_neighbours(*st.plan.gpu, static_cast<uint32_t>(::getpid()));
    s.gpu_note = neighbours.note;
    s.gpu_neighbours = neighbours.processes;
  }
}

void add_realtime_summary(self_ptr self, RunSummary& summary) {
  const auto& st = self->state;
  summary.lag = st.lag->whole_run();
  summary.max_lag_ms = st.plan.max_lag_ms;
  if (st.plan.cost) summary.cost = st.plan.cost->report_since_start();
}

}  // namespace flysim::sim_loop_ops
