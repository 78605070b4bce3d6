#include "actors/sim_loop/realtime_monitor.hpp"

#include <algorithm>

namespace flysim {

namespace {
// How often the cause of a lag that persists is looked at again (a cost reading).
constexpr double kCauseEveryS = 1.0;
// The least wall time between two status samples.
constexpr double kSampleEveryS = 0.5;
}  // namespace

RealtimeMonitor::RealtimeMonitor(double window_s, double max_lag_ms, double dt_ms)
    : window_s_(window_s), dt_ms_(dt_ms), lag_(window_s), watch_(max_lag_ms) {}

std::optional<LagWatch::Line> RealtimeMonitor::record_lag(double now_s, double lag_ms,
                                                          const std::function<LagCause()>& cause) {
  lag_.record(now_s, lag_ms);
  // The watch sees every epoch while it matters.
  const bool over = lag_ms > watch_.max_lag_ms();
  if (!over && !watch_.behind()) return std::nullopt;
  if (over && now_s - cause_checked_s_ >= kCauseEveryS) {
    cause_checked_s_ = now_s;
    cause_ = cause();
  }
  return watch_.observe(now_s, lag_ms, cause_.kind, cause_.text);
}

bool RealtimeMonitor::sample_due(double now_s) const {
  return samples_.empty() || now_s - samples_.back().wall_s >= kSampleEveryS;
}

void RealtimeMonitor::add_sample(const StatusSample& sample) {
  samples_.push_back(sample);
  while (samples_.size() > 2 && sample.wall_s - samples_[1].wall_s >= window_s_) samples_.pop_front();
}

WindowRates RealtimeMonitor::rates() const {
  WindowRates r;
  if (samples_.size() < 2) return r;
  const StatusSample &a = samples_.front(), &b = samples_.back();
  const double wall = b.wall_s - a.wall_s, simulated = static_cast<double>(b.steps - a.steps) * dt_ms_ * 1e-3;
  r.wall_per_simulated = simulated > 0 ? wall / simulated : 0.0;
  r.host_cores = wall > 0 ? (b.cpu_s - a.cpu_s) / wall : 0.0;
  r.spikes_per_simulated_s = simulated > 0 ? static_cast<double>(b.spikes - a.spikes) / simulated : 0.0;
  return r;
}

bool RealtimeMonitor::engine_judgement_due(double now_s) {
  if (now_s - engine_judged_s_ < window_s_) return false;
  engine_judged_s_ = now_s;
  return true;
}

std::vector<std::string> RealtimeMonitor::new_warnings(const std::vector<CostWarning>& warnings) {
  std::vector<std::string> fresh, kinds;
  for (const CostWarning& w : warnings) {
    kinds.push_back(w.kind);
    if (std::find(warnings_logged_.begin(), warnings_logged_.end(), w.kind) == warnings_logged_.end()) fresh.push_back(w.text);
  }
  warnings_logged_ = std::move(kinds);
  return fresh;
}

}  // namespace flysim
